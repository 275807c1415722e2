"""Plain-text rendering of kernel expressions for messages: `QK^T`, `softmax(QK^T/sqrt(d_k))`.

Imports sympy and symattn.kernel.expr only (expr imports this module lazily, inside __str__).
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from symattn.kernel import expr as E


def plain(e: sympy.Basic) -> str:
    """A short textbook-like text form of a matrix expression or scalar.

    >>> from symattn.kernel.attention import single_head
    >>> plain(single_head().scores)
    'QK^T'
    """
    from symattn.kernel import expr as E

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
        return f"({plain(e.matrix)})_{_subscript(e.args[1], e.args[2])}"
    if isinstance(e, E.Dot):
        return f"{plain(e.args[0])}·{plain(e.args[1])}"
    return _scalar(e)


def _factor(e: sympy.Basic) -> str:
    from symattn.kernel import expr as E

    text = plain(e)
    if isinstance(e, (E.MatAdd, E.Scale)):
        return f"({text})"
    return text


def _scalar(e: sympy.Basic) -> str:
    return text(e)


# ---- plain text of scalars and matrices -------------------------------------------------


class _TextPrinter(StrPrinter):
    """sympy's str printer, taught the chapter's notation: `A_{ik}`, `sum_{k=1}^{p}`, `q_i·k_j`."""

    printmethod = "_symattn_text"  # not `_sympystr`: Indexed would print itself as f[i, j]

    def _print_Mul(self, e: sympy.Mul) -> str:
        # Factors in the chapter's order (Q before K, a before V), not sympy's sorted order.
        num, rest = e.as_coeff_Mul()
        factors = sorted(sympy.Mul.make_args(rest), key=_factor_rank)
        if len(factors) < 2 or any(not isinstance(f, (sympy.Indexed, E.Entry)) for f in factors):
            return str(super()._print_Mul(e))
        body = "*".join(self._print(f) for f in factors)
        if num == 1:
            return body
        return f"-{body}" if num == -1 else f"{self._print(num)}*{body}"

    def _print_Entry(self, e: E.Entry) -> str:
        m, i, j = e.args
        if isinstance(m, (E.MatSym, E.HeadSym)):
            name = plain(m)
            return f"{f'({name})' if '_' in name else name}_{_subscript(i, j)}"
        return f"({plain(m)})_{_subscript(i, j)}"

    def _print_Indexed(self, e: sympy.Indexed) -> str:
        name = str(e.base.label)
        if name.endswith("^()"):  # a head family: Z^()[h, i, j] is Z^(h)_{ij}
            head, *rest = e.indices
            return f"{name[:-3]}^({head})_{_subscript(*rest)}"
        name = f"({name})" if "_" in name else name
        return f"{name}_{_subscript(*e.indices)}"

    def _print_Dot(self, e: E.Dot) -> str:
        return f"{plain(e.args[0])}·{plain(e.args[1])}"

    def _print_Sum(self, e: sympy.Sum) -> str:
        heads = "".join(f"sum_{{{v}={lo}}}^{{{hi}}} " for v, lo, hi in reversed(e.limits))
        body = self._print(e.function)
        return f"{heads}{body}" if not isinstance(e.function, sympy.Add) else f"{heads}({body})"

    def _print_Piecewise(self, e: sympy.Piecewise) -> str:
        parts = [
            f"{self._print(x)} if {self._print(c)}" if c != sympy.true else f"{self._print(x)}"
            for x, c in e.args
        ]
        return "{" + "; otherwise ".join(parts) + "}"

    def _print(self, expr: Any, **kwargs: Any) -> str:
        # before name dispatch: sympy would take our MatMul/MatAdd/Transpose for its own
        if isinstance(expr, E.MatExpr):
            return plain(expr)
        return str(super()._print(expr, **kwargs))


def _subscript(*ks: sympy.Basic) -> str:
    parts = [str(k) for k in ks]
    sep = "" if all(len(p) == 1 for p in parts) else ","
    return "{" + sep.join(parts) + "}"


def text(e: sympy.Basic) -> str:
    """Plain text of a matrix expression or a scalar, as the chapter writes it.

    >>> from symattn.kernel.rules import get
    >>> lhs, rhs = get("mul_apply").sides()
    >>> f"{text(lhs)} = {text(rhs)}"
    '(AB)_{ij} = sum_{k=1}^{p} A_{ik}B_{kj}'
    """
    if isinstance(e, E.MatSum):
        v, lo, hi = e.limits
        return f"sum_{{{v}={lo}}}^{{{hi}}} {text(e.body)}"
    if isinstance(e, E.Scale) and e.scalar.has(E.Entry, E.Dot, sympy.Indexed):
        body = text(e.args[1])
        body = f"({body})" if isinstance(e.args[1], (E.MatAdd, E.Scale)) else body
        return f"{text(e.scalar)} {body}"
    if isinstance(e, E.MatExpr):
        return plain(e)
    # entries side by side, as the chapter writes them: A_{ik}B_{kj}, not A_{ik}*B_{kj}
    return _JUXTAPOSE.sub("", str(_TextPrinter().doprint(e)))


_JUXTAPOSE = re.compile(r"(?<=\})\*(?=[A-Za-z(])")


# The order in which the chapter writes factors of the same product (the LaTeX printer's too).
_WRITTEN_ORDER = ("X", "Q", "K", "S", "A", "Z", "W_Q", "W_K", "W_V", "V", "W_O")


def _factor_rank(f: sympy.Basic) -> tuple[int, str]:
    if isinstance(f, E.Entry):
        name = plain(f.matrix)
    elif isinstance(f, sympy.Indexed):
        name = str(f.base.label).removesuffix("^()")
    else:
        name = str(f)
    rank = _WRITTEN_ORDER.index(name) if name in _WRITTEN_ORDER else len(_WRITTEN_ORDER)
    return (rank, name)
