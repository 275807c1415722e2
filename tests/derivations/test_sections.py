"""Each derivation of the chapter is checked by the kernel, with the witnesses it claims."""

from __future__ import annotations

import inspect
import io

import pytest
import sympy

from symattn.cli import derive
from symattn.derive import tally
from symattn.derive.blocks import Builder, Check, Fact, ProofBlock, Text, render, shown
from symattn.derive.sources import bundled_root, chapter
from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.errors import ProofError
from symattn.kernel.expr import Dot, index
from symattn.latex.derivation import step_scope
from symattn.latex.document import Document

CH06 = chapter(bundled_root() / "ch06")
SECTION_MODULES = [p.stem for p in CH06.scripts]
beyond, sec61 = CH06.module("beyond"), CH06.module("sec61")
counted_products, node_cost = beyond.counted_products, beyond.node_cost
rademacher_moments, total_cost = beyond.rademacher_moments, beyond.total_cost
second_moment_symbolic = beyond.second_moment_symbolic
TOKENS, WEIGHTS, lower_triangular = sec61.TOKENS, sec61.WEIGHTS, sec61.lower_triangular
rows_sum_to_one = sec61.rows_sum_to_one
positive_on_and_below_diagonal = sec61.positive_on_and_below_diagonal

FOR_ALL_SIZES = {
    "6.2 scores are dot products",
    "6.2 entries of A",
    "6.2 the attention formula",
    "6.2 rows of A sum to 1",
    "6.2 z_i is a weighted sum of values",
    "6.2 scores depend on the input",
    "6.3 score entry",
    "6.3 entry of AV",
    "6.3 rows of Z",
    "6.4 one head",
    "6.4 scores of head h",
    "6.4 rows of Z^(h)",
    "6.5 entries of O",
    "6.6 block identity",
    "6.6 shift invariance, entries",
    "6.6 shift invariance",
    "6.6 masked weights vanish",
    "6.6 masked rows sum to 1",
    "6.6 causal dependence",
}
AT_EXPLICIT_SIZES = {
    "6.1 q_i = x_i W_Q",
    "6.1 score entry at d_k = 64",
    "6.1 z_i at n = 5",
    "6.1 causal z_i at n = 5",
    "6.3 (QK^T)_11 at d_k = 3",
    "6.3 (AV)_21 at n = 3",
    "6.6 block identity at H = 3",
}


@pytest.fixture(scope="session")
def checked():
    """(sections, progress text) from checking every derivation once."""
    err = io.StringIO()
    built = derive._check_all([CH06], err)
    assert not isinstance(built, int), err.getvalue()
    return built[0][1], err.getvalue()


def proofs(checked):
    secs, _ = checked
    return {b.proof.title: b.proof for s in secs for b in s.blocks if isinstance(b, ProofBlock)}


def test_sections_in_reading_order(checked):
    secs, progress = checked
    assert [s.key for s in secs] == ["6.1", "6.2", "6.3", "6.4", "6.5", "6.6"]
    assert len(SECTION_MODULES) == len(secs)
    for name in SECTION_MODULES:
        assert f"checking {name} ({CH06.script(name)}) ..." in progress


def test_every_derivation_is_present(checked):
    assert set(proofs(checked)) == FOR_ALL_SIZES | AT_EXPLICIT_SIZES


@pytest.mark.parametrize("title", sorted(FOR_ALL_SIZES))
def test_proved_for_all_sizes(checked, title):
    proof = proofs(checked)[title]
    assert proof.for_all_sizes
    assert all(step_scope(s) == "all" for s in proof.steps)
    assert "symbolic" in proof.witnesses


@pytest.mark.parametrize("title", sorted(AT_EXPLICIT_SIZES))
def test_explicit_sizes_are_not_claimed_for_all_sizes(checked, title):
    proof = proofs(checked)[title]
    assert all(step_scope(s) in ("shown", "checked") for s in proof.steps)
    for s in proof.steps:
        assert s.verdict.ok


def test_tally_keeps_the_kinds_of_evidence_apart(checked):
    t = tally(checked[0])
    assert t.derivations == len(FOR_ALL_SIZES | AT_EXPLICIT_SIZES)
    assert t.steps_all_sizes >= 30 and t.steps_explicit >= 9 and t.steps_checked >= 1
    assert t.steps == t.steps_all_sizes + t.steps_explicit + t.steps_checked
    assert t.shapes >= 25 and t.exact_checks >= 5 and t.computations == 1
    assert {"symbolic", "exact", "numeric"} <= set(t.witnesses)


def test_facts_include_positivity_and_rejections(checked):
    facts = [b.verdict.status for s in checked[0] for b in s.blocks if isinstance(b, Fact)]
    assert facts.count("proved") == 1 and facts.count("shape_error") == 2


def test_worked_example_weights_are_checked_by_code():
    assert lower_triangular(WEIGHTS) and rows_sum_to_one(WEIGHTS)
    assert positive_on_and_below_diagonal(WEIGHTS)
    assert all(isinstance(x, sympy.Rational) for x in WEIGHTS)
    assert len(TOKENS) == WEIGHTS.rows == WEIGHTS.cols == 5


def test_perturbed_weights_fail_the_checks():
    upper = WEIGHTS.copy()
    upper[0, 1] = sympy.Rational(1, 10)
    assert not lower_triangular(upper) and not rows_sum_to_one(upper)
    off = WEIGHTS.copy()
    off[4, 4] = sympy.Rational(1, 4)
    assert lower_triangular(off) and not rows_sum_to_one(off)


def test_builder_refuses_a_false_step_and_a_failed_check():
    s = single_head()
    i, j = index("i"), index("j")
    b = Builder("x", Text("x", "x"))
    bad = Derivation(s.scores[i, j], title="swapped").step(Dot(s.Q.row(j), s.K.row(i)), "dot_def")
    step_line = inspect.currentframe().f_lineno - 1
    with pytest.raises(ProofError, match=r"x: swapped: step 1 is false") as failed:
        b.prove(bad)
    here = shown(__file__)  # relative to the working directory when inside it
    assert str(failed.value).startswith(f"{here}:{step_line}: x: swapped: step 1 is false")
    assert failed.value.site == (__file__, step_line)
    assert failed.value.step == 1 and failed.value.counterexample is not None
    with pytest.raises(ProofError, match="check failed") as failed:
        b.check("错", "wrong", False)
    assert failed.value.site == (__file__, inspect.currentframe().f_lineno - 1)
    assert not any(isinstance(x, (ProofBlock, Check)) for x in b.blocks)


def test_costs_are_read_off_the_expression_tree():
    s, mh = single_head(), multi_head()
    assert node_cost(s.scores).mul_adds == n**2 * d_k
    assert node_cost(s.X @ s.W_Q).mul_adds == n * d * d_k
    assert node_cost(s.A @ s.V).mul_adds == n**2 * d_v
    assert node_cost(s.weights).exps == n**2
    assert node_cost(mh.output).mul_adds == n * H * d_v * d
    assert sympy.expand(total_cost(s.output).mul_adds - (n**2 * d_k + n**2 * d_v + n**2)) == 0


@pytest.mark.parametrize(("sizes", "expected"), [({n: 2, d_k: 3}, 12), ({n: 3, d_k: 2}, 18)])
def test_counted_products_match_the_formula(sizes, expected):
    s = single_head()
    assert counted_products(s.scores, sizes) == expected == node_cost(s.scores).mul_adds.subs(sizes)


def test_moments_of_the_dot_product():
    assert second_moment_symbolic() == d_k
    for k in (1, 2, 3):
        assert rademacher_moments(k) == (0, k)


def test_a_figure_is_set_after_the_last_block_of_its_section(tmp_path):
    b = Builder("x", Text("甲", "A")).say("前", "before")
    b.figure("fig-x", sympy.Matrix([[1, 0], [0, 1]]), ["a", "b"], Text("图", "weights"))
    b.say("后", "after")
    doc = Document("en", "A")
    render(b.section(), doc, tmp_path / "figures")
    tex = doc.render_fragment()
    assert tex.index("before") < tex.index("after") < tex.index(r"\begin{figure}")
    assert (tmp_path / "figures" / "fig-x.en.pdf").is_file()
