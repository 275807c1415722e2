"""A document's evidence about its names: the formulas read once, declarations, and the cues
that make a name a matrix, a vector or a size. Must not import claims or the checker.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from symattn.kernel.dims import STANDARD_DIMS
from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.shape_walk import _reals_value, _Walker
from symattn.reader.terms.translator import plain_name
from symattn.reader.terms.unify import Unifier, Value

_BOLD = ("mathbf", "boldsymbol", "bm", "vec")


@dataclass
class _Formula:
    span: MathSpan
    claims: list[ast.Claim]


#: A formula's tree, read once for the inference and the resolver (trees are immutable).
parsed = functools.lru_cache(maxsize=4096)(parse_formula)


def _formulas(spans: Iterable[object]) -> list[_Formula]:
    out = []
    for span in spans:
        if not isinstance(span, MathSpan):
            continue
        try:
            formula = parsed(blank_notes(span.body), span.env)
        except (ParseError, RecursionError):
            continue
        claims = [x for x in _items(formula.items) if isinstance(x, ast.Claim)]
        out.append(_Formula(span, claims))
    return out


def _items(items: Iterable[ast.Node]) -> Iterable[ast.Node]:
    for x in items:
        if isinstance(x, ast.Boxed):
            yield from _items(x.items)
        else:
            yield x


def _names(node: ast.Node) -> Iterable[ast.Symbol | ast.Labeled]:
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol | ast.Labeled):
            yield x
            if isinstance(x, ast.Labeled):
                continue
        stack.extend(ast.children(x))


def _candidate(node: ast.Symbol | ast.Labeled) -> str | None:
    """The kind a name the text may use undeclared has by its look: `matrix` for a capital
    (`W_q`, `\\mathbf M`, `W^Q_i`), `vector` for a bold or arrowed lower-case letter with no
    index (`\\mathbf q`, `\\vec a`); None for anything else (plain letters may be numbers)."""
    name = plain_name(node)
    if name is None or not _whole_name(node):
        return None
    sym = node.operand if isinstance(node, ast.Labeled) else node
    if sym.name[:1].isupper() and len(sym.name) == 1 and name not in STANDARD_DIMS:
        return "matrix"
    if sym.font in _BOLD and sym.name.islower() and len(sym.name) == 1 and sym.sub is None:
        return "vector"
    return None


def _declared(formulas: list[_Formula]) -> tuple[set[str], set[str]]:
    """The names the text declares (`\\in \\mathbb R^{...}`) and those it defines (`X = ...`)."""
    declared: set[str] = set()
    defined: set[str] = set()
    for f in formulas:
        for c in f.claims:
            if not c.steps:
                continue
            names = {plain_name(s) for s in c.subjects} - {None}
            if c.steps[0].rel == "in":
                declared |= names  # type: ignore[arg-type]
            elif c.steps[0].rel in ("=", "coloneqq", ":=") and len(c.subjects) == 1:
                defined |= names  # type: ignore[arg-type]
    return declared, defined


def _declarations(
    formulas: list[_Formula], u: Unifier, dims: set[str]
) -> dict[str, list[tuple[int, Value]]]:
    """Each name declared with `\\in \\mathbb R^{...}`, its declarations in order (line, value)."""
    out: dict[str, list[tuple[int, Value]]] = {}
    for f in formulas:
        for c in f.claims:
            if not (c.steps and c.steps[0].rel == "in" and isinstance(c.steps[0].rhs, ast.Reals)):
                continue
            value = _reals_value(_Walker(u, {}, dims), c.steps[0].rhs)
            if value is None:
                continue
            for subject in c.subjects:
                name = plain_name(subject)
                if name is not None and _whole_name(subject):
                    out.setdefault(name, []).append((f.span.start.line, value))
    return out


#: Subscripts that index a family (`k_i` is the i-th key, `W_t` the t-th step), not label
#: one name (`W_q`, `W_k`, `w_v`).
_INDEX_LETTERS = frozenset("ijklmnt")


_INDEX_CAPITAL = frozenset("ijlmnt")


def _whole_name(node: ast.Node) -> bool:
    """A name that stands for one matrix or vector: not `k_i`, `x_1` (members of a family)."""
    if isinstance(node, ast.Labeled):
        return True  # `W_i^Q`: one name with its label, as the translator reads it
    sym = node
    if not isinstance(sym, ast.Symbol):
        return False
    sub = sym.sub
    if sub is None:
        return True
    if isinstance(sub, ast.Symbol) and sub.sub is None:
        index = _INDEX_CAPITAL if sym.name[:1].isupper() else _INDEX_LETTERS
        return sub.name not in index and (sub.font is not None or len(sub.name) == 1)
    return _is_word(sub)


def _is_word(node: ast.Node) -> bool:
    """`\\text{model}`, `{\\rm ff}`: a label written as a word."""
    return plain_name(node) is None and isinstance(node, ast.Symbol) and len(node.name) > 1


def _in_claims(formulas: list[_Formula], defined: set[str] | None = None) -> set[str]:
    """The names used in a claim or a definition, not only in a shape claim; with `defined`,
    in a claim only (not in the definition of one of those names). A name used only to define
    another (`Q = XW^Q`: W^Q) is inferred too: Q then names a value, and a later claim about Q
    that fails with W^Q on one side only is undecided (`claims.inferred`)."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            if not c.steps:
                continue
            subject = plain_name(c.subjects[0]) if len(c.subjects) == 1 else None
            if defined is not None and subject in defined and c.steps[0].rel == "=":
                continue
            if c.steps[0].rel == "in":
                continue  # a shape claim: a shape inferred from it would only repeat it
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                out |= {n for n in map(plain_name, _names(node)) if n is not None}
    return out


def _matrix_evidence(formulas: list[_Formula], known: set[str]) -> set[str]:
    """Capitals used as matrices somewhere: in bold (`\\mathbf W`), transposed, given to
    softmax or attention, or multiplied by (or equal to) one of those or a known matrix. A
    plain capital
    with none of these (`N`, `L`, `T`) may be a number, and gets no matrix shape."""
    out: set[str] = set()
    products: list[tuple[ast.Node, ...]] = []
    for f in formulas:
        for c in f.claims:
            sides = [c.subjects[0], *(s.rhs for s in c.steps if s.rel == "=")]
            products.append(tuple(sides))  # `M N = P`: P is what M N is
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                label = _name_of(x)
                sym = x.operand if isinstance(x, ast.Labeled) else x
                if label is not None and isinstance(sym, ast.Symbol) and sym.font in _BOLD:
                    out.add(label)
                if isinstance(x, ast.Transpose) and _name_of(x.operand) is not None:
                    out.add(_name_of(x.operand) or "")
                if isinstance(x, ast.Call) and x.name.lower() in ("softmax", "attention"):
                    out |= {n for n in map(_name_of, x.args) if n is not None}
                if isinstance(x, ast.Product):
                    products.append(x.factors)
    grown = True
    while grown:  # `softmax(M) N P`: N is multiplied by a matrix, then P by N
        grown = False
        for fs in products:
            for a, b in zip(fs, fs[1:], strict=False):
                for one, other in ((a, b), (b, a)):
                    label = _name_of(one)
                    if label is not None and label not in out and _matrixlike(other, out | known):
                        out.add(label)
                        grown = True
    return out


def _name_of(node: ast.Node) -> str | None:
    return plain_name(node) if isinstance(node, ast.Symbol | ast.Labeled) else None


def _matrixlike(node: ast.Node, matrices: set[str]) -> bool:
    if isinstance(node, ast.Transpose):
        return True
    if isinstance(node, ast.Call):
        return node.name.lower() in ("softmax", "attention")
    if isinstance(node, ast.Group) and len(node.items) == 1:
        return _matrixlike(node.items[0], matrices)
    if isinstance(node, ast.Product):
        return any(_matrixlike(f, matrices) for f in node.factors)
    label = _name_of(node)
    return label is not None and label in matrices


def _indexed_letters(formulas: list[_Formula]) -> set[str]:
    """Capitals the text also writes with an index (`M_k`, `Q_1`): a family, so the bare
    letter's shape is not inferred (which member, or the whole, it means is not said)."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                for sym in _names(node):
                    if isinstance(sym, ast.Symbol) and sym.sub is not None:
                        if sym.name[:1].isupper():
                            out.add(sym.name)
    return out


def _roots(formulas: list[_Formula]) -> set[str]:
    """Plain names alone under a square root (`\\sqrt{d_k}`, `\\sqrt{p}`): sizes."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                if isinstance(x, ast.Sqrt) and isinstance(x.radicand, ast.Symbol):
                    name = plain_name(x.radicand)
                    if name is not None and x.radicand.font is None and name[:1].isalpha():
                        out.add(name)
    return out


def _size_names(formulas: list[_Formula]) -> set[str]:
    """Names the text uses as sizes or indices: in a shape, a sum's bounds, under a square
    root or in an exponent (`N` of `\\mathbb R^{N\\times d}` is no matrix)."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                sizes: list[ast.Node] = []
                if isinstance(x, ast.Reals):
                    sizes = list(x.shape)
                elif isinstance(x, ast.Sum):
                    sizes = [y for y in (x.lower, x.upper) if y is not None]
                elif isinstance(x, ast.Sqrt):
                    sizes = [x.radicand]
                elif isinstance(x, ast.Power):
                    sizes = [x.exponent]
                for y in sizes:
                    out |= {n for n in map(plain_name, _names(y)) if n is not None}
    return out


def _plain_names(f: _Formula) -> set[str]:
    return {
        n
        for c in f.claims
        for node in (*c.subjects, *(s.rhs for s in c.steps))
        for n in map(plain_name, _names(node))
        if n is not None
    }
