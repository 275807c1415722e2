"""Every named rule's statement is proved by the kernel, with every witness it can use."""

from __future__ import annotations

import re

import pytest

from symattn.kernel import rules
from symattn.kernel.dims import d_k, n
from symattn.kernel.errors import ProofError, SymattnError
from symattn.kernel.expr import MatSym


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


def test_an_unprovable_rule_is_refused_at_registration():
    Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
    with pytest.raises(ProofError, match=r"^rule 'add_comm_wrong' not registered: .*\(false\)"):
        rules.register("add_comm_wrong", "wrong", "错", (Q + K, Q + Q))
    assert "add_comm_wrong" not in rules.registry()


@pytest.mark.parametrize(
    ("name", "message"),
    [("mul_apply", r"exists already"), ("algebra", r"exists already"), ("Bad-Name", r"lowercase")],
)
def test_registration_refuses_taken_or_malformed_names(name, message):
    X = MatSym("X", n, n)
    with pytest.raises(SymattnError, match=message):
        rules.register(name, "x", "x", (X, X))


def test_built_in_rules_cannot_be_unregistered():
    with pytest.raises(SymattnError, match=r"built-in rules stay"):
        rules.unregister("mul_apply")
