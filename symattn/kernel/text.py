"""Plain text of kernel expressions and scalars for messages: `QK^T`, `softmax(QK^T/sqrt(d_k))`.

Imports only sympy and kernel.dispatch; must not import symattn.kernel.expr or the
node modules it gathers, which import it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from symattn.kernel.dispatch import Dispatcher

# The kernel's nodes are recognised by class name, the way sympy's printers dispatch, so this
# module need not import the node modules (kernel.nodes imports it for __str__) or kernel.modern.
_NODES = (
    "symattn.kernel.nodes",
    "symattn.kernel.leaves",
    "symattn.kernel.softmax",
    "symattn.kernel.modern",
)


def _is(e: object, *names: str) -> bool:
    """Whether `e` is one of the kernel's nodes called `names` (or a subclass of one)."""
    return any(c.__module__ in _NODES and c.__name__ in names for c in type(e).__mro__)


def plain(e: sympy.Basic) -> str:
    """A short textbook-like text form of a matrix expression or scalar.

    >>> from symattn.kernel.attention import single_head
    >>> plain(single_head().scores)
    'QK^T'
    """
    f = PLAIN.find(type(e))
    return _scalar(e) if f is None else f(e)


# The handlers are keyed by the nodes' class names (sympy's printers find `_print_Transpose` so).
PLAIN: Dispatcher[Callable[[Any], str]] = Dispatcher("plain text", modules=_NODES)


@PLAIN.register("MatSym", "FromColumn", "FeatureMap")
def _name(e: Any) -> str:
    return str(e.name)


@PLAIN.register("HeadSym")
def _head(e: Any) -> str:
    if e.name.endswith("_"):  # a member of a family indexed by time or position: `S_{t-1}`
        head = str(e.head)
        return f"{e.name}{head}" if len(head) == 1 else f"{e.name}{{{head}}}"
    return f"{e.name}^({e.head})"


@PLAIN.register("Ones")
def _ones(e: Any) -> str:
    return f"1_({e.rows}x{e.cols})"


@PLAIN.register("MatMul")
def _matmul(e: Any) -> str:
    """Left-nested products read as written (`ABC`); a product on the right keeps its
    parentheses (`A(BC)`), so both sides of associativity print apart."""
    left, right = e.args[0], e.args[1]
    head = _matmul(left) if _is(left, "MatMul") else _factor(left)
    tail = f"({_matmul(right)})" if _is(right, "MatMul") else _factor(right)
    return head + tail


@PLAIN.register("MatAdd")
def _matadd(e: Any) -> str:
    return f"{plain(e.args[0])} + {plain(e.args[1])}"


@PLAIN.register("Hadamard")
def _hadamard(e: Any) -> str:
    return f"{_factor(e.args[0])} ∘ {_factor(e.args[1])}"


@PLAIN.register("Scale")
def _scale(e: Any) -> str:
    c = e.scalar
    if c == -1:
        return f"-{_factor(e.args[1])}"
    num, den = sympy.fraction(c)
    if num == 1:
        return f"{_factor(e.args[1])}/{_scalar(den)}"
    return f"{_scalar(c)} {_factor(e.args[1])}"


@PLAIN.register("Transpose")
def _transpose(e: Any) -> str:
    return f"{_base(e.args[0])}^T"


@PLAIN.register("Softmax")
def _softmax(e: Any) -> str:
    return f"softmax({plain(e.args[0])})"


@PLAIN.register("ColSoftmax")
def _col_softmax(e: Any) -> str:
    return f"softmax_col({plain(e.args[0])})"


@PLAIN.register("CausalMask")
def _mask(e: Any) -> str:
    return f"mask({plain(e.args[0])})"


@PLAIN.register("Row")
def _row(e: Any) -> str:
    a = e.args[0]
    name = a.name.lower() if _is(a, "MatSym") and len(a.name) == 1 else f"row({plain(a)})"
    return f"{name}_{e.index}"


@PLAIN.register("RowBlock")
def _row_block(e: Any) -> str:
    return f"{_base(e.args[0])}^({e.head})"


@PLAIN.register("Concat")
def _concat(e: Any) -> str:
    return f"Concat({plain(e.member(1))},...,{plain(e.member(e.count))})"


@PLAIN.register("MatSum")
def _matsum(e: Any) -> str:
    v, lo, hi = e.limits
    return f"sum_{{{v}={lo}}}^{{{hi}}} {plain(e.body)}"


@PLAIN.register("Entry")
def _entry(e: Any) -> str:
    return f"({plain(e.matrix)})_{_subscript(e.args[1], e.args[2])}"


@PLAIN.register("Dot")
def _dot(e: Any) -> str:
    return f"{plain(e.args[0])}·{plain(e.args[1])}"


# ---- the nodes of symattn.kernel.modern (biases, padding, grouped heads, rotary, online) ----


@PLAIN.register("PositionBias")
def _position_bias(e: Any) -> str:
    a, b = e.row_coef, e.col_coef
    if a == -b:
        return f"alibi({_scalar(b)})"
    return f"bias({_scalar(a)}·i + {_scalar(b)}·j)"


@PLAIN.register("PadMask")
def _pad_mask(e: Any) -> str:
    return f"pad({plain(e.args[0])}, {e.args[1]} valid)"


@PLAIN.register("CausalZero")
def _causal_zero(e: Any) -> str:
    return f"tril({plain(e.args[0])})"


@PLAIN.register("FirstRows")
def _first_rows(e: Any) -> str:
    return f"{_base(e.args[0])}_(1:{e.args[1]})"


@PLAIN.register("RepeatKV")
def _repeat_kv(e: Any) -> str:
    how = "repeat_kv" if e.order == "interleave" else "tile_kv"
    return f"{how}({plain(e.args[0])}, {e.r})"


@PLAIN.register("Rope")
def _rope(e: Any) -> str:
    return f"R({_scalar(e.pos)}){_base(e.args[0])}"


@PLAIN.register("PairDots")
def _pair_dots(e: Any) -> str:
    return f"pairdots({plain(e.args[0])}, {plain(e.args[1])})"


@PLAIN.register("OnlineSoftmax")
def _online_softmax(e: Any) -> str:
    sizes = ",".join(str(b) for b in e.blocks)
    bug = "" if e.rescale else ", no rescale"
    return f"online_softmax({plain(e.args[0])}, {plain(e.args[1])}; blocks {sizes}{bug})"


def _factor(e: sympy.Basic) -> str:
    """A factor of a product: a sum or a scaled matrix in parentheses."""
    text = plain(e)
    if _is(e, "MatAdd", "Scale", "Hadamard"):
        return f"({text})"
    return text


def _base(e: sympy.Basic) -> str:
    """What a superscript applies to: anything but a name in parentheses (`(YW_K)^T`)."""
    text = plain(e)
    if _is(e, "MatAdd", "Scale", "MatMul", "Transpose", "RowBlock", "Hadamard"):
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
        if len(factors) < 2 or any(
            not (isinstance(f, sympy.Indexed) or _is(f, "Entry")) for f in factors
        ):
            return str(super()._print_Mul(e))
        body = "*".join(self._print(f) for f in factors)
        if num == 1:
            return body
        return f"-{body}" if num == -1 else f"{self._print(num)}*{body}"

    def _print_Entry(self, e: Any) -> str:
        m, i, j = e.args
        if _is(m, "MatSym", "HeadSym"):
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

    def _print_Dot(self, e: Any) -> str:
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
        if _is(expr, "MatExpr"):
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
    if _is(e, "MatSum"):
        v, lo, hi = e.limits
        return f"sum_{{{v}={lo}}}^{{{hi}}} {text(e.body)}"
    if _is(e, "Scale") and any(
        isinstance(x, sympy.Indexed) or _is(x, "Entry", "Dot")
        for x in sympy.preorder_traversal(e.scalar)
    ):
        body = text(e.args[1])
        body = f"({body})" if _is(e.args[1], "MatAdd", "Scale") else body
        return f"{text(e.scalar)} {body}"
    if _is(e, "MatExpr"):
        return plain(e)
    # entries side by side, as the chapter writes them: A_{ik}B_{kj}, not A_{ik}*B_{kj}
    return _JUXTAPOSE.sub("", str(_TextPrinter().doprint(e)))


_JUXTAPOSE = re.compile(r"(?<=\})\*(?=[A-Za-z(])")


# The order in which the chapter writes factors of the same product (the LaTeX printer's too).
_WRITTEN_ORDER = ("X", "Q", "K", "S", "A", "Z", "W_Q", "W_K", "W_V", "V", "W_O")


def _factor_rank(f: sympy.Basic) -> tuple[int, str]:
    if _is(f, "Entry"):
        name = plain(f.matrix)
    elif isinstance(f, sympy.Indexed):
        name = str(f.base.label).removesuffix("^()")
    else:
        name = str(f)
    rank = _WRITTEN_ORDER.index(name) if name in _WRITTEN_ORDER else len(_WRITTEN_ORDER)
    return (rank, name)
