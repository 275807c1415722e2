"""Rule instances: does a step `before = after` rewrite instances of a rule's `lhs = rhs`?

Imports only the kernel below it (errors, dims, expr, proof); must not import rules, derivation
or anything above the kernel. The check only ever rejects: a step that fits is still proved.

A rule's free parts are its pattern variables: a named matrix (`MatSym`, `HeadSym`) stands for
any matrix expression of a fitting shape, a `FromColumn` for any row-constant `FromColumn`, a
symbol (index, dim, scalar) for any scalar, an `IndexedBase` used as `f[i, j]` for any body in
the bound indices. A step fits when `before` and `after` differ only where one side holds an
instance of `lhs` and the other the same instance of `rhs` under one substitution of the rule's
variables (either direction, anywhere inside, at one place or several), the rest kept as it was
(sizes may be written another way). A matrix variable binds one subterm, the same each time it
occurs (`X = (X^T)^T` does not fit `QK^T = (KQ^T)^T`); a scalar variable in a sum or product
takes the value that makes the instance exactly the term (`-λ` fits `-2μ`: λ := 2μ). Inside an
instance, a scalar part made only of bound variables may be written in any form the kernel
proves equal (`exp((QK^T)_ij / sqrt(d_k))` for `exp(S_ij)` with `S = QK^T / sqrt(d_k)`); matrices
and the outermost operation of each side must be there as the rule writes it. A rule's
hypotheses must be implied by the proof's (`implied`: over the integers, `j >= i + 1` and
`j > i + 1` give `j > i`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import permutations

import sympy
from sympy import Indexed
from sympy.core.relational import Relational
from sympy.logic.boolalg import BooleanAtom, BooleanFunction

from symattn.kernel.dims import dims_equal
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import (
    Concat,
    FromColumn,
    HeadSym,
    MatExpr,
    MatSum,
    MatSym,
    substitute_definitions,
    walk,
)
from symattn.kernel.proof import prove_equal
from symattn.kernel.text import plain

Binding = dict[sympy.Basic, sympy.Basic]

_MATRIX_VARS = (MatSym, HeadSym, FromColumn)
_LOGIC = (Relational, BooleanAtom, BooleanFunction)  # not Boolean: a sympy Symbol is one too
_MAX_PERMUTED = 5  # commutative arguments tried in every order up to this many
_MAX_UNFOLD = 20  # rounds of unfolding definitions


class Pattern:
    """A rule's statement `lhs = rhs` (and its hypotheses) with its pattern variables.

    >>> from symattn.kernel.dims import n, d_k
    >>> from symattn.kernel.expr import Dot, MatSym, index
    >>> Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
    >>> i, j = index("i"), index("j")
    >>> rule = Pattern((Q @ K.T)[i, j], Dot(Q.row(i), K.row(j)))
    >>> X, Y = MatSym("X", 5, 3), MatSym("Y", 5, 3)
    >>> rule.mismatch(2 * (X @ Y.T)[1, 2], 2 * Dot(X.row(1), Y.row(2))) is None
    True
    """

    def __init__(self, lhs: sympy.Basic, rhs: sympy.Basic, hypotheses: Sequence[sympy.Basic] = ()):
        self.lhs, self.rhs, self.hypotheses = lhs, rhs, tuple(hypotheses)
        self.funcs: set[sympy.Basic] = set()
        self.vars: set[sympy.Basic] = set()
        for side in (lhs, rhs, *self.hypotheses):
            for x in walk(side):
                if isinstance(x, Indexed):
                    self.funcs.add(x.base)
                elif isinstance(x, _MATRIX_VARS) or isinstance(x, sympy.Symbol):
                    self.vars.add(x)
        self.vars -= {f.label for f in self.funcs}
        self._var_cache: dict[sympy.Basic, frozenset[sympy.Basic]] = {}
        self._equal_cache: dict[tuple[sympy.Basic, sympy.Basic], bool] = {}
        self.assuming: tuple[sympy.Basic, ...] = ()
        self.missing: list[sympy.Basic] = []

    # ---- the public question ----------------------------------------------------------

    def mismatch(
        self,
        before: sympy.Basic,
        after: sympy.Basic,
        *,
        defs: Mapping[MatSym, MatExpr] | None = None,
        assuming: Sequence[sympy.Basic] = (),
    ) -> str | None:
        """None when the step rewrites instances of the rule; else what was expected."""
        self.assuming = tuple(assuming)
        self.missing = []
        pairs = [(before, after)]
        if defs:
            pairs.append((unfold(before, defs), unfold(after, defs)))
        for b, a in pairs:
            if b == a:
                continue
            count = self._explain(b, a, top=True)
            if count:
                return None
        if self.missing:
            need = ", ".join(plain(h) for h in self.missing)
            return f"the rule applies only under its hypothesis {need}, which the proof lacks"
        return (
            f"expected {plain(self.lhs)} on one side where the other has {plain(self.rhs)} "
            "(the rule's variables standing for any terms, either direction, inside any "
            "context), the rest unchanged"
        )

    # ---- contexts: where do before and after differ? ------------------------------------

    def _explain(self, b: sympy.Basic, a: sympy.Basic, top: bool = False) -> int | None:
        """How many rule instances turn `b` into `a`, the rest kept; None if it cannot be said."""
        if b == a:
            return 0
        if self._instance(b, a):
            return 1
        if type(b) is type(a) and len(b.args) == len(a.args) and b.args:
            count = self._explain_args(b, a)
            if count is not None:
                return count
        if not top and _same_context(b, a):
            return 0  # the context, unchanged (sizes may be written another way: 2d_v, d_v + d_v)
        return None

    def _explain_args(self, b: sympy.Basic, a: sympy.Basic) -> int | None:
        if not isinstance(b, (sympy.Add, sympy.Mul)):
            total = 0
            for x, y in zip(b.args, a.args, strict=True):
                c = self._explain(x, y)
                if c is None:
                    return None
                total += c
            return total
        rest_b, rest_a = list(b.args), list(a.args)
        for x in b.args:  # sympy reorders the arguments of a sum or product: pair equal ones
            if x in rest_a:
                rest_b.remove(x)
                rest_a.remove(x)
        if len(rest_b) > _MAX_PERMUTED:
            return None
        for order in permutations(rest_a):
            counts = [self._explain(x, y) for x, y in zip(rest_b, order, strict=True)]
            if all(c is not None for c in counts):
                return sum(c for c in counts if c is not None)
        return None

    def _instance(self, b: sympy.Basic, a: sympy.Basic) -> bool:
        for old, new in ((b, a), (a, b)):  # lhs -> rhs, or rhs -> lhs
            for s in self._match(self.lhs, old, {}, top=True):
                for s2 in self._match(self.rhs, new, s, top=True):
                    if self._captures(s2):
                        continue
                    if self._hypotheses_hold(s2):
                        return True
        return False

    def _hypotheses_hold(self, s: Binding) -> bool:
        for h in self.hypotheses:
            if not self._bound(h, s):
                return False
            inst = self._inst(h, s)
            if not implied(inst, self.assuming):
                self.missing.append(inst)
                return False
        return True

    # ---- matching a pattern against a term --------------------------------------------

    def _match(
        self, p: sympy.Basic, t: sympy.Basic, s: Binding, top: bool = False
    ) -> Iterator[Binding]:
        if p in self.vars:
            yield from self._bind(p, t, s)
            return
        if isinstance(p, Indexed) and p.base in self.funcs:
            yield from self._bind_func(p, t, s)
            return
        if not p.args:
            if p == t or (not isinstance(t, MatExpr) and self._equal(p, t)):
                yield s
            return
        if not top and self._bound(p, s):
            # a bound part: a scalar may be written in any form the kernel proves equal; a
            # matrix must be the very subterm (else `X = (X^T)^T` fits `QK^T = (KQ^T)^T`)
            inst = self._inst(p, s)
            if inst == t or (not isinstance(p, MatExpr) and self._equal(inst, t)):
                yield s
            return
        if isinstance(p, (sympy.Add, sympy.Mul)):
            yield from self._match_commutative(p, t, s)
            return
        if type(p) is not type(t) or len(p.args) != len(t.args):
            return
        yield from self._match_seq(_binders_first(p), _binders_first(t), s)

    def _match_seq(
        self, ps: Sequence[sympy.Basic], ts: Sequence[sympy.Basic], s: Binding
    ) -> Iterator[Binding]:
        if not ps:
            yield s
            return
        for s1 in self._match(ps[0], ts[0], s):
            yield from self._match_seq(ps[1:], ts[1:], s1)

    def _match_commutative(self, p: sympy.Basic, t: sympy.Basic, s: Binding) -> Iterator[Binding]:
        yield from self._solve(p, t, s)
        if type(p) is not type(t):
            return
        ps, ts = list(p.args), list(t.args)
        if len(ps) == len(ts) and len(ts) <= _MAX_PERMUTED:
            for order in permutations(ts):
                yield from self._match_seq(ps, order, s)
            return
        # one free scalar variable takes the remaining factors (terms): `c * sum_j f_j`
        free = [x for x in ps if x in self.vars and isinstance(x, sympy.Symbol) and x not in s]
        if len(ps) < len(ts) and len(free) == 1 and len(ts) <= _MAX_PERMUTED + 2:
            others = [x for x in ps if x is not free[0]]
            for chosen in permutations(range(len(ts)), len(others)):
                rest = [x for k, x in enumerate(ts) if k not in chosen]
                for s1 in self._match_seq(others, [ts[k] for k in chosen], s):
                    yield from self._bind(free[0], p.func(*rest), s1)

    def _solve(self, p: sympy.Basic, t: sympy.Basic, s: Binding) -> Iterator[Binding]:
        """One free scalar variable of a sum or product, the rest bound: the value that makes
        the instance exactly `t` (`-λ` fits `-2μ` with λ := 2μ), if the instance is then `t`."""
        if isinstance(t, (MatExpr, *_LOGIC)) or _has_matrices(t):
            return
        free = [x for x in p.args if x in self.vars and isinstance(x, sympy.Symbol) and x not in s]
        if len(free) != 1:
            return
        others = [self._inst(x, s) for x in p.args if x != free[0]]
        if not all(self._bound(x, s) for x in p.args if x != free[0]) or not others:
            return
        rest = p.func(*others)
        if isinstance(p, sympy.Mul):
            if rest == 0:
                return
            value = t / rest
        else:
            value = t - rest
        if p.func(rest, value) == t:  # an instance under the substitution, as sympy writes it
            yield from self._bind(free[0], value, s)

    def _bind(self, v: sympy.Basic, t: sympy.Basic, s: Binding) -> Iterator[Binding]:
        if v in s:
            # one variable, one subterm: a matrix variable bound twice is bound to the same
            # term, not to anything the kernel proves equal (scalars: dims may be equal)
            if s[v] == t or (not isinstance(v, MatExpr) and self._equal(s[v], t)):
                yield s
            return
        if isinstance(v, MatExpr):
            if not isinstance(t, MatExpr) or (isinstance(v, FromColumn) and type(t) is not type(v)):
                return
            s1 = {**s, v: t}
            yield from self._match_seq(list(v.shape), list(t.shape), s1)
            return
        if isinstance(t, (MatExpr, *_LOGIC)):
            return
        yield {**s, v: t}

    def _bind_func(self, p: Indexed, t: sympy.Basic, s: Binding) -> Iterator[Binding]:
        args = [s.get(x) for x in p.indices]
        if any(not isinstance(x, sympy.Symbol) for x in args) or isinstance(t, MatExpr):
            return  # the body of `f[i, j]` is known only through bound indices
        if p.base in s:
            if self._equal(self._inst(p, s), t):
                yield s
            return
        yield {**s, p.base: sympy.Lambda(tuple(args), t)}

    # ---- bindings -----------------------------------------------------------------------

    def _vars_in(self, p: sympy.Basic) -> frozenset[sympy.Basic]:
        if p not in self._var_cache:
            found = {x for x in walk(p) if x in self.vars or x in self.funcs}
            self._var_cache[p] = frozenset(found)
        return self._var_cache[p]

    def _bound(self, p: sympy.Basic, s: Binding) -> bool:
        return all(v in s for v in self._vars_in(p))

    def _inst(self, p: sympy.Basic, s: Binding) -> sympy.Basic:
        if p in s:
            return s[p]
        if isinstance(p, Indexed) and p.base in s:
            return s[p.base](*(self._inst(x, s) for x in p.indices))
        if not p.args:
            return p
        return p.func(*(self._inst(x, s) for x in p.args))

    def _captures(self, s: Binding) -> bool:
        """A variable bound outside a sum may not mention the sum's index (`c` in `c sum_j f_j`)."""
        return any(self._captures_in(side, s, ()) for side in (self.lhs, self.rhs))

    def _captures_in(self, p: sympy.Basic, s: Binding, scope: tuple[sympy.Basic, ...]) -> bool:
        if p in self.vars and not isinstance(p, HeadSym):
            value = s.get(p)
            if value is None or p in scope:
                return False
            free = value.free_symbols
            return any(s.get(b) in free for b in scope)
        inner = scope + _binder_vars(p)
        return any(self._captures_in(x, s, inner) for x in p.args if isinstance(x, sympy.Basic))

    # ---- the kernel's equality, for parts ---------------------------------------------------

    def _equal(self, x: sympy.Basic, y: sympy.Basic) -> bool:
        if x == y:
            return True
        key = (x, y)
        if key not in self._equal_cache:
            self._equal_cache[key] = _kernel_equal(x, y)
        return self._equal_cache[key]


def _kernel_equal(x: sympy.Basic, y: sympy.Basic) -> bool:
    if isinstance(x, MatExpr) != isinstance(y, MatExpr):
        return False
    if isinstance(x, _LOGIC) or isinstance(y, _LOGIC):
        return False
    if not isinstance(x, MatExpr) and not _has_matrices(x) and not _has_matrices(y):
        try:
            return bool(dims_equal(x, y))
        except (TypeError, SymattnError):
            return False
    try:
        return prove_equal(x, y, witnesses=("symbolic",)).status == "proved"
    except (SymattnError, TypeError, ValueError, NotImplementedError):
        return False


def _same_context(x: sympy.Basic, y: sympy.Basic) -> bool:
    """The part of a step around the rewritten instances is kept as it was: the same term, or
    the same scalar of sizes and numbers (no matrix, no entry) written another way. Anything the
    kernel merely proves equal is another step, with a reason of its own."""
    if x == y:
        return True
    if isinstance(x, (MatExpr, *_LOGIC)) or isinstance(y, (MatExpr, *_LOGIC)):
        return False
    if _has_matrices(x) or _has_matrices(y):
        return False
    try:
        return bool(dims_equal(x, y))
    except (TypeError, SymattnError):
        return False


def _has_matrices(e: sympy.Basic) -> bool:
    return any(isinstance(x, (MatExpr, Indexed, sympy.Sum)) for x in walk(e))


def _binder_vars(p: sympy.Basic) -> tuple[sympy.Basic, ...]:
    if isinstance(p, sympy.Sum):
        return tuple(lim[0] for lim in p.limits)
    if isinstance(p, (MatSum, Concat)):
        return (p.args[1],)
    return ()


def _binders_first(p: sympy.Basic) -> list[sympy.Basic]:
    """The arguments in matching order: a binder's index and range before its body."""
    args = list(p.args)
    if isinstance(p, (sympy.Sum, MatSum, Concat)):
        return args[1:] + args[:1]
    return args


def _canonical(h: sympy.Basic) -> sympy.Basic:
    return h.canonical if isinstance(h, Relational) else h


def implied(h: sympy.Basic, assuming: Sequence[sympy.Basic]) -> bool:
    """Does one of the assumptions imply the hypothesis `h`? Inequalities between integers
    (indices, sizes) are compared as `e >= 0` (`j > i` is `j - i - 1 >= 0`), so `j >= i + 1`
    and the stronger `j > i + 1` both give `j > i`.

    >>> from symattn.kernel.expr import index
    >>> i, j = index("i"), index("j")
    >>> implied(sympy.Gt(j, i), [sympy.Ge(j, i + 1)]), implied(sympy.Gt(j, i), [sympy.Gt(j, i + 1)])
    (True, True)
    >>> implied(sympy.Gt(j, i), [sympy.Ge(j, i)])
    False
    >>> k = index("k")
    >>> implied(sympy.Gt(j, i), [sympy.Gt(j, k), sympy.Ge(k, i)])
    True
    """
    if h == sympy.true:
        return True
    if any(_canonical(a) == _canonical(h) for a in assuming):
        return True
    target = _nonnegative_form(h)
    forms = [f for f in (_nonnegative_form(a) for a in assuming) if f is not None]
    if target is None:
        return False
    # one assumption, or two chained (j > k and k > i give j > i): their e's add up
    combined = forms + [x + y for k, x in enumerate(forms) for y in forms[k + 1 :]]
    for have in combined:
        gap = sympy.expand(target - have)  # h's e minus theirs: never negative, then h holds
        if (gap.is_Integer and gap >= 0) or gap.is_nonnegative:
            return True
    return False


def _nonnegative_form(c: sympy.Basic) -> sympy.Expr | None:
    """`e` with `c` equivalent to `e >= 0` over the integers, or None when it is not one."""
    if not isinstance(c, (sympy.GreaterThan, sympy.StrictGreaterThan, sympy.LessThan)) and not (
        isinstance(c, sympy.StrictLessThan)
    ):
        return None
    diff = sympy.expand(c.gts - c.lts)
    if not all(x.is_integer for x in diff.free_symbols) or not diff.is_integer:
        return None
    strict = isinstance(c, (sympy.StrictGreaterThan, sympy.StrictLessThan))
    return diff - 1 if strict else diff


def unfold(e: sympy.Basic, defs: Mapping[MatSym, MatExpr]) -> sympy.Basic:
    """`e` with every defined matrix replaced by its definition, repeatedly.

    >>> from symattn.kernel.dims import n
    >>> A, B = MatSym("A", n, n), MatSym("B", n, n)
    >>> unfold(A.T, {A: B @ B})
    (BB)^T
    """
    return substitute_definitions(e, defs, _MAX_UNFOLD)[0]


__all__ = ["Pattern", "implied", "unfold"]
