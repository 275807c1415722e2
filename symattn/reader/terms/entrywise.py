"""Functions that keep their argument's shape (`\\tanh(M)`, `\\mathrm{ReLU}(M)`, `LayerNorm(X)`).
Imports the kernel's expressions and the reader's AST; never the translator, claims or CLI."""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from symattn.kernel.expr import MatExpr, MatSym
from symattn.kernel.text import plain
from symattn.reader.syntax import ast

__all__ = ["SHAPE_KEEPING", "shape_keeping", "shape_kept"]

#: Functions taken entry by entry (activations) or row by row (normalisations) in the texts
#: about attention: whatever their value, the result has the argument's shape.
SHAPE_KEEPING = frozenset(
    "tanh sigmoid relu gelu silu swish elu softplus layernorm rmsnorm dropout".split()
)


def shape_keeping(name: str) -> bool:
    """Whether `name` (as written: `tanh`, `ReLU`, `LayerNorm`) keeps its argument's shape.

    >>> shape_keeping("LayerNorm"), shape_keeping("ReLU"), shape_keeping("FFN")
    (True, True, False)
    """
    return name.lower().replace("_", "") in SHAPE_KEEPING


def shape_kept(name: str, node: ast.Call, args: Sequence[sympy.Basic]) -> MatSym | None:
    """`\\tanh(W_q q + W_k k)` of a matrix or vector: a matrix of the argument's shape named by
    the call as written, whose value is not read (claims about it are decided only by their
    shapes). None for a scalar argument or another count of arguments.

    >>> from symattn.kernel.dims import dim
    >>> x = ast.Symbol("X", start=0, end=1)
    >>> call = ast.Call("ReLU", (x,), parens=True, start=0, end=7)
    >>> shape_kept("ReLU", call, [MatSym("X", dim("n"), dim("d"))]).shape
    (n, d)
    """
    if not shape_keeping(name) or len(args) != 1 or not isinstance(args[0], MatExpr):
        return None
    x = args[0]
    text = f"\\operatorname{{{name}}}({plain(x)})"
    return MatSym(text, x.rows, x.cols)
