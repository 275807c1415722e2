"""The wild classes' templates of true identities (`WILD_TEMPLATES`).

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction

from symattn.soundness.wild.nodes import (
    MT,
    Comp,
    DotP,
    FamVec,
    Fn,
    Had,
    Ix,
    Lit,
    Mat,
    MEntry,
    Minus,
    MMul,
    Neg,
    Node,
    Num,
    Ones,
    Plus,
    Power,
    Ratio,
    Size,
    State,
    Sum,
    Times,
    Var,
    VComp,
    Vec,
    VSoftmax,
    WildSpec,
)
from symattn.soundness.wild.templates_more import (
    t_brackets,
    t_identity,
    t_indexed_vectors,
    t_masks,
    t_norms,
    t_number_lists,
    t_number_products,
    t_products,
    t_reindex,
    t_trace,
    t_undeclared_matrices,
)

# ---- templates ---------------------------------------------------------------------------------

LETTERS = (("a", "b"), ("x", "y"), ("alpha", "beta"), ("theta", "phi"))


def _n(v: int | Fraction) -> Num:
    return Num(Fraction(v))


def _arg(rng: random.Random, x: str) -> Node:
    k = rng.choice((1, 1, 1, 2, 3))
    return Var(x) if k == 1 else Times(_n(k), Var(x))


def t_trig(rng: random.Random) -> WildSpec:
    x, y = rng.choice(LETTERS)
    a, b = _arg(rng, x), _arg(rng, y)
    sin, cos = (lambda u: Fn("sin", u)), (lambda u: Fn("cos", u))
    kind = rng.randrange(7)
    if kind == 0:
        return WildSpec(sin(Plus(a, b)), Plus(Times(sin(a), cos(b)), Times(cos(a), sin(b))))
    if kind == 1:
        return WildSpec(cos(Plus(a, b)), Minus(Times(cos(a), cos(b)), Times(sin(a), sin(b))))
    if kind == 2:
        return WildSpec(sin(Minus(a, b)), Minus(Times(sin(a), cos(b)), Times(cos(a), sin(b))))
    if kind == 3:
        return WildSpec(Plus(Power(sin(a), 2), Power(cos(a), 2)), _n(1))
    if kind == 4:
        return WildSpec(sin(Times(_n(2), Var(x))), Times(_n(2), Times(sin(Var(x)), cos(Var(x)))))
    if kind == 5:
        rhs = rng.choice(
            [
                Minus(Power(cos(Var(x)), 2), Power(sin(Var(x)), 2)),
                Minus(_n(1), Times(_n(2), Power(sin(Var(x)), 2))),
                Minus(Times(_n(2), Power(cos(Var(x)), 2)), _n(1)),
            ]
        )
        return WildSpec(cos(Times(_n(2), Var(x))), rhs)
    # a 2-d rotation of a pair of features at two positions: relative angles (RoPE)
    return WildSpec(Plus(Times(cos(a), cos(b)), Times(sin(a), sin(b))), cos(Minus(a, b)))


def t_exp_log(rng: random.Random) -> WildSpec:
    x, y = rng.choice(LETTERS)
    style = rng.choice(("", "e"))

    def ex(u: Node) -> Fn:
        return Fn("exp", u, style)

    X, Y = Var(x), Var(y)
    kind = rng.randrange(6)
    if kind == 0:
        return WildSpec(ex(Plus(X, Y)), Times(ex(X), ex(Y)))
    if kind == 1:
        return WildSpec(Times(ex(X), ex(Neg(X))), _n(1))
    if kind == 2:
        return WildSpec(Fn("log", ex(X)), X)
    if kind == 3:
        return WildSpec(Fn("log", Times(ex(X), ex(Y))), Plus(X, Y))
    den = Plus(ex(X), ex(Y))
    if kind == 4:  # a softmax over two scores sums to 1
        return WildSpec(Plus(Ratio(ex(X), den), Ratio(ex(Y), den)), _n(1))
    c = Var("c")
    shifted = Ratio(ex(Plus(X, c)), Plus(ex(Plus(X, c)), ex(Plus(Y, c))))
    return WildSpec(shifted, Ratio(ex(X), den))


def t_size_coef(rng: random.Random) -> WildSpec:
    nm = rng.choice(("n", "n", "d_k", "d"))
    N = Size(nm)
    i = Ix("i")
    kind = rng.randrange(6)
    if kind == 0:
        return WildSpec(Sum("i", _n(1), N, _n(1)), N)
    if kind == 1:
        return WildSpec(Sum("i", _n(1), N, i), Ratio(Times(N, Plus(N, _n(1))), _n(2)))
    if kind == 2:
        return WildSpec(Sum("j", _n(1), N, Ratio(_n(1), N)), _n(1))
    if kind == 3:
        return WildSpec(Sum("i", _n(1), N, Minus(Times(_n(2), i), _n(1))), Power(N, 2))
    if kind == 4:  # the entries a causal mask keeps
        inner = Sum("j", _n(1), i, _n(1))
        return WildSpec(Sum("i", _n(1), N, inner), Ratio(Times(N, Plus(N, _n(1))), _n(2)))
    inner = Sum("j", _n(1), N, _n(1))
    return WildSpec(Sum("i", _n(1), N, inner), Power(N, 2))


def t_components(rng: random.Random) -> WildSpec:
    q, k = rng.choice((("q", "k"), ("u", "v"), ("x", "y")))
    size = rng.choice(("d_k", "d"))
    Q, K = Vec(q, size), Vec(k, size)
    i = Ix("i")
    kind = rng.randrange(3)
    if kind == 0:
        return WildSpec(DotP(Q, K), Sum("i", _n(1), Size(size), Times(Comp(Q, i), Comp(K, i))))
    if kind == 1:
        return WildSpec(DotP(Q, Q), Sum("i", _n(1), Size(size), Power(Comp(Q, i), 2)))
    return WildSpec(
        Sum("i", _n(1), Size(size), Times(Plus(Comp(Q, i), Comp(K, i)), Comp(K, i))),
        Plus(DotP(Q, K), DotP(K, K)),
    )


def t_hadamard(rng: random.Random) -> WildSpec:
    r, c = rng.choice((("n", "m"), ("n", "d"), ("n", "n")))
    A, B, C = Mat("A", r, c), Mat("B", r, c), Mat("C", r, c)
    i, j = Ix("i"), Ix("j")
    kind = rng.randrange(4)
    if kind == 0:
        lhs = MEntry(Had(A, B), i, j)
        return WildSpec(lhs, Times(MEntry(A, i, j), MEntry(B, i, j)), (("i", r), ("j", c)))
    if kind == 1:
        return WildSpec(Had(A, B), Had(B, A))
    if kind == 2:
        return WildSpec(MT(Had(A, B)), Had(MT(A), MT(B)))
    return WildSpec(Had(Plus(A, B), C), Plus(Had(A, C), Had(B, C)))


def _rot(t: Node) -> Lit:
    return Lit(((Fn("cos", t), Neg(Fn("sin", t))), (Fn("sin", t), Fn("cos", t))))


def t_written(rng: random.Random) -> WildSpec:
    kind = rng.randrange(4)
    t, s = rng.choice((("t", "s"), ("theta", "phi"), ("a", "b")))
    T, S = Var(t), Var(s)
    if kind == 0:
        x, y = Var("x"), Var("y")
        rhs = Lit(
            (
                (Minus(Times(x, Fn("cos", T)), Times(y, Fn("sin", T))),),
                (Plus(Times(x, Fn("sin", T)), Times(y, Fn("cos", T))),),
            )
        )
        return WildSpec(MMul(_rot(T), Lit(((x,), (y,)))), rhs)
    if kind == 1:
        return WildSpec(MMul(_rot(T), _rot(S)), _rot(Plus(T, S)))
    if kind == 2:
        a, b, c, d = Var("a"), Var("b"), Var("c"), Var("d")
        return WildSpec(MT(Lit(((a, b), (c, d)))), Lit(((a, c), (b, d))))
    m = [[rng.randint(-3, 4) for _ in range(2)] for _ in range(2)]
    v = [rng.randint(-3, 4) for _ in range(2)]
    prod = [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]]
    lhs = MMul(Lit(tuple(tuple(_n(x) for x in row) for row in m)), Lit(((_n(v[0]),), (_n(v[1]),))))
    return WildSpec(lhs, Lit(((_n(prod[0]),), (_n(prod[1]),))))


def _outer(t: int) -> Node:
    return MMul(FamVec("v", t, "d_v"), MT(FamVec("k", t, "d_k")))


def t_time_family(rng: random.Random) -> WildSpec:
    kind = rng.randrange(3)
    if kind == 0:
        return WildSpec(State(2), Plus(_outer(1), _outer(2)))
    if kind == 1:
        return WildSpec(State(3), Plus(State(1), Plus(_outer(2), _outer(3))))
    q = Vec("q", "d_k")
    rhs = Plus(MMul(State(1), q), MMul(FamVec("v", 2, "d_v"), MMul(MT(FamVec("k", 2, "d_k")), q)))
    return WildSpec(MMul(State(2), q), rhs)


def t_vector_softmax(rng: random.Random) -> WildSpec:
    """The softmax of a column vector and of expressions built from it: over its entries."""
    size = rng.choice(("n", "d"))
    a, b = rng.choice((("x", "y"), ("s", "t"), ("z", "u")))
    X, Y = Vec(a, size), Vec(b, size)
    style = rng.choice(("operatorname", "mathrm", "text"))

    def sm(u: Node) -> VSoftmax:
        return VSoftmax(u, style)

    c: Node = rng.choice((Var("c"), Var("alpha"), _n(rng.randint(2, 5))))
    shift = Times(c, Ones(size))
    i, j = Ix("i"), Ix("j")
    free = (("i", size),)
    kind = rng.randrange(8)
    if kind == 0:  # shift invariance
        return WildSpec(sm(Plus(X, shift)), sm(X))
    if kind == 1:
        return WildSpec(sm(Minus(X, shift)), sm(X))
    if kind == 2:
        body = Fn("exp", Comp(X, j), rng.choice(("", "e")))
        top = Fn("exp", Comp(X, i), body.style)
        written = rng.choice(("", "component"))  # `softmax(x)_i` or `softmax(x_i)`
        lhs = VComp(sm(X), i, written)
        return WildSpec(lhs, Ratio(top, Sum("j", _n(1), Size(size), body)), free)
    if kind == 3:  # the weights sum to 1
        return WildSpec(Sum("i", _n(1), Size(size), VComp(sm(X), i)), _n(1))
    if kind == 4:
        return WildSpec(MMul(MT(Ones(size)), sm(Plus(X, shift))), _n(1))
    if kind == 5:  # the softmax of a sum of two vectors, entry by entry
        sumv = Plus(X, Y)
        body = Fn("exp", Plus(Comp(X, j), Comp(Y, j)))
        top = Fn("exp", Plus(Comp(X, i), Comp(Y, i)))
        return WildSpec(VComp(sm(sumv), i), Ratio(top, Sum("j", _n(1), Size(size), body)), free)
    if kind == 6:
        return WildSpec(sm(Plus(Plus(X, Y), shift)), sm(Plus(Y, X)))
    return WildSpec(VComp(Plus(X, shift), i), Plus(Comp(X, i), c), free)


WILD_TEMPLATES: dict[str, tuple[int, Callable[[random.Random], WildSpec]]] = {
    "trig": (3, t_trig),
    "exp_log": (2, t_exp_log),
    "size_coef": (3, t_size_coef),
    "components": (2, t_components),
    "hadamard": (2, t_hadamard),
    "written": (2, t_written),
    "time_family": (2, t_time_family),
    "vector_softmax": (2, t_vector_softmax),
    "norms": (2, t_norms),
    "products": (2, t_products),
    "reindex": (2, t_reindex),
    "masks": (2, t_masks),
    "brackets": (2, t_brackets),
    "indexed_vectors": (2, t_indexed_vectors),
    "undeclared_matrices": (2, t_undeclared_matrices),
    "identity": (2, t_identity),
    "number_lists": (2, t_number_lists),
    "number_products": (2, t_number_products),
    "trace": (2, t_trace),
}


# Classes about inference: their documents declare nothing (a declaring variant is drawn too).
INFERRED = {
    "trig",
    "exp_log",
    "written",
    "components",
    "hadamard",
    "vector_softmax",
    "norms",
    "indexed_vectors",
    "undeclared_matrices",
    "identity",
    "trace",
}
