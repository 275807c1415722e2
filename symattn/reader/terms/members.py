"""Families of matrices indexed by time or position (`\\mathbf S_t`, `S_{t-1}`, `\\mathbf{M_k}`):
one shape for every member, a distinct member for each index expression.

Imports sympy, the kernel's expressions and `kernel.unfold` (a recurrence's members) and the
reader's AST; never the scope, the translator, the claim readers, the checker or the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy

from symattn.kernel.dims import dim, dims_equal
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import HeadSym, MatExpr, MatSum, walk
from symattn.kernel.unfold import member
from symattn.reader.syntax import ast

#: A matrix's shape: (rows, columns).
Shape = tuple[sympy.Expr, sympy.Expr]

__all__ = [
    "Member",
    "family_letter",
    "lookup_member",
    "member_label",
    "member_of",
    "member_value",
    "open_size",
    "unfixed_sizes",
    "record_member",
    "recurrence_member",
]


@dataclass
class Member:
    """A family `S_•` the text declared (`\\mathbf S_t\\in\\mathbb R^{d\\times d}`) or defined
    (`\\mathbf S_t = \\sum_{j=1}^t \\mathbf v_j\\mathbf k_j^\\top`): the members' shape, where it
    was given, and whether a definition gave it (its value is then not read: a claim about a
    member is at most undecided). `settled` is False when the shape came from a reading of
    vectors whose rows or columns the text does not settle."""

    letter: str
    shape: Shape
    line: int
    section: int
    label: str
    defined: bool = False
    settled: bool = True
    recurrence: Any = None  # (step, previous member, t) when defined by S_t = f(S_{t-1}, t)
    base: Any = None  # (start, value) of the base case S_0 = ... of a recurrence
    #: a closed form that defines every member (`\\sum_{j=1}^t \\mathbf v_j\\mathbf k_j^\\top`,
    #: never a recurrence) and the index letter it is written in: members are read as its value
    closed: ast.Node | None = None
    index: sympy.Expr | None = None
    #: the lines of the formulas that read a member's value from the closed form, and of
    #: those that use a member as a matrix of its own
    read_at: set[int] = field(default_factory=set)
    used_at: set[int] = field(default_factory=set)
    #: the names of the matrices its definition was made from (`X` of `Q_i = XW_i^Q`)
    uses: frozenset[str] = frozenset()
    #: members declared in R^d where the text never settles rows or columns: d × 1, and 1 × d
    #: when a claim is read with its vectors as rows (as a vector declared so is)
    vector: bool = False


def recurrence_member(family: Member, index: sympy.Expr) -> Any:
    """Member `index` of a family defined by a recurrence with a base case, as the kernel's
    term (written out at a number, else decided by induction); None for any other family."""
    if family.recurrence is None or family.base is None:
        return None
    step, previous, var = family.recurrence
    start, base = family.base
    return member(family.letter, index, base, step, previous, var, start)


def family_letter(node: ast.Node) -> str | None:
    """`\\mathbf S_t`, `S_{t-1}`, `\\mathbf{M_k}`, `G_1`: a capital letter with one index
    expression of lower-case letters and numbers below it. Names such as `W_q`, `W_Q`, `W_O`,
    `S_{ij}` (two indices) or `v_{A,i}` are not members of a family."""
    if not isinstance(node, ast.Symbol) or node.sub is None:
        return None
    if len(node.name) != 1 or not node.name.isascii() or not node.name.isupper():
        return None
    if node.name == "W" or node.font not in (None, "mathbf", "boldsymbol", "bm", "mathit"):
        return None  # `W_q` is a name of its own (the plain names of the translator)
    return node.name if _index_expression(node.sub) else None


def _index_expression(sub: ast.Node) -> bool:
    """`t`, `t-1`, `k+1`, `1`, `(t-1)`: one index, never a pair `ij` or a label `A`."""
    if isinstance(sub, ast.Number):
        return sub.text.isdigit()
    if isinstance(sub, ast.Symbol):
        return sub.sub is None and sub.font is None and len(sub.name) == 1 and sub.name.islower()
    if isinstance(sub, ast.Add):
        letters = [t for t in sub.terms if isinstance(t, ast.Symbol)]
        return len(letters) == 1 and all(_index_expression(t) for t in sub.terms)
    if isinstance(sub, ast.Group) and sub.delim == "(" and len(sub.items) == 1:
        return _index_expression(sub.items[0])
    return False


def member_label(body: str, node: ast.Symbol) -> str:
    """`S_t`, `S_{t-1}`: how a member is named in messages (fonts dropped).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> text = r"\\mathbf{M_{k+1}}"
    >>> member_label(text, parse_formula(text).items[0].subjects[0])
    'M_{k+1}'
    """
    assert node.sub is not None
    index = "".join(body[node.sub.start : node.sub.end].split())
    return f"{node.name}_{index}" if len(index) == 1 else f"{node.name}_{{{index}}}"


def lookup_member(scope: Any, letter: str) -> Member | None:
    """The family `letter_•` in force (a worked example's layer first); the translator's
    scope may be any symbol table, and one without layers has no families."""
    for layer in reversed(getattr(scope, "layers", ())):
        found = layer.members.get(letter)
        if found is not None:
            return found
    return None


def open_size(what: str, letter: str) -> sympy.Symbol:
    """`rows(Y_•)`: a size of the family Y_• that the text's definition leaves open.

    >>> open_size("rows", "Y")
    rows(Y_•)
    """
    return dim(f"{what}({letter}_•)")


def unfixed_sizes(e: Any) -> list[str]:
    """The open sizes of families (`rows(Y_•)`) an expression or shape mentions, by name.

    >>> unfixed_sizes((open_size("rows", "Y"), sympy.Symbol("d")))
    ['rows(Y_•)']
    """
    found: set[sympy.Basic] = set()
    for x in e if isinstance(e, tuple) else (e,):
        if isinstance(x, sympy.Basic):
            found |= x.free_symbols
            if isinstance(x, MatExpr):
                for y in walk(x):
                    if isinstance(y, MatExpr):
                        for size in y.shape:
                            found |= getattr(size, "free_symbols", set())
    return sorted(s.name for s in found if isinstance(s, sympy.Symbol) and s.name.endswith("_•)"))


def record_member(scope: Any, member: Member) -> None:
    scope.top().members[member.letter] = member
    getattr(scope, "stale", {}).pop(f"{member.letter}_•", None)  # defined anew


def member_of(scope: Any, family: Member, index: sympy.Expr) -> HeadSym:
    """The member at `index` (`S_{t-1}`): distinct index expressions, distinct matrices."""
    shape = family.shape
    if family.vector and getattr(scope, "reading", None) == "row":
        shape = (shape[1], shape[0])
    member: HeadSym = scope.bind(HeadSym(family.letter + "_", index, *shape))
    family.used_at.add(getattr(scope, "line", 0))
    consulted = getattr(scope, "consulted", None)
    if not family.settled and consulted is not None:
        # its shape came from reading vectors as columns, which the text does not settle: a
        # shape error it leads to rests on that reading (undecided, never an error)
        consulted.add(f"{family.letter}_•")
    return member


#: families whose closed form is being read (a closed form that reaches its own family through
#: another one is read as opaque members, never expanded without end)
_EXPANDING: set[str] = set()


def member_value(terms: Any, family: Member, index: sympy.Expr) -> sympy.Basic | None:
    """The member at `index` of a family defined by a closed form, as that form's value with its
    index letter replaced (`\\mathbf S_{t-1}` of `\\mathbf S_t = \\sum_{j=1}^t \\mathbf v_j
    \\mathbf k_j^\\top` is the sum up to t - 1); read in the current claim's reading of the
    vectors. None when the family has no closed form, or its form is being read already."""
    if family.closed is None or family.index is None or family.letter in _EXPANDING:
        return None
    _EXPANDING.add(family.letter)
    observer, terms.observer = terms.observer, None  # the form's parts are another formula's
    try:
        value: sympy.Basic = terms.term(family.closed)
    except (SymattnError, RecursionError):
        return None  # not a matrix in this reading: the member stays a matrix of its own
    finally:
        _EXPANDING.discard(family.letter)
        terms.observer = observer
    if not isinstance(value, MatExpr):
        return None
    shape = terms.scope.bind_shape(family.shape)
    if not (dims_equal(value.rows, shape[0]) and dims_equal(value.cols, shape[1])):
        return None
    if index != family.index:
        bound = _bound_letters(value)
        if bound & sympy.sympify(index, strict=True).free_symbols:
            return None  # `S_j` of a sum over j: the index would be captured by the sum
        value = value.xreplace({family.index: index})
    family.read_at.add(getattr(terms.scope, "line", 0))
    return value


def _bound_letters(value: sympy.Basic) -> set[sympy.Basic]:
    """The letters sums inside `value` run over (a matrix sum's, or a scalar sum's)."""
    out: set[sympy.Basic] = set()
    for x in walk(value):
        if isinstance(x, MatSum):
            out.add(x.var)
        elif isinstance(x, sympy.Sum):
            out.update(lim[0] for lim in x.limits)
    return out
