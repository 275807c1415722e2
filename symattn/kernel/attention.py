"""The chapter's objects built from dims: single-head and multi-head attention.

Imports only the kernel below it (dims, expr); must not import anything above the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from symattn.kernel.dims import H, as_dim, d, d_k, d_v, n
from symattn.kernel.expr import (
    CausalMask,
    Concat,
    Dot,
    HeadSym,
    MatExpr,
    MatSum,
    MatSym,
    RowBlock,
    Scale,
    Softmax,
    index,
)


@dataclass(frozen=True)
class SingleHead:
    """`Q = XW_Q, K = XW_K, V = XW_V`, scores `QK^T`, weights `A`, output `Z = AV`."""

    X: MatSym
    W_Q: MatSym
    W_K: MatSym
    W_V: MatSym
    Q: MatSym
    K: MatSym
    V: MatSym
    causal: bool = False

    @property
    def scores(self) -> MatExpr:
        return self.Q @ self.K.T

    @property
    def scaled(self) -> MatExpr:
        return self.scores / sympy.sqrt(self.Q.cols)

    @property
    def weights(self) -> MatExpr:
        """`A = softmax(QK^T / sqrt(d_k))`, masked first when causal."""
        s = self.scaled
        return Softmax(CausalMask(s) if self.causal else s)

    @property
    def output(self) -> MatExpr:
        return self.weights @ self.V

    @property
    def A(self) -> MatSym:
        return MatSym("A", self.Q.rows, self.Q.rows)

    @property
    def Z(self) -> MatSym:
        return MatSym("Z", self.Q.rows, self.V.cols)

    def definitions(self) -> dict[MatSym, MatExpr]:
        """What each named matrix stands for: `Q = XW_Q`, ..., `A = softmax(...)`, `Z = AV`."""
        return {
            self.Q: self.X @ self.W_Q,
            self.K: self.X @ self.W_K,
            self.V: self.X @ self.W_V,
            self.A: self.weights,
            self.Z: self.A @ self.V,
        }


def single_head(
    n: object = n, d: object = d, d_k: object = d_k, d_v: object = d_v, *, causal: bool = False
) -> SingleHead:
    """Single-head attention at symbolic or explicit sizes.

    >>> single_head(n=5, d_k=64).scores.shape
    (5, 5)
    """
    return SingleHead(
        X=MatSym("X", n, d),
        W_Q=MatSym("W_Q", d, d_k),
        W_K=MatSym("W_K", d, d_k),
        W_V=MatSym("W_V", d, d_v),
        Q=MatSym("Q", n, d_k),
        K=MatSym("K", n, d_k),
        V=MatSym("V", n, d_v),
        causal=causal,
    )


@dataclass(frozen=True)
class MultiHead:
    """Heads `h = 1..H` with `Z^{(h)}` (n × d_v) and `W_O` (H d_v × d)."""

    heads: sympy.Expr
    Z_h: HeadSym
    W_O: MatSym
    X: MatSym
    h: sympy.Symbol

    @property
    def concat(self) -> Concat:
        return Concat(self.Z_h, self.h, self.heads)

    @property
    def output(self) -> MatExpr:
        return self.concat @ self.W_O

    def W_O_block(self, h: object) -> RowBlock:
        """`W_O^{(h)}`: rows (h-1) d_v + 1 .. h d_v of `W_O`."""
        return RowBlock(self.W_O, h, self.Z_h.cols, self.heads)

    @property
    def blockwise(self) -> MatSum:
        """`sum_h Z^{(h)} W_O^{(h)}`."""
        return MatSum(self.Z_h @ self.W_O_block(self.h), self.h, 1, self.heads)

    @property
    def residual(self) -> MatExpr:
        return self.X + self.output

    def head_attention(self, h: object, *, causal: bool = False) -> MatExpr:
        """`Attention(Q^{(h)}, K^{(h)}, V^{(h)})` with `Q^{(h)} = X W_Q^{(h)}`."""
        dk = self.Z_h.cols if self.d_k is None else self.d_k
        q = self.X @ HeadSym("W_Q", h, self.X.cols, dk)
        k = self.X @ HeadSym("W_K", h, self.X.cols, dk)
        v = self.X @ HeadSym("W_V", h, self.X.cols, self.Z_h.cols)
        s = (q @ k.T) / sympy.sqrt(dk)
        return Softmax(CausalMask(s) if causal else s) @ v

    d_k: sympy.Expr | None = None


def multi_head(
    n: object = n, d: object = d, d_v: object = d_v, H: object = H, d_k: object = d_k
) -> MultiHead:
    """Multi-head attention at symbolic or explicit sizes.

    >>> mh = multi_head()
    >>> mh.concat.shape, mh.output.shape
    ((n, H*d_v), (n, d))
    """
    h = index("h")
    return MultiHead(
        heads=as_dim(H),
        Z_h=HeadSym("Z", h, n, d_v),
        W_O=MatSym("W_O", as_dim(H) * as_dim(d_v), d),
        X=MatSym("X", n, d),
        h=h,
        d_k=as_dim(d_k),
    )


def chapter_identities(
    n: object = n, d: object = d, d_k: object = d_k, d_v: object = d_v, H: object = H
) -> dict[str, tuple[sympy.Basic, sympy.Basic, dict[MatSym, MatExpr] | None]]:
    """The four identities I1-I4 of the chapter as claims `(lhs, rhs, defs)`, at any sizes.

    I1 `(QK^T)_{ij} = q_i·k_j`; I2 `z_i = sum_j a_ij v_j` with `Z = AV`;
    I3 `Concat(Z^(1..H)) W_O = sum_h Z^(h) W_O^(h)`; I4 under the causal mask
    `z_i = sum_{j<=i} a_ij v_j`. The scale benchmark and its tests check these.

    >>> sorted(chapter_identities(n=7, d=512, d_k=64, d_v=64, H=8))
    ['I1', 'I2', 'I3', 'I4']
    """
    i, j = index("i"), index("j")
    s = single_head(n=n, d=d, d_k=d_k, d_v=d_v)
    A, Z = MatSym("A", n, n), MatSym("Z", n, d_v)
    mh = multi_head(n=n, d=d, d_v=d_v, H=H, d_k=d_k)
    w = single_head(n=n, d=d, d_k=d_k, d_v=d_v, causal=True).weights
    return {
        "I1": (s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), None),
        "I2": (Z.row(i), MatSum(Scale(A[i, j], s.V.row(j)), j, 1, n), {Z: A @ s.V}),
        "I3": (mh.output, mh.blockwise, None),
        "I4": ((w @ s.V).row(i), MatSum(Scale(w[i, j], s.V.row(j)), j, 1, i), None),
    }
