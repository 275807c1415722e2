"""Each branch of the error tree reaches the command line as its exit code and one message line.

`symattn.cli._dispatch` is replaced by one that raises, so every branch is tried in-process; two
real commands show the same for input a user gets wrong.
"""

from __future__ import annotations

import pytest
from cli_helpers import cli

import symattn.cli
from symattn.kernel import errors
from symattn.kernel.limits import TimeBudgetExceeded

BRANCHES = [
    (errors.InputError("bad input", where="--dims"), 2, "symattn rules: error: bad input"),
    (errors.ParseError("unexpected '!'", errors.Position(1, 4)), 2, "symattn rules: error: 1:4:"),
    (
        errors.DimError("a dimension must be a positive integer, not 0"),
        2,
        "symattn rules: error: a",
    ),
    (errors.UnknownNameError("unknown rule 'x'"), 2, "symattn rules: error: unknown rule 'x'"),
    (errors.ResourceError("too large"), 2, "symattn rules: error: too large"),
    (TimeBudgetExceeded("gave up after 1 s"), 2, "symattn rules: error: gave up"),
    (errors.NotSupported("no rule"), 2, "symattn rules: error: no rule"),
    (errors.InternalError("lost"), 2, "symattn rules: error: lost"),
    (errors.SoundnessAlarm("alarm"), 2, "symattn rules: error: alarm"),
    (errors.ShapeError("cannot add X and Z"), 1, "symattn rules: error: cannot add"),
    (errors.ProofError("step 1 is false", step=1), 1, "symattn rules: step 1 is false"),
    (ZeroDivisionError("division by zero"), 2, "symattn rules: internal error (please report)"),
    (errors.Signal("escaped"), 2, "symattn rules: internal error (please report): Signal"),
]


@pytest.mark.parametrize(("exc", "code", "start"), BRANCHES, ids=lambda x: type(x).__name__)
def test_each_branch_has_its_exit_code_and_one_line(monkeypatch, exc, code, start):
    def boom(args):
        raise exc

    monkeypatch.setattr(symattn.cli, "_dispatch", boom)
    r = cli("rules")
    assert r.returncode == code
    assert r.stderr.startswith(start)
    assert r.stderr.count("\n") == 1
    assert "Traceback" not in r.stderr


def test_a_hint_stays_under_its_message(monkeypatch):
    def boom(args):
        raise errors.ShapeError("cannot multiply Q by K\n  hint: did you mean Q @ K.T?")

    monkeypatch.setattr(symattn.cli, "_dispatch", boom)
    r = cli("rules")
    assert r.stderr.splitlines() == [
        "symattn rules: error: cannot multiply Q by K",
        "  hint: did you mean Q @ K.T?",
    ]


def test_input_errors_of_real_commands_exit_2(tmp_path):
    r = cli("check", str(tmp_path / "missing.md"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    r = cli("prove", "Q = Q", "--dims", "Q: n x")
    assert r.returncode == 2 and "--dims" in r.stderr and "Traceback" not in r.stderr
