"""The translator's shared state and the typed base of its parts (the scope it reads names from).
Imports the kernel and the reader's AST; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.syntax import ast
from symattn.reader.terms.defined import Defined, Defs
from symattn.reader.terms.problems import UnknownName

Shape = tuple[sympy.Expr, sympy.Expr]


class NameEntry(Protocol):
    """What the translator needs of a name in scope: its shape."""

    shape: Shape


class Scope(Protocol):
    """The names and sizes in force (the resolver's symbol table implements it)."""

    dims: dict[str, sympy.Symbol]

    def lookup(self, name: str, family: bool = False) -> Any: ...

    def bind(self, e: sympy.Basic) -> sympy.Basic: ...

    def orientation(self, letter: str) -> str: ...

    def known_names(self) -> list[str]: ...


#: Called with each node translated, its value and where its text ends (a partial product of
#: `XW_QK` ends before the whole product does): how `symattn shapes` lists every step.
Observer = Callable[[ast.Node, sympy.Basic, int], None]


class TermsBase:
    """What every part of the translator shares: the scope, the observer and the claim's state."""

    def __init__(self, scope: Scope, observer: Observer | None = None) -> None:
        self.scope = scope
        self.observer = observer
        self.trial = False  # reading a part only to learn its sizes (`_indexed_range`)
        self.defs = Defs()
        #: the feature maps `\\phi(X)` the current claim read (arbitrary maps: see verdicts)
        self.maps: list[str] = []
        #: the indices of a sequence being defined (`\\omega_j = 1/10000^{2j/d}`): values there
        self.bound: frozenset[str] = frozenset()
        # names the text never declares, read as real numbers for one scalar claim (`3hk\,k/h`)
        self.scalars: dict[str, sympy.Expr] = {}
        #: names the text never declares, read as matrices of any shape for one claim (by how
        #: each is written: `W_q`, `\\mathbf W^q`, `R_{\\Theta,m}`; `claims.vector_reading`)
        self.placed: dict[ast.Node, sympy.Basic] = {}
        #: the identities the current claim read beside a matrix (`S(I - \\beta k k^T)`), as
        #: written (`terms.identity`)
        self.identities: set[str] = set()
        #: entries read by a guess in the current formula: letter -> (how, whether a false
        #: verdict rests on it too, not only a shape error) (`terms.components.guessed_entry`)
        self.entry_guesses: dict[str, tuple[str, bool]] = {}
        #: the families counted from 0 whose members the current formula read (`x_i` as row
        #: i + 1 of X: `terms.zero_based`)
        self.zero_rows: set[str] = set()

    if TYPE_CHECKING:
        # what the other parts define
        def _applications(self, node: ast.Product) -> ast.Node: ...

        def _apply(self, d: Defined, node: ast.Call) -> sympy.Basic: ...

        def _concat(self, node: ast.Call) -> sympy.Basic: ...

        def _concat_listed(self, node: ast.Call) -> sympy.Basic: ...

        def _confirm(self, *operands: sympy.Basic) -> None: ...

        def _euler(self, node: ast.Power) -> bool: ...

        def _feature_map(self, f: ast.Symbol, nxt: ast.Expr) -> ast.Expr | None: ...

        def _fold(self, node: ast.Product | ast.Mul, ops: list[str]) -> sympy.Basic: ...

        def _head_indexed(self, node: ast.HeadSup, op: ast.Symbol) -> sympy.Basic: ...

        def _head_sup(self, node: ast.HeadSup) -> sympy.Basic: ...

        def _indexed(self, node: ast.Symbol) -> sympy.Basic: ...

        def _indexed_length(self, body: ast.Node, letter: str) -> sympy.Expr | None: ...

        def _indexed_range(self, node: ast.Sum, var: sympy.Symbol) -> sympy.Expr: ...

        def _is_mask(self, node: ast.Node) -> bool: ...

        def _masked(self, node: ast.Add, masks: list[int]) -> sympy.Basic: ...

        def _member(self, node: ast.Symbol) -> sympy.Basic | None: ...

        def _note_shift(self, factors: tuple[ast.Expr, ...]) -> None: ...

        def _online(self, node: ast.Call) -> sympy.Basic: ...

        def _opaque(self, d: Defined, text: str, node: ast.Node) -> sympy.Basic: ...

        def _repeat(self, node: ast.Call) -> sympy.Basic: ...

        def _row_run(self, node: ast.Symbol, last: ast.Node) -> sympy.Basic: ...

        def _unknown(self, node: ast.Symbol) -> UnknownName: ...

        def applied_unknown(self, f: ast.Symbol) -> bool: ...

        def dim_term(self, node: ast.Node) -> sympy.Expr: ...

        def entry_indices(self, sub: ast.Node) -> list[sympy.Expr]: ...

        def index_term(self, node: ast.Node) -> sympy.Expr: ...

        def indices(self, sub: ast.Node) -> list[sympy.Expr]: ...

        def named(self, name: str, head: sympy.Basic | None, entry: NameEntry) -> MatExpr: ...

        def term(self, node: ast.Node) -> sympy.Basic: ...
