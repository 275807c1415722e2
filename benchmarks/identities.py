"""The four benchmarked identities at the three sizes, as kernel claims and as naive baselines.

Imports symattn (for its claims), sympy and, only when asked, symengine.

I1  (QK^T)_{ij} = q_i . k_j                       for all i, j
I2  Z = AV, row-wise z_i = sum_j a_ij v_j          for all i
I3  Concat(Z^(1..H)) W_O = sum_h Z^(h) W_O^(h)
I4  causal softmax weights, z_i = sum_{j<=i} a_ij v_j   for all i

The baselines build explicit matrices whose every entry is an independent symbol and expand
lhs - rhs, as a user of sympy or symengine would. For I4 they get free positive exp-score
symbols E_ij (j <= i), a simplification in their favour: symattn evaluates the chapter's
weights softmax(mask(QK^T / sqrt(d_k))) from Q and K.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SIZES: dict[str, dict[str, int]] = {
    "small": {"n": 5, "d": 8, "d_k": 4, "d_v": 4, "H": 2},
    "seed": {"n": 5, "d": 64, "d_k": 64, "d_v": 64, "H": 1},
    "original": {"n": 7, "d": 512, "d_k": 64, "d_v": 64, "H": 8},
}
NAMES = ("I1", "I2", "I3", "I4")


def claims(n: Any, d: Any, d_k: Any, d_v: Any, H: Any) -> dict[str, tuple]:  # noqa: N803
    """symattn claims (lhs, rhs, defs) of I1-I4 at these sizes (ints or symbolic dims)."""
    from symattn.kernel.attention import chapter_identities

    return chapter_identities(n=n, d=d, d_k=d_k, d_v=d_v, H=H)


# ---- naive baselines ------------------------------------------------------------------------


def baseline(engine: str, name: str, size: dict[str, int]) -> bool:
    """Build the identity with explicit symbol matrices in `engine` and expand lhs - rhs."""
    lib = _engine(engine)
    return _BASELINES[name](lib, **size)


def _engine(engine: str) -> Any:
    if engine == "sympy":
        import sympy

        return sympy
    if engine == "symengine":
        import symengine

        return symengine
    raise ValueError(f"unknown engine {engine!r}")


def _matrix(lib: Any, name: str, rows: int, cols: int) -> Any:
    return lib.Matrix(
        rows, cols, [lib.Symbol(f"{name}_{r}_{c}") for r in range(rows) for c in range(cols)]
    )


def _all_zero(lib: Any, entries: Any) -> bool:
    return all(lib.expand(e) == 0 for e in entries)


def _i1(lib: Any, n: int, d: int, d_k: int, d_v: int, H: int) -> bool:  # noqa: N803
    Q, K = _matrix(lib, "Q", n, d_k), _matrix(lib, "K", n, d_k)
    lhs = Q * K.T
    dot = [
        [sum((Q[a, r] * K[b, r] for r in range(d_k)), lib.Integer(0)) for b in range(n)]
        for a in range(n)
    ]
    return _all_zero(lib, (lhs[a, b] - dot[a][b] for a in range(n) for b in range(n)))


def _i2(lib: Any, n: int, d: int, d_k: int, d_v: int, H: int) -> bool:  # noqa: N803
    A, V = _matrix(lib, "A", n, n), _matrix(lib, "V", n, d_v)
    Z = A * V
    rows = [
        [sum((A[a, b] * V[b, u] for b in range(n)), lib.Integer(0)) for u in range(d_v)]
        for a in range(n)
    ]
    return _all_zero(lib, (Z[a, u] - rows[a][u] for a in range(n) for u in range(d_v)))


def _i3(lib: Any, n: int, d: int, d_k: int, d_v: int, H: int) -> bool:  # noqa: N803
    heads = [_matrix(lib, f"Z{h}", n, d_v) for h in range(H)]
    W = _matrix(lib, "W_O", H * d_v, d)
    concat = heads[0]
    for z in heads[1:]:
        concat = concat.row_join(z)
    lhs = concat * W
    rhs = None
    for h, z in enumerate(heads):
        block = lib.Matrix(d_v, d, [W[h * d_v + r, c] for r in range(d_v) for c in range(d)])
        term = z * block
        rhs = term if rhs is None else rhs + term
    return _all_zero(lib, (lhs[a, c] - rhs[a, c] for a in range(n) for c in range(d)))


def _i4(lib: Any, n: int, d: int, d_k: int, d_v: int, H: int) -> bool:  # noqa: N803
    E = [
        [lib.Symbol(f"E_{a}_{b}", positive=True) if b <= a else None for b in range(n)]
        for a in range(n)
    ]
    if lib.__name__ == "symengine":
        E = [[lib.Symbol(f"E_{a}_{b}") if b <= a else None for b in range(n)] for a in range(n)]
    total = [sum((E[a][b] for b in range(a + 1)), lib.Integer(0)) for a in range(n)]
    weights = lib.Matrix(
        n, n, [E[a][b] / total[a] if b <= a else 0 for a in range(n) for b in range(n)]
    )
    V = _matrix(lib, "V", n, d_v)
    Z = weights * V
    diffs = []
    for a in range(n):
        for u in range(d_v):
            rhs = sum((weights[a, b] * V[b, u] for b in range(a + 1)), lib.Integer(0))
            diffs.append(Z[a, u] - rhs)
    return all(_rational_zero(lib, e) for e in diffs)


def _rational_zero(lib: Any, e: Any) -> bool:
    e = lib.expand(e)
    if e == 0:
        return True
    num, _ = lib.fraction(lib.together(e)) if hasattr(lib, "together") else (e, 1)
    return bool(lib.expand(num) == 0)


_BASELINES: dict[str, Callable[..., bool]] = {"I1": _i1, "I2": _i2, "I3": _i3, "I4": _i4}
