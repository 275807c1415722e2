"""The textbook printer: kernel expressions as the chapter writes them (`Q_{ir}K_{jr}`, `QK^T`).

A back end: reads kernel objects (kernel.expr, kernel.modern, kernel.dims), each node printed by
its handler in `LATEX` (kernel.dispatch); must not import proof, rules or any front end, and never
creates kernel facts. Its conventions and options are in latex.style.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy

from symattn.kernel import expr as E
from symattn.kernel import modern as M
from symattn.kernel.dims import Shape
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.induction import Recurrent
from symattn.kernel.partial import Partial
from symattn.kernel.unfold import Unfold
from symattn.latex.style import (
    _DIM_ORDER,
    _OTHERWISE,
    _RECURRENCE_OPS,
    LOWER_ENTRIES,
    Style,
    _base_name,
    _block_form,
    _dim_name,
    _ends_with_sum,
    _factor_name,
    _glue,
    _index_key,
    symbol_latex,
)
from symattn.latex.style import (
    written_order as written_order,
)

_ADD, _SUM, _MUL, _POW, _ATOM = range(5)


def latex(
    expr: object,
    *,
    transpose: str = r"\mathsf T",
    bold: bool = False,
    names: Mapping[object, str] | None = None,
    order: Sequence[str] = (),
    lang: str = "en",
    operators: Mapping[str, str] | None = None,
) -> str:
    """Textbook LaTeX of a kernel expression (matrix or scalar).

    ``names`` renames symbols and matrices (``{"r": "s"}``) or replaces a whole sub-expression
    (``{expr: "S"}``); ``order`` puts the named matrices first in products of entries;
    ``operators`` gives the LaTeX of ``softmax`` and ``concat`` (``symattn.settings``).

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import index, expand_entries
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> latex(s.weights)
    '\\\\operatorname{softmax}\\\\left(\\\\frac{QK^{\\\\mathsf T}}{\\\\sqrt{d_k}}\\\\right)'
    >>> latex(expand_entries(s.scores[i, j]))
    '\\\\sum_{r=1}^{d_k} Q_{ir}K_{jr}'
    """
    style = Style(transpose, bold, dict(names or {}), tuple(order), lang, operators=operators or {})
    return _Printer(style).doprint(sympy.sympify(expr, strict=True))


def shape_latex(shape: Shape, **style: Any) -> str:
    """A shape as a space: ``\\mathbb R^{n\\times d_k}``.

    >>> from symattn.kernel.dims import n, H, d_v
    >>> shape_latex((n, H * d_v))
    '\\\\mathbb R^{n\\\\times Hd_v}'
    >>> shape_latex((n + 1, d_v))  # a sum in parentheses: (n+1) rows, not n + (1 x d_v)
    '\\\\mathbb R^{(n + 1)\\\\times d_v}'
    """
    rows, cols = (_size_factor(s, **style) for s in shape)
    return rf"\mathbb R^{{{rows}\times {cols}}}"


def _size_factor(size: sympy.Expr, **style: Any) -> str:
    tex = latex(size, **style)
    return f"({tex})" if isinstance(sympy.sympify(size, strict=True), sympy.Add) else tex


class _Printer:
    def __init__(self, style: Style) -> None:
        self.s = style

    def doprint(self, e: sympy.Basic) -> str:
        return self.p(e)[0]

    # -- dispatch -------------------------------------------------------------------------
    def p(self, e: sympy.Basic) -> tuple[str, int]:
        if not isinstance(e, sympy.Symbol) and e in self.s.names:
            return self.s.names[e], _ATOM
        f = LATEX.find(type(e))
        return (sympy.latex(e), _ATOM) if f is None else f(self, e)

    def atom(self, e: sympy.Basic, at_least: int = _ATOM) -> str:
        text, prec = self.p(e)
        return text if prec >= at_least else self.delim(text)

    @staticmethod
    def delim(text: str) -> str:
        tall = any(t in text for t in (r"\frac", r"\sum", r"\begin"))
        return rf"\left({text}\right)" if tall else f"({text})"

    # -- scalars --------------------------------------------------------------------------
    def symbol(self, s: sympy.Symbol) -> str:
        name = self.s.names.get(s.name, s.name)
        return symbol_latex(name) if name == s.name else name

    def index(self, e: sympy.Expr) -> str:
        """An index: `i`, `12`, `(h-1)d_v+u` (a block offset kept as written)."""
        if isinstance(e, sympy.Add):
            block = _block_form(e)
            if block is not None:
                h, m, u = block
                return f"({self.p(h)[0]}-1){self.atom(m, _MUL)}+{self.p(u)[0]}"
        return self.p(e)[0]

    def subscript(self, indices: Sequence[sympy.Expr]) -> str:
        parts = [self.index(i) for i in indices]
        short = all(len(p) == 1 for p in parts)
        return "".join(parts) if short else ",".join(parts)

    def indexed(self, e: sympy.Indexed) -> str:
        name, per_head = _base_name(e)
        idx = list(e.indices)
        if per_head:
            head, idx = idx[0], idx[1:]
            letter = name.lower() if name in LOWER_ENTRIES else self.name(name)
            base = f"{letter}^{{({self.index(head)})}}"
            if "_" in name:
                return f"({base})_{{{self.subscript(idx)}}}"
            return f"{base}_{{{self.subscript(idx)}}}"
        return self.entry_of_name(name, idx)

    def name(self, name: str) -> str:
        renamed = self.s.names.get(name, name)
        return symbol_latex(name) if renamed == name else renamed

    def entry_of_name(self, name: str, idx: Sequence[sympy.Expr]) -> str:
        sub = self.subscript(idx)
        if name in LOWER_ENTRIES and name not in self.s.names:
            return f"{name.lower()}_{{{sub}}}"
        tex = self.name(name)
        if "_" in tex or "^" in tex:
            return f"({tex})_{{{sub}}}"
        return f"{tex}_{{{sub}}}"

    def add(self, e: sympy.Add) -> str:
        terms = sorted(e.args, key=self.term_key)
        out = self.p(terms[0])[0]
        for t in terms[1:]:
            if t.could_extract_minus_sign():
                out += " - " + self.atom(-t, _ADD + 1)
            else:
                out += " + " + self.atom(t, _ADD + 1)
        return out

    def term_key(self, t: sympy.Expr) -> tuple[object, ...]:
        factors = sympy.Mul.make_args(t)
        keys = [self.factor_key(f) for f in factors if not f.is_number]
        return (bool(t.is_number), len(keys) == 0, keys)

    def factor_key(self, f: sympy.Expr) -> tuple[object, ...]:
        if f.is_number:
            return (0, (0, ""), ())
        dim = _dim_name(f)
        if dim is not None:
            return (1, (_DIM_ORDER.get(dim, len(_DIM_ORDER)), dim), ())
        if isinstance(f, (sympy.Indexed, E.Entry, E.Dot)):
            return (2, self.s.rank(_factor_name(f)), _index_key(f))
        if isinstance(f, sympy.Piecewise):
            return (4, (0, ""), ())
        if isinstance(f, sympy.Sum):
            return (5, (0, ""), ())
        return (3, (0, ""), ())

    def mul(self, e: sympy.Mul) -> tuple[str, int]:
        coeff, factors = e.as_coeff_mul()
        num: list[sympy.Expr] = []
        den: list[sympy.Expr] = []
        for f in factors:
            if isinstance(f, sympy.Pow) and f.exp.is_number and f.exp.is_negative:
                den.append(f.base ** (-f.exp))
            else:
                num.append(f)
        sign = "-" if coeff < 0 else ""
        coeff = abs(coeff)
        c_num, c_den = sympy.fraction(coeff)
        if c_den != 1:
            den.insert(0, c_den)
        if c_num != 1:
            num.insert(0, c_num)
        top = self.product(num) if num else "1"
        if den:
            return f"{sign}\\frac{{{top}}}{{{self.product(den)}}}", (_ADD if sign else _ATOM)
        prec = _ADD if sign else (_SUM if _ends_with_sum(num) else _MUL)
        return sign + top, prec

    def product(self, factors: Sequence[sympy.Expr]) -> str:
        ordered = sorted(factors, key=self.factor_key)
        parts = []
        for k, f in enumerate(ordered):
            last = k == len(ordered) - 1
            need = _SUM if last else _MUL
            if len(ordered) == 1:
                need = _ADD
            parts.append(self.atom(f, need))
        out = parts[0]
        for prev, cur, part in zip(ordered, ordered[1:], parts[1:], strict=False):
            out += _glue(prev, cur, part) + part
        return out

    def pow(self, e: sympy.Pow) -> tuple[str, int]:
        base, exp = e.args
        if exp == sympy.Rational(1, 2):
            return rf"\sqrt{{{self.p(base)[0]}}}", _ATOM
        if exp.is_number and exp.is_negative:
            return rf"\frac{{1}}{{{self.p(base ** (-exp))[0]}}}", _ATOM
        return f"{self.atom(base)}^{{{self.p(exp)[0]}}}", _POW

    def sum(self, e: sympy.Sum) -> str:
        head = "".join(
            rf"\sum_{{{self.p(v)[0]}={self.p(lo)[0]}}}^{{{self.p(hi)[0]}}}"
            for v, lo, hi in reversed(e.limits)
        )
        return f"{head} {self.atom(e.function, _MUL)}"

    def piecewise(self, e: sympy.Piecewise) -> str:
        rows = []
        for value, cond in e.args:
            when = (
                _OTHERWISE.get(self.s.lang, _OTHERWISE["en"])
                if cond is sympy.true
                else (self.p(cond)[0])
            )
            rows.append(f"{self.p(value)[0]} & {when}")
        return "\\begin{cases}\n" + " \\\\\n".join(rows) + "\n\\end{cases}"

    def relation(self, e: sympy.core.relational.Relational) -> str:
        ops = {"<=": r"\le", "<": "<", ">": ">", "==": "=", "!=": r"\ne"}
        lhs, op, rhs = e.lhs, e.rel_op, e.rhs
        if op == ">=":  # sympy stores j <= i as i >= j; the textbook writes j \le i
            lhs, op, rhs = rhs, "<=", lhs
        return f"{self.p(lhs)[0]} {ops.get(op, op)} {self.p(rhs)[0]}"

    # -- matrices -------------------------------------------------------------------------
    def mat_mul(self, e: E.MatMul) -> str:
        """A product as written: `ABC` for `(AB)C`, `A(BC)` when the right factor is a product
        (the two orders of linear attention print apart)."""
        a, b = e.args
        left = self.mat_mul(a) if isinstance(a, E.MatMul) else self.mat_factor(a)
        right = f"({self.mat_mul(b)})" if isinstance(b, E.MatMul) else self.mat_factor(b)
        return left + right

    def mat_factor(self, f: E.MatExpr) -> str:
        return (
            self.atom(f, _MUL + 1) if isinstance(f, (E.MatAdd, E.MatSum)) else (self.atom(f, _MUL))
        )

    def mat_add(self, e: E.MatAdd) -> str:
        a, b = e.args
        if isinstance(b, E.Scale) and b.scalar == -1:
            return f"{self.p(a)[0]} - {self.atom(b.args[1], _MUL)}"
        return f"{self.p(a)[0]} + {self.atom(b, _ADD + 1)}"

    def scale(self, e: E.Scale) -> tuple[str, int]:
        c, m = e.scalar, e.args[1]
        if c == -1:
            return f"-{self.atom(m, _MUL)}", _ADD
        num, den = sympy.fraction(c)
        if num == 1 and den != 1:
            return rf"\frac{{{self.p(m)[0]}}}{{{self.p(den)[0]}}}", _ATOM
        return f"{self.atom(c, _MUL)}{self.atom(m, _MUL)}", _MUL

    def row(self, e: E.Row) -> str:
        a, i = e.args[0], self.index(e.index)
        sub = i if len(i) == 1 else f"{{{i}}}"
        if isinstance(a, E.MatSym) and len(a.name) == 1:
            letter = a.name.lower()
            return rf"\mathbf {letter}_{sub}" if self.s.bold else f"{letter}_{sub}"
        if isinstance(a, E.HeadSym) and len(a.name) == 1:
            letter = a.name.lower()
            letter = rf"\mathbf {letter}" if self.s.bold else letter
            return f"{letter}^{{({self.index(a.head)})}}_{sub}"
        return f"({self.p(a)[0]})_{{{i},:}}"

    def concat(self, e: E.Concat) -> str:
        count = e.count
        if count.is_Integer and int(count) <= 3:
            members = [self.p(e.member(h))[0] for h in range(1, int(count) + 1)]
        else:
            members = [self.p(e.member(1))[0], r"\ldots", self.p(e.member(count))[0]]
        return self.s.op("concat", r"\operatorname{Concat}") + "(" + ",".join(members) + ")"

    def ones(self, e: E.Ones) -> str:
        rows, cols = e.shape
        if cols == 1:
            return rf"\mathbf 1_{{{self.p(rows)[0]}}}"
        if rows == 1:
            return rf"\mathbf 1_{{{self.p(cols)[0]}}}^{{{self.s.transpose}}}"
        return rf"\mathbf 1_{{{self.p(rows)[0]}\times {self.p(cols)[0]}}}"

    def entry(self, m: E.MatExpr, i: sympy.Expr, j: sympy.Expr) -> str:
        if m.shape == (1, 1) and i == 1 and j == 1:
            return self.p(m)[0]
        if isinstance(m, E.MatSym):
            return self.entry_of_name(m.name, [i, j])
        if isinstance(m, E.HeadSym):
            return self.indexed(m._entry(i, j, E.Fresh()))
        if isinstance(m, (E.Softmax, E.ColSoftmax)):
            return f"{self.p(m)[0]}_{{{self.subscript([i, j])}}}"
        if isinstance(m, E.Row) and i == 1:
            return f"({self.p(m)[0]})_{{{self.index(j)}}}"
        return f"{self.delim(self.p(m)[0])}_{{{self.subscript([i, j])}}}"  # tall: \left( \right)


# ---- the handlers, by node class ---------------------------------------------------------

Printed = tuple[str, int]
LATEX: Dispatcher[Callable[[_Printer, Any], Printed]] = Dispatcher("LaTeX printer")
_on = LATEX.register


@_on(E.Entry)
def _entry(pr: _Printer, e: E.Entry) -> Printed:
    return pr.entry(e.matrix, e.args[1], e.args[2]), _ATOM


@_on(Partial)
def _partial(pr: _Printer, e: Partial) -> Printed:
    return rf"\frac{{\partial {pr.atom(e.of)}}}{{\partial {pr.atom(e.wrt)}}}", _ATOM


@_on(E.Dot)
def _dot(pr: _Printer, e: E.Dot) -> Printed:
    return rf"{pr.atom(e.args[0])}\cdot {pr.atom(e.args[1])}", _MUL


@_on(sympy.Indexed)
def _indexed(pr: _Printer, e: sympy.Indexed) -> Printed:
    return pr.indexed(e), _ATOM


@_on(sympy.Symbol)
def _symbol(pr: _Printer, e: sympy.Symbol) -> Printed:
    return pr.symbol(e), _ATOM


@_on(sympy.Integer)
def _integer(pr: _Printer, e: sympy.Integer) -> Printed:
    return str(e), (_ATOM if e >= 0 else _ADD)


@_on(sympy.Rational)
def _rational(pr: _Printer, e: sympy.Rational) -> Printed:
    text = rf"\frac{{{abs(e.p)}}}{{{e.q}}}"
    return (f"-{text}", _ADD) if e < 0 else (text, _ATOM)


@_on(type(sympy.oo), type(sympy.S.NegativeInfinity))
def _infinity(pr: _Printer, e: sympy.Basic) -> Printed:
    return (r"\infty", _ATOM) if e is sympy.oo else (r"-\infty", _ADD)


@_on(sympy.Add)
def _add(pr: _Printer, e: sympy.Add) -> Printed:
    return pr.add(e), _ADD


@_on(sympy.Mul)
def _mul(pr: _Printer, e: sympy.Mul) -> Printed:
    return pr.mul(e)


@_on(sympy.Pow)
def _pow(pr: _Printer, e: sympy.Pow) -> Printed:
    return pr.pow(e)


@_on(sympy.exp)
def _exp(pr: _Printer, e: sympy.exp) -> Printed:
    return rf"\exp{pr.delim(pr.p(e.args[0])[0])}", _ATOM


@_on(sympy.Sum)
def _sum(pr: _Printer, e: sympy.Sum) -> Printed:
    return pr.sum(e), _SUM


@_on(sympy.Piecewise)
def _piecewise(pr: _Printer, e: sympy.Piecewise) -> Printed:
    return pr.piecewise(e), _ATOM


@_on(sympy.core.relational.Relational)
def _relation(pr: _Printer, e: sympy.core.relational.Relational) -> Printed:
    return pr.relation(e), _ADD


# -- matrices --


@_on(E.MatSym)
def _mat_sym(pr: _Printer, e: E.MatSym) -> Printed:
    return pr.name(e.name), _ATOM


@_on(E.HeadSym)
def _head_sym(pr: _Printer, e: E.HeadSym) -> Printed:
    if e.name.endswith("_"):  # a member of a family indexed by time or position: `S_{t-1}`
        return f"{pr.name(e.name[:-1])}_{{{pr.index(e.head)}}}", _ATOM
    return f"{pr.name(e.name)}^{{({pr.index(e.head)})}}", _ATOM


@_on(E.MatMul)
def _mat_mul(pr: _Printer, e: E.MatMul) -> Printed:
    return pr.mat_mul(e), _MUL


@_on(E.MatAdd)
def _mat_add(pr: _Printer, e: E.MatAdd) -> Printed:
    return pr.mat_add(e), _ADD


@_on(E.Hadamard)
def _hadamard(pr: _Printer, e: E.Hadamard) -> Printed:
    a, b = (pr.atom(x, _MUL + 1) for x in e.args)
    return rf"{a}\circ {b}", _SUM  # below a product: (A∘B)C


@_on(E.Scale)
def _scale(pr: _Printer, e: E.Scale) -> Printed:
    return pr.scale(e)


@_on(E.Transpose)
def _transpose(pr: _Printer, e: E.Transpose) -> Printed:
    inner = e.args[0]
    if isinstance(inner, E.HeadSym):  # K^{(h)\mathsf T}
        return (
            f"{pr.name(inner.name)}^{{({pr.index(inner.head)}){pr.s.transpose}}}",
            _POW,
        )
    if isinstance(inner, E.RowBlock) and isinstance(inner.args[0], E.Transpose):
        # the h-th block of columns of X, as a text writes a head's block: X^{(h)}
        return f"{_base(pr, inner.args[0].args[0])}^{{({pr.index(inner.head)})}}", _ATOM
    block = _column_block(inner)
    if block is not None:  # a column block transposed: K^{(h)\mathsf T}
        return f"{_base(pr, block[0])}^{{({pr.index(block[1])}){pr.s.transpose}}}", _POW
    if isinstance(inner, M.FirstRows) and isinstance(inner.args[0], E.Transpose):
        rows = inner.args[0].args[0]
        if isinstance(rows, M.FirstRows):  # the leading a x b block of X: X_{1:a,1:b}
            a, b = (pr.p(x)[0] for x in (rows.args[1], inner.args[1]))
            return f"{_base(pr, rows.args[0])}_{{1:{a},1:{b}}}", _ATOM
    simple = isinstance(inner, E.MatSym) or (
        isinstance(inner, E.Row) and isinstance(inner.args[0], E.MatSym)
    )
    body = pr.p(inner)[0] if simple else pr.delim(pr.p(inner)[0])
    return f"{body}^{{{pr.s.transpose}}}", _POW


def _column_block(e: sympy.Basic) -> tuple[sympy.Basic, sympy.Expr] | None:
    """(X, h) when `e` is the h-th block of columns of X (`((X^T)^{(h)})^T`), else None."""
    if isinstance(e, E.Transpose):
        inner = e.args[0]
        if isinstance(inner, E.RowBlock) and isinstance(inner.args[0], E.Transpose):
            return inner.args[0].args[0], inner.head
    return None


def _base(pr: _Printer, e: sympy.Basic) -> str:
    """`e` as the base of a script: parenthesised unless an atom (a fraction too, so that a
    subscript or a head index never reads as the denominator's)."""
    text = pr.atom(e)
    return pr.delim(text) if text.startswith(r"\frac") else text


@_on(E.Softmax, E.ColSoftmax)
def _softmax(pr: _Printer, e: E.MatExpr) -> Printed:
    op = pr.s.op("softmax", r"\operatorname{softmax}")
    if isinstance(e, E.ColSoftmax):
        op += r"_{\mathrm{col}}"
    return op + pr.delim(pr.p(e.args[0])[0]), _ATOM


@_on(E.CausalMask)
def _causal_mask(pr: _Printer, e: E.CausalMask) -> Printed:
    return f"{pr.p(e.args[0])[0]} + {pr.s.mask}", _ADD


@_on(E.Row)
def _row(pr: _Printer, e: E.Row) -> Printed:
    return pr.row(e), _ATOM


@_on(E.RowBlock)
def _row_block(pr: _Printer, e: E.RowBlock) -> Printed:
    return f"{pr.atom(e.args[0])}^{{({pr.index(e.head)})}}", _ATOM


@_on(E.Concat)
def _concat(pr: _Printer, e: E.Concat) -> Printed:
    return pr.concat(e), _ATOM


@_on(E.MatSum)
def _mat_sum(pr: _Printer, e: E.MatSum) -> Printed:
    v, lo, hi = e.limits
    head = rf"\sum_{{{pr.p(v)[0]}={pr.p(lo)[0]}}}^{{{pr.p(hi)[0]}}}"
    return f"{head} {pr.atom(e.body, _MUL)}", _SUM


@_on(E.Ones)
def _ones(pr: _Printer, e: E.Ones) -> Printed:
    return pr.ones(e), _ATOM


@_on(E.FromColumn)
def _from_column(pr: _Printer, e: E.FromColumn) -> Printed:
    one = pr.ones(E.Ones(e.cols, 1))
    return f"{pr.name(e.name)}{one}^{{{pr.s.transpose}}}", _MUL


# -- the nodes of kernel.modern: an ALiBi bias, a feature map, a rotation, online softmax --


@_on(M.FeatureMap)
def _feature_map(pr: _Printer, e: M.FeatureMap) -> Printed:
    return rf"\{e.fname}({pr.p(e.args[1])[0]})" if e.fname == "phi" else (
        rf"\operatorname{{{e.fname}}}({pr.p(e.args[1])[0]})"
    ), _ATOM


@_on(M.PositionBias)
def _position_bias(pr: _Printer, e: M.PositionBias) -> Printed:
    if e.row_coef == -e.col_coef:
        return rf"\Delta_{{\mathrm{{ALiBi}}}}({pr.p(e.col_coef)[0]})", _ATOM
    return rf"\Delta({pr.p(e.row_coef)[0]}, {pr.p(e.col_coef)[0]})", _ATOM


@_on(M.PadMask)
def _pad_mask(pr: _Printer, e: M.PadMask) -> Printed:
    return f"{pr.p(e.args[0])[0]} + P_{{{pr.p(e.valid)[0]}}}", _ADD


@_on(M.CausalZero)
def _causal_zero(pr: _Printer, e: M.CausalZero) -> Printed:
    return rf"{pr.atom(e.args[0], _MUL)} \odot L", _ADD


@_on(M.FirstRows)
def _first_rows(pr: _Printer, e: M.FirstRows) -> Printed:
    return f"{_base(pr, e.args[0])}_{{1:{pr.p(e.args[1])[0]}}}", _ATOM


@_on(M.RepeatKV)
def _repeat_kv(pr: _Printer, e: M.RepeatKV) -> Printed:
    op = r"\operatorname{repeat}" if e.order == "interleave" else r"\operatorname{tile}"
    return f"{op}_{{{pr.p(e.r)[0]}}}({pr.p(e.args[0])[0]})", _ATOM


@_on(M.Rope)
def _rope(pr: _Printer, e: M.Rope) -> Printed:
    return rf"\mathcal R({pr.p(e.pos)[0]}){pr.atom(e.args[0], _MUL)}", _MUL


@_on(M.PairDots)
def _pair_dots(pr: _Printer, e: M.PairDots) -> Printed:
    a, b = (pr.p(x)[0] for x in e.args)
    return rf"\operatorname{{pairs}}({a}, {b})", _ATOM


@_on(M.OnlineSoftmax)
def _online_softmax(pr: _Printer, e: M.OnlineSoftmax) -> Printed:
    sizes = ",".join(pr.p(x)[0] for x in e.blocks)
    op = r"\operatorname{online}" if e.rescale else r"\operatorname{online}^{\times}"
    s, v = (pr.p(x)[0] for x in e.args[:2])
    return f"{op}_{{{sizes}}}({s}, {v})", _ATOM


@_on(Recurrent)
def _recurrent(pr: _Printer, e: Recurrent) -> Printed:
    rec = e.recurrence
    ops = ", ".join(pr.p(x)[0] for x in e.args[1:])
    op = _RECURRENCE_OPS.get(rec.name, r"\operatorname{" + rec.name.replace("_", r"\_") + "}")
    return f"{op}_{{{rec.count}}}({ops})", _ATOM


@_on(Unfold)
def _unfold(pr: _Printer, e: Unfold) -> Printed:
    """`S_t`: a member of a family defined by a recurrence, at its index."""
    return f"{e.name}_{{{pr.p(e.index)[0]}}}", _ATOM
