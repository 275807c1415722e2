"""Letters a text uses undeclared as members of a family (`R_m`, `R_n`) or as plain vectors
(`q^T R_n k`). Imports the reader's syntax and terms; never claims or the checker."""

from __future__ import annotations

from symattn.reader.syntax import ast
from symattn.reader.terms.members import family_letter
from symattn.reader.terms.name_evidence import _Formula
from symattn.reader.terms.translator import plain_name

__all__ = ["families", "head_families", "head_family", "transposed_letters"]


def families(
    formulas: list[_Formula], indexed: set[str], evidence: set[str], taken: set[str]
) -> list[str]:
    """The capitals written only as members of a family (`R_m`, `R_n`, `R_{t}`) that the text
    never declares, with a member used as a matrix somewhere (transposed, or multiplied by a
    matrix or vector of the text's)."""
    letters: set[str] = set()
    used: set[str] = set()
    known = evidence | taken
    owned = {x.split("_")[0] for x in taken}
    for f in formulas:
        for c in f.claims:
            if c.steps and c.steps[0].rel in ("=", "in", ":=", "coloneqq"):
                # `R_m = ...`, `R_m \in \mathbb R^{d\times d}`: the text gives the family
                owned |= {x for x in map(family_letter, c.subjects) if x is not None}
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                letter = family_letter(x)
                if letter is not None:
                    letters.add(letter)
                if isinstance(x, ast.Transpose) and family_letter(x.operand) is not None:
                    used.add(family_letter(x.operand) or "")
                if isinstance(x, ast.Product | ast.Mul):
                    for a, b in zip(x.factors, x.factors[1:], strict=False):
                        for one, other in ((a, b), (b, a)):
                            mine = family_letter(one)
                            if mine is not None and _matrix_like(other, known):
                                used.add(mine)
    return sorted(x for x in letters & used if x in indexed and x not in taken | owned)


def transposed_letters(formulas: list[_Formula]) -> set[str]:
    """Plain lower-case letters the text transposes (`q^T R k`), or writes after a transposed
    one or a family's member (`q^T k`, `R_n k`), and never writes with an index
    or as an index, a bound or a size (`q_i`, `\\sum_q`, `x^{(q)}`): vectors, not numbers."""
    out: set[str] = set()
    other: set[str] = set()
    for f in formulas:
        for c in f.claims:
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                if isinstance(x, ast.Transpose) and _plain_letter(x.operand):
                    out.add(x.operand.name)  # type: ignore[union-attr]
                if isinstance(x, ast.Product | ast.Mul):
                    # `R_n k`, `q^T k`: after a family's member or a transposed letter
                    for a, b in zip(x.factors, x.factors[1:], strict=False):
                        after = family_letter(a) is not None or (
                            isinstance(a, ast.Transpose) and _plain_letter(a.operand)
                        )
                        if after and _plain_letter(b):
                            out.add(b.name)  # type: ignore[union-attr]
                if isinstance(x, ast.Symbol) and x.sub is not None:
                    other.add(x.name)
                    if x.name.islower() and x.name != "d":  # `a_{ik}`; `W_k`, `d_k` label
                        other |= {y.name for y in ast.symbols(x.sub)}
                if isinstance(x, ast.Sum):
                    other.add(getattr(x.var, "name", ""))
                if isinstance(x, ast.HeadSup):
                    other |= {y.name for y in ast.symbols(x.head)}
    return out - other


def _plain_letter(node: ast.Node) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and node.sub is None
        and node.font is None
        and len(node.name) == 1
        and node.name.islower()
    )


def _matrix_like(node: ast.Node, known: set[str]) -> bool:
    """A factor beside a family's member that makes it a matrix: a transpose, a member, or
    a name of the text's that is a matrix or a vector."""
    if isinstance(node, ast.Transpose) or family_letter(node) is not None:
        return True
    name = plain_name(node) if isinstance(node, ast.Symbol | ast.Labeled) else None
    return name is not None and name in known


def head_families(formulas: list[_Formula], taken: set[str]) -> tuple[list[str], set[str]]:
    """The head families the text writes (`W_q^{(s)}`, `W^{(s)}_k`: a capital with a head
    letter) and never declares nor defines (`W_q^{(s)} \\in ...`, `Q^{(s)} = ...`), and those
    it declares (the chapter's head families keep their shapes otherwise, as its names do)."""
    written: set[str] = set()
    owned: set[str] = set()
    declared: set[str] = set()
    for f in formulas:
        for c in f.claims:
            if c.steps and c.steps[0].rel in ("=", "in", ":=", "coloneqq"):
                named = {x for x in map(head_family, c.subjects) if x is not None}
                owned |= named
                declared |= named if c.steps[0].rel == "in" else set()
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                name = head_family(x)
                if name is not None:
                    written.add(name)
    return sorted(written - owned - taken), declared


def head_family(node: ast.Node) -> str | None:
    """`W_q` of `W_q^{(s)}`: a capital's plain name under a head letter; None otherwise."""
    if not isinstance(node, ast.HeadSup) or not isinstance(node.operand, ast.Symbol):
        return None
    head = node.head
    if not (isinstance(head, ast.Symbol) and head.sub is None and len(head.name) == 1):
        return None
    op = node.operand
    if not op.name[:1].isupper() or len(op.name) != 1:
        return None
    return plain_name(op)
