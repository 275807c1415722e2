"""The differential suite's wider classes: their own evaluator, and a sample through the reader.

Unit tests of `symattn.soundness.wild` (it imports nothing from symattn; every unmutated
template is true; known identities and their classic mistakes get the right truth; sizes that
enter as numbers are judged at every size, so a mutant off by `(n-1)(n-2)` is false) and a sample
of wild claims through `symattn prove` and `symattn check` with no false claim accepted, no
crash and no alarm. A class the reader does not read yet counts as not understood, not as a
failure.
"""

from __future__ import annotations

import ast
import random
from fractions import Fraction
from pathlib import Path

import pytest

from symattn.soundness import differential as diff
from symattn.soundness import wild as W
from symattn.soundness.wild import (
    MT,
    Comp,
    DotP,
    Fn,
    Had,
    Ix,
    Lit,
    Mat,
    MEntry,
    Minus,
    MMul,
    Num,
    Plus,
    Power,
    Ratio,
    Size,
    Sum,
    Times,
    Var,
    Vec,
    WildSpec,
    decide,
)

x, y = Var("x"), Var("y")
sin, cos = (lambda u: Fn("sin", u)), (lambda u: Fn("cos", u))
n = Size("n")
i, j = Ix("i"), Ix("j")


def one(k: int) -> Num:
    return Num(Fraction(k))


def test_wild_imports_nothing_from_symattn():
    names = []
    for path in sorted(Path(W.__file__).parent.glob("*.py")):  # the wild classes' own modules
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    names = [m for m in names if not m.startswith(f"{W.__name__}.")]
    assert not [m for m in names if m.startswith("symattn")], names


@pytest.mark.parametrize("name", sorted(W.WILD_TEMPLATES))
def test_every_wild_template_unmutated_is_true(name):
    make = W.WILD_TEMPLATES[name][1]
    rng = random.Random(3)
    for _ in range(25):
        spec = make(rng)
        assert decide(spec) == "true", W.formula(spec)


def test_angle_sum_true_and_its_sign_mistake_false():
    good = WildSpec(sin(Plus(x, y)), Plus(Times(sin(x), cos(y)), Times(cos(x), sin(y))))
    bad = WildSpec(sin(Plus(x, y)), Minus(Times(sin(x), cos(y)), Times(cos(x), sin(y))))
    assert decide(good) == "true"
    assert decide(bad) == "false"
    assert decide(WildSpec(Plus(Power(sin(x), 2), Power(cos(x), 2)), one(1))) == "true"


def test_sizes_as_numbers_are_judged_at_every_size():
    gauss = Ratio(Times(n, Plus(n, one(1))), one(2))
    assert decide(WildSpec(Sum("i", one(1), n, i), gauss)) == "true"
    # off by (n-1)(n-2): equal at n = 1 and n = 2 only
    coincidence = Plus(gauss, Times(Minus(n, one(1)), Minus(n, one(2))))
    assert decide(WildSpec(Sum("i", one(1), n, i), coincidence)) == "false"
    assert decide(WildSpec(Sum("i", one(1), n, i), coincidence), at={"n": 2}) == "true"


def test_components_out_of_range_are_ill_formed():
    q, k = Vec("q", "d_k"), Vec("k", "d_k")
    body = Times(Comp(q, i), Comp(k, i))
    assert decide(WildSpec(DotP(q, k), Sum("i", one(1), Size("d_k"), body))) == "true"
    shifted = Times(Comp(q, i), Comp(k, Plus(i, one(1))))
    assert decide(WildSpec(DotP(q, k), Sum("i", one(1), Size("d_k"), shifted))) == "ill_formed"
    short = Sum("i", one(1), Minus(Size("d_k"), one(1)), body)
    assert decide(WildSpec(DotP(q, k), short)) == "false"


def test_hadamard_is_entrywise_and_not_a_product():
    a, b = Mat("A", "n", "m"), Mat("B", "n", "m")
    free = (("i", "n"), ("j", "m"))
    entry = WildSpec(MEntry(Had(a, b), i, j), Times(MEntry(a, i, j), MEntry(b, i, j)), free)
    assert decide(entry) == "true"
    swapped = WildSpec(MEntry(Had(a, b), i, j), Times(MEntry(a, i, j), MEntry(b, j, i)), free)
    assert decide(swapped) in ("false", "ill_formed")
    assert decide(WildSpec(Had(a, b), MMul(a, MT(b)))) == "ill_typed"


def test_rotation_matrices_written_out():
    t, s = Var("t"), Var("s")

    def rot(u):
        return Lit(((cos(u), W.Neg(sin(u))), (sin(u), cos(u))))

    assert decide(WildSpec(MMul(rot(t), rot(s)), rot(Plus(t, s)))) == "true"
    assert decide(WildSpec(MMul(rot(t), rot(s)), rot(Minus(t, s)))) == "false"


def test_the_generator_is_deterministic_and_mutates():
    a = [c.label for c in W.generate_wild(60, seed=4)]
    b = [c.label for c in W.generate_wild(60, seed=4)]
    assert a == b
    claims = W.generate_wild(300, seed=4)
    truths = {decide(c.spec) for c in claims}
    assert {"true", "false"} <= truths
    assert {c.template for c in claims} == set(W.WILD_TEMPLATES)
    assert any(not c.declare for c in claims) and any(c.declare for c in claims)


def test_documents_of_inference_classes_declare_nothing():
    for c in W.generate_wild(80, seed=2):
        text, line = W.document(c)
        assert text.splitlines()[line - 1].startswith("$$")
        if not c.declare:
            assert "\\in\\mathbb R" not in text, text


# the working loop runs the first claims of the sample (the generator is deterministic, so they
# are the full sample's first ones); the full sample runs with the slow tests
@pytest.mark.parametrize("count", [10, pytest.param(40, marks=pytest.mark.slow)])
def test_wild_sample_no_false_accepted_no_crash(count):
    claims = W.generate_wild(count, seed=2026)
    items = diff.run_claims(claims, jobs=1, seconds=3.0)
    assert {it.front_end for it in items} == {"prove", "check"}
    bad = [it for it in items if it.category in diff.BAD]
    assert not bad, "\n".join(it.line() + "\n    " + it.repro[:400] for it in bad)
    assert not [it for it in items if it.truth.startswith("oracle_error")]


# the working loop sends the first 6 claims (the generator is deterministic), the slow run all 12
@pytest.mark.parametrize("count", [6, pytest.param(12, marks=pytest.mark.slow)])
def test_the_context_inferred_declares_nothing_and_judges_well_typed_claims_only(tmp_path, count):
    from symattn.soundness.generate import generate
    from symattn.soundness.render import undeclared_document

    claims = generate(count, seed=4)
    text, line = undeclared_document(claims[0].spec)
    assert "\\in" not in text and text.splitlines()[line - 1].startswith("$$")
    log = tmp_path / "items.jsonl"
    items = diff.run_claims(
        claims,
        jobs=1,
        contexts=["none", "inferred"],
        front_ends=("check",),
        seconds=3.0,
        log=str(log),
    )
    inferred = [it for it in items if it.context == "inferred"]
    assert len(inferred) == len(claims)
    for it in inferred:
        if it.truth in ("ill_typed", "ill_formed"):
            assert it.category == "not_expressible", it.line()
    assert not [it for it in items if it.category in diff.BAD]
    assert len(log.read_text(encoding="utf-8").splitlines()) == len(items)


def test_the_softmax_of_a_vector_expression_is_over_its_entries():
    x, y = Vec("x", "n"), Vec("y", "n")
    shift = Times(Var("c"), W.Ones("n"))
    assert decide(WildSpec(W.VSoftmax(Plus(x, shift)), W.VSoftmax(x))) == "true"
    assert decide(WildSpec(W.VSoftmax(Times(one(3), x)), W.VSoftmax(x))) == "false"
    assert decide(WildSpec(W.VSoftmax(Plus(x, y)), W.VSoftmax(x))) == "false"
    weights = Sum("i", one(1), n, W.VComp(W.VSoftmax(x), i))
    assert decide(WildSpec(weights, one(1))) == "true"
    # a scalar added to a vector is not a shift by the ones vector: the sides are ill-typed
    assert decide(WildSpec(W.VSoftmax(Plus(x, Var("c"))), W.VSoftmax(x))) == "ill_typed"
    assert W.formula(WildSpec(W.VSoftmax(Plus(x, shift)), W.VSoftmax(x))) == (
        "\\operatorname{softmax}(x+c \\mathbf{1}_{n})=\\operatorname{softmax}(x)"
    )


def test_norms_and_products_of_three_with_their_classic_mistakes():
    xv, yv = Vec("x", "n"), Vec("y", "n")
    sq = Power(W.Norm(Plus(xv, yv)), 2)
    expanded = Plus(Plus(Power(W.Norm(xv), 2), Times(one(2), DotP(xv, yv))), Power(W.Norm(yv), 2))
    assert decide(WildSpec(sq, expanded)) == "true"
    split = Plus(Power(W.Norm(xv), 2), Power(W.Norm(yv), 2))
    assert decide(WildSpec(sq, split)) == "false"
    a, b, c = Mat("A", "n", "m"), Mat("B", "m", "d"), Mat("C", "d", "d_k")
    abc = MT(MMul(MMul(a, b), c))
    assert decide(WildSpec(abc, MMul(MMul(MT(c), MT(b)), MT(a)))) == "true"
    assert decide(WildSpec(abc, MMul(MMul(MT(a), MT(b)), MT(c)))) == "ill_typed"
    sa, sb, sc = Mat("A", "n", "n"), Mat("B", "n", "n"), Mat("C", "n", "n")
    square = MT(MMul(MMul(sa, sb), sc))
    assert decide(WildSpec(square, MMul(MMul(MT(sa), MT(sb)), MT(sc)))) == "false"


def test_reindexed_sums_and_the_triangle_in_either_order():
    a, xv, k = Mat("A", "n", "n"), Vec("x", "n"), Ix("k")
    rows = Sum("i", one(1), n, Sum("j", one(1), i, MEntry(a, i, j)))
    cols = Sum("j", one(1), n, Sum("i", j, n, MEntry(a, i, j)))
    assert decide(WildSpec(rows, cols)) == "true"
    assert decide(WildSpec(rows, Sum("j", one(1), n, Sum("i", one(1), j, MEntry(a, i, j))))) == (
        "false"
    )
    shifted = Sum("k", one(0), Minus(n, one(1)), Comp(xv, Plus(k, one(1))))
    assert decide(WildSpec(Sum("i", one(1), n, Comp(xv, i)), shifted)) == "true"
    unshifted = Sum("k", one(0), Minus(n, one(1)), Comp(xv, k))
    assert decide(WildSpec(Sum("i", one(1), n, Comp(xv, i)), unshifted)) == "ill_formed"


def test_masked_attention_under_each_mask_of_the_prose():
    def row_sum(kind, lo, hi):
        return WildSpec(Sum("j", lo, hi, MEntry(W.MaskedAttn(kind), i, j)), one(1), (("i", "n"),))

    assert decide(row_sum("causal", one(1), i)) == "true"
    assert decide(row_sum("window", one(1), i)) == "true"
    assert decide(row_sum("anti", one(1), i)) == "false"
    assert decide(row_sum("anti", i, n)) == "true"
    # the first row of the strictly lower mask is masked out entirely: 0/0, not a row of weights
    assert decide(row_sum("strict", one(1), n)) == "ill_formed"
    assert decide(WildSpec(MEntry(W.MaskedAttn("strict"), one(2), one(1)), one(1))) == "true"
    c = [c for c in W.generate_wild(400, seed=3) if c.template == "masks"][0]
    text, _ = W.document(c)
    assert "M_{ij}" in text and "A=\\operatorname{softmax}(S+M)" in text


def test_a_declaring_twin_of_a_wild_claim_is_judged_on_its_own_document():
    c = W.generate_wild(1, seed=5)[0]
    twin = W.WildClaim(c.ident + "b", c.template, c.spec, c.mutations, not c.declare)
    groups = diff._groups([c, twin], [("check",), ("check",)])
    assert len(groups) == 2


def test_entries_written_as_code_index_them():
    a, b = Mat("A", "n", "d_k"), Mat("B", "d_k", "n")
    k = Ix("k")
    body = Times(MEntry(a, i, k, "bracket"), MEntry(b, k, j, "bracket"))
    spec = WildSpec(
        MEntry(W.MMul(a, b), i, j), Sum("k", one(1), Size("d_k"), body), (("i", "n"), ("j", "n"))
    )
    assert W.formula(spec) == r"\left(A B\right)_{ij}=\sum_{k=1}^{d_k} A[i,k] B[k,j]"
    assert decide(spec) == "true"
    swapped = Times(MEntry(a, k, i, "nested"), MEntry(b, k, j, "nested"))
    wrong = WildSpec(spec.lhs, Sum("k", one(1), Size("d_k"), swapped), spec.free)
    assert "A[k][i]" in W.formula(wrong) and decide(wrong) != "true"
    claims = [c for c in W.generate_wild(400, seed=3) if c.template == "brackets"]
    assert claims and all(c.declare for c in claims)  # brackets are read for declared names only
