"""Names a document defines by its first equation about them: scalars (`\\omega_j = ...`),
sequences (`e_{ij} = ...`) and uninterpreted functions (`a(\\mathbf q,\\mathbf k) = ...`).

Imports sympy, the kernel's expressions and errors, and the reader's AST; never the translator,
the resolver, the checker or the CLI (the translator and the resolver import this).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr, MatSym
from symattn.reader.syntax import ast

__all__ = ["OWN_ATTENTION", "Defined", "Defs", "Value", "head_of", "shape_of"]

#: the key of the text's own attention in `Defs.table` (`claims.own_attention`): no name a
#: text writes, so it never clashes with one
OWN_ATTENTION = "attention()"

#: A value's shape as a definition fixes it: "scalar", (rows, cols), or None (not read).
Value = str | tuple[sympy.Expr, sympy.Expr] | None


@dataclass(frozen=True)
class Defined:
    """What a document defined: `name` (as written, `\\alpha`, `e`, `\\text{score}`), how many
    indices (a sequence, `e_{ij}`: 2) or arguments (a function: `params`) it takes, the shapes
    of the parameters when it was defined, and the shape of its value (None: not read).

    Its value is never used: a defined name stands for an opaque term, so a claim about it is
    at most undecided (its shape is checked, never its identity)."""

    name: str
    indices: int
    params: tuple[Value, ...] | None
    value: Value
    line: int
    why: str = ""
    any_args: bool = False
    #: the right side of a vector's definition read without opaque terms (`s =
    #: \\mathrm{softmax}(z)`): its components `s_i` are entries of it, read where they are
    #: written (`terms.components.defined_component`)
    vector: ast.Node | None = field(default=None, compare=False)
    section: int = -1  # where it was defined, for a definition that later ones replace


@dataclass
class Defs:
    """The document's defined names, and the opaque terms the current claim used."""

    table: dict[str, Defined] = field(default_factory=dict)
    used: list[str] = field(default_factory=list)
    #: opaque terms of a notation, not of the text's definitions (`\\operatorname{repeat}_R(K)`)
    notations: set[str] = field(default_factory=set)
    #: members of families the text defined (`S_t`): matrices of their own, whose value the
    #: definition fixes but the checker does not read (a claim true for every value holds)
    members: dict[str, int] = field(default_factory=dict)

    #: what each opaque term used stands for (`\\beta_t`: the sequence \\beta)
    meaning: dict[str, Defined] = field(default_factory=dict)
    #: the values of scalar definitions by index, read where a claim writes them
    #: (`defined_values.Rule`, by matrix or sequence name), and those the current claim used
    rules: dict[str, list[Any]] = field(default_factory=dict)
    applied: list[str] = field(default_factory=list)
    #: members a rule covers that the text gave a value of its own (`\\theta_0 = 10000^{-1}`
    #: after `\\theta_i = 10000^{-2i/d}`), by (name, indices), with the section where it holds
    shadowed: dict[tuple[str, tuple[Any, ...]], int] = field(default_factory=dict)
    #: the sizes those values brought that the claim does not write (`d` of `10000^{2j/d}`)
    brought: set[str] = field(default_factory=set)
    #: functions of scalars whose value is a matrix written out (`R(\\theta) = [...]`): their
    #: parameters, the matrix and the line (`claims.written_families`)
    written: dict[str, tuple[tuple[str, ...], Any, int]] = field(default_factory=dict)

    def opaque(self, d: Defined, text: str) -> sympy.Basic:
        """The opaque term `text` (`a(q, k_i)`, `e_{ir}`) of value shape `d.value`."""
        self.used.append(text)
        self.meaning[text] = d
        if isinstance(d.value, tuple):
            return MatSym(text, *d.value)
        return sympy.Symbol(text, real=True)


def shape_of(value: sympy.Basic) -> Value:
    """`"scalar"` for a number or a 1 × 1 matrix, else the matrix's shape.

    >>> from symattn.kernel.dims import n, d
    >>> shape_of(sympy.Integer(3)), shape_of(MatSym("Q", n, d))
    ('scalar', (n, d))
    """
    if isinstance(value, MatExpr):
        if value.rows == 1 and value.cols == 1:
            return "scalar"
        return (value.rows, value.cols)
    return "scalar"


def head_of(node: ast.Node) -> tuple[ast.Symbol, ast.Group] | None:
    """`f(x)`, `\\alpha(\\mathbf q, \\mathbf k_i)` (a product of a letter and a parenthesis):
    the function's letter and its arguments; None for anything else."""
    if (
        isinstance(node, ast.Product)
        and len(node.factors) == 2
        and isinstance(node.factors[0], ast.Symbol)
        and isinstance(node.factors[1], ast.Group)
        and node.factors[1].delim == "("
    ):
        return node.factors[0], node.factors[1]
    return None
