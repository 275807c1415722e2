"""Plain-text rendering of kernel expressions for messages: `QK^T`, `softmax(QK^T/sqrt(d_k))`.

Imports sympy and symattn.expr only (lazily, to avoid an import cycle).
"""

from __future__ import annotations

import sympy


def plain(e: sympy.Basic) -> str:
    """A short textbook-like text form of a matrix expression or scalar.

    >>> from symattn.attention import single_head
    >>> plain(single_head().scores)
    'QK^T'
    """
    from symattn import expr as E

    if isinstance(e, (E.MatSym, E.FromColumn)):
        return e.name
    if isinstance(e, E.HeadSym):
        return f"{e.name}^({e.head})"
    if isinstance(e, E.Ones):
        return f"1_({e.rows}x{e.cols})"
    if isinstance(e, E.MatMul):
        return "".join(_factor(f) for f in e.factors())
    if isinstance(e, E.MatAdd):
        return f"{plain(e.args[0])} + {plain(e.args[1])}"
    if isinstance(e, E.Scale):
        c = e.scalar
        if c == -1:
            return f"-{_factor(e.args[1])}"
        num, den = sympy.fraction(c)
        if num == 1:
            return f"{_factor(e.args[1])}/{_scalar(den)}"
        return f"{_scalar(c)} {_factor(e.args[1])}"
    if isinstance(e, E.Transpose):
        return f"{_factor(e.args[0])}^T"
    if isinstance(e, E.Softmax):
        return f"softmax({plain(e.args[0])})"
    if isinstance(e, E.ColSoftmax):
        return f"softmax_col({plain(e.args[0])})"
    if isinstance(e, E.CausalMask):
        return f"mask({plain(e.args[0])})"
    if isinstance(e, E.Row):
        a = e.args[0]
        name = (
            a.name.lower() if isinstance(a, E.MatSym) and len(a.name) == 1 else f"row({plain(a)})"
        )
        return f"{name}_{e.index}"
    if isinstance(e, E.RowBlock):
        return f"{plain(e.args[0])}^({e.head})"
    if isinstance(e, E.Concat):
        return f"Concat({plain(e.member(1))},...,{plain(e.member(e.count))})"
    if isinstance(e, E.MatSum):
        v, lo, hi = e.limits
        return f"sum_{{{v}={lo}}}^{{{hi}}} {plain(e.body)}"
    if isinstance(e, E.Entry):
        return f"({plain(e.matrix)})_{{{e.args[1]},{e.args[2]}}}"
    if isinstance(e, E.Dot):
        return f"{plain(e.args[0])}·{plain(e.args[1])}"
    return _scalar(e)


def _factor(e: sympy.Basic) -> str:
    from symattn import expr as E

    text = plain(e)
    if isinstance(e, (E.MatAdd, E.Scale)):
        return f"({text})"
    return text


def _scalar(e: sympy.Basic) -> str:
    return str(e)
