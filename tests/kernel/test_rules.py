"""Every named rule's statement is proved by the kernel, with every witness it can use."""

from __future__ import annotations

import re

import pytest

from symattn.kernel import rules


@pytest.mark.parametrize("name", sorted(rules.registry()))
def test_rule_statement_is_proved(name):
    v = rules.get(name).check()
    assert v.status == "proved", v.summary()
    assert "exact" in v.witnesses


@pytest.mark.parametrize("name", sorted(rules.registry()))
def test_rule_names_follow_the_vocabulary(name):
    assert re.fullmatch(r"[a-z]+(_[a-z]+)*", name)
    rule = rules.get(name)
    assert rule.en and rule.zh


def test_search_finds_softmax_rules():
    names = {r.name for r in rules.search("softmax")}
    assert {"softmax_apply", "softmax_rowsum", "softmax_add_of_rowconst"} <= names
