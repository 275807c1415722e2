"""The differential generator's templates: random well-typed expressions and true identities.

Imports only the standard library and the suite's own AST (`symattn.soundness.oracle`); nothing
from the kernel. Each template builds a claim that holds for every size (`TEMPLATES`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from fractions import Fraction

from symattn.soundness.oracle import (
    Add,
    Block,
    ClaimSpec,
    Concat,
    D,
    Dim,
    Dot,
    Entry,
    FromCol,
    HeadMat,
    I,
    Ix,
    Mask,
    MatMul,
    MSum,
    Node,
    Num,
    Ones,
    Row,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
)

n, d, d_k, d_v, Hd = D("n"), D("d"), D("d_k"), D("d_v"), D("H")


HD_V = D("H", "d_v")


# Leaves by shape: the chapter's names with their conventional shapes, and a few more.
LEAVES: dict[str, tuple[Dim, Dim]] = {
    "Q": (n, d_k),
    "K": (n, d_k),
    "V": (n, d_v),
    "Z": (n, d_v),
    "X": (n, d),
    "A": (n, n),
    "S": (n, n),
    "M": (n, n),
    "W_Q": (d, d_k),
    "W_K": (d, d_k),
    "W_V": (d, d_v),
    "P": (d_k, d_v),
    "B": (d_v, d_k),
    "C": (d_k, d_k),
    "G": (d, d),
}


INNER: tuple[Dim, ...] = (n, d, d_k, d_v)


# The bound letter the chapter uses for a sum over each dim.
LETTER = {"n": "j", "d_k": "r", "d_v": "u", "d": "c", "H": "h"}


# Free index letters by range.
FREE = {"n": ("i", "l"), "d_k": ("s",), "d_v": ("w",), "d": ("p",)}


# ---- random well-typed matrix expressions ---------------------------------------------------


def leaves_of(rows: Dim, cols: Dim) -> list[str]:
    return [k for k, (r, c) in LEAVES.items() if r == rows and c == cols]


def leaf(name: str) -> Sym:
    r, c = LEAVES[name]
    return Sym(name, r, c)


def scalar_const(rng: random.Random) -> Node:
    return rng.choice([Num(Fraction(2)), Sqrt(d_k, -1), Sqrt(d_v, -1), Num(Fraction(1, 2))])


def rand_mat(rng: random.Random, rows: Dim, cols: Dim, depth: int) -> Node:
    """A random well-typed matrix expression of shape rows x cols (no assumptions needed)."""
    names = leaves_of(rows, cols)
    tnames = leaves_of(cols, rows)
    if depth <= 0 or rng.random() < 0.35:
        if names and (not tnames or rng.random() < 0.7):
            return leaf(rng.choice(names))
        if tnames:
            return Tr(leaf(rng.choice(tnames)))
        k = rng.choice([x for x in INNER if leaves_of(rows, x) and leaves_of(x, cols)] or [None])
        if k is not None:
            return MatMul(
                leaf(rng.choice(leaves_of(rows, k))), leaf(rng.choice(leaves_of(k, cols)))
            )
        depth = max(depth, 1)
    op = rng.choices(["mul", "tr", "scale", "add", "softmax"], [5, 2, 2, 1, 1])[0]
    if op == "tr":
        return Tr(rand_mat(rng, cols, rows, depth - 1))
    if op == "scale":
        return Scale(scalar_const(rng), rand_mat(rng, rows, cols, depth - 1))
    if op == "add":
        return Add(rand_mat(rng, rows, cols, depth - 1), rand_mat(rng, rows, cols, depth - 1))
    if op == "softmax" and rows == n and cols == n:
        return Softmax(rand_mat(rng, rows, cols, depth - 1))
    k = rng.choice(INNER)
    return MatMul(rand_mat(rng, rows, k, depth - 1), rand_mat(rng, k, cols, depth - 1))


def rand_shape(rng: random.Random) -> tuple[Dim, Dim]:
    return rng.choice(INNER), rng.choice(INNER)


def scores(rng: random.Random) -> Node:
    """A random n x n score matrix: S, QK^T, QK^T/sqrt(d_k), XW_QW_K^TX^T, ..."""
    q, k = rng.choice([("Q", "K"), ("K", "Q"), ("Q", "Q")])
    options: list[Callable[[], Node]] = [
        lambda: leaf("S"),
        lambda: MatMul(leaf(q), Tr(leaf(k))),
        lambda: Scale(Sqrt(d_k, -1), MatMul(leaf("Q"), Tr(leaf("K")))),
        lambda: Scale(Num(Fraction(2)), leaf("S")),
        lambda: rand_mat(rng, n, n, 2),
    ]
    return rng.choice(options)()


def _free(*pairs: tuple[str, Dim]) -> tuple[tuple[str, Dim], ...]:
    return tuple(pairs)


# ---- templates of true identities ------------------------------------------------------------


def t_transpose_product(rng: random.Random) -> ClaimSpec:
    rows, cols = rand_shape(rng)
    k = rng.choice(INNER)
    a, b = rand_mat(rng, rows, k, 1), rand_mat(rng, k, cols, 1)
    return ClaimSpec(Tr(MatMul(a, b)), MatMul(Tr(b), Tr(a)))


def t_transpose_misc(rng: random.Random) -> ClaimSpec:
    rows, cols = rand_shape(rng)
    a, b = rand_mat(rng, rows, cols, 1), rand_mat(rng, rows, cols, 1)
    kind = rng.randrange(3)
    if kind == 0:
        return ClaimSpec(Tr(Add(a, b)), Add(Tr(a), Tr(b)))
    if kind == 1:
        c = scalar_const(rng)
        return ClaimSpec(Tr(Scale(c, a)), Scale(c, Tr(a)))
    return ClaimSpec(Tr(Tr(a)), a)


def t_entry_product(rng: random.Random) -> ClaimSpec:
    rows, cols = rand_shape(rng)
    k = rng.choice(INNER)
    a, b = rand_mat(rng, rows, k, 1), rand_mat(rng, k, cols, 1)
    i, j = _two_free(rows, cols)
    r = _bound(k, {i, j})
    rhs = SSum(SMul(Entry(a, I(i), I(r)), Entry(b, I(r), I(j))), r, I(1), I(k.factors[0]))
    return ClaimSpec(Entry(MatMul(a, b), I(i), I(j)), rhs, _free((i, rows), (j, cols)))


def _two_free(rows: Dim, cols: Dim) -> tuple[str, str]:
    i = FREE[rows.factors[0]][0]
    cands = [x for x in FREE[cols.factors[0]] if x != i]
    j = cands[0] if cands else {"n": "l"}.get(cols.factors[0], "t")
    if rows == cols and rows == n:
        return "i", "j"
    return i, j


BOUND_ALT = {"n": "k", "d_k": "t", "d_v": "e", "d": "b", "H": "g"}


def _bound(k: Dim, taken: set[str]) -> str:
    letter = LETTER[k.factors[0]]
    return letter if letter not in taken else BOUND_ALT[k.factors[0]]


ROW_NAMES = ("Q", "K", "V", "X", "Z")


def t_entry_dot(rng: random.Random) -> ClaimSpec:
    width = rng.choice([d_k, d_k, d_v, d])
    names = [k for k in ROW_NAMES if LEAVES[k] == (n, width)]
    a, b = rng.choice(names), rng.choice(names)
    lhs = Entry(MatMul(leaf(a), Tr(leaf(b))), I("i"), I("j"))
    kind = rng.randrange(3)
    if kind == 0:
        rhs: Node = Dot(Row(leaf(a), I("i")), Row(leaf(b), I("j")))
    elif kind == 1:
        rhs = Entry(MatMul(leaf(b), Tr(leaf(a))), I("j"), I("i"))
    else:
        rhs = Dot(Row(leaf(b), I("j")), Row(leaf(a), I("i")))
    return ClaimSpec(lhs, rhs, _free(("i", n), ("j", n)))


def t_outer_as_dot(rng: random.Random) -> ClaimSpec:
    """`q_i k_j^T = q_i . k_j`: a 1 x 1 product standing for a scalar (the textbook reading)."""
    a, b = rng.choice([("Q", "K"), ("K", "Q"), ("Q", "Q")])
    lhs = MatMul(Row(leaf(a), I("i")), Tr(Row(leaf(b), I("j"))))
    return ClaimSpec(
        lhs, Dot(Row(leaf(a), I("i")), Row(leaf(b), I("j"))), _free(("i", n), ("j", n))
    )


def t_mixed_orientation(rng: random.Random) -> ClaimSpec:
    """`q_i^T k_j = k_j q_i^T` (ill-typed under either vector convention)."""
    a, b = rng.choice([("Q", "K"), ("Q", "Q"), ("K", "Q")])
    j = "j" if a != b else "i"
    u, v = Row(leaf(a), I("i")), Row(leaf(b), I(j))
    free = _free(("i", n), ("j", n)) if j == "j" else _free(("i", n))
    return ClaimSpec(MatMul(Tr(u), v), MatMul(v, Tr(u)), free)


def t_row_product(rng: random.Random) -> ClaimSpec:
    name = rng.choice(ROW_NAMES)
    rows, k = LEAVES[name]
    cols = rng.choice(INNER)
    b = rand_mat(rng, k, cols, 1)
    a = leaf(name)
    return ClaimSpec(Row(MatMul(a, b), I("i")), MatMul(Row(a, I("i")), b), _free(("i", n)))


def _weights(rng: random.Random) -> Node:
    return rng.choice(
        [lambda: leaf("A"), lambda: Softmax(scores(rng)), lambda: rand_mat(rng, n, n, 1)]
    )()


def t_row_mix(rng: random.Random) -> ClaimSpec:
    w = _weights(rng)
    v = leaf(rng.choice(["V", "Q", "K", "X", "Z"]))
    rhs = MSum(Scale(Entry(w, I("i"), I("j")), Row(v, I("j"))), "j", I(1), I("n"))
    return ClaimSpec(Row(MatMul(w, v), I("i")), rhs, _free(("i", n)))


def t_entry_mix(rng: random.Random) -> ClaimSpec:
    w = _weights(rng)
    vname = rng.choice(["V", "Z", "Q", "X"])
    v = leaf(vname)
    col = LEAVES[vname][1]
    u = FREE[col.factors[0]][0]
    body = SMul(Entry(w, I("i"), I("j")), Entry(v, I("j"), I(u)))
    rhs = SSum(body, "j", I(1), I("n"))
    return ClaimSpec(Entry(MatMul(w, v), I("i"), I(u)), rhs, _free(("i", n), (u, col)))


def t_scale_commutes(rng: random.Random) -> ClaimSpec:
    rows, cols = rand_shape(rng)
    k = rng.choice(INNER)
    a, b = rand_mat(rng, rows, k, 1), rand_mat(rng, k, cols, 1)
    c = scalar_const(rng)
    rhs = MatMul(Scale(c, a), b) if rng.random() < 0.5 else MatMul(a, Scale(c, b))
    return ClaimSpec(Scale(c, MatMul(a, b)), rhs)


def t_entry_transpose(rng: random.Random) -> ClaimSpec:
    rows, cols = rand_shape(rng)
    m = rand_mat(rng, rows, cols, 1)
    i, j = _two_free(cols, rows)
    return ClaimSpec(Entry(Tr(m), I(i), I(j)), Entry(m, I(j), I(i)), _free((i, cols), (j, rows)))


def t_entry_add(rng: random.Random) -> ClaimSpec:
    rows, cols = rand_shape(rng)
    a, b = rand_mat(rng, rows, cols, 1), rand_mat(rng, rows, cols, 1)
    i, j = _two_free(rows, cols)
    rhs = SAdd(Entry(a, I(i), I(j)), Entry(b, I(i), I(j)))
    return ClaimSpec(Entry(Add(a, b), I(i), I(j)), rhs, _free((i, rows), (j, cols)))


def _head_body(rng: random.Random) -> Node:
    h = I("h")
    return rng.choice(
        [
            lambda: HeadMat("Z", h, n, d_v),
            lambda: HeadMat("Z", h, n, d_v),
            lambda: MatMul(leaf("X"), HeadMat("W_V", h, d, d_v)),
        ]
    )()


def t_concat_block(rng: random.Random) -> ClaimSpec:
    body = _head_body(rng)
    cols = rng.choice([d, d, n, d_k])
    wo = Sym("W_O", HD_V, cols)
    lhs = MatMul(Concat(body, "h", Hd), wo)
    rhs = MSum(MatMul(body, Block(wo, I("h"), d_v, Hd)), "h", I(1), I("H"))
    return ClaimSpec(lhs, rhs)


def t_concat_entry(rng: random.Random) -> ClaimSpec:
    body = HeadMat("Z", I("h"), n, d_v)
    wo = Sym("W_O", HD_V, d)
    lhs = Entry(MatMul(Concat(body, "h", Hd), wo), I("i"), I("p"))
    inner = Entry(MatMul(body, Block(wo, I("h"), d_v, Hd)), I("i"), I("p"))
    if rng.random() < 0.5:
        u = "u"
        inner_sum = SSum(
            SMul(Entry(body, I("i"), I(u)), Entry(Block(wo, I("h"), d_v, Hd), I(u), I("p"))),
            u,
            I(1),
            I("d_v"),
        )
        rhs: Node = SSum(inner_sum, "h", I(1), I("H"))
    else:
        rhs = SSum(inner, "h", I(1), I("H"))
    return ClaimSpec(lhs, rhs, _free(("i", n), ("p", d)))


def t_head_entry(rng: random.Random) -> ClaimSpec:
    name, width = rng.choice([("W_Q", d_k), ("W_K", d_k), ("W_V", d_v)])
    w = HeadMat(name, I("h"), d, width)
    x = leaf("X")
    t = FREE[width.factors[0]][0]
    rhs = SSum(SMul(Entry(x, I("i"), I("c")), Entry(w, I("c"), I(t))), "c", I(1), I("d"))
    return ClaimSpec(Entry(MatMul(x, w), I("i"), I(t)), rhs, _free(("i", n), (t, width), ("h", Hd)))


def t_softmax_rowsum(rng: random.Random) -> ClaimSpec:
    s = scores(rng)
    return ClaimSpec(
        SSum(Entry(Softmax(s), I("i"), I("j")), "j", I(1), I("n")),
        Num(Fraction(1)),
        _free(("i", n)),
    )


def t_ones_rowsum(rng: random.Random) -> ClaimSpec:
    s = scores(rng)
    w = Softmax(Mask(s)) if rng.random() < 0.5 else Softmax(s)
    return ClaimSpec(MatMul(w, Ones(n, D(1))), Ones(n, D(1)))


def t_causal_rowsum(rng: random.Random) -> ClaimSpec:
    s = scores(rng)
    body = Entry(Softmax(Mask(s)), I("i"), I("j"))
    return ClaimSpec(SSum(body, "j", I(1), I("i")), Num(Fraction(1)), _free(("i", n)))


def t_causal_row(rng: random.Random) -> ClaimSpec:
    w = Softmax(Mask(scores(rng)))
    v = leaf(rng.choice(["V", "Z", "Q"]))
    rhs = MSum(Scale(Entry(w, I("i"), I("j")), Row(v, I("j"))), "j", I(1), I("i"))
    return ClaimSpec(Row(MatMul(w, v), I("i")), rhs, _free(("i", n)))


def t_causal_cut(rng: random.Random) -> ClaimSpec:
    """`sum_{j=1}^{n} w_ij V_ju = sum_{j=1}^{i} w_ij V_ju` for causal weights (j > i gives 0)."""
    w = Softmax(Mask(scores(rng)))
    body = SMul(Entry(w, I("i"), I("j")), Entry(leaf("V"), I("j"), I("u")))
    lhs = SSum(body, "j", I(1), I("n"))
    return ClaimSpec(lhs, SSum(body, "j", I(1), I("i")), _free(("i", n), ("u", d_v)))


def t_sum_split(rng: random.Random) -> ClaimSpec:
    """`sum_{j=1}^{i} x_j = sum_{j=1}^{i-1} x_j + x_i`: the empty sum at i = 1 is 0."""
    w = _weights(rng)
    body = SMul(Entry(w, I("i"), I("j")), Entry(leaf("V"), I("j"), I("u")))
    last = subst(body, "j", I("i"))
    lhs = SSum(body, "j", I(1), I("i"))
    rhs = SAdd(SSum(body, "j", I(1), I("i", -1)), last)
    return ClaimSpec(lhs, rhs, _free(("i", n), ("u", d_v)))


def t_shift(rng: random.Random) -> ClaimSpec:
    s = scores(rng)
    return ClaimSpec(Softmax(Add(s, FromCol("c", n, n))), Softmax(s))


def t_dot_commutes(rng: random.Random) -> ClaimSpec:
    a, b = rng.choice([("Q", "K"), ("K", "Q"), ("V", "Z")])
    u, v = Row(leaf(a), I("i")), Row(leaf(b), I("j"))
    return ClaimSpec(Dot(u, v), Dot(v, u), _free(("i", n), ("j", n)))


def t_scaled_softmax(rng: random.Random) -> ClaimSpec:
    """`softmax(QK^T/sqrt(d_k)) V` written two ways (scale inside the product or outside)."""
    qk = MatMul(leaf("Q"), Tr(leaf("K")))
    c = Sqrt(d_k, -1)
    other = rng.choice(
        [MatMul(Scale(c, leaf("Q")), Tr(leaf("K"))), MatMul(leaf("Q"), Scale(c, Tr(leaf("K"))))]
    )
    v = leaf("V")
    return ClaimSpec(MatMul(Softmax(Scale(c, qk)), v), MatMul(Softmax(other), v))


# ---- sizes as numbers: coefficients, sum bounds and polynomials in the sizes -----------------


def size_num(dim: Dim, power: int = 1) -> Node:
    """The size `dim ** power` as a number of the claim (`Sqrt` of even power)."""
    return Sqrt(dim, 2 * power)


def minus(x: Node, k: int) -> Node:
    return SAdd(x, Num(Fraction(-k))) if k else x


def vanishing(dim: Dim, roots: tuple[int, ...]) -> Node:
    """`(dim - a)(dim - b)...`: zero at those sizes only."""
    out: Node = minus(size_num(dim), roots[0])
    for a in roots[1:]:
        out = SMul(out, minus(size_num(dim), a))
    return out


# Roots at the small sizes a witness may try first (1, 2, 3): a claim off by a multiple of such
# a product holds at small sizes only; the oracle sees it false at the plans its degree bound
# asks for (`oracle/grid.py`), wherever the roots lie.
SMALL_ROOTS: tuple[tuple[int, ...], ...] = ((2, 3), (1, 2), (2,), (1, 2, 3), (2, 2))


SIZE_DIMS: tuple[Dim, ...] = (n, d_k)


def t_size_count(rng: random.Random) -> ClaimSpec:
    """`sum_{j=1}^{n} (w_ij + 1) = 1 + n`, `sum_{r=1}^{d_k} (q_ir k_jr + 1) = (QK^T)_ij + d_k`."""
    if rng.random() < 0.5:
        w = Softmax(scores(rng))
        body = SAdd(Entry(w, I("i"), I("j")), Num(Fraction(1)))
        return ClaimSpec(
            SSum(body, "j", I(1), I("n")), SAdd(Num(Fraction(1)), size_num(n)), _free(("i", n))
        )
    q, k = rng.choice([("Q", "K"), ("Q", "Q"), ("K", "Q")])
    prod = SMul(Entry(leaf(q), I("i"), I("r")), Entry(leaf(k), I("j"), I("r")))
    lhs = SSum(SAdd(prod, Num(Fraction(1))), "r", I(1), I("d_k"))
    rhs = SAdd(Entry(MatMul(leaf(q), Tr(leaf(k))), I("i"), I("j")), size_num(d_k))
    return ClaimSpec(lhs, rhs, _free(("i", n), ("j", n)))


def t_size_poly(rng: random.Random) -> ClaimSpec:
    """`sum_{j=1}^{n} (n-a)(n-b) w_ij = n^2 - (a+b) n + ab` for softmax weights w (rows sum
    to 1): both sides polynomials in n."""
    # no factor that vanishes at n = 3 or 4, the sizes of the oracle's small plans
    a, b = rng.choice((0, 1, 2, 5, 6)), rng.choice((1, 2, 5, 6))
    w = Softmax(scores(rng))
    poly = SMul(minus(size_num(n), a), minus(size_num(n), b))
    lhs = SSum(SMul(poly, Entry(w, I("i"), I("j"))), "j", I(1), I("n"))
    rhs: Node = size_num(n, 2)
    rhs = SAdd(rhs, SMul(Num(Fraction(-(a + b))), size_num(n)))
    rhs = SAdd(rhs, Num(Fraction(a * b))) if a * b else rhs
    return ClaimSpec(lhs, rhs, _free(("i", n)))


def t_size_scale(rng: random.Random) -> ClaimSpec:
    """`(d_k QK^T)_{ij} = d_k (QK^T)_{ij}` and `sqrt(d_k) sqrt(d_k) S = d_k S`."""
    if rng.random() < 0.5:
        qk = MatMul(leaf("Q"), Tr(leaf("K")))
        dim = rng.choice(SIZE_DIMS)
        lhs = Entry(Scale(size_num(dim), qk), I("i"), I("j"))
        return ClaimSpec(
            lhs, SMul(size_num(dim), Entry(qk, I("i"), I("j"))), _free(("i", n), ("j", n))
        )
    s = scores(rng)
    return ClaimSpec(Scale(Sqrt(d_k, 1), Scale(Sqrt(d_k, 1), s)), Scale(size_num(d_k), s))


def t_masked_scale(rng: random.Random) -> ClaimSpec:
    """`softmax(c · mask(S)) = softmax(mask(c · S))` for c > 0: c · (-inf) = -inf. Its mutants
    `0 · mask(S)` and `-1 · mask(S)` are ill-formed (0 · (-inf), +inf in a softmax)."""
    s = scores(rng)
    c = rng.choice([Num(Fraction(1, 2)), Num(Fraction(2)), Sqrt(d_k, -1)])
    w = rng.choice([lambda x: x, lambda x: MatMul(x, leaf("V"))])
    return ClaimSpec(w(Softmax(Scale(c, Mask(s)))), w(Softmax(Mask(Scale(c, s)))))


def t_masked_bias(rng: random.Random) -> ClaimSpec:
    """`softmax(mask(S) + B) = softmax(mask(S + B))`: -inf + x = -inf (also for x = -inf)."""
    s = scores(rng)
    b = rng.choice([leaf("A"), leaf("M"), Mask(leaf("M"))])
    right = Mask(Add(s, b.a)) if isinstance(b, Mask) else Mask(Add(s, b))
    return ClaimSpec(Softmax(Add(Mask(s), b)), Softmax(right))


TEMPLATES: dict[str, tuple[int, Callable[[random.Random], ClaimSpec]]] = {
    "transpose_product": (3, t_transpose_product),
    "transpose_misc": (2, t_transpose_misc),
    "entry_product": (4, t_entry_product),
    "entry_dot": (4, t_entry_dot),
    "outer_as_dot": (1, t_outer_as_dot),
    "mixed_orientation": (1, t_mixed_orientation),
    "row_product": (2, t_row_product),
    "row_mix": (3, t_row_mix),
    "entry_mix": (3, t_entry_mix),
    "scale_commutes": (2, t_scale_commutes),
    "entry_transpose": (2, t_entry_transpose),
    "entry_add": (1, t_entry_add),
    "concat_block": (3, t_concat_block),
    "concat_entry": (2, t_concat_entry),
    "head_entry": (2, t_head_entry),
    "softmax_rowsum": (2, t_softmax_rowsum),
    "ones_rowsum": (1, t_ones_rowsum),
    "causal_rowsum": (2, t_causal_rowsum),
    "causal_row": (2, t_causal_row),
    "causal_cut": (2, t_causal_cut),
    "sum_split": (2, t_sum_split),
    "shift": (1, t_shift),
    "dot_commutes": (1, t_dot_commutes),
    "scaled_softmax": (2, t_scaled_softmax),
    "size_count": (2, t_size_count),
    "size_poly": (2, t_size_poly),
    "size_scale": (1, t_size_scale),
    "masked_scale": (2, t_masked_scale),
    "masked_bias": (2, t_masked_bias),
}


# ---- AST surgery ------------------------------------------------------------------------------


def subst(x: Node, var: str, value: Ix) -> Node:
    """Replace the index `var` by `value` in every index expression (no capture: generated
    bound letters never equal a free one)."""

    def f(e: Ix) -> Ix:
        terms: dict[str, int] = {}
        const = e.const
        for name, c in e.terms:
            if name == var:
                for n2, c2 in value.terms:
                    terms[n2] = terms.get(n2, 0) + c * c2
                const += c * value.const
            else:
                terms[name] = terms.get(name, 0) + c
        return Ix(tuple((k, v) for k, v in terms.items() if v), const)

    return map_ix(x, f)


def map_ix(x: Node, f: Callable[[Ix], Ix]) -> Node:
    changes = {}
    for fld in dataclasses.fields(x):
        v = getattr(x, fld.name)
        if isinstance(v, Ix):
            changes[fld.name] = f(v)
        elif dataclasses.is_dataclass(v) and not isinstance(v, (Dim, type)):
            changes[fld.name] = map_ix(v, f)
    return dataclasses.replace(x, **changes) if changes else x
