"""More of the wild classes' templates: norms, products of three and their transposes, sums whose
index is shifted, reflected or whose triangle is swapped, and attention under a mask the prose
defines by cases (causal, above the diagonal, a window, strictly below).

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

import random
from fractions import Fraction

from symattn.soundness.wild.nodes import (
    MT,
    Comp,
    DotP,
    Eye,
    Frob,
    Ix,
    Lit,
    MaskedAttn,
    Mat,
    MEntry,
    Minus,
    MMul,
    Node,
    Norm,
    Num,
    Plus,
    Power,
    Size,
    Sum,
    Times,
    Tr,
    Var,
    Vec,
    WildSpec,
)


def _n(v: int) -> Num:
    return Num(Fraction(v))


def _sq(x: Node) -> Power:
    return Power(Norm(x), 2)


def t_norms(rng: random.Random) -> WildSpec:
    """`\\|x\\|^2 = x^\\top x` and the expansions texts use for distances of queries and keys."""
    size = rng.choice(("n", "d", "d_k"))
    a, b = rng.choice((("x", "y"), ("q", "k"), ("u", "v")))
    X, Y = Vec(a, size), Vec(b, size)
    kind = rng.randrange(7)
    if kind == 0:
        return WildSpec(_sq(X), MMul(MT(X), X))
    if kind == 1:
        i = Ix("i")
        return WildSpec(_sq(X), Sum("i", _n(1), Size(size), Power(Comp(X, i), 2)))
    if kind == 2:
        rhs = Plus(Plus(_sq(X), Times(_n(2), DotP(X, Y))), _sq(Y))
        return WildSpec(_sq(Plus(X, Y)), rhs)
    if kind == 3:
        rhs = Plus(Minus(_sq(X), Times(_n(2), DotP(X, Y))), _sq(Y))
        return WildSpec(_sq(Minus(X, Y)), rhs)
    if kind == 4:
        other = rng.choice(("m", "n", "d_v"))
        M = Mat("W", other, size)
        return WildSpec(_sq(MMul(M, X)), MMul(MMul(MMul(MT(X), MT(M)), M), X))
    if kind == 5:
        c = Var(rng.choice(("c", "alpha")))
        return WildSpec(_sq(Times(c, X)), Times(Power(c, 2), _sq(X)))
    return WildSpec(_sq(Plus(X, Y)), MMul(MT(Plus(X, Y)), Plus(X, Y)))


def t_indexed_vectors(rng: random.Random) -> WildSpec:
    """Vectors a text never declares, written with an index (`p_m`, `\\mathbf u_1`): inner
    products in angle brackets, norms, transposes, sums of them and a number times one."""
    size = rng.choice(("d", "d_k", "n"))
    # bold, so that a mutant which drops the only transpose still writes vectors: plain letters
    # with no vector's mark are read as numbers, and the verdict says so
    a, b = rng.choice(
        (
            ("\\mathbf{p}_m", "\\mathbf{p}_n"),
            ("\\boldsymbol{u}_1", "\\boldsymbol{u}_2"),
            ("\\mathbf{g}_i", "\\mathbf{g}_j"),
            ("\\mathbf{r}_s", "\\mathbf{w}_t"),
        )
    )
    X, Y = Vec(a, size), Vec(b, size)
    style = rng.choice(("angle", "cdot"))
    kind = rng.randrange(7)
    if kind == 0:
        return WildSpec(MMul(MT(X), Y), DotP(X, Y, style))
    if kind == 1:
        return WildSpec(DotP(X, Y, style), DotP(Y, X, style))
    if kind == 2:
        rhs = Plus(Plus(_sq(X), Times(_n(2), DotP(X, Y, style))), _sq(Y))
        return WildSpec(_sq(Plus(X, Y)), rhs)
    if kind == 3:
        return WildSpec(_sq(X), DotP(X, X, style))
    if kind == 4:
        c = Var(rng.choice(("alpha", "lambda")))
        return WildSpec(_sq(Times(c, X)), Times(Power(c, 2), _sq(X)))
    if kind == 5:
        Z = Vec(rng.choice(("\\mathbf{h}_1", "\\mathbf{e}_k")), size)
        lhs = DotP(Plus(X, Y), Z, style)
        return WildSpec(lhs, Plus(DotP(X, Z, style), DotP(Y, Z, style)))
    return WildSpec(MT(Plus(X, Y)), Plus(MT(X), MT(Y)))


def t_undeclared_matrices(rng: random.Random) -> WildSpec:
    """Matrices a text never declares (`W_q`, `\\mathbf W`, `W^q`, `R_m`, `P`) in products
    with each other and with vectors: transposes of products, bilinear forms, distributivity
    and associativity, as projections and rotations are written."""
    a, b, c = rng.choice(
        (
            ("W_q", "W_k", "W_v"),
            ("\\mathbf{W}", "\\mathbf{U}", "\\mathbf{V}"),
            ("W^q", "W^k", "W^v"),
            ("R_m", "R_n", "R_t"),
            ("P", "G", "F"),
        )
    )
    r, s, t = rng.choice((("d", "d_k", "n"), ("d", "d", "d"), ("m", "d", "d_v")))
    x, y = rng.choice((("\\mathbf{x}", "\\mathbf{y}"), ("x_i", "x_j"), ("q", "k")))
    A, B = Mat(a, r, s), Mat(b, s, t)
    kind = rng.randrange(7)
    if kind == 0:
        return WildSpec(MT(MMul(A, B)), MMul(MT(B), MT(A)))
    if kind == 1:
        A2, B2 = Mat(a, r, s), Mat(b, r, t)
        X, Y = Vec(x, s), Vec(y, t)
        lhs = MMul(MT(MMul(A2, X)), MMul(B2, Y))
        return WildSpec(lhs, MMul(MMul(MMul(MT(X), MT(A2)), B2), Y))
    if kind == 2:
        X, Y = Vec(x, s), Vec(y, s)
        return WildSpec(MMul(A, Plus(X, Y)), Plus(MMul(A, X), MMul(A, Y)))
    if kind == 3:
        B2, X = Mat(b, r, s), Vec(x, s)
        return WildSpec(MMul(Plus(A, B2), X), Plus(MMul(A, X), MMul(B2, X)))
    if kind == 4:
        X = Vec(x, s)
        return WildSpec(MT(MMul(A, X)), MMul(MT(X), MT(A)))
    if kind == 5:
        X = Vec(x, s)
        return WildSpec(MMul(MMul(MMul(MT(X), MT(A)), A), X), _sq(MMul(A, X)))
    C = Mat(c, t, r)
    return WildSpec(MMul(MMul(A, B), C), MMul(A, MMul(B, C)))


def t_identity(rng: random.Random) -> WildSpec:
    """The identity beside matrices and vectors, as update rules and projections write it:
    `S(I - \\beta k k^T) + \\beta v k^T = S - \\beta(Sk - v)k^T`, `A(I + B) = A + AB`,
    `(I - B)A = A - BA`, `A I_d = A`; the matrices and vectors undeclared or declared."""
    a, b = rng.choice((("\\mathbf{S}", "\\mathbf{B}"), ("W", "P"), ("S_{t-1}", "M")))
    r, s = rng.choice((("d_v", "d_k"), ("d", "d"), ("n", "d")))
    k, v = rng.choice(
        (("\\mathbf{k}_t", "\\mathbf{v}_t"), ("k", "v"), ("\\mathbf{x}", "\\mathbf{y}"))
    )
    style = rng.choice(("bold", "plain", "sized"))
    A, B = Mat(a, r, s), Mat(b, s, s)
    eye = Eye(s, style)
    beta = Var(rng.choice(("\\beta_t", "\\beta", "\\eta")))
    kind = rng.randrange(5)
    if kind == 0:
        K, V = Vec(k, s), Vec(v, r)
        lhs = Plus(MMul(A, Minus(eye, Times(beta, MMul(K, MT(K))))), Times(beta, MMul(V, MT(K))))
        rhs = Minus(A, Times(beta, MMul(Minus(MMul(A, K), V), MT(K))))
        return WildSpec(lhs, rhs)
    if kind == 1:
        return WildSpec(MMul(A, Plus(eye, B)), Plus(A, MMul(A, B)))
    if kind == 2:
        B2 = Mat(b, r, r)
        return WildSpec(MMul(Minus(Eye(r, style), B2), A), Minus(A, MMul(B2, A)))
    if kind == 3:
        return WildSpec(MMul(A, eye), A)
    K = Vec(k, s)
    return WildSpec(MMul(Plus(eye, B), K), Plus(K, MMul(B, K)))


def t_number_lists(rng: random.Random) -> WildSpec:
    """Lists of numbers as a worked example writes them (`0.4 \\times [0, 2] + 0.2 \\times
    [1, 1] = [0.2, 1]`, `(1, 2) + (3, 4) = (4, 6)`): weighted sums of rows of numbers, sums
    and differences of lists, their right sides computed; mutants change a number."""
    style = rng.choice(("list", "list", "tuple", "bmatrix"))
    size = rng.choice((2, 2, 3))

    def row(values: list[Fraction]) -> Lit:
        return Lit((tuple(Num(v) for v in values),), style)

    rows = [[Fraction(rng.randint(-3, 5)) for _ in range(size)] for _ in range(rng.choice((2, 3)))]
    weights = [Fraction(rng.choice((1, 2, 5, 10, 25)), rng.choice((1, 10, 100))) for _ in rows]
    kind = rng.randrange(3)
    if kind == 0:  # a weighted sum of rows, as attention weights times the rows of V
        lhs: Node = Times(Num(weights[0]), row(rows[0]))
        for w, r in zip(weights[1:], rows[1:], strict=True):
            lhs = Plus(lhs, Times(Num(w), row(r)))
        total = [
            sum((w * r[k] for w, r in zip(weights, rows, strict=True)), Fraction(0))
            for k in range(size)
        ]
        return WildSpec(lhs, row(total))
    if kind == 1:
        a, b = rows[0], rows[1]
        return WildSpec(Plus(row(a), row(b)), row([x + y for x, y in zip(a, b, strict=True)]))
    a, b = rows[0], rows[1]
    return WildSpec(Minus(row(a), row(b)), row([x - y for x, y in zip(a, b, strict=True)]))


def t_number_products(rng: random.Random) -> WildSpec:
    """Products of lists and matrices of numbers, as a worked example multiplies them out: a
    list (a row) times a matrix written out, two matrices, a transpose, a row times a column
    (a number); their right sides computed; mutants change a number or swap entries."""
    k, m = rng.choice((2, 3, 4)), rng.choice((1, 2, 3))

    def nums(rows: int, cols: int) -> list[list[Fraction]]:
        return [[Fraction(rng.randint(-2, 3)) for _ in range(cols)] for _ in range(rows)]

    def lit(values: list[list[Fraction]], style: str = "bmatrix") -> Lit:
        return Lit(tuple(tuple(Num(v) for v in row) for row in values), style)

    def product(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
        columns = list(zip(*b, strict=True))
        return [
            [sum((x * y for x, y in zip(r, c, strict=True)), Fraction(0)) for c in columns]
            for r in a
        ]

    kind = rng.randrange(4)
    if kind == 0:  # a list of weights times a matrix written out: a list
        a, b = nums(1, k), nums(k, max(m, 2))
        return WildSpec(MMul(lit(a, "list"), lit(b)), lit(product(a, b), "list"))
    if kind == 1:
        a, b = nums(rng.choice((2, 3)), k), nums(k, max(m, 2))
        return WildSpec(MMul(lit(a), lit(b)), lit(product(a, b)))
    if kind == 2:
        a = nums(k, max(m, 2))
        return WildSpec(MT(lit(a)), lit([list(col) for col in zip(*a, strict=True)]))
    a, b = nums(1, k), nums(k, 1)
    return WildSpec(MMul(lit(a, "list"), lit(b)), Num(product(a, b)[0][0]))


def t_trace(rng: random.Random) -> WildSpec:
    """The trace and the Frobenius product, as backward passes write them: `tr(AB) = tr(BA)`,
    `tr(A^T B) = \\sum_i \\sum_j A_{ij} B_{ij}`, `tr(ABC) = tr(CAB)`, linearity, `tr(A^T) =
    tr(A)`, `\\langle A, B\\rangle_F = tr(A^T B)`; of distinct sizes or all square."""
    r, s = rng.choice((("n", "d"), ("n", "n"), ("d_k", "d_v")))
    style = rng.choice(("mathrm", "operatorname", "text"))
    kind = rng.randrange(7)
    A, B = Mat("A", r, s), Mat("B", s, r)
    if kind == 0:
        return WildSpec(Tr(MMul(A, B), style), Tr(MMul(B, A), style))
    if kind == 1:
        B2 = Mat("B", r, s)
        i, j = Ix("i"), Ix("j")
        body = Times(MEntry(A, i, j), MEntry(B2, i, j))
        rhs = Sum("i", _n(1), Size(r), Sum("j", _n(1), Size(s), body))
        return WildSpec(Tr(MMul(MT(A), B2), style), rhs)
    if kind == 2:
        C = Mat("C", r, r)
        return WildSpec(Tr(MMul(MMul(A, B), C), style), Tr(MMul(MMul(C, A), B), style))
    S, T = Mat("S", r, r), Mat("T", r, r)
    if kind == 3:
        return WildSpec(Tr(Plus(S, T), style), Plus(Tr(S, style), Tr(T, style)))
    if kind == 4:
        c = Var(rng.choice(("c", "alpha")))
        return WildSpec(Tr(Times(c, S), style), Times(c, Tr(S, style)))
    if kind == 5:
        return WildSpec(Tr(MT(S), style), Tr(S, style))
    B2 = Mat("B", r, s)
    return WildSpec(Frob(A, B2), Tr(MMul(MT(A), B2), style))


def t_products(rng: random.Random) -> WildSpec:
    """Transposes and entries of products of three factors, of distinct or equal sizes."""
    r, s, t, u = rng.choice(
        (("n", "m", "d", "d_k"), ("n", "n", "n", "n"), ("n", "d_k", "d_k", "d_v"))
    )
    A, B, C = Mat("A", r, s), Mat("B", s, t), Mat("C", t, u)
    kind = rng.randrange(7)
    if kind == 0:
        return WildSpec(MT(MMul(MMul(A, B), C)), MMul(MMul(MT(C), MT(B)), MT(A)))
    if kind == 1:
        return WildSpec(MT(MMul(MMul(A, B), C)), MMul(MT(C), MT(MMul(A, B))))
    if kind == 2:
        return WildSpec(MT(MMul(MMul(A, B), C)), MMul(MT(MMul(B, C)), MT(A)))
    if kind == 3:  # (A^T B^T)^T = BA, with A: s x r and B: t x s
        A2, B2 = Mat("A", s, r), Mat("B", t, s)
        return WildSpec(MT(MMul(MT(A2), MT(B2))), MMul(B2, A2))
    if kind == 4:  # a bilinear form and its transpose
        x, y = Vec("x", s), Vec("y", r)
        return WildSpec(MMul(MMul(MT(x), MT(A)), y), MMul(MMul(MT(y), A), x))
    if kind == 5:
        x = Vec("x", t)
        return WildSpec(MT(MMul(MMul(A, B), x)), MMul(MMul(MT(x), MT(B)), MT(A)))
    i, j, k, m = Ix("i"), Ix("j"), Ix("k"), Ix("l")
    body = Times(Times(MEntry(A, i, k), MEntry(B, k, m)), MEntry(C, m, j))
    rhs = Sum("k", _n(1), Size(s), Sum("l", _n(1), Size(t), body))
    return WildSpec(MEntry(MMul(MMul(A, B), C), i, j), rhs, (("i", r), ("j", u)))


def t_reindex(rng: random.Random) -> WildSpec:
    """Sums whose index is shifted or reflected, double sums over a triangle in either order, and
    the causal prefix sums counted by how often each term appears."""
    size = rng.choice(("n", "d"))
    N = Size(size)
    X = Vec(rng.choice(("x", "v", "a")), size)
    A = Mat("A", size, size)
    i, j, k = Ix("i"), Ix("j"), Ix("k")
    one = _n(1)
    kind = rng.randrange(8)
    if kind == 0:
        return WildSpec(
            Sum("i", one, N, Comp(X, i)), Sum("k", _n(0), Minus(N, one), Comp(X, Plus(k, one)))
        )
    if kind == 1:
        return WildSpec(
            Sum("i", one, N, Comp(X, i)), Sum("k", _n(2), Plus(N, one), Comp(X, Minus(k, one)))
        )
    if kind == 2:  # reflected: i -> n + 1 - i
        return WildSpec(
            Sum("i", one, N, Comp(X, Minus(Plus(N, one), i))), Sum("i", one, N, Comp(X, i))
        )
    if kind == 3:  # the lower triangle, by rows or by columns
        lhs = Sum("i", one, N, Sum("j", one, i, MEntry(A, i, j)))
        return WildSpec(lhs, Sum("j", one, N, Sum("i", j, N, MEntry(A, i, j))))
    if kind == 4:  # strictly below the diagonal
        lhs = Sum("i", one, N, Sum("j", one, Minus(i, one), MEntry(A, i, j)))
        return WildSpec(lhs, Sum("j", one, N, Sum("i", Plus(j, one), N, MEntry(A, i, j))))
    if kind == 5:  # causal prefix sums: term j appears in rows j..n
        lhs = Sum("i", one, N, Sum("j", one, i, Comp(X, j)))
        return WildSpec(lhs, Sum("j", one, N, Times(Plus(Minus(N, j), one), Comp(X, j))))
    if kind == 6:
        lhs = Sum("i", one, N, Times(i, Comp(X, i)))
        return WildSpec(lhs, Sum("i", one, N, Sum("j", i, N, Comp(X, j))))
    lhs = Sum("i", one, N, Sum("j", one, N, MEntry(A, i, j)))
    return WildSpec(lhs, Sum("j", one, N, Sum("i", one, N, MEntry(A, j, i))))


MASKS = ("causal", "causal_gt", "anti", "window", "strict")


def t_masks(rng: random.Random) -> WildSpec:
    """`A = softmax(S + M)` with M defined by cases in the prose (`texts.MASK_CASES`): which
    entries of a row carry its weight, and what `AV` sums, as each mask makes them."""
    kind = rng.choice(MASKS)
    A, V = MaskedAttn(kind), Mat("V", "n", "d_v")
    N, one = Size("n"), _n(1)
    i, j, u = Ix("i"), Ix("j"), Ix("u")
    rows = (("i", "n"),)
    if kind == "strict":  # the first row is masked out: claims about the rows after it
        if rng.random() < 0.5:
            return WildSpec(MEntry(A, _n(2), one), one)
        return WildSpec(MEntry(MMul(A, V), _n(2), u), MEntry(V, one, u), (("u", "d_v"),))
    lo, hi = (i, N) if kind == "anti" else (one, i)
    pick = rng.randrange(5)
    if pick == 0:
        return WildSpec(Sum("j", lo, hi, MEntry(A, i, j)), one, rows)
    if pick == 1:
        return WildSpec(Sum("j", one, N, MEntry(A, i, j)), one, rows)
    if pick == 2:
        body = Times(MEntry(A, i, j), MEntry(V, j, u))
        return WildSpec(MEntry(MMul(A, V), i, u), Sum("j", lo, hi, body), (*rows, ("u", "d_v")))
    if pick == 3:
        corner = N if kind == "anti" else one
        return WildSpec(MEntry(A, corner, corner), one)
    first = N if kind == "anti" else one
    return WildSpec(MEntry(MMul(A, V), first, u), MEntry(V, first, u), (("u", "d_v"),))


def t_brackets(rng: random.Random) -> WildSpec:
    """Entries and components written as code indexes them (`A[i,k]`, `A[i][k]`, `x[j]`), of
    matrices and vectors the document declares: products, transposes, dot products, triangles."""
    style = rng.choice(("bracket", "nested"))
    r, s, t = rng.choice((("n", "d_k", "n"), ("n", "n", "n"), ("m", "d", "n")))
    A, B = Mat("A", r, s), Mat("B", s, t)
    i, j, k = Ix("i"), Ix("j"), Ix("k")
    one = _n(1)

    def at(m: Mat, a: Node, b: Node) -> MEntry:
        return MEntry(m, a, b, style)

    kind = rng.randrange(5)
    if kind == 0:
        body = Times(at(A, i, k), at(B, k, j))
        return WildSpec(
            MEntry(MMul(A, B), i, j), Sum("k", one, Size(s), body), (("i", r), ("j", t))
        )
    if kind == 1:
        return WildSpec(MEntry(MT(A), j, i), at(A, i, j), (("i", r), ("j", s)))
    if kind == 2:
        X, Y = Vec("q", s), Vec("k", s)
        body = Times(Comp(X, i, "bracket"), Comp(Y, i, "bracket"))
        return WildSpec(DotP(X, Y), Sum("i", one, Size(s), body))
    if kind == 3:
        x = Vec("x", s)
        body = Times(at(A, i, j), Comp(x, j, "bracket"))
        lhs = Sum("i", one, Size(r), Sum("j", one, Size(s), body))
        rhs = Sum(
            "j", one, Size(s), Times(Comp(x, j, "bracket"), Sum("i", one, Size(r), at(A, i, j)))
        )
        return WildSpec(lhs, rhs)
    S = Mat("A", "n", "n")
    lhs = Sum("i", one, Size("n"), Sum("j", one, i, MEntry(S, i, j, style)))
    rhs = Sum("j", one, Size("n"), Sum("i", j, Size("n"), MEntry(S, i, j, style)))
    return WildSpec(lhs, rhs)
