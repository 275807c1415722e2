"""Claims that use names the text never declares (`x`, `h_t`, `\\sigma`, `f(x)`, `\\tanh(x)`):
read around those names, so the rest is still checked; the claim itself is only undecided.

Imports the reader's AST and translator; never the resolver, the checker or the CLI (the
resolver calls `read_around`).
"""

from __future__ import annotations

from symattn.kernel.expr import index
from symattn.reader.syntax import ast
from symattn.reader.terms.functions import OPERATORS, TRACES
from symattn.reader.terms.identity import other_terms
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.scalars import SCALAR_FUNCTIONS
from symattn.reader.terms.translator import UNREAD, Terms, UnknownName, UnknownOperator, label_of

__all__ = ["membership", "read_around", "undeclared"]


def undeclared(u: UnknownName | UnknownOperator) -> bool:
    """A name a text may use without declaring it: a lower-case or Greek letter, an accented
    or worded name, an operator (`\\tanh`, `\\text{FFN}`). A capital (`M`, `W_o`, `W^Q`, a head
    family) names a matrix, which must be declared: it stays `not understood` (with its
    "did you mean")."""
    label = u.label
    if u.applied:
        return True  # `F(x)`: a function of the text's, not a matrix times x
    if u.defined:
        return True  # the text gave it a definition (`S_i = \\{j : j\\le i\\}`): no typo
    return bool(label) and not label[:1].isupper() and "^{(h)}" not in label


def read_around(terms: Terms, node: ast.Node) -> list[str]:
    """The undeclared names in `node`, after translating every part of it that does not
    contain one (a shape error or an unreadable construct there is raised as usual).

    Sound: nothing is decided from the names it skips; the caller reports the claim as
    undecided. Read only: a sum's bounds are still checked, a `bmatrix` or a set is still
    refused, and capitals must still be declared; a matrix written out has its cells read.
    """
    if isinstance(node, ast.Dots):
        return []  # terms the text leaves out: nothing to check, nothing claimed here
    if isinstance(node, ast.Group | ast.Seq) and len(node.items) != 1:
        return _each(terms, node.items)  # arguments of an undeclared function
    if isinstance(node, ast.Set):
        return _each(terms, node.items + node.such_that)  # a set is read, never a value
    if isinstance(node, ast.Matrix):
        return _each(terms, [cell for row in node.rows for cell in row])  # cells read
    try:
        terms.term(node)
        return []
    except UNREAD as u:
        if not undeclared(u):
            raise
        if u.node is node:
            args = node.args if isinstance(node, ast.Call) else ()
            return [u.label, *_each(terms, args)]
        if isinstance(node, ast.Call) and _unknown_operator(terms, node):
            return [f"\\operatorname{{{node.name}}}", *_each(terms, node.args)]
    if isinstance(node, ast.Sum):
        bounds = ast.Sum(
            node.var,
            node.lower,
            node.upper,
            ast.Number("1", start=node.body.start, end=node.body.end),
            start=node.start,
            end=node.end,
        )
        var = node.var
        if node.lower is None and node.upper is None and var is not None and _plain_letter(var):
            # `\sum_i \alpha_{ti} v_i`: what i runs over, from the parts that read (`v_i`)
            terms._indexed_range(node, index(var.name))
        else:
            terms.term(bounds)  # `\sum_i` with no bounds is still unreadable
        return read_around(terms, node.body)
    if isinstance(node, ast.Product):
        return _product(terms, node)
    kids = ast.children(node)
    if isinstance(node, ast.Reals) or not kids:
        raise not_understood("cannot read this part of the formula", node)
    return _each(terms, kids)


def membership(terms: Terms, subject: ast.Node, of: ast.Node) -> str:
    """`j \\in S_i`, `z \\in [0, s]`, `a_{ij} \\in \\mathbf A`: both sides are read (errors
    raised as usual); membership itself is never decided. The message says why."""
    names = read_around(terms, subject) + read_around(terms, of)
    msg = "membership in a set is not decided"
    if names:
        msg += f"; {', '.join(dict.fromkeys(names))} not declared by the text"
    return msg


def _product(terms: Terms, node: ast.Product) -> list[str]:
    """The factors one by one; `F(x)` with F unknown is a function applied to its arguments."""
    out: list[str] = []
    fs = node.factors
    k = 0
    while k < len(fs):
        f, nxt = fs[k], fs[k + 1] if k + 1 < len(fs) else None
        if (
            isinstance(f, ast.Symbol)
            and isinstance(nxt, ast.Group)
            and nxt.delim == "("
            and terms.applied_unknown(f)
        ):
            out += [f"{label_of(f)}(·)", *_each(terms, nxt.items)]
            k += 2
            continue
        beside = other_terms(terms, f) if len(fs) > 1 else None
        out += read_around(terms, f) if beside is None else _each(terms, beside)
        k += 1
    return out


def _unknown_operator(terms: Terms, node: ast.Call) -> bool:
    """`\\sin(i\\omega_j)` whose argument is undeclared: the operator may be unknown too."""
    known = OPERATORS | TRACES | SCALAR_FUNCTIONS
    return node.name.lower() not in known and node.name not in terms.defs.table


def _each(terms: Terms, nodes: tuple[ast.Node, ...] | list[ast.Node]) -> list[str]:
    out: list[str] = []
    for n in nodes:
        out.extend(read_around(terms, n))
    return out


def _plain_letter(var: ast.Symbol) -> bool:
    """`i` of `\\sum_i`: one plain letter (what a sum over an index needs)."""
    return var.sub is None and len(var.name) == 1 and var.name.isalpha()
