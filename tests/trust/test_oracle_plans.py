"""The oracle's size plans rule out a coincidence of the sizes, and its comparison is exact where
every value is rational (`symattn/soundness/oracle/degrees.py`, `grid.py`, `decide.py`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from symattn.soundness import oracle as O
from symattn.soundness.oracle import (
    Add,
    ClaimSpec,
    D,
    I,
    Num,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
    decide,
)
from symattn.soundness.oracle.degrees import Bound, bound
from symattn.soundness.oracle.grid import grid

n, d_k, d_v = D("n"), D("d_k"), D("d_v")
Z = Sym("Z", n, d_v)
S = Sym("S", n, n)
SYMBOLIC = [c for c in O.CONTEXTS if c.explicit is None]


def num(x: int | Fraction) -> Num:
    return Num(Fraction(x))


def size(dim: O.Dim) -> Sqrt:
    """The size as a number of the claim."""
    return Sqrt(dim, 2)


def minus(x: O.Node, k: int) -> O.Node:
    return SAdd(x, num(-k))


def product(dim: O.Dim, roots: list[int]) -> O.Node:
    out: O.Node = minus(size(dim), roots[0])
    for r in roots[1:]:
        out = SMul(out, minus(size(dim), r))
    return out


# Two sizes that enter as numbers: (d_k-2)(d_k-3) and (n-1)(n-2) agree whenever d_k = n + 1.
LEFT = SAdd(num(2), product(d_k, [2, 3]))
RIGHT = SAdd(num(2), product(n, [1, 2]))


def _d_k_expanded() -> O.Node:
    """`d_k^2 - 5 d_k + 8`: the same polynomial as LEFT, written out."""
    return SAdd(SAdd(Sqrt(d_k, 4), SMul(num(-5), size(d_k))), num(8))


FALSE_BY_COINCIDENCE = {
    "coefficients in two sizes": ClaimSpec(Tr(Scale(LEFT, Tr(Z))), Scale(RIGHT, Tr(Tr(Z)))),
    "a size against another plus one": ClaimSpec(
        Scale(size(d_k), Z), Scale(SAdd(size(n), num(1)), Z)
    ),
    "sum bounds in two sizes": ClaimSpec(
        SSum(num(1), "j", I(1), I("n")), SSum(num(1), "j", I(1), I("d_k", -1))
    ),
}


TRUE_TWINS = {
    "coefficients in two sizes": ClaimSpec(Tr(Scale(LEFT, Tr(Z))), Scale(_d_k_expanded(), Z)),
    "a size against another plus one": ClaimSpec(
        Scale(size(d_k), Z), Scale(SAdd(size(d_k), num(0)), Z)
    ),
    "sum bounds in two sizes": ClaimSpec(SSum(num(1), "j", I(1), I("n")), size(n)),
}


@pytest.mark.parametrize("name", sorted(FALSE_BY_COINCIDENCE))
@pytest.mark.parametrize("ctx", SYMBOLIC, ids=lambda c: c.name)
def test_a_claim_true_only_where_two_sizes_happen_to_agree_is_false(name, ctx):
    assert decide(FALSE_BY_COINCIDENCE[name], ctx).truth == "false"
    got = decide(TRUE_TWINS[name], ctx)
    assert got.truth == "true", got.detail
    assert "above every constant" in got.detail  # the evidence says why no coincidence


def test_the_coincidence_holds_at_the_sizes_where_the_two_agree():
    c = FALSE_BY_COINCIDENCE["coefficients in two sizes"]
    assert O.decide_at(c, {"n": 4, "d": 7, "d_k": 5, "d_v": 2, "H": 3}).truth == "true"
    assert O.decide_at(c, {"n": 4, "d": 7, "d_k": 4, "d_v": 2, "H": 3}).truth == "false"


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_a_polynomial_vanishing_at_all_but_one_of_the_plans_is_seen(degree):
    """`(n - r_1)...(n - r_D) Z = 0`: the roots put at the first D values of n the grid itself
    chooses; it has D + 1 of them, so the claim is false at the last."""
    probe = ClaimSpec(Scale(product(n, [1] * degree), Z), Scale(num(0), Z))
    b = bound(probe, O.Shapes(O.NO_ASSUMPTION))
    assert b.sizes == {"n": degree}
    values = sorted({p["n"] for p in grid(b).plans})
    assert len(values) == degree + 1 and min(values) > b.floor
    c = ClaimSpec(Scale(product(n, values[:degree]), Z), Scale(num(0), Z))
    assert decide(c).truth == "false"
    plan = {"d": 5, "d_k": 4, "d_v": 6, "H": 2}
    assert all(O.decide_at(c, plan | {"n": v}).truth == "true" for v in values[:degree])
    assert O.decide_at(c, plan | {"n": values[-1]}).truth == "false"


def test_a_softmax_scale_in_a_size_is_bounded_by_its_argument():
    """Two softmaxes of generic scores agree only where their scales do: `sqrt(d_k)` against
    `n - 1` agree at (d_k, n) = (4, 3), (9, 4), ...: the sizes inside the softmax count."""
    c = ClaimSpec(Softmax(Scale(Sqrt(d_k, 1), S)), Softmax(Scale(minus(size(n), 1), S)))
    b = bound(c, O.Shapes(O.NO_ASSUMPTION))
    assert b.sizes["d_k"] >= 1 and b.sizes["n"] >= 1 and "d_k" in b.halves
    assert decide(c).truth == "false"
    twin = ClaimSpec(Softmax(Scale(Sqrt(d_k, 1), S)), Softmax(Scale(Sqrt(d_k, 1), S)))
    assert decide(twin).truth == "true"


@pytest.mark.parametrize("ctx", SYMBOLIC, ids=lambda c: c.name)
def test_grid_plans_satisfy_the_relations_with_distinct_values_of_each_size(ctx):
    b = Bound({"n": 2, "d_v": 1, "H": 1}, 3, {"i": 2}, frozenset(), 3)
    g = grid(b, ctx.relation)
    assert g.settles and g.low == {"i": 3}
    for p in g.plans:
        assert set(p) == set(O.DIM_NAMES) and min(p.values()) > 3
        if ctx.relation == "d_v=d/H":
            assert p["d"] == p["H"] * p["d_v"]
        if ctx.relation == "d_k=d_v":
            assert p["d_k"] == p["d_v"]
    assert len({p["n"] for p in g.plans}) == 3
    # the lower set: no plan raises two sizes past the total degree
    assert len(g.plans) == len({tuple(sorted(p.items())) for p in g.plans})


def test_points_sampled_keep_every_point_of_the_first_values_of_each_index():
    free = (("i", n), ("j", n))
    plan = {"n": 20, "d": 5, "d_k": 4, "d_v": 6, "H": 2}
    pts = O.points(free, plan, seed=3, low={"i": 4, "j": 3})
    assert len(pts) <= O.MAX_POINTS
    for i in range(1, 5):
        for j in range(1, 4):
            assert {"i": i, "j": j} in pts


def test_a_tiny_coefficient_is_not_hidden_by_a_tolerance():
    """Every value is rational here, so the sides are compared exactly (random integer entries):
    `Z + 10^-12 Z = Z` is false although the sides agree within any float tolerance."""
    tiny = num(Fraction(1, 10**12))
    assert decide(ClaimSpec(Add(Z, Scale(tiny, Z)), Z)).truth == "false"
    assert decide(ClaimSpec(Add(Z, Scale(tiny, Z)), Scale(SAdd(num(1), tiny), Z))).truth == "true"
    # a square root of a size that is no square is no rational: floats there, and still true
    half = ClaimSpec(Scale(Sqrt(d_k, 1), Scale(Sqrt(d_k, 1), Z)), Scale(size(d_k), Z))
    assert decide(half).truth == "true"


def test_an_index_bound_nowhere_stays_ill_formed_and_is_no_size():
    c = ClaimSpec(SSum(num(1), "j", I(1), I("k")), size(n))
    assert bound(c, O.Shapes(O.NO_ASSUMPTION)).sizes.keys() <= set(O.DIM_NAMES)
    assert decide(c).truth == "ill_formed"


def test_a_masked_softmax_counts_its_row_in_every_size_of_the_claim():
    """The row sum of a masked softmax runs over the first i entries: its count is affine in
    the row index and so in every size the claim mentions, wherever they appear."""
    from symattn.soundness.oracle import Entry, Mask

    W = Sym("W", d_k, d_v)  # d_k only in a shape, written after the softmax
    rhs = SAdd(Entry(S, I("i"), I("j")), SMul(num(0), Entry(W, I(1), I(1))))
    c = ClaimSpec(Entry(Softmax(Mask(S)), I("i"), I("j")), rhs, (("i", n), ("j", n)))
    b = bound(c, O.Shapes(O.NO_ASSUMPTION))
    assert b.sizes.get("d_k", 0) >= 1 and b.indices.get("i", 0) >= 1
