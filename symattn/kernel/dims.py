"""Symbolic dimensions (positive-integer sympy symbols), shapes, and strict dim equality.

Imports only sympy and kernel.errors; must not import anything above it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import sympy

from symattn.kernel.errors import DimError

Dim = sympy.Expr
Shape = tuple[sympy.Expr, sympy.Expr]


def dim(name: str) -> sympy.Symbol:
    """A symbolic dimension: a positive-integer symbol.

    >>> dim("d_k").is_positive, dim("d_k").is_integer
    (True, True)
    """
    return sympy.Symbol(name, integer=True, positive=True)


n, d, d_k, d_v, H = (dim(s) for s in ("n", "d", "d_k", "d_v", "H"))
STANDARD_DIMS: dict[str, sympy.Symbol] = {"n": n, "d": d, "d_k": d_k, "d_v": d_v, "H": H}

#: Sizes of general matrices in the rules (`A: m × p`, `B: p × q`; m keys in cross-attention).
m, p, q = (dim(s) for s in ("m", "p", "q"))
#: The sizes of modern attention: G key/value heads, R query heads per key/value head, D features
#: of a kernel feature map, ell valid keys (followed by p padding keys), b a block's rows, P the
#: 2-d pairs a rotary embedding turns. Each name is one size: the padding and the pairs differ.
G, R, D, ell, b, P = (dim(s) for s in ("G", "R", "D", "ell", "b", "P"))


def as_dim(value: object) -> sympy.Expr:
    """Turn an int or a sympy expression into a dim, refusing what cannot be a size.

    >>> as_dim(5), as_dim(H * d_v)
    (5, H*d_v)
    """
    if isinstance(value, bool):
        raise DimError(f"a dimension must be a positive integer, not {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise DimError(f"a dimension must be a positive integer, not {value}")
        return sympy.Integer(value)
    if isinstance(value, sympy.Expr):
        if value.is_number:
            if not (value.is_integer and value.is_positive):
                raise DimError(f"a dimension must be a positive integer, not {value}")
            return value
        if value.is_positive is False:
            raise DimError(f"dimension {value} cannot be positive")
        return value
    raise DimError(f"a dimension must be an int or a sympy expression, not {type(value).__name__}")


@dataclass(frozen=True)
class DimContext:
    """Numeric bindings (`n = 5`) and declared equalities (`d_k = d/H`) in force."""

    equalities: Mapping[sympy.Symbol, sympy.Expr] = field(default_factory=dict)

    def resolve(self, e: sympy.Expr) -> sympy.Expr:
        """Apply the declared equalities until nothing changes (bounded)."""
        for _ in range(8):
            new = _strict(e).xreplace(dict(self.equalities))
            if new == e:
                break
            e = new
        return e


# The default is never mutated: DimContext is frozen and assume() builds a new one.
_CONTEXT: contextvars.ContextVar[DimContext] = contextvars.ContextVar(
    "symattn_dims",
    default=DimContext(),  # noqa: B039
)


def current() -> DimContext:
    """The dim equalities in force here."""
    return _CONTEXT.get()


@contextlib.contextmanager
def assume(**equalities: object) -> Iterator[DimContext]:
    """Declare dims equal to numbers or expressions while the block runs.

    >>> with assume(d_k=d / H):
    ...     dims_equal(H * d_k, d)
    True
    >>> dims_equal(H * d_k, d)
    False
    """
    eqs = dict(current().equalities)
    for name, value in equalities.items():
        sym = STANDARD_DIMS.get(name, dim(name))
        if isinstance(value, int):
            value = as_dim(value)
        if not isinstance(value, sympy.Expr):
            raise DimError(f"cannot declare {name} = {value!r}: not a dim expression")
        eqs[sym] = value
    _consistent(DimContext(eqs))
    token = _CONTEXT.set(DimContext(eqs))
    try:
        yield _CONTEXT.get()
    finally:
        _CONTEXT.reset(token)


def relevant(
    equalities: Mapping[sympy.Symbol, sympy.Expr], symbols: set[sympy.Symbol]
) -> dict[sympy.Symbol, sympy.Expr]:
    """The equalities a claim over `symbols` can reach: those about one of them, those whose
    value (as written or resolved) mentions one of them, and so on from what these mention;
    and every equality that fixes a dim to a number. Resolving any reached symbol gives the
    same under these alone as under all of them, and the rest are about other dims only.

    >>> relevant({d_v: d / H, d_k: n}, {d}) == {d_v: d / H}
    True
    """
    ctx = DimContext(dict(equalities))
    reach = set(symbols)
    out: dict[sympy.Symbol, sympy.Expr] = {}
    changed = True
    while changed:
        changed = False
        for s, v in equalities.items():
            if s in out:
                continue
            value = _strict(v)
            syms = value.free_symbols | ctx.resolve(value).free_symbols
            if s in reach or not syms or syms & reach or not ctx.resolve(s).free_symbols:
                out[s] = v
                reach |= syms | {s}
                changed = True
    return out


@contextlib.contextmanager
def only(equalities: Mapping[sympy.Symbol, sympy.Expr]) -> Iterator[DimContext]:
    """These equalities alone in force while the block runs (a part of the context in force,
    as `relevant` chose it)."""
    token = _CONTEXT.set(DimContext(dict(equalities)))
    try:
        yield _CONTEXT.get()
    finally:
        _CONTEXT.reset(token)


def _consistent(ctx: DimContext) -> None:
    """Refuse equalities that no sizes satisfy: a dim they fix to a number that is no size.

    >>> try:
    ...     with assume(n=2, d=n / 4):
    ...         pass
    ... except DimError as exc:
    ...     print(str(exc).split(",")[0])
    contradictory assumptions: d = n/4 makes d = 1/2
    """
    for sym, value in ctx.equalities.items():
        v = ctx.resolve(sym)
        if not v.is_number:
            continue
        if not v.is_Integer or v < 0 or (v == 0 and sym.is_positive is not False):
            kind = "a positive integer" if sym.is_positive is not False else "a count"
            raise DimError(
                f"contradictory assumptions: {sym} = {value} makes {sym} = {v}, not {kind}"
            )


def dims_equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    """True only when `a = b` is provable from the dims' assumptions and declared equalities.

    Strict: `n` and `d_k` are *not* equal merely because nothing says they differ.

    >>> dims_equal(H * d_v, d_v * H), dims_equal(n, d_k)
    (True, False)
    """
    ctx = current()
    return _equal_cached(_strict(a), _strict(b), frozenset(ctx.equalities.items()))


@functools.lru_cache(maxsize=4096)
def _equal_cached(a: sympy.Expr, b: sympy.Expr, eqs: frozenset) -> bool:
    ctx = DimContext(dict(eqs))
    diff = ctx.resolve(a) - ctx.resolve(b)
    if diff == 0:
        return True
    if diff.is_rational_function():
        # Dims are rational functions of positive-integer symbols: `cancel` decides them.
        return bool(sympy.cancel(sympy.together(sympy.expand(diff))) == 0)
    return bool(sympy.simplify(diff) == 0)


def _strict(x: object) -> sympy.Expr:
    """sympify that never parses text (sympify of a string runs eval)."""
    if isinstance(x, str):
        raise DimError(f"a dimension must be an int or a sympy expression, not the text {x!r}")
    return sympy.sympify(x, strict=True)


def shape_str(shape: Shape) -> str:
    """A shape as the chapter writes it: `n × d_k`.

    >>> shape_str((n, H * d_v))
    'n × H*d_v'
    """
    return f"{dim_str(shape[0])} × {dim_str(shape[1])}"


def dim_str(e: sympy.Expr) -> str:
    """A dim in plain text, factors in a textbook order (`H*d_v`, not `d_v*H`)."""
    e = _strict(e)
    if isinstance(e, sympy.Mul):
        num = [a for a in e.args if a.is_number]
        rest = sorted((a for a in e.args if not a.is_number), key=_dim_order)
        return "*".join(str(a) for a in num + rest)
    return str(e)


def _dim_order(e: sympy.Expr) -> tuple[int, str]:
    # H before the per-head width, single letters before subscripted names.
    name = str(e)
    return (0 if name == "H" else 1 + name.count("_"), name)
