"""Upstream gradients as backward passes name them (`dO`, `\\mathit{dO}`, `\\mathrm dO`,
`\\delta O`, `\\bar O`), rewritten in a tree as `ast.Gradient` of a loss the text never names.

Imports the reader's AST only; never lark, the kernel, the translator or above.
"""

from __future__ import annotations

import re
from typing import Any

from symattn.reader.syntax import ast
from symattn.reader.syntax.ast import Gradient

__all__ = ["MAY_MARK", "with_differentials"]

#: The loss of a gradient the text names only by its matrix (`dO`): the text's, never defined.
NAMELESS = "∇"

#: Whether a formula's text may name a gradient by a mark (a cheap test before the walk).
MAY_MARK = re.compile(
    r"(?<![A-Za-z\\])d\}?\s*(?:\\(?:math(?:bf|it|rm)|boldsymbol|bm)\s*\{?)?\s*[A-Za-z]|\\delta|\\bar"
)

#: `\\mathit{dO}`, `\\mathrm dO`, `\\text{dV}`: one name, d then a capital letter.
_NAMED = re.compile(r"\Ad([A-Z])\Z")
#: Fonts under which `d` against a letter is the differential, not the size d.
_D_FONTS = (None, "mathrm")
#: Bold fonts: `d\\mathbf O` is the gradient of the bold O.
_BOLD = ("mathbf", "boldsymbol", "bm")


def _plain(letter: str, like: ast.Symbol) -> ast.Symbol:
    return ast.Symbol(letter, None, like.sub, start=like.start, end=like.end)


def _strong(node: ast.Node) -> ast.Node | None:
    """`\\mathit{dO}` (read as the name dO): the gradient of O, whatever else the formula holds."""
    if isinstance(node, ast.Symbol) and node.font == "text":
        hit = _NAMED.match(node.name)
        if hit is not None:
            wrt = _plain(hit.group(1), node)
            return Gradient(NAMELESS, wrt, start=node.start, end=node.end)
    return None


def _matrix_letter(node: ast.Node, adjacent_to: int | None) -> ast.Symbol | None:
    """The letter a mark stands before: a capital (`dO`), a bold letter (`d\\mathbf O`) or a
    lowercase letter with a subscript, a row (`do_i`); written against the mark when
    `adjacent_to` is given (`dO`, never `d O`)."""
    if not isinstance(node, ast.Symbol) or len(node.name) != 1:
        return None
    if adjacent_to is not None and node.start != adjacent_to:
        return None
    if node.font is None and (node.name.isupper() or (node.name.islower() and node.sub)):
        return node
    if node.font in _BOLD and node.name.isalpha():
        return node
    return None


def _mark_at(factors: tuple[ast.Expr, ...], k: int) -> tuple[ast.Node, int] | None:
    """A weak mark at factor k (`d` against a letter, `\\delta` before one): the gradient
    (transposed where the letter is: `dO^\\top`) and how many factors it takes."""
    head = factors[k]
    if k + 1 >= len(factors) or not isinstance(head, ast.Symbol) or head.sub is not None:
        return None
    nxt = factors[k + 1]
    inner, mark = (nxt.operand, nxt.mark) if isinstance(nxt, ast.Transpose) else (nxt, None)
    if head.name == "d" and head.font in _D_FONTS:
        letter = _matrix_letter(inner, head.end)
    elif head.name == "delta" and head.font is None:
        letter = _matrix_letter(inner, None)
        if letter is not None and not letter.name.isupper():
            letter = None
    else:
        return None
    if letter is None:
        return None
    g: ast.Node = Gradient(NAMELESS, letter, start=head.start, end=inner.end)
    if mark is not None:
        g = ast.Transpose(g, mark, start=head.start, end=nxt.end)  # type: ignore[arg-type]
    return g, 2


def _bar(node: ast.Node) -> ast.Node | None:
    """`\\bar O`: the gradient of O (reverse-mode's adjoint), a capital only."""
    if isinstance(node, ast.Symbol) and node.font == "bar" and node.name.isupper():
        if len(node.name) == 1:
            return Gradient(NAMELESS, _plain(node.name, node), start=node.start, end=node.end)
    return None


class _Marks:
    """One walk over a formula: strong marks always, weak ones when `weak` is set."""

    def __init__(self, weak: bool) -> None:
        self.weak = weak
        self.letters: set[str] = set()
        self.marked: set[int] = set()  # where the marked letters start
        self.against: set[str] = set()  # the letters marked by a d against them
        self.plain: set[tuple[str, int]] = set()

    def rewrite(self, node: Any) -> Any:
        if not isinstance(node, ast.Node):
            return node
        if isinstance(node, ast.Reals) or (isinstance(node, ast.Call) and node.name == "O"):
            return node  # a shape `\\mathbb R^{dN}` or a cost `O(dN)`: sizes, never gradients
        strong = _strong(node)
        if strong is not None:
            self._seen(strong)
            return strong
        if isinstance(node, ast.Symbol) and len(node.name) == 1 and node.font is None:
            self.plain.add((node.name, node.start))
        bar = _bar(node)
        if bar is not None:
            self._seen(bar)
            return bar if self.weak else node
        if isinstance(node, ast.Product):
            node = self._product(node)
            if not isinstance(node, ast.Product):
                return node
        return ast.rebuilt(node, self.rewrite)

    def _seen(self, g: ast.Node, against: bool = False) -> None:
        inner = g.operand if isinstance(g, ast.Transpose) else g
        assert isinstance(inner, Gradient) and isinstance(inner.wrt, ast.Symbol)
        self.letters.add(inner.wrt.name)
        self.marked.add(inner.wrt.start)
        if against:
            self.against.add(inner.wrt.name)  # `dO`, not `\\bar O` nor `\\delta O`

    def beside(self) -> bool:
        """Whether a marked letter also stands unmarked (`dO \\circ O`)."""
        return any(name in self.against for name, at in self.plain if at not in self.marked)

    def _product(self, node: ast.Product) -> ast.Node:
        out: list[ast.Expr] = []
        k, factors, changed = 0, node.factors, False
        while k < len(factors):
            hit = _mark_at(factors, k)
            if hit is not None:
                head = factors[k]
                self._seen(hit[0], isinstance(head, ast.Symbol) and head.name == "d")
                if self.weak:
                    out.append(hit[0])  # type: ignore[arg-type]
                    k += hit[1]
                    changed = True
                    continue
            out.append(factors[k])
            k += 1
        if not changed:
            return node
        if len(out) == 1:
            return out[0]
        return ast.Product(tuple(out), start=node.start, end=node.end)


def with_differentials(node: Any) -> Any:
    """The tree with every gradient a backward pass names by a mark as an `ast.Gradient`.

    `\\mathit{dO}` (`\\mathrm dO`, `\\text{dO}`) is always the gradient of O. The weaker marks,
    `dO` written against its letter, `\\delta O` and `\\bar O`, are read so only in a formula
    that writes two such gradients (`dV = A^\\top dO`) or one beside its own matrix
    (`\\operatorname{rowsum}(dO \\circ O)`); elsewhere `dN` stays the size d times N.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> ast.dump(with_differentials(parse_formula(r"dV = A^\\top dO")))
    '[(grad ∇ V) = (* (T A) (grad ∇ O))]'
    >>> ast.dump(with_differentials(parse_formula(r"Y = dN")))
    '[Y = (* d N)]'
    """
    probe = _Marks(weak=False)
    probe.rewrite(node)
    weak = len(probe.letters) >= 2 or probe.beside()
    return _Marks(weak=weak).rewrite(node) if weak or probe.letters else node
