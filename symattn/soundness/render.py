"""A generated claim three ways: kernel terms, LaTeX for `prove`, a Markdown document for `check`.

Imports only the kernel (errors, dims, expr) and the suite's own AST (oracle); must not import a
front end. Each rendering is under a context.

`NotExpressible` says a front end cannot state the claim (the reader has no causal mask, no
column softmax, no row of a compound matrix, ...); the runner records which front ends a claim
went through.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from symattn.kernel import dims as D
from symattn.kernel import expr as E
from symattn.kernel.errors import Signal
from symattn.soundness.oracle import (
    DIM_NAMES,
    Add,
    Block,
    ClaimSpec,
    ColSoftmax,
    Concat,
    Context,
    Dim,
    Dot,
    Entry,
    FromCol,
    HeadMat,
    Ix,
    Mask,
    MatMul,
    MSum,
    Node,
    Num,
    Ones,
    Row,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
    nodes,
    written_values,
)


class NotExpressible(Signal):
    """The front end has no way to write this node."""


# ---- kernel terms ---------------------------------------------------------------------------


@dataclass
class KernelClaim:
    lhs: Any
    rhs: Any
    assume: dict[str, Any] = field(default_factory=dict)


def kernel_terms(spec: ClaimSpec, ctx: Context) -> KernelClaim:
    """The claim as kernel objects; dims become numbers in the "explicit" context, and the
    `assume` keywords (for `symattn.kernel.dims.assume`) carry relations and worked-example sizes.
    Raises what the kernel's constructors raise (ShapeError for an ill-typed product)."""

    numbers = dict(ctx.explicit or {}) if ctx.kind == "explicit" else {}

    def dim(x: Dim) -> Any:
        v: Any = sympy.Integer(x.coef)
        for f in x.factors:
            v = v * (sympy.Integer(numbers[f]) if f in numbers else D.STANDARD_DIMS[f])
        return v

    def ix(e: Ix) -> Any:
        v: Any = sympy.Integer(e.const)
        for name, c in e.terms:
            if name in D.STANDARD_DIMS:
                sym = sympy.Integer(numbers[name]) if name in numbers else D.STANDARD_DIMS[name]
            else:
                sym = E.index(name)
            v = v + c * sym
        return v

    def go(x: Node) -> Any:
        if isinstance(x, Sym):
            return E.MatSym(x.name, dim(x.rows), dim(x.cols))
        if isinstance(x, HeadMat):
            return E.HeadSym(x.name, ix(x.head), dim(x.rows), dim(x.cols))
        if isinstance(x, Ones):
            return E.Ones(dim(x.rows), dim(x.cols))
        if isinstance(x, FromCol):
            return E.FromColumn(x.name, dim(x.rows), dim(x.cols))
        if isinstance(x, MatMul):
            return go(x.a) @ go(x.b)
        if isinstance(x, Tr):
            return go(x.a).T
        if isinstance(x, Add):
            return go(x.a) + go(x.b)
        if isinstance(x, Scale):
            return E.Scale(go(x.c), go(x.a))
        if isinstance(x, Softmax):
            return E.Softmax(go(x.a))
        if isinstance(x, ColSoftmax):
            return E.ColSoftmax(go(x.a))
        if isinstance(x, Mask):
            return E.CausalMask(go(x.a), upper=x.upper)
        if isinstance(x, Row):
            return go(x.a).row(ix(x.i))
        if isinstance(x, Concat):
            return E.Concat(go(x.body), E.index(x.var), dim(x.count))
        if isinstance(x, Block):
            return E.RowBlock(go(x.a), ix(x.head), dim(x.m), dim(x.count))
        if isinstance(x, MSum):
            return E.MatSum(go(x.body), E.index(x.var), ix(x.lo), ix(x.hi))
        if isinstance(x, Num):
            return sympy.Rational(x.value.numerator, x.value.denominator)
        if isinstance(x, Sqrt):
            return sympy.sqrt(dim(x.dim)) ** x.power
        if isinstance(x, Entry):
            return go(x.m)[ix(x.i), ix(x.j)]
        if isinstance(x, Dot):
            return E.Dot(go(x.u), go(x.v))
        if isinstance(x, SMul):
            return go(x.a) * go(x.b)
        if isinstance(x, SAdd):
            return go(x.a) + go(x.b)
        if isinstance(x, SSum):
            return sympy.Sum(go(x.body), (E.index(x.var), ix(x.lo), ix(x.hi)))
        raise TypeError(f"not a claim node: {x!r}")

    assume: dict[str, Any] = {}
    if ctx.relation:
        name, value = ctx.relation.split("=")
        assume[name] = _relation_value(value)
    if ctx.kind == "worked":
        assume.update({k: int(v) for k, v in (ctx.explicit or {}).items()})
    return KernelClaim(go(spec.lhs), go(spec.rhs), assume)


def _relation_value(text: str) -> Any:

    if "/" in text:
        a, b = text.split("/")
        return D.STANDARD_DIMS[a] / D.STANDARD_DIMS[b]
    return D.STANDARD_DIMS[text]


# ---- LaTeX ----------------------------------------------------------------------------------

ROW_LETTER = {"Q": "q", "K": "k", "V": "v", "X": "x", "Z": "z"}
TEX_DIM = {"n": "n", "d": "d", "d_k": "d_k", "d_v": "d_v", "H": "H"}


def tex_dim(x: Dim, numbers: Mapping[str, int] | None = None) -> str:
    if numbers:
        v = x.coef
        for f in x.factors:
            v *= numbers[f]
        return str(v)
    parts = ([str(x.coef)] if x.coef != 1 or not x.factors else []) + [
        TEX_DIM[f] for f in x.factors
    ]
    return "".join(parts)


# Explicit sizes written as numbers in formulas (set by `formula` while it renders).
_NUMBERS: dict[str, int] = {}
# Vectors written as columns (`q_i^\top` for row i of Q), set by `formula` while it renders.
_COLUMNS: list[bool] = []


def tex_ix(e: Ix) -> str:
    if not _NUMBERS or not any(name in _NUMBERS for name, _ in e.terms):
        return str(e)
    const = e.const + sum(c * _NUMBERS[name] for name, c in e.terms if name in _NUMBERS)
    return str(Ix(tuple((name, c) for name, c in e.terms if name not in _NUMBERS), const))


def _sub(i: Ix, j: Ix) -> str:
    a, b = tex_ix(i), tex_ix(j)
    if len(a) == 1 and len(b) == 1:
        return f"{a}{b}"
    return f"{a},{b}"


def _vector(x: Row) -> str:
    """`q_i`: row i of Q as the document's vectors write it (a row, or a column)."""
    if isinstance(x.a, Sym) and x.a.name in ROW_LETTER:
        i = tex_ix(x.i)
        return f"{ROW_LETTER[x.a.name]}_{i}" if len(i) == 1 else f"{ROW_LETTER[x.a.name]}_{{{i}}}"
    raise NotExpressible("a row of a compound matrix")


def _dot_side(x: Node) -> str:
    """`q_i\\cdot k_j`: the dot product of two rows, or of the two columns they are."""
    return _vector(x) if isinstance(x, Row) and _COLUMNS else latex(x)


def _needs_parens(x: Node) -> bool:
    return isinstance(x, (Add, SAdd, Scale, MSum, SSum))


def latex(x: Node) -> str:
    """The node in the project's LaTeX dialect (docs/reader.md); NotExpressible otherwise."""
    if isinstance(x, Sym):
        return x.name
    if isinstance(x, HeadMat):
        return f"{x.name}^{{({tex_ix(x.head)})}}"
    if isinstance(x, MatMul):
        return _factor(x.a) + _factor(x.b)
    if isinstance(x, Tr):
        a = x.a
        if isinstance(a, Sym):
            return f"{a.name}^T"
        if isinstance(a, Row) and _COLUMNS:
            return _vector(a)  # the column q_i is row i of Q transposed
        if isinstance(a, Row):
            return latex(a) + "^{\\top}"
        return f"({latex(a)})^T"
    if isinstance(x, Add):
        return f"{latex(x.a)}+{latex(x.b)}"
    if isinstance(x, Scale):
        return _coef(x.c) + _factor(x.a)
    if isinstance(x, Softmax):
        return f"\\operatorname{{softmax}}({latex(x.a)})"
    if isinstance(x, Row):
        return _vector(x) + "^{\\top}" if _COLUMNS else _vector(x)
    if isinstance(x, Concat):
        body = x.body
        if (
            isinstance(body, HeadMat)
            and body.head == Ix(((x.var, 1),), 0)
            and x.count.factors == ("H",)
            and x.count.coef == 1
        ):
            last = tex_dim(x.count, _NUMBERS or None)
            return f"\\operatorname{{Concat}}({body.name}^{{(1)}},\\ldots,{body.name}^{{({last})}})"
        raise NotExpressible("Concat of a compound head body")
    if isinstance(x, Block):
        if (
            isinstance(x.a, Sym)
            and x.a.name == "W_O"
            and x.m == Dim(1, ("d_v",))
            and x.count == Dim(1, ("H",))
        ):
            return f"W_O^{{({tex_ix(x.head)})}}"
        raise NotExpressible("a block other than W_O^{(h)}")
    if isinstance(x, MSum):
        return f"\\sum_{{{x.var}={tex_ix(x.lo)}}}^{{{tex_ix(x.hi)}}}{_factor(x.body)}"
    if isinstance(x, Num):
        return _num(x.value)
    if isinstance(x, Sqrt):
        return _coef(x)
    if isinstance(x, Entry):
        m = x.m
        if isinstance(m, Sym) and len(m.name) == 1:
            return f"{m.name}_{{{_sub(x.i, x.j)}}}"
        return f"({latex(m)})_{{{_sub(x.i, x.j)}}}"
    if isinstance(x, Dot):
        return f"{_dot_side(x.u)}\\cdot {_dot_side(x.v)}"
    if isinstance(x, SMul):
        return _sfactor(x.a) + _digit_safe(_sfactor(x.b))
    if isinstance(x, SAdd):
        b = x.b
        if isinstance(b, Num) and b.value < 0:
            return f"{latex(x.a)}-{_num(-b.value)}"
        if isinstance(b, SMul) and isinstance(b.a, Num) and b.a.value < 0:
            c = "" if b.a.value == -1 else _num(-b.a.value)
            return f"{latex(x.a)}-{c}{_digit_safe(_sfactor(b.b))}"
        right = latex(b)
        return f"{latex(x.a)}{right}" if right.startswith("-") else f"{latex(x.a)}+{right}"
    if isinstance(x, SSum):
        return f"\\sum_{{{x.var}={tex_ix(x.lo)}}}^{{{tex_ix(x.hi)}}}{_sfactor(x.body)}"
    raise NotExpressible(type(x).__name__)


def _digit_safe(factor: str) -> str:
    """A factor after another: `2(5)`, not `25`, when sizes are written as numbers."""
    return f"({factor})" if factor[:1].isdigit() else factor


def _factor(x: Node) -> str:
    return f"({latex(x)})" if _needs_parens(x) else latex(x)


def _sfactor(x: Node) -> str:
    return f"({latex(x)})" if isinstance(x, (SAdd, SSum)) else latex(x)


def _num(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"\\frac{{{v.numerator}}}{{{v.denominator}}}"


def _coef(c: Node) -> str:
    if isinstance(c, Num):
        return _num(c.value)
    if isinstance(c, Sqrt):
        root = f"\\sqrt{{{tex_dim(c.dim, _NUMBERS or None)}}}"
        if c.power == 1:
            return root
        if c.power == -1:
            return f"\\frac{{1}}{{{root}}}"
        size = tex_dim(c.dim, _NUMBERS or None)  # a size as a number: sqrt(n)^2 = n
        if len(c.dim.factors) > 1 or c.dim.coef != 1:
            size = f"({size})"
        if c.power == 2:
            return size
        if c.power == -2:
            return f"\\frac{{1}}{{{size}}}"
        if c.power > 0 and c.power % 2 == 0:
            return f"{size}^{{{c.power // 2}}}"
        raise NotExpressible(f"the power {c.power}/2 of a size")
    return _sfactor(c)


def formula(
    spec: ClaimSpec, numbers: Mapping[str, int] | None = None, columns: bool = False
) -> str:
    """`lhs=rhs` in LaTeX; with `numbers`, dims in bounds, scales and Concat are written as
    numbers (a claim stated at explicit sizes); with `columns`, vectors are columns."""
    _NUMBERS.clear()
    _NUMBERS.update(numbers or {})
    _COLUMNS[:] = [True] if columns else []
    try:
        return f"{latex(spec.lhs)}={latex(spec.rhs)}"
    finally:
        _NUMBERS.clear()
        _COLUMNS.clear()


def _all_shapes(spec: ClaimSpec) -> Iterator[tuple[str, Dim, Dim, bool]]:
    seen = set()
    for side in (spec.lhs, spec.rhs):
        for x in nodes(side):
            if isinstance(x, (Sym, HeadMat)):
                key = (x.name, x.rows, x.cols, isinstance(x, HeadMat))
                if key not in seen:
                    seen.add(key)
                    yield key


def prove_argv(spec: ClaimSpec, ctx: Context) -> list[str]:
    """`symattn prove` arguments for the claim under the context (JSON output)."""
    numbers = dict(ctx.explicit or {}) if ctx.kind == "explicit" else None
    decls = []
    for name, rows, cols, head in _all_shapes(spec):
        label = f"{name}^{{(h)}}" if head else name
        decls.append(f"{label}: {_dims_text(rows, numbers)} x {_dims_text(cols, numbers)}")
    if ctx.kind == "written":
        raise NotExpressible("matrices written out are stated only in a document")
    columns = ctx.vectors == "column"
    argv = ["prove", formula(spec, numbers, columns), "--format", "json"]
    if decls:
        argv += ["--dims", "; ".join(decls)]
    if columns:
        argv += ["--conventions", "vectors=column"]
    if ctx.relation:
        argv += ["--assume", ctx.relation]
    if ctx.kind == "worked":
        for k, v in (ctx.explicit or {}).items():
            argv += ["--assume", f"{k}={v}"]
    return argv


def _dims_text(x: Dim, numbers: Mapping[str, int] | None) -> str:
    if numbers:
        return tex_dim(x, numbers)
    parts = ([str(x.coef)] if x.coef != 1 or not x.factors else []) + list(x.factors)
    return "*".join(parts)


def _tex_shape(rows: Dim, cols: Dim, numbers: Mapping[str, int] | None) -> str:
    return f"\\mathbb R^{{{tex_dim(rows, numbers)}\\times {tex_dim(cols, numbers)}}}"


def document(spec: ClaimSpec, ctx: Context) -> tuple[str, int]:
    """A Markdown document stating the shapes, the context, then the claim; and the claim's line."""
    numbers = dict(ctx.explicit or {}) if ctx.kind == "explicit" else None
    lines = ["# A generated claim", ""]
    if ctx.vectors == "column":
        lines += ["Every vector is a column vector.", ""]
    lines += ["Shapes used below:", ""]
    for name, rows, cols, head in _all_shapes(spec):
        label = f"{name}^{{(h)}}" if head else name
        lines.append(f"- ${label}\\in{_tex_shape(rows, cols, numbers)}$")
    lines.append("")
    if ctx.relation:
        lines += [f"The heads share the width: ${ctx.relation}$.", ""]
    if ctx.kind == "worked":
        sizes = ctx.explicit or {}
        said = ", ".join(f"${TEX_DIM[k]}={v}$" for k, v in sizes.items())
        lines += [f"A worked example: take {said}.", ""]
    if ctx.kind == "written":
        lines += _written_example(spec, ctx.explicit or {})
    lines.append(f"$${formula(spec, numbers, ctx.vectors == 'column')}$$")
    line = len(lines)
    lines.append("")
    return "\n".join(lines), line


def undeclared_document(spec: ClaimSpec) -> tuple[str, int]:
    """The claim in a document that declares no shape: the reader must infer them (the context
    "inferred"); and the claim's line."""
    return claim_document(["# A generated claim", ""], formula(spec, None, False))


def claim_document(lines: list[str], claimed: str) -> tuple[str, int]:
    """A document of `lines`, then "Then" and the display of `claimed`; and the claim's line.

    >>> claim_document(["# A", ""], "Q = Q")
    ('# A\\n\\nThen\\n\\n$$Q = Q$$\\n', 5)
    """
    lines = [*lines, "Then", "", f"$${claimed}$$"]
    line = len(lines)
    lines.append("")
    return "\n".join(lines), line


def _written_example(spec: ClaimSpec, sizes: Mapping[str, int]) -> list[str]:
    """A worked example at `sizes` that writes out every matrix of the claim (the oracle's
    `written_values`); a head family cannot be written out here."""
    said = ", ".join(f"${TEX_DIM[k]}={v}$" for k, v in sizes.items())
    lines = [f"A worked example: take {said}, and", ""]
    for name, rows, cols, head in _all_shapes(spec):
        if head:
            raise NotExpressible("a head family written out")
        values = written_values(name, rows.value(sizes), cols.value(sizes))
        body = "\\\\".join("&".join(str(v) for v in row) for row in values)
        lines += [f"$${name}=\\begin{{bmatrix}}{body}\\end{{bmatrix}}$$", ""]
    lines += ["Then", ""]
    return lines


# ---- a Python reproducer ----------------------------------------------------------------------


def api_source(spec: ClaimSpec, ctx: Context) -> str:
    """Python source that builds the claim with the public API and calls `prove_equal`."""
    numbers = dict(ctx.explicit or {}) if ctx.kind == "explicit" else {}

    def dim(x: Dim) -> str:
        parts = [str(x.coef)] if x.coef != 1 or not x.factors else []
        parts += [str(numbers[f]) if f in numbers else f for f in x.factors]
        return "*".join(parts)

    def ix(e: Ix) -> str:
        out = str(e.const) if e.const or not e.terms else ""
        for name, c in e.terms:
            term = str(numbers[name]) if name in numbers else name
            out += ("+" if c > 0 else "-") + (term if abs(c) == 1 else f"{abs(c)}*{term}")
        return out.lstrip("+") or "0"

    def go(x: Node) -> str:
        if isinstance(x, Sym):
            return f'MatSym("{x.name}", {dim(x.rows)}, {dim(x.cols)})'
        if isinstance(x, HeadMat):
            return f'HeadSym("{x.name}", {ix(x.head)}, {dim(x.rows)}, {dim(x.cols)})'
        if isinstance(x, Ones):
            return f"Ones({dim(x.rows)}, {dim(x.cols)})"
        if isinstance(x, FromCol):
            return f'FromColumn("{x.name}", {dim(x.rows)}, {dim(x.cols)})'
        if isinstance(x, MatMul):
            return f"({go(x.a)} @ {go(x.b)})"
        if isinstance(x, Tr):
            return f"{go(x.a)}.T"
        if isinstance(x, Add):
            return f"({go(x.a)} + {go(x.b)})"
        if isinstance(x, Scale):
            return f"Scale({go(x.c)}, {go(x.a)})"
        if isinstance(x, Softmax):
            return f"Softmax({go(x.a)})"
        if isinstance(x, ColSoftmax):
            return f"ColSoftmax({go(x.a)})"
        if isinstance(x, Mask):
            return f"CausalMask({go(x.a)}{', upper=True' if x.upper else ''})"
        if isinstance(x, Row):
            return f"{go(x.a)}.row({ix(x.i)})"
        if isinstance(x, Concat):
            return f"Concat({go(x.body)}, {x.var}, {dim(x.count)})"
        if isinstance(x, Block):
            return f"RowBlock({go(x.a)}, {ix(x.head)}, {dim(x.m)}, {dim(x.count)})"
        if isinstance(x, MSum):
            return f"MatSum({go(x.body)}, {x.var}, {ix(x.lo)}, {ix(x.hi)})"
        if isinstance(x, Num):
            return f"Rational({x.value.numerator}, {x.value.denominator})"
        if isinstance(x, Sqrt):
            return f"sqrt({dim(x.dim)})**{x.power}"
        if isinstance(x, Entry):
            return f"{go(x.m)}[{ix(x.i)}, {ix(x.j)}]"
        if isinstance(x, Dot):
            return f"Dot({go(x.u)}, {go(x.v)})"
        if isinstance(x, SMul):
            return f"({go(x.a)} * {go(x.b)})"
        if isinstance(x, SAdd):
            return f"({go(x.a)} + {go(x.b)})"
        if isinstance(x, SSum):
            return f"Sum({go(x.body)}, ({x.var}, {ix(x.lo)}, {ix(x.hi)}))"
        raise TypeError(type(x).__name__)

    letters = sorted(
        {name for side in (spec.lhs, spec.rhs) for y in nodes(side) for name in _ix_names(y)}
        | {y.var for side in (spec.lhs, spec.rhs) for y in nodes(side) if hasattr(y, "var")}  # noqa: B009
    )
    assume = []
    if ctx.relation:
        k, v = ctx.relation.split("=")
        assume.append(f"{k}={v}")
    if ctx.kind == "worked":
        assume += [f"{k}={v}" for k, v in (ctx.explicit or {}).items()]
    head = [
        "from sympy import Rational, Sum, sqrt",
        "from symattn.kernel.dims import assume, n, d, d_k, d_v, H",
        "from symattn.kernel.expr import *",
        "from symattn.kernel.proof import prove_equal",
    ]
    if letters:
        head.append(
            f"{', '.join(letters)}{',' if len(letters) == 1 else ''} = "
            f"(index(x) for x in {letters!r})"
        )
    head.append(f"lhs = {go(spec.lhs)}")
    head.append(f"rhs = {go(spec.rhs)}")
    head.append(f"with assume({', '.join(assume)}):" if assume else "if True:")
    head.append("    print(prove_equal(lhs, rhs).summary())")
    return "\n".join(head)


def _ix_names(y: Node) -> set[str]:

    out: set[str] = set()
    for v in vars(y).values():
        if isinstance(v, Ix):
            out |= {k for k in v.names() if k not in DIM_NAMES}
    return out
