"""Sums and indices: sizes in shapes, index values, subscripts, the range a summation runs over.
Imports the kernel and the reader's AST; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dim, dims_equal
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import Entry, MatExpr, MatSum, Row, index
from symattn.reader.syntax import ast
from symattn.reader.terms.arithmetic import add_scalars, chain_scalar
from symattn.reader.terms.base import TermsBase
from symattn.reader.terms.components import component_length
from symattn.reader.terms.conventions import SUM_LETTERS
from symattn.reader.terms.names import _index_letter, label_of, plain_name, word_name
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.size_names import lettered_size


def _vector_shaped(m: MatExpr) -> bool:
    """One row or one column, and not 1 × 1."""
    return dims_equal(m.rows, 1) != dims_equal(m.cols, 1)


def _is_colon(node: ast.Node) -> bool:
    return isinstance(node, ast.Symbol) and node.name == "colon" and node.sub is None


def _sizes_indexed(term: sympy.Basic, var: sympy.Symbol) -> list[sympy.Expr]:
    """The sizes `var` runs over where it is a bare index of an entry or a row in `term`."""
    out: list[sympy.Expr] = []
    stack = [term]
    while stack:
        x = stack.pop()
        if isinstance(x, Entry):
            for ix, size in ((x.args[1], x.matrix.rows), (x.args[2], x.matrix.cols)):
                if ix == var:
                    out.append(size)
        elif isinstance(x, Row) and x.index == var:
            out.append(x.args[0].rows)
        stack.extend(getattr(x, "args", ()))
    return out


def _letters(node: ast.Node) -> set[str]:
    """The plain letters written in a subscript (`ti` -> t, i)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol) and x.sub is None and x.font is None:
            out.add(x.name)
        stack.extend(ast.children(x))
    return out


class IndicesMixin(TermsBase):
    """Sizes, indices, subscripts and sums over an index."""

    def dim_term(self, node: ast.Node) -> sympy.Expr:
        """A size as written in a shape: numbers, dims (new names become dims), `Hd_v`, `+-/`."""
        if isinstance(node, ast.Number):
            if not node.text.isdigit() or int(node.text) < 1:
                raise not_understood(f"a size must be a positive integer, not {node.text}", node)
            return sympy.Integer(int(node.text))
        dims = self.scope.dims
        name = plain_name(node)
        if name is not None:
            if name not in dims:
                dims[name] = dim(name)
            return dims[name]
        name = word_name(node) or lettered_size(node)  # `d_{ff}`, `B_r`
        if name is not None:
            if name not in dims:
                dims[name] = dim(name)
            return dims[name]
        if isinstance(node, ast.Product):
            return sympy.Mul(*(self.dim_term(f) for f in node.factors))
        if isinstance(node, ast.Mul):
            return chain_scalar(node, [self.dim_term(f) for f in node.factors])
        if isinstance(node, ast.Add):
            return add_scalars(node, [self.dim_term(t) for t in node.terms])
        if isinstance(node, ast.Group) and len(node.items) == 1:
            return self.dim_term(node.items[0])
        if isinstance(node, ast.Frac):
            return self.dim_term(node.num) / self.dim_term(node.den)
        raise not_understood("this size is not a product of dims and numbers", node)

    def index_term(self, node: ast.Node) -> sympy.Expr:
        """An index value: a letter (`i`), a number, a dim (`n`), or `+ -` of those."""
        dims = self.scope.dims
        if isinstance(node, ast.Number):
            if not node.text.isdigit():
                raise not_understood(f"an index must be an integer, not {node.text}", node)
            return sympy.Integer(int(node.text))
        if isinstance(node, ast.Symbol) and node.sub is None and node.font is None:
            if node.name in dims:
                return self.scope.bind(dims[node.name])
            if _index_letter(node.name):
                return index(node.name)
        if isinstance(node, ast.Symbol) and plain_name(node) in dims:
            return self.scope.bind(dims[plain_name(node) or ""])
        sized = word_name(node) or lettered_size(node)  # `d_{ff}`, `B_r`
        if isinstance(node, ast.Symbol) and sized in dims:
            return self.scope.bind(dims[sized or ""])
        if isinstance(node, ast.Add):
            return add_scalars(node, [self.index_term(t) for t in node.terms])
        if isinstance(node, ast.Product):
            return sympy.Mul(*(self.index_term(f) for f in node.factors))
        if isinstance(node, ast.Group) and node.delim == "(" and len(node.items) == 1:
            return self.index_term(node.items[0])  # `(h-1)d_v+u`
        if isinstance(node, ast.Mul) and set(node.ops) <= {"mod", "cdot", "times"}:
            return chain_scalar(node, [self.index_term(f) for f in node.factors])
        if isinstance(node, ast.Neg):
            return -self.index_term(node.operand)
        if self.scalars and isinstance(node, ast.Symbol) and label_of(node) in self.scalars:
            return self.scalars[label_of(node)]  # `p_{i+\delta,2j}`: an offset read as a number
        if isinstance(node, ast.Symbol) and node.sub is None and node.font is None:
            if node.name.isalpha() and node.name.islower() and len(node.name) > 1:
                raise self._unknown(node)  # `p_{i+\\delta, 2j}`: an offset the text names
        raise not_understood("an index must be a letter, a number or a size", node)

    def entry_indices(self, sub: ast.Node) -> list[sympy.Expr]:
        """The two indices of an entry; `_{11}`, `_{23}` (two digits, as the printer writes
        explicit entries) are two one-digit indices, since an entry needs two."""
        if isinstance(sub, ast.Number) and len(sub.text) == 2 and "0" not in sub.text:
            return [sympy.Integer(int(c)) for c in sub.text]
        return self.indices(sub)

    def indices(self, sub: ast.Node) -> list[sympy.Expr]:
        """The indices of a subscript: `ij`, `i,j`, `i+1`."""
        if isinstance(sub, ast.Product) and all(
            isinstance(f, ast.Symbol | ast.Number) for f in sub.factors
        ):
            return [self.index_term(f) for f in sub.factors]
        if isinstance(sub, ast.Seq):
            return [self.index_term(f) for f in sub.items]
        return [self.index_term(sub)]

    def _indexed_group(self, node: ast.IndexedGroup) -> sympy.Basic:
        m = self.term(node.group)
        if not isinstance(m, MatExpr):
            raise not_understood("only a matrix can be indexed", node)
        sub = node.index
        if isinstance(sub, ast.Seq) and len(sub.items) == 2 and _is_colon(sub.items[1]):
            return Row(m, self.index_term(sub.items[0]))  # `(AV)_{i,:}`: row i, every column
        if isinstance(sub, ast.Seq) and len(sub.items) == 2 and _is_colon(sub.items[0]):
            if not _is_colon(sub.items[1]):
                return Row(m.T, self.index_term(sub.items[1])).T  # `(AV)_{:,j}`: column j
        idx = self.entry_indices(sub)
        if len(idx) == 1 and _vector_shaped(m):
            # `\mathrm{softmax}(x)_i`: entry i of a vector
            return Entry(m, 1, idx[0]) if dims_equal(m.rows, 1) else Entry(m, idx[0], 1)
        if len(idx) != 2:
            raise not_understood("an entry needs two indices, as in (QK^T)_{ij}", node.index)
        return Entry(m, *idx)

    def _sum(self, node: ast.Sum) -> sympy.Basic:
        if node.var is None or node.var.sub is not None or not _index_letter(node.var.name):
            raise not_understood("a sum needs one index letter, as in \\sum_{j=1}^{n}", node)
        var = index(node.var.name)
        length = component_length(self.scope, node.body, node.var.name)
        if length is None and node.lower is None:
            length = self._indexed_length(node.body, node.var.name)
        if node.lower is None and node.upper is not None:
            lo, hi = sympy.Integer(1), self.index_term(node.upper)  # `\\sum_j^{m}`: 1 to m
        elif node.lower is None and length is not None:
            lo, hi = sympy.Integer(1), length  # `\\sum_i v_i w_i`: over the vectors' length
            self._range_read(node.var.name, hi, "the length of the vectors it indexes")
        elif node.lower is None:
            lo, hi = sympy.Integer(1), self._indexed_range(node, var)
        else:
            lo = self.index_term(node.lower)
            if node.upper is not None:
                hi = self.index_term(node.upper)
            elif length is not None:  # `\\sum_{j \\ge i} v_j`: up to the vectors' length
                hi = length
                why = "the length of the vectors it indexes"
                self._range_read(node.var.name, hi, why, end=True)
            else:  # `\\sum_{j > i} A_{ij}`: up to the axis it indexes, when they all agree
                hi = self._indexed_range(node, var, guess=False)
        outer: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        self.sum_ranges = {**outer, node.var.name: hi}  # `q_i` inside: its range is known
        around: dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]] = getattr(self, "sum_limits", {})
        self.sum_limits = {**around, var: (lo, hi)}
        try:
            body = self.term(node.body)
        finally:
            self.sum_ranges = outer
            self.sum_limits = around
        if isinstance(body, MatExpr):
            return MatSum(body, var, lo, hi)
        return sympy.Sum(body, (var, lo, hi))

    def _indexed_length(self, body: ast.Node, letter: str) -> sympy.Expr | None:
        """The length of the vectors taken at `letter` in `body` (`\\sum_i softmax(x)_i`):
        None when there are none, one is not read, or their lengths differ."""
        lengths: set[sympy.Expr] = set()
        stack = [body]
        while stack:
            x = stack.pop()
            stack.extend(ast.children(x))
            if not isinstance(x, ast.IndexedGroup):
                continue
            sub = x.index
            if not isinstance(sub, ast.Symbol) or sub.name != letter or sub.sub is not None:
                continue
            observer, self.observer = self.observer, None
            try:
                m = self.term(x.group)
            except (SymattnError, RecursionError):
                return None
            finally:
                self.observer = observer
            if not isinstance(m, MatExpr) or not _vector_shaped(m):
                return None
            lengths.add(m.cols if dims_equal(m.rows, 1) else m.rows)
        return lengths.pop() if len(lengths) == 1 else None

    def _indexed_range(self, node: ast.Sum, var: sympy.Symbol, guess: bool = True) -> sympy.Expr:
        """`\\sum_t a_{st}`: t runs over what it indexes (A's columns), when every entry and
        row it indexes in the body agree on that size; else over its letter's conventional
        size (`\\sum_j`: the n positions)."""
        letter = str(var)
        over = SUM_LETTERS.get(letter.rstrip("'")) if guess else None
        conventional = self.scope.bind(over) if over is not None else None
        outer: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        if conventional is not None:
            self.sum_ranges = {**outer, letter: conventional}
        used, trial = list(self.defs.used), self.trial
        self.trial = True  # a trial reading: it confirms nothing and uses no definition
        try:
            body = self.term(node.body)
            sizes = _sizes_indexed(body, var)
        except (SymattnError, RecursionError):
            sizes = self._part_sizes(node.body, letter, var)
        finally:
            self.sum_ranges = outer
            self.defs.used[:] = used
            self.trial = trial
        if sizes and all(dims_equal(x, sizes[0]) for x in sizes[1:]):
            why = "the size of every axis it indexes"
            self._range_read(letter, sizes[0], why, end=node.lower is not None)
            return sizes[0]
        if conventional is None and node.lower is not None:
            raise not_understood("a sum with a lower bound needs an upper bound", node)
        if conventional is None:
            raise not_understood(
                f"cannot tell what \\sum_{letter} ranges over: write its bounds", node
            )
        if sizes:  # axes of different sizes: out of some of them whatever the range
            why = f"the chapter's convention for {letter}, though the axes it indexes differ"
            self._range_read(letter, conventional, why)
        else:
            why = f"the chapter's convention for {letter}"
            self._range_read(letter, conventional, why, forced=False)
        return conventional

    def _part_sizes(self, body: ast.Node, letter: str, var: sympy.Symbol) -> list[sympy.Expr]:
        """`\\sum_i \\alpha_{ti} v_i` whose body does not read whole (an undeclared weight):
        the sizes i runs over in the parts written with it that do read (`v_i`, row i of V)."""
        out: list[sympy.Expr] = []
        stack = [body]
        while stack:
            x = stack.pop()
            sub = getattr(x.operand if isinstance(x, ast.HeadSup) else x, "sub", None)
            if isinstance(x, ast.Symbol | ast.HeadSup) and sub is not None:
                if letter in _letters(sub):
                    try:
                        out.extend(_sizes_indexed(self.term(x), var))
                    except (SymattnError, RecursionError):
                        pass
                continue
            stack.extend(ast.children(x))
        return out

    def _range_read(
        self, letter: str, size: sympy.Expr, why: str, end: bool = False, forced: bool = True
    ) -> None:
        """Note what a sum without bounds (or only a lower one: `end`) was read to range over,
        for the verdict to name (`check.sum_ranges`); `forced` when the summand's axes fix
        it, not a convention."""
        readings = getattr(self.scope, "sum_readings", None)
        if readings is not None and not self.trial:
            read = f"{letter} up to {size}" if end else f"{letter} = 1..{size}"
            readings[letter] = (f"\\sum_{letter} read as {read}, {why}", forced)
