"""A vector's components and a run of rows: with `q, k \\in \\mathbb R^{d_k}` declared, `q_i` is
component i of q (not row i of Q), a sum over i runs over q's length; `x_{1:t}` is rows 1..t of X.

Imports sympy, the kernel's expressions and errors and the reader's AST; never the translator
(which calls this), the claim readers, the checker or the CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.expr import MatExpr
from symattn.kernel.modern import FirstRows
from symattn.reader.syntax import ast

__all__ = [
    "ambiguous",
    "bold_vector",
    "component_length",
    "component_of",
    "defined_component",
    "guessed_entry",
    "row_run",
    "run_bound",
    "vector_key",
]


def vector_key(node: ast.Symbol) -> str:
    """The name a declared vector has in scope: `q`, `\\mathbf{q}`."""
    bold = node.font in ("mathbf", "boldsymbol", "bm")
    return f"\\{node.font}{{{node.name}}}" if bold else node.name


def component_of(
    scope: Any, node: ast.Node, ranges: dict[str, sympy.Expr] | None = None
) -> tuple[str, Any] | None:
    """`q_i` (one index below a lower-case letter) when the text declares `q` itself as a vector
    (`q \\in \\mathbb R^{d_k}`, a length × 1 or 1 × length entry of its own) and no matrix `Q`
    of its own: the vector's name and its entry. With a matrix Q of the text's too, only inside
    a sum over i up to the vector's length (`ranges`: the sums around, letter -> upper bound).
    None otherwise (then `q_i` is row i of Q; see `ambiguous`)."""
    if not isinstance(node, ast.Symbol) or node.sub is None:
        return None
    if len(node.name) != 1 or not node.name.islower():
        return None
    if not (isinstance(node.sub, ast.Symbol | ast.Number | ast.Add)):
        return None
    if node.font is not None:
        return None  # `\mathbf k_i`: the i-th vector of a family, never a number
    key = vector_key(node)
    entry = scope.lookup(key)
    if entry is None and node.font is None:
        found = bold_vector(scope, node.name)
        if found is not None:
            key, entry = found
    if entry is None or getattr(entry, "origin", "convention") == "convention":
        return None
    rows, cols = entry.shape
    if not (rows == 1) ^ (cols == 1):
        return None
    document_matrix = getattr(scope, "document_matrix", None)
    if guessed_entry(key, entry, node) and isinstance(node.sub, ast.Symbol):
        # `x_t` in a sum up to n where only the bold `\mathbf x \in \mathbb R^d` is the
        # text's: the t-th token, not an entry of x
        upper = (ranges or {}).get(node.sub.name)
        length = rows if cols == 1 else cols
        if upper is not None and sympy.expand(scope.bind(upper) - scope.bind(length)) != 0:
            return None
    if document_matrix is not None and document_matrix(node.name.upper()):
        # `s_i` of a declared S stays its row, unless a sum runs i over the vector's length
        letter = node.sub.name if isinstance(node.sub, ast.Symbol) else None
        length = rows if cols == 1 else cols
        upper = (ranges or {}).get(letter or "")
        if upper is None or sympy.expand(scope.bind(upper) - scope.bind(length)) != 0:
            return None
    return key, entry


#: marks of a letter that a vector's name keeps on its entries (`\\hat y_i` of `\\hat y`); a
#: bold `\\mathbf k_i` is the i-th vector of a family, never a number
_ACCENTS = (None, "hat", "tilde", "bar")


def defined_component(scope: Any, table: dict[str, Any], node: ast.Node) -> ast.Node | None:
    """`s_i` after `s = \\mathrm{softmax}(z)`: the text made s a vector by its definition, so
    `s_i` is component i of that vector (the right side it was defined by, `Defined.vector`),
    not row i of a conventional S. None when the text has a matrix S or a name s of its own,
    or the definition's right side is not read without opaque terms.

    >>> from symattn.kernel.dims import n
    >>> from symattn.reader.terms.defined import Defined
    >>> from symattn.reader.terms.scope import Scope
    >>> d = Defined("s", 0, None, (n, 1), 1, vector=ast.Symbol("z", start=0, end=1))
    >>> i = ast.Symbol("i", start=2, end=3)
    >>> defined_component(Scope(), {"s": d}, ast.Symbol("s", sub=i, start=0, end=3)).name
    'z'
    """
    if not isinstance(node, ast.Symbol) or node.sub is None:
        return None
    if len(node.name) != 1 or not node.name.islower() or node.font not in _ACCENTS:
        return None
    key = f"\\{node.font}{{{node.name}}}" if node.font else node.name  # `\hat y` of `\hat y_i`
    got = table.get(key)
    if got is None or got.indices or got.params is not None or got.vector is None:
        return None
    if not isinstance(got.value, tuple) or not (got.value[0] == 1) ^ (got.value[1] == 1):
        return None
    if scope.lookup(key) is not None:
        return None
    document_matrix = getattr(scope, "document_matrix", None)
    if document_matrix is not None and document_matrix(node.name.upper()):
        return None  # `s_i` of a declared S stays its row
    right: ast.Node = got.vector
    return right


def bold_vector(scope: Any, letter: str) -> tuple[str, Any] | None:
    """The bold vector `\\mathbf u` whose entries a plain `u_i` names, when the text has no
    plain u: one a formula knows by its components (`terms.inference`), else the one vector the
    text declares or defines in bold (`\\mathbf u \\in \\mathbb R^d`; a reading the verdict
    names, `guessed_entry`). None when there is none, or several fonts of it."""
    bold = [f"\\{f}{{{letter}}}" for f in ("mathbf", "boldsymbol", "bm")]
    found = [(k, e) for k in bold if (e := scope.lookup(k)) is not None]
    known = [(k, e) for k, e in found if getattr(e, "components", False)]
    if len(known) == 1:
        return known[0]
    own = [(k, e) for k, e in found if getattr(e, "origin", "convention") != "convention"]
    if len(own) != 1 or known:
        return None
    rows, cols = own[0][1].shape
    document_matrix = getattr(scope, "document_matrix", None)
    if not (rows == 1) ^ (cols == 1) or (document_matrix and document_matrix(letter.upper())):
        return None  # `u_i` beside a U of the text's own: row i of U, or ambiguous
    return own[0]


def guessed_entry(key: str, entry: Any, node: ast.Symbol) -> str:
    """How `u_i` was read when only the bold `\\mathbf u` is the text's ("" when it is no
    guess: the plain u is declared, or a formula knows \\mathbf u by its components)."""
    if key == vector_key(node) or getattr(entry, "components", False):
        return ""
    where = f" on line {entry.line}" if getattr(entry, "line", 0) else ""
    plain = node.name
    shown = f"{plain}_{node.sub.name}" if isinstance(node.sub, ast.Symbol) else f"{plain}_{{...}}"
    return f"{shown} as an entry of the vector {key}{where} (the text has no plain {plain})"


def ambiguous(scope: Any, node: ast.Node, ranges: dict[str, sympy.Expr] | None = None) -> str:
    """Why `q_i` has two readings: the text declares both the vector q and a matrix Q, and no
    sum around fixes i's range ("" when it has one reading: a sum over i up to another bound
    than the vector's length makes `q_i` row i of Q)."""
    if not isinstance(node, ast.Symbol) or node.sub is None or len(node.name) != 1:
        return ""
    if not node.name.islower() or not isinstance(node.sub, ast.Symbol) or node.font is not None:
        return ""
    if node.sub.name in (ranges or {}):
        return ""
    entry = scope.lookup(vector_key(node))
    if entry is None or getattr(entry, "origin", "convention") == "convention":
        return ""
    rows, cols = entry.shape
    document_matrix = getattr(scope, "document_matrix", None)
    if not ((rows == 1) ^ (cols == 1)) or document_matrix is None:
        return ""
    if not document_matrix(node.name.upper()):
        return ""
    return (
        f"{node.name}_{node.sub.name}: component {node.sub.name} of the vector {node.name} or row "
        f"{node.sub.name} of {node.name.upper()}? The text declares both; write the sum's bounds"
    )


def component_length(scope: Any, body: ast.Node, letter: str) -> sympy.Expr | None:
    """The length of the declared vectors whose components `body` takes at the index `letter`
    (`\\sum_i v_i w_i`): None when there are none, or their lengths differ."""
    lengths: set[sympy.Expr] = set()
    stack = [body]
    while stack:
        x = stack.pop()
        stack.extend(ast.children(x))
        if not isinstance(x, ast.Symbol) or not isinstance(x.sub, ast.Symbol):
            continue
        if x.sub.name != letter or x.sub.sub is not None:
            continue
        found = component_of(scope, x)
        if found is None:
            continue
        rows, cols = found[1].shape
        lengths.add(scope.bind(rows if cols == 1 else cols))
    return lengths.pop() if len(lengths) == 1 else None


def run_bound(sub: ast.Node) -> ast.Node | None:
    """`1:t` below a letter (`x_{1:t}`): the node of the last row t; None for anything else."""
    if not isinstance(sub, ast.Product) or len(sub.factors) != 3:
        return None
    first, colon, last = sub.factors
    if not (isinstance(first, ast.Number) and first.text == "1"):
        return None
    if not (isinstance(colon, ast.Symbol) and colon.name == "colon" and colon.sub is None):
        return None
    return last


def row_run(matrix: MatExpr, last: sympy.Expr, column: bool) -> MatExpr:
    """Rows 1..last of `matrix` (the vectors x_1, ..., x_t stacked as rows; side by side as
    columns when the text's vectors are columns). Raises `ShapeError` when `last` is not
    provably at most the rows (a run beyond the matrix is not read)."""
    run: MatExpr = FirstRows(matrix, last)
    return run.T if column else run
