"""Gradients as kernel objects: directional derivatives of the nodes, the softmax Jacobian as a
rule, and gradients of attention stated by the vector–Jacobian identity and decided by proof.

Imports only sympy and the kernel below it (dispatch, errors, dims, expr, proof); must not import
anything above the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy

from symattn.kernel.dims import as_dim, d_k, d_v, dim, dims_equal, n, shape_str
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.errors import NotSupported, ShapeError, UnknownNameError
from symattn.kernel.expr import (
    CausalMask,
    FromColumn,
    Hadamard,
    HeadSym,
    MatAdd,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Ones,
    Scale,
    Softmax,
    Transpose,
    expand_entries,
    index,
)
from symattn.kernel.generic_softmax import generic_names
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.text import plain


class NoDerivative(NotSupported):
    """A node the directional derivative has no rule for (the claim stays undecided)."""


# The rules of the directional derivative D_E, by name: what each one states.
RULES: dict[str, str] = {
    "jvp_leaf": "D_E X = E for the variable X; D_E Y = 0 for what reads no entry of X",
    "jvp_matmul": "D_E(AB) = (D_E A)B + A(D_E B)",
    "jvp_add": "D_E(A + B) = D_E A + D_E B",
    "jvp_scale": "D_E(cA) = c D_E A for a scalar c that does not depend on the variable",
    "jvp_transpose": "D_E(A^T) = (D_E A)^T",
    "jvp_hadamard": "D_E(A ∘ B) = (D_E A) ∘ B + A ∘ (D_E B)",
    "softmax_jvp": "D_E softmax(S) = A ∘ (D_E S - rowsum(A ∘ D_E S) 1^T), A = softmax(S)",
    "softmax_jvp_causal": (
        "D_E softmax(mask(S)) = A ∘ (D_E S - rowsum(A ∘ D_E S) 1^T), A = softmax(mask(S)): "
        "masked scores are -inf only inside softmax, where A is 0"
    ),
}


def rowsum_rows(m: MatExpr) -> MatExpr:
    """`rowsum(M) 1^T`: the matrix whose row i repeats the sum of row i of M (`M 1 1^T`)."""
    return m @ Ones(m.cols, m.cols)


def softmax_jvp(a: MatExpr, ds: MatExpr) -> MatExpr:
    """The softmax Jacobian applied to a direction: `A ∘ (dS - rowsum(A ∘ dS) 1^T)`.

    >>> from symattn.kernel.dims import n
    >>> S, E = MatSym("S", n, n), MatSym("E", n, n)
    >>> print(softmax_jvp(Softmax(S), E))
    softmax(S) ∘ (E + -(softmax(S) ∘ E)1_(nxn))
    """
    return Hadamard(a, ds - rowsum_rows(Hadamard(a, ds)))


# ---- the directional derivative -----------------------------------------------------------

Zero = None  # a derivative that is identically 0 is carried as None, never as a matrix


@dataclass
class _Walk:
    wrt: MatSym
    direction: MatExpr
    used: set[str] = field(default_factory=set)

    def d(self, e: MatExpr) -> MatExpr | None:
        if self.wrt.name not in reads(e):
            self.used.add("jvp_leaf")
            return Zero  # reads no entry of the variable: a constant, whatever its node
        f = JVP.own(type(e))  # never a parent's rule: a subclass may mean something else
        if f is None:
            raise NoDerivative(f"no derivative rule for {type(e).__name__} in {plain(e)}")
        return f(self, e)


Jvp = Callable[[_Walk, Any], "MatExpr | None"]
JVP: Dispatcher[Jvp] = Dispatcher("directional derivative")


@JVP.register(MatSym)
def _jvp_leaf(w: _Walk, e: MatSym) -> MatExpr | None:
    w.used.add("jvp_leaf")
    if e == w.wrt:
        return w.direction
    if e.name == w.wrt.name:
        raise ShapeError(
            f"{e.name} is used with shapes {shape_str(e.shape)} and {shape_str(w.wrt.shape)}"
        )
    return Zero


@JVP.register(Ones, FromColumn, HeadSym)
def _jvp_constant(w: _Walk, e: MatExpr) -> MatExpr | None:
    w.used.add("jvp_leaf")
    return Zero


@JVP.register(MatMul)
def _jvp_matmul(w: _Walk, e: MatMul) -> MatExpr | None:
    a, b = e.args
    da, db = w.d(a), w.d(b)
    w.used.add("jvp_matmul")
    return _plus(None if da is None else da @ b, None if db is None else a @ db)


@JVP.register(MatAdd)
def _jvp_add(w: _Walk, e: MatAdd) -> MatExpr | None:
    w.used.add("jvp_add")
    return _plus(w.d(e.args[0]), w.d(e.args[1]))


@JVP.register(Scale)
def _jvp_scale(w: _Walk, e: Scale) -> MatExpr | None:
    if w.wrt.name in reads(e.scalar):
        raise NoDerivative(
            f"the scalar {plain(e.scalar)} reads {w.wrt.name}: no derivative rule for it"
        )
    w.used.add("jvp_scale")
    da = w.d(e.args[1])
    return None if da is None else Scale(e.scalar, da)


@JVP.register(Transpose)
def _jvp_transpose(w: _Walk, e: Transpose) -> MatExpr | None:
    w.used.add("jvp_transpose")
    da = w.d(e.args[0])
    return None if da is None else da.T


@JVP.register(Hadamard)
def _jvp_hadamard(w: _Walk, e: Hadamard) -> MatExpr | None:
    a, b = e.args
    da, db = w.d(a), w.d(b)
    w.used.add("jvp_hadamard")
    return _plus(None if da is None else Hadamard(da, b), None if db is None else Hadamard(a, db))


@JVP.register(Softmax)
def _jvp_softmax(w: _Walk, e: Softmax) -> MatExpr | None:
    s = e.args[0]
    if isinstance(s, CausalMask):
        if s.upper:
            raise NoDerivative(f"no derivative rule for the upper-triangle mask in {plain(e)}")
        ds, rule = w.d(s.args[0]), "softmax_jvp_causal"
    else:
        ds, rule = w.d(s), "softmax_jvp"
    if ds is None:
        return Zero
    w.used.add(rule)
    return softmax_jvp(e, ds)


@JVP.register(CausalMask)
def _jvp_mask(w: _Walk, e: CausalMask) -> MatExpr | None:
    raise NoDerivative(
        f"{plain(e)} has entries -inf outside softmax, where no derivative exists; "
        "a causal mask is differentiated only inside softmax"
    )


def reads(e: sympy.Basic) -> set[str]:
    """The names whose entries an expression reads (named matrices and indexed bases)."""
    out: set[str] = set()
    for x in sympy.preorder_traversal(e):
        if isinstance(x, MatSym):
            out.add(x.name)
        elif isinstance(x, sympy.IndexedBase):
            out.add(str(x.label))
    return out


def _plus(a: MatExpr | None, b: MatExpr | None) -> MatExpr | None:
    if a is None:
        return b
    return a if b is None else a + b


def directional(expr: MatExpr, wrt: MatSym, direction: MatExpr) -> MatExpr:
    """`D_E expr`: the derivative of `expr` at `wrt` along `direction`, as a kernel expression.

    >>> from symattn.kernel.dims import n, d_k
    >>> Q, K, E = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("E", n, d_k)
    >>> print(directional(Q @ K.T, Q, E))
    EK^T
    """
    return _directional(expr, wrt, direction)[0]


def _directional(expr: MatExpr, wrt: MatSym, direction: MatExpr) -> tuple[MatExpr, set[str]]:
    if not isinstance(expr, MatExpr) or not isinstance(direction, MatExpr):
        raise ShapeError("the directional derivative takes matrix expressions")
    if not isinstance(wrt, MatSym):
        raise ShapeError(f"the variable must be a named matrix, not {plain(wrt)}")
    for k in (0, 1):
        if not dims_equal(wrt.shape[k], direction.shape[k]):
            raise ShapeError(
                f"the direction {plain(direction)} ({shape_str(direction.shape)}) does not have "
                f"the shape of the variable {plain(wrt)} ({shape_str(wrt.shape)})"
            )
    w = _Walk(wrt, direction)
    out = w.d(expr)
    return (Scale(0, Ones(*expr.shape)) if out is None else out), w.used


# ---- each rule's own truth, at the entry level ------------------------------------------------


def rule_truth(name: str) -> Verdict:
    """The kernel's verdict on one rule: the entry of the moved expression (every operand `X`
    replaced by `X + tE_X`), differentiated by sympy at `t = 0`, against the rule's entry."""
    if name not in RULES:
        raise UnknownNameError(f"no derivative rule named {name!r}; rules: {', '.join(RULES)}")
    hit = _TRUTH.get(name)
    if hit is None:
        hit = _TRUTH[name] = _truth(name)
    return hit


_TRUTH: dict[str, Verdict] = {}


def _truth(name: str) -> Verdict:
    t = sympy.Symbol("t", real=True)
    i, j = index("i"), index("j")
    a, da = MatSym("A", n, d_k), MatSym("E_A", n, d_k)
    b, db = MatSym("B", d_k, d_v), MatSym("E_B", d_k, d_v)
    b2, db2 = MatSym("B", n, d_k), MatSym("E_B", n, d_k)
    s, ds = MatSym("S", n, n), MatSym("E_S", n, n)
    c = sympy.Symbol("c", real=True)

    def at(m: MatExpr, x: MatSym, dx: MatSym) -> MatExpr:
        return m.xreplace({x: x + Scale(t, dx)})

    cases: dict[str, tuple[MatExpr, MatExpr]] = {
        "jvp_leaf": (a + Scale(t, da), da),
        "jvp_matmul": (at(at(a @ b, a, da), b, db), da @ b + a @ db),
        "jvp_add": (at(at(a + b2, a, da), b2, db2), da + db2),
        "jvp_scale": (at(Scale(c, a), a, da), Scale(c, da)),
        "jvp_transpose": (at(a.T, a, da), da.T),
        "jvp_hadamard": (
            at(at(Hadamard(a, b2), a, da), b2, db2),
            Hadamard(da, b2) + Hadamard(a, db2),
        ),
        "softmax_jvp": (at(Softmax(s), s, ds), softmax_jvp(Softmax(s), ds)),
        "softmax_jvp_causal": (
            at(Softmax(CausalMask(s)), s, ds),
            softmax_jvp(Softmax(CausalMask(s)), ds),
        ),
    }
    moved, rule = cases[name]
    derivative = sympy.diff(moved.entry(i, j), t).subs(t, 0)
    if name != "softmax_jvp_causal":
        return prove_equal(derivative, rule[i, j])
    return _by_cases(derivative, expand_entries(rule[i, j]), i, j, s[i, j] + ds[i, j])


def _by_cases(a: sympy.Expr, b: sympy.Expr, i: sympy.Symbol, j: sympy.Symbol, shapes) -> Verdict:
    """`a = b` for a causal entry, by the cases `j <= i` and `j > i` of its free indices: in each
    case the mask's condition on (i, j) is replaced by its value and j's range narrowed to the
    case. `shapes` (the same entries added to both sides) tells the witnesses the leaves' shapes.
    Proved when both cases are; otherwise the weaker case's verdict."""
    cases = (
        ("j <= i", sympy.true, {i: (1, n), j: (1, i)}),
        ("j > i", sympy.false, {i: (1, n), j: (i + 1, n)}),
    )
    verdicts = []
    for _, value, ranges in cases:
        sub = {sympy.Le(j, i): value, sympy.Ge(i, j): value}
        verdicts.append(
            prove_equal(a.xreplace(sub) + shapes, b.xreplace(sub) + shapes, ranges=ranges)
        )
    for (label, _, _), v in zip(cases, verdicts, strict=True):
        if v.status != "proved":
            return Verdict(
                "agreed" if v.status == "checked" else v.status,  # checked needs its sizes
                v.witnesses,
                f"in the case {label}: {v.reason}",
                v.counterexample,
                evidence=v.evidence,
            )
    shown = tuple(w for w in verdicts[0].witnesses if w in verdicts[1].witnesses)
    return Verdict("proved", shown, "by the cases j <= i and j > i")


# ---- gradients by the vector–Jacobian identity ------------------------------------------------


def inner(x: MatExpr, y: MatExpr) -> MatExpr:
    """`<X, Y> = sum_ij X_ij Y_ij`, as the 1 × 1 matrix `1^T (X ∘ Y) 1`."""
    return Ones(1, x.rows) @ Hadamard(x, y) @ Ones(x.cols, 1)


_RANK = {"proved": 0, "checked": 1, "agreed": 2, "unknown": 3}


@dataclass(frozen=True)
class GradientVerdict:
    """The verdict on "G is the gradient of <dO, O> with respect to X": the kernel's verdict on
    `<dO, D_E O> = <G, E>` for a direction E (`identity`) and its verdict on every rule that
    computed `D_E O` (`rules`). The status is the weakest of them; never stronger than a rule."""

    status: str
    identity: Verdict | None
    rules: tuple[tuple[str, Verdict], ...] = ()
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("proved", "checked")

    @property
    def counterexample(self) -> Any:
        return None if self.identity is None else self.identity.counterexample

    def summary(self) -> str:
        text = f"{self.status} by the vector–Jacobian identity <dO, D_E O> = <G, E>"
        if self.rules:
            text += "; rules: " + ", ".join(f"{k} ({v.status})" for k, v in self.rules)
        if self.reason:
            text += f"\n  {self.reason}"
        if self.identity is not None:
            text += "\n  identity: " + self.identity.summary().replace("\n", "\n  ")
        return text


def prove_gradient(
    output: MatExpr,
    wrt: MatSym,
    upstream: MatExpr,
    claimed: MatExpr,
    *,
    direction: str = "E",
    heads: tuple[sympy.Symbol, object] | None = None,
    entry: tuple[sympy.Symbol, sympy.Symbol] | None = None,
    more: tuple[tuple[MatExpr, MatExpr], ...] = (),
) -> GradientVerdict:
    """Decide whether `claimed` is the gradient of `<upstream, output>` with respect to `wrt`:
    for every direction E, `<dO, D_E O> = <G, E>` (E a matrix of independent entries).

    With `heads=(h, H)` the output and upstream are one head's, depending on `h`, and the loss is
    their sum over the heads, `sum_h <dO^{(h)}, O^{(h)}>`: the claimed gradient of a matrix the
    heads share (K and V in multi-query attention) is then a sum over the heads too.

    >>> from symattn.kernel.dims import n, d_k, d_v
    >>> A, V, dO = MatSym("A", n, n), MatSym("V", n, d_v), MatSym("dO", n, d_v)
    >>> prove_gradient(A @ V, V, dO, A.T @ dO).status
    'proved'
    >>> prove_gradient(A @ V, V, dO, A @ dO).status
    'false'
    """
    parts = (("output", output), ("variable", wrt), ("upstream", upstream), ("claim", claimed))
    if entry is not None:
        if isinstance(claimed, MatExpr) or not all(isinstance(x, sympy.Symbol) for x in entry):
            raise ShapeError("an entry of a gradient is a scalar in two index symbols")
        parts = parts[:3]
    for what, m in parts:
        if not isinstance(m, MatExpr):
            raise ShapeError(f"the {what} must be a matrix expression, not {type(m).__name__}")
    if heads is not None and (not isinstance(heads[0], sympy.Symbol) or heads[0] in reads(wrt)):
        raise ShapeError(f"the head index must be an index symbol, not {heads[0]!r}")
    pairs = ((output, upstream), *more)
    for o, u in pairs:
        if not (isinstance(o, MatExpr) and isinstance(u, MatExpr)):
            raise ShapeError("every output and upstream must be a matrix expression")
    for (o, u), k in ((p, k) for p in pairs for k in (0, 1)):
        if not dims_equal(u.shape[k], o.shape[k]):
            return GradientVerdict(
                "shape_error",
                None,
                reason=f"the upstream {plain(u)} "
                f"({shape_str(u.shape)}) does not have the shape of the output "
                f"{plain(o)} ({shape_str(o.shape)})",
            )
        if entry is None and not dims_equal(claimed.shape[k], wrt.shape[k]):
            return GradientVerdict(
                "shape_error",
                None,
                reason=f"the claimed gradient {plain(claimed)} "
                f"({shape_str(claimed.shape)}) does not have the shape of {plain(wrt)} "
                f"({shape_str(wrt.shape)})",
            )
    everything = sympy.Tuple(*(x for p in pairs for x in p), claimed)
    taken = reads(everything) | {
        x.name for x in sympy.preorder_traversal(everything) if isinstance(x, (HeadSym, FromColumn))
    }
    name = direction
    while name in taken:
        name += "'"
    e = MatSym(name, *wrt.shape)
    lhs: MatExpr | None = None
    used: set[str] = set()
    try:
        for o, u in pairs:
            moved, by = _directional(o, wrt, e)
            used |= by
            lhs = inner(u, moved) if lhs is None else lhs + inner(u, moved)
    except NoDerivative as exc:
        return GradientVerdict("unknown", None, reason=f"undecided: {exc}")
    except ShapeError as exc:
        return GradientVerdict("shape_error", None, reason=str(exc))
    assert lhs is not None
    rules = tuple((r, rule_truth(r)) for r in RULES if r in used)
    if heads is not None:
        lhs = MatSum(lhs, heads[0], 1, heads[1])
    rhs: sympy.Basic
    if entry is None:
        rhs = inner(claimed, e)
    else:
        i, j = entry
        lhs = lhs[1, 1]  # the 1 x 1 inner product as a scalar
        rhs = sympy.Sum(claimed * e[i, j], (i, 1, wrt.rows), (j, 1, wrt.cols))
    identity, general = _generalised(lhs, rhs, taken | {name})
    note = ""
    if identity is None or identity.status != "proved":
        identity = prove_equal(lhs, rhs)
    else:
        note = f"the identity is proved for every matrix in place of {general}"
    weak = [(r, v) for r, v in rules if v.status not in ("proved", "checked", "agreed")]
    if weak:
        names = ", ".join(f"{r} ({v.status})" for r, v in weak)
        return GradientVerdict("unknown", identity, rules, f"undecided: rule {names} not shown")
    if identity.status == "false":
        return GradientVerdict("false", identity, rules, "a direction E tells the sides apart")
    if identity.status not in _RANK:
        return GradientVerdict(identity.status, identity, rules, identity.reason)
    worst = max([identity.status] + [v.status for _, v in rules], key=_RANK.__getitem__)
    return GradientVerdict(worst, identity, rules, note)


def _generalised(lhs: MatExpr, rhs: MatExpr, taken: set[str]) -> tuple[Verdict | None, str]:
    """The claim with every softmax replaced by a generic matrix of its shape (`A_1`, ...).
    Proved for every matrix, it holds for the softmax too (an instance); not proved, it says
    nothing, and the caller decides the claim itself. Only for claims without bound matrices
    or sums but the heads', whose softmax could depend on a bound index (it would not be one
    matrix; over the heads it is one matrix per head, `generic_names`)."""
    names = generic_names(sympy.Tuple(lhs, rhs), taken)
    if not names:
        return None, ""
    general = prove_equal(lhs.xreplace(names), rhs.xreplace(names))
    return general, ", ".join(f"{plain(x)} as {plain(v)}" for x, v in names.items())


# ---- the backward pass of attention -----------------------------------------------------------


@dataclass(frozen=True)
class AttentionBackward:
    """`O = softmax(S)V`, `S = QK^T/sqrt(d_k)` (masked when causal), upstream `dO`, and the
    gradients of the backward pass as kernel expressions."""

    Q: MatSym | HeadSym
    K: MatSym
    V: MatSym
    dO: MatSym | HeadSym
    causal: bool = False

    @property
    def scale(self) -> sympy.Expr:
        return 1 / sympy.sqrt(self.Q.cols)

    @property
    def S(self) -> MatExpr:
        return Scale(self.scale, self.Q @ self.K.T)

    @property
    def A(self) -> MatExpr:
        return Softmax(CausalMask(self.S) if self.causal else self.S)

    @property
    def O(self) -> MatExpr:  # noqa: E743 (the output's name in every text on attention)
        return self.A @ self.V

    @property
    def dV(self) -> MatExpr:
        """`dV = A^T dO`."""
        return self.A.T @ self.dO

    @property
    def dA(self) -> MatExpr:
        """`dA = dO V^T`."""
        return self.dO @ self.V.T

    @property
    def D(self) -> MatExpr:
        """`D = rowsum(dO ∘ O)` (n × 1), FlashAttention's stored row term."""
        return Hadamard(self.dO, self.O) @ Ones(self.O.cols, 1)

    @property
    def dS(self) -> MatExpr:
        """`dS = A ∘ (dA - rowsum(A ∘ dA) 1^T)`."""
        return softmax_jvp(self.A, self.dA)

    @property
    def dQ(self) -> MatExpr:
        """`dQ = dS K / sqrt(d_k)`."""
        return Scale(self.scale, self.dS @ self.K)

    @property
    def dK(self) -> MatExpr:
        """`dK = dS^T Q / sqrt(d_k)`."""
        return Scale(self.scale, self.dS.T @ self.Q)


def attention_backward(
    n: object = n, d_k: object = d_k, d_v: object = d_v, *, causal: bool = False
) -> AttentionBackward:
    """The backward pass of single-head attention at the sizes given (symbolic by default).

    >>> print(attention_backward().dV)
    softmax(QK^T/sqrt(d_k))^TdO
    """
    return AttentionBackward(
        MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v), MatSym("dO", n, d_v), causal
    )


def prove_row_term(b: AttentionBackward) -> Verdict:
    """`rowsum(A ∘ dA) = rowsum(dO ∘ O)`: the row term of dS needs only O, not A. It holds for
    every matrix A (tried first, with the softmax as a generic matrix), so for the softmax too."""
    lhs, rhs = Hadamard(b.A, b.dA) @ Ones(b.A.cols, 1), b.D
    general, _ = _generalised(lhs, rhs, reads(sympy.Tuple(lhs, rhs)))
    return general if general is not None and general.status == "proved" else prove_equal(lhs, rhs)


def shared_kv_backward(
    h: sympy.Symbol | None = None, *, causal: bool = False
) -> tuple[AttentionBackward, sympy.Symbol]:
    """Multi-query attention: per-head `Q^{(h)}` and `dO^{(h)}`, one K and V for every head.
    The gradients of K and V are the sums over the heads of each head's `dK` and `dV`.

    >>> b, h = shared_kv_backward()
    >>> print(b.Q, b.K)
    Q^(h) K
    """
    h = index("h") if h is None else h
    q, do = HeadSym("Q", h, n, d_k), HeadSym("dO", h, n, d_v)
    return AttentionBackward(q, MatSym("K", n, d_k), MatSym("V", n, d_v), do, causal), h


def grouped_kv_backward(
    g: sympy.Symbol | None = None, r: sympy.Symbol | None = None, size: object = None
) -> tuple[AttentionBackward, sympy.Symbol, sympy.Expr]:
    """Grouped-query attention seen from key head g: its R query heads `h = (g-1)R + r`,
    `r = 1..R`, with their `Q^{(h)}` and `dO^{(h)}`, read the group's `K_g` and `V_g`. Returns the
    backward pass, `r` and `R`; the gradients of `K_g` and `V_g` are sums over `r`.

    The heads of other groups read other key heads, so their losses do not depend on `K_g`:
    that step is the layout of grouped-query attention, not a kernel proof.
    """
    g = index("g") if g is None else g
    r = index("r") if r is None else r
    count = dim("R") if size is None else as_dim(size)
    h = (g - 1) * count + r
    q, do = HeadSym("Q", h, n, d_k), HeadSym("dO", h, n, d_v)
    return AttentionBackward(q, MatSym("K_g", n, d_k), MatSym("V_g", n, d_v), do), r, count
