"""The derivation behind a verdict: named steps, each decided by the kernel; where sides part."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import d_k, n
from symattn.kernel.explain import explain
from symattn.kernel.expr import Dot, MatSym, Softmax, index
from symattn.kernel.proof import prove_equal

i, j, u = index("i"), index("j"), index("u")
S = single_head()


def test_true_claim_names_each_rule_and_proves_as_a_derivation():
    e = explain(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j)))
    assert e.verdict.status == "proved"
    assert [x.by for x in e.lines] == ["mul_apply", "transpose_apply", "dot_def"]
    assert [x.side for x in e.lines] == ["left", "left", "right"]
    assert all(x.status == "proved" for x in e.lines) and e.parted is None
    proof = e.proof("scores")
    assert proof is not None and proof.for_all_sizes
    assert [s.by for s in proof.steps] == ["mul_apply", "transpose_apply", "dot_def"]
    assert "Every step holds." in str(e)


def test_false_claim_parts_at_the_meeting_with_the_counterexample_at_each_step():
    e = explain(S.scores[i, j], Dot(S.Q.row(j), S.K.row(i)))
    assert e.verdict.status == "false" and e.parted == 3 and e.agreed == 2
    cex = e.verdict.counterexample
    assert cex is not None
    left, right = sympy.sympify(cex.lhs), sympy.sympify(cex.rhs)
    assert e.start_value == left
    assert [x.value for x in e.lines] == [left, left, right, right]
    assert [x.status for x in e.lines] == ["proved", "proved", "false", "proved"]
    shown = {(str(a), str(b)) for a, b in e.differences}
    assert shown == {("Q[i, r]", "Q[j, r]"), ("K[j, r]", "K[i, r]")}
    assert e.proof() is None
    assert "part at step 3" in e.conclusion() and "第 3 步分开" in e.conclusion("zh")


def test_the_verdict_is_the_kernels():
    a, b = S.scores[i, j], Dot(S.Q.row(j), S.K.row(i))
    assert explain(a, b).verdict == prove_equal(a, b)


def test_matrices_are_explained_entry_by_entry():
    Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
    e = explain((Q @ K.T).T, K @ Q.T)
    assert e.verdict.status == "proved"
    assert [x.by for x in e.lines] == [
        "transpose_apply",
        "mul_apply",
        "transpose_apply",
        "transpose_apply",
        "mul_apply",
    ]
    bad = explain((Q @ K.T).T, Q @ K.T)
    assert bad.verdict.status == "false" and bad.parted == 4


def test_definitions_open_in_a_step_of_their_own():
    A = MatSym("A", n, n)
    defs = {A: Softmax(S.scores / sympy.sqrt(d_k))}
    e = explain(sympy.Sum(A[i, j], (j, 1, n)), sympy.Integer(1), defs=defs)
    assert e.verdict.status == "proved"
    assert e.lines[0].by == "def" and "softmax_apply" in [x.by for x in e.lines]
    assert all(x.status == "proved" for x in e.lines)


@pytest.mark.parametrize(
    "claim",
    [
        lambda: (S.scores[i, j], Dot(S.Q.row(i), S.K.row(j))),
        lambda: ((S.scores / sympy.sqrt(d_k))[i, j], Dot(S.Q.row(i), S.K.row(j)) / sympy.sqrt(d_k)),
        lambda: ((S.scores + S.scores)[i, j], 2 * Dot(S.Q.row(i), S.K.row(j))),
    ],
)
def test_every_line_is_a_kernel_proved_identity(claim):
    e = explain(*claim())
    assert e.lines and all(prove_equal(x.before, x.after).status == "proved" for x in e.lines)


def test_json_keeps_the_steps_and_where_they_part():
    data = explain(S.scores[i, j], Dot(S.Q.row(j), S.K.row(i))).to_json()
    assert data["parted_at"] == 3 and data["agreed_steps"] == 2
    assert [s["rule"] for s in data["steps"]][:2] == ["mul_apply", "transpose_apply"]
    assert data["steps"][2]["status"] == "false" and data["steps"][0]["value"] is not None


def test_a_line_the_kernel_did_not_prove_reads_as_a_question():
    e = explain(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j)))
    first = e.lines[0]
    shaky = type(first)(first.before, first.after, first.by, first.side, "unknown")
    text = str(type(e)(e.lhs, e.rhs, e.verdict, (shaky, *e.lines[1:])))
    assert "=? " in text and "(not proved: unknown)" in text
    assert type(e)(e.lhs, e.rhs, e.verdict, (shaky,)).proof() is None
