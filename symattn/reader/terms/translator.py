"""The one translator from formulas to kernel terms: `Terms`, its dispatch by node, re-exports.
Imports the kernel and the translator's parts; must not import the resolver, the checker or CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.expr import Entry, Row, RowBlock
from symattn.kernel.ranges import definite_range_problem
from symattn.reader.syntax import ast
from symattn.reader.terms.arithmetic import ArithmeticMixin, as_comparable, orientation
from symattn.reader.terms.base import Scope
from symattn.reader.terms.defined_values import defined_value
from symattn.reader.terms.functions import FunctionsMixin
from symattn.reader.terms.indices import IndicesMixin
from symattn.reader.terms.names import KEEP_FONTS, NamesMixin, label_of, plain_name, word_name
from symattn.reader.terms.problems import (
    UNREAD,
    Problem,
    UnknownName,
    UnknownOperator,
    not_understood,
)

__all__ = [
    "KEEP_FONTS",
    "Problem",
    "Scope",
    "Terms",
    "UnknownName",
    "UnknownOperator",
    "UNREAD",
    "as_comparable",
    "label_of",
    "orientation",
    "plain_name",
    "word_name",
]


class Terms(NamesMixin, ArithmeticMixin, IndicesMixin, FunctionsMixin):
    """Translate syntax trees into kernel terms in a scope; the only place that does.

    >>> from symattn.reader import parse_formula
    >>> from symattn.reader.claims.resolve import Resolver
    >>> claim = parse_formula("QK^T").items[0]
    >>> Terms(Resolver()).term(claim.subjects[0]).shape
    (n, n)
    """

    def term(self, node: ast.Node) -> sympy.Basic:
        """The kernel term a node stands for: a matrix expression or a scalar."""
        if self.placed and type(node) in _NAMES and node in self.placed:
            return self.placed[node]
        handler: Any = _TERMS.get(type(node))
        if handler is None:
            raise not_understood(_unsupported(node), node)
        value: sympy.Basic = handler(self, node)
        if self.defs.rules and isinstance(node, ast.Symbol) and node.sub is not None:
            value = defined_value(self, node, value)  # `p_{i+\delta,2j}` of `p_{i,2j} = ...`
        if isinstance(value, (Entry, Row, RowBlock)):
            # checked as built: a factor zero at the sizes ((n-5) at n = 5) would drop it
            outside = definite_range_problem(value, getattr(self, "sum_limits", {}))
            if outside is not None:
                raise Problem("shape_error", outside + _counted_from_0(self, node, value), node)
        if self.observer is not None:
            self.observer(node, value, node.end)
        return value


#: The nodes a name is written as (what `Terms.placed` may hold).
_NAMES = (ast.Symbol, ast.Labeled)


def _counted_from_0(terms: Terms, node: ast.Node, value: sympy.Basic) -> str:
    """The note for a member of a family the text counts from 0, whose row is one past its
    index (`x_i` as row i + 1 of X): the message speaks of the row."""
    zero: set[str] = getattr(terms.scope, "zero_based", set())
    if isinstance(value, Row) and isinstance(node, ast.Symbol) and node.name in zero:
        return f" (the text counts {node.name} from 0: {node.name}_k is row k + 1)"
    return ""


def _unsupported(node: ast.Node) -> str:
    what = {
        ast.Dots: "an ellipsis stands for terms the checker cannot see",
        ast.Reals: "\\mathbb R is a set, not a value",
        ast.Seq: "a list is not a value",
        ast.Set: "a set is not a value",
    }
    return what.get(type(node), f"{type(node).__name__} is not supported here")


_TERMS = {
    ast.Gradient: Terms._gradient,
    ast.Symbol: Terms._symbol,
    ast.Number: Terms._number,
    ast.Group: Terms._group,
    ast.IndexedGroup: Terms._indexed_group,
    ast.Transpose: Terms._transpose,
    ast.HeadSup: Terms._head_sup,
    ast.Power: Terms._power,
    ast.Product: Terms._product,
    ast.Mul: Terms._mul,
    ast.Add: Terms._add,
    ast.Neg: Terms._neg,
    ast.Frac: Terms._frac,
    ast.Sqrt: Terms._sqrt,
    ast.Call: Terms._call,
    ast.Sum: Terms._sum,
    ast.Labeled: Terms._labeled,
    ast.Inner: Terms._inner,
    ast.Norm: Terms._norm,
    ast.Abs: Terms._abs,
    ast.Matrix: Terms._matrix,
}
