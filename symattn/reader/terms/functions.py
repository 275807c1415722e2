"""Softmax and functions: the kernel's operators, feature maps, the text's functions, concat.
Imports the kernel and the reader's AST; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dim, dims_equal, shape_str
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import (
    CausalMask,
    Concat,
    Entry,
    FromColumn,
    MatExpr,
    MatMul,
    MatSym,
    Row,
    Scale,
    Softmax,
    Transpose,
    index,
    summed,
    walk,
)
from symattn.kernel.modern import FeatureMap, OnlineSoftmax
from symattn.kernel.text import plain
from symattn.reader.syntax import ast
from symattn.reader.syntax.gradients import gradient_name
from symattn.reader.terms.arithmetic import _sqrt_of, as_comparable
from symattn.reader.terms.base import TermsBase
from symattn.reader.terms.defined import OWN_ATTENTION, Defined, head_of, shape_of
from symattn.reader.terms.defined_values import case_value
from symattn.reader.terms.entry_softmax import softmax_of_entry
from symattn.reader.terms.entrywise import shape_kept
from symattn.reader.terms.names import _label, _lower_case, plain_name
from symattn.reader.terms.problems import (
    Problem,
    UnknownName,
    UnknownOperator,
    not_understood,
    shape_problem,
)
from symattn.reader.terms.row_operators import ROW_OPERATORS, row_operator
from symattn.reader.terms.scalars import SCALAR_FUNCTIONS, apply_scalar

#: Letters read as a feature map when applied to a matrix they are not declared as (`\phi(Q)`).
FEATURE_MAPS = frozenset(("phi", "varphi"))


#: The width of such a map: a size of its own, so what is proved holds for every width.
FEATURE_WIDTH = dim("D_phi")


#: The operators the translator reads itself (a text's own function never takes their names).
OPERATORS = frozenset(("softmax", "mask", "attention", "concat", "exp", "sqrt", "frobenius"))
#: The names of the trace (`\\mathrm{tr}`, `\\operatorname{trace}`).
TRACES = frozenset(("tr", "trace"))


def feature_map(name: str, x: MatExpr) -> MatExpr:
    """`\\phi(X)` maps the rows of X; of a vector read as a column (`k_t` as row t of K
    transposed, a named d × 1 vector) it maps the vector itself: a column of D_phi features,
    the transpose of the map of the row, never one row of features per entry.

    >>> from symattn.kernel.expr import MatSym, Row
    >>> from symattn.kernel.dims import n, d_k
    >>> feature_map("phi", Row(MatSym("K", n, d_k), 1).T).shape
    (D_phi, 1)
    """
    if isinstance(x, Transpose) and dims_equal(x.args[0].rows, 1):
        row = x.args[0]
        if not dims_equal(row.cols, 1):
            return FeatureMap(name, row, FEATURE_WIDTH).T
    if isinstance(x, MatSym) and _lower_case(x.name) and dims_equal(x.cols, 1):
        if not dims_equal(x.rows, 1):
            return FeatureMap(name, x.T, FEATURE_WIDTH).T
    return FeatureMap(name, x, FEATURE_WIDTH)


def over_entries(x: MatExpr) -> bool:
    """Whether softmax of `x` is over its entries: `x` is a named column vector (`q`), or a
    column built from one or from a vector written as a column (`x + c\\mathbf 1_n`, `Kq`,
    `q_i` as row i of Q transposed). Both sides of `softmax(x + c1) = softmax(x)` are then read
    alike; a capital's n × 1 matrix keeps the row-wise softmax of matrices.

    >>> from symattn.kernel.expr import MatAdd, MatSym
    >>> from symattn.kernel.dims import n
    >>> x, y, s = MatSym("x", n, 1), MatSym("y", n, 1), MatSym("S", n, 1)
    >>> over_entries(x), over_entries(MatAdd(x, y)), over_entries(s)
    (True, True, False)
    """
    if not dims_equal(x.cols, 1) or dims_equal(x.rows, 1):
        return False
    if isinstance(x, MatSym | FromColumn):
        return _lower_case(x.name)
    for m in walk(x):
        if isinstance(m, MatSym | FromColumn) and _lower_case(m.name) and dims_equal(m.cols, 1):
            if not dims_equal(m.rows, 1):
                return True
        if isinstance(m, Transpose) and isinstance(m.args[0], Row):
            return True
    return False


def _same_value(a: object, b: object) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return bool(dims_equal(a[0], b[0]) and dims_equal(a[1], b[1]))
    return a == b


#: The index a trace sums over: a name no text writes, so it meets no index of the claim.
_TRACE_INDEX = index("k_{tr}")


def _trace(m: MatExpr, node: ast.Node) -> sympy.Expr:
    """`\\mathrm{tr}(M)`: the sum of the diagonal entries of a square M; a matrix that is not
    provably square is a shape error."""
    if not dims_equal(m.rows, m.cols):
        msg = f"the trace of {plain(m)} ({shape_str(m.shape)}): it is not a square matrix"
        raise Problem("shape_error", msg, node)
    k = _TRACE_INDEX
    return summed(Entry(m, k, k), (k, sympy.Integer(1), m.rows))


def _frobenius(a: sympy.Basic, b: sympy.Basic, node: ast.Node) -> sympy.Expr:
    """`\\langle A, B\\rangle_F = \\mathrm{tr}(A^\\top B)`, of two matrices of one shape."""
    if not (isinstance(a, MatExpr) and isinstance(b, MatExpr)):
        raise not_understood(
            "the Frobenius product \\langle A, B\\rangle_F is read of matrices", node
        )
    if not (dims_equal(a.rows, b.rows) and dims_equal(a.cols, b.cols)):
        msg = (
            f"the Frobenius product of {plain(a)} ({shape_str(a.shape)}) and {plain(b)} "
            f"({shape_str(b.shape)}): the shapes differ"
        )
        raise Problem("shape_error", msg, node)
    return _trace(MatMul(Transpose(a), b), node)


class FunctionsMixin(TermsBase):
    """Calls: softmax and the kernel's operators, feature maps, the text's functions."""

    def _applications(self, node: ast.Product) -> ast.Node:
        """`a(\\mathbf q, \\mathbf k_i)\\mathbf v_i`: a letter the document defined as a
        function, followed by parentheses, is that function applied (an `ast.Call`)."""
        out: list[ast.Expr] = []
        fs = node.factors
        k = 0
        while k < len(fs):
            f = fs[k]
            if k + 1 < len(fs) and isinstance(f, ast.Symbol):
                pair = ast.Product((f, fs[k + 1]), start=f.start, end=fs[k + 1].end)
                head = head_of(pair)
                mapped = self._feature_map(f, fs[k + 1])
                if mapped is not None:
                    out.append(mapped)
                    k += 2
                    continue
                if head is not None and self.applied_unknown(f):
                    label = f"{_label(f)}(·)"
                    msg = f"unknown function {label} (declare it)"
                    raise UnknownName(msg, pair, label, [], applied=True)
                defined = self.defs.table.get(_label(f)) if head is not None else None
                if head is not None and defined is not None and defined.params is not None:
                    out.append(
                        ast.Call(_label(f), head[1].items, parens=True, start=f.start, end=pair.end)
                    )
                    k += 2
                    continue
            out.append(f)
            k += 1
        if len(out) == len(fs):
            return node
        if len(out) == 1:
            return out[0]
        return ast.Product(tuple(out), start=node.start, end=node.end)

    def _feature_map(self, f: ast.Symbol, nxt: ast.Expr) -> ast.Expr | None:
        r"""`\phi(Q)`, `\phi(K)^{\mathsf T}`, `\varphi(k_j)` with the letter meaning nothing in
        scope and a matrix or a row inside: the feature map of linear attention, as the
        printer writes the kernel's `FeatureMap` (a `Call` for `_call`; the transpose kept).
        None for anything else (a scalar argument stays an unknown function)."""
        if f.name not in FEATURE_MAPS or f.sub is not None or f.font is not None:
            return None
        group, mark = (nxt.operand, nxt.mark) if isinstance(nxt, ast.Transpose) else (nxt, "")
        if not (isinstance(group, ast.Group) and group.delim == "(" and len(group.items) == 1):
            return None
        if not self.applied_unknown(f):
            return None
        try:
            arg = self.term(group.items[0])
        except (SymattnError, RecursionError):
            return None
        if not isinstance(arg, MatExpr):
            return None
        call = ast.Call(f.name, group.items, parens=True, start=f.start, end=group.end)
        if mark:
            return ast.Transpose(call, mark, start=f.start, end=nxt.end)
        return call

    def applied_unknown(self, f: ast.Symbol) -> bool:
        """`F(x)`, `G(y_1)`: a letter nothing in scope means, written before parentheses."""
        if _label(f) in self.defs.table:
            return False
        try:
            self.term(f)
        except UnknownName as u:
            return u.node is f and "^{(h)}" not in u.label
        except SymattnError:
            return False
        return False

    def _opaque(self, d: Defined, text: str, node: ast.Node) -> sympy.Basic:
        if d.value is None:
            msg = f"{text}: its definition (line {d.line}) was not read{d.why}"
            raise UnknownName(msg, node, text, [], defined=True)
        return self.defs.opaque(d, text)

    def _apply(self, d: Defined, node: ast.Call) -> sympy.Basic:
        """`f(x)` of a function the document defined: an opaque value of the shape its
        definition gave, when the arguments have the shapes its parameters had there."""
        assert d.params is not None
        if len(node.args) != len(d.params):
            msg = f"{d.name} was defined with {len(d.params)} argument(s), not {len(node.args)}"
            raise not_understood(msg, node)
        text = f"{d.name}({', '.join(ast.dump(a) for a in node.args)})"
        if d.value is None:
            return self._opaque(d, text, node)
        if d.any_args:
            args: list[sympy.Basic] = []
            valued = bool(self.defs.rules.get(d.name))
            for arg in node.args:
                try:
                    args.append(self.term(arg))  # one that does not typecheck is an error
                except Problem as p:
                    # with its cases' values read, an unknown argument (`u(2k)`) is read
                    # around like any name the text never declares
                    if p.status == "shape_error" or (valued and isinstance(p, UnknownName)):
                        raise
            found = case_value(self, d.name, args) if len(args) == len(node.args) else None
            return found if found is not None else self.defs.opaque(d, text)
        for arg, want in zip(node.args, d.params, strict=True):
            got = shape_of(self.term(arg))
            if want is None or not _same_value(got, want):
                msg = (
                    f"{d.name} is applied to arguments of other shapes than in its definition "
                    f"(line {d.line}): its value there is not known"
                )
                raise not_understood(msg, node)
        return self.defs.opaque(d, text)

    def _gradient(self, node: ast.Gradient) -> sympy.Basic:
        """The gradient of the loss with respect to a matrix, a vector or an entry of one: a
        matrix of its shape (its entry, its row), standing for the unknown gradient."""
        wrt = self.term(node.wrt)
        base = wrt.args[0] if isinstance(wrt, (Entry, Row)) else wrt
        if not isinstance(base, MatSym):
            what = "a size or a number" if not isinstance(base, MatExpr) else plain(base)
            msg = f"a gradient with respect to {what}: only gradients of the loss with respect "
            raise not_understood(msg + "to a named matrix or vector are read", node)
        loss = self.scope.lookup(node.loss) if node.loss != "∇" else None
        if loss is not None and tuple(loss.shape) != (1, 1):
            msg = f"{node.loss} is a matrix of the text here, not the loss: its derivative "
            raise not_understood(msg + "is a Jacobian, which is not read", node)
        grad = MatSym(gradient_name(node.loss, base.name), *base.shape)
        return wrt.xreplace({base: grad})

    def _call(self, node: ast.Call) -> sympy.Basic:
        name = node.name.lower()
        if not node.parens:
            raise not_understood(f"{node.name} needs its argument in parentheses", node)
        if name == "concat":
            return self._concat(node)
        defined = self.defs.table.get(node.name)
        if defined is not None and defined.params is not None and name not in OPERATORS:
            return self._apply(defined, node)
        own = self.defs.table.get(OWN_ATTENTION) if name == "attention" else None
        if own is not None:
            return self._apply(own, node)  # the text's own attention, defined without the scale
        if node.name in ("repeat", "tile") and node.sub is not None and len(node.args) == 1:
            return self._repeat(node)
        if node.name == "online" and node.sub is not None and len(node.args) == 2:
            return self._online(node)
        if node.name in FEATURE_MAPS and node.sub is None and len(node.args) == 1:
            x = self.term(node.args[0])
            if isinstance(x, MatExpr):
                self.maps.append(node.name)
                return feature_map(node.name, x)
        args = [self.term(a) for a in node.args]
        if name in ("softmax", "mask") and len(args) == 1:
            x = args[0]
            of_entry = softmax_of_entry(x) if name == "softmax" else None
            if of_entry is not None:
                self._note_entry_softmax(of_entry[1], node)
                return of_entry[0]
            if not isinstance(x, MatExpr):
                msg = f"{name} needs a matrix, got the scalar {plain(x)}"
                raise Problem("shape_error", msg, node)
            try:
                if name == "softmax" and over_entries(x):
                    # of a column vector: over its entries (a capital's n × 1 matrix, a column
                    # cut from a matrix, keeps the row-wise softmax of matrices)
                    return Softmax(x.T).T
                return Softmax(x) if name == "softmax" else CausalMask(x)
            except ShapeError as e:
                raise shape_problem(e, node) from None
        if name == "attention" and len(args) == 3 and all(isinstance(a, MatExpr) for a in args):
            q, k, v = args
            assert isinstance(q, MatExpr) and isinstance(k, MatExpr) and isinstance(v, MatExpr)
            try:
                scores = Scale(1 / sympy.sqrt(k.cols), MatMul(q, k.T))
                product = MatMul(Softmax(scores), v)
            except ShapeError as e:
                raise shape_problem(e, node) from None
            self._confirm(q, k, v)
            return product
        if name == "sqrt" and len(args) == 1:
            return _sqrt_of(args[0], node)
        if name in TRACES and len(args) == 1 and isinstance(args[0], MatExpr):
            return _trace(args[0], node)
        if node.name == "frobenius" and len(args) == 2:
            return _frobenius(args[0], args[1], node)
        if name in ROW_OPERATORS and node.name not in self.defs.table:
            return row_operator(name, args, node)
        if name == "exp" and len(args) == 1:
            x = as_comparable(args[0], sympy.Integer(0))[0]  # a 1 × 1 matrix is its entry
            if not isinstance(x, MatExpr):
                return sympy.exp(x)
            msg = (
                f"an entrywise exponential of a matrix ({node.name} of {plain(x)}, "
                f"{x.rows} × {x.cols}) is not read: write its entries, \\exp(S_{{ij}})"
            )
            raise not_understood(msg, node)
        if name in SCALAR_FUNCTIONS:
            value = apply_scalar(name, [as_comparable(a, sympy.Integer(0))[0] for a in args])
            if value is not None:
                return value  # `\sin(\omega p)` of real numbers
        kept = shape_kept(node.name, node, args) if node.sub is None else None
        if kept is not None:
            self.defs.used.append(kept.name)  # its value is not read, only its shape
            self.defs.notations.add(kept.name)
            return kept
        known = (
            "softmax(M), mask(S), Attention(Q,K,V), Concat(Z^{(1)},...,Z^{(H)}), exp(x), sqrt(x)"
        )
        if name in ("softmax", "mask", "attention", "exp", "sqrt"):
            msg = f"{node.name} with these {len(args)} argument(s) is not known (known: {known})"
        else:
            msg = f"unknown operator {node.name!r} (known: {known})"
            raise UnknownOperator(msg, node, f"\\operatorname{{{node.name}}}")
        raise not_understood(msg, node)

    def _note_entry_softmax(self, name: str, node: ast.Call) -> None:
        """The claim names the reading; a false verdict or shape error resting on it is
        undecided, since taken literally the softmax of one number is 1."""
        arg = ast.dump(node.args[0])
        how = f"{node.name}({arg}) as {node.name}({name})_i, an entry of the softmax of {name}"
        pair = _two_indices(node.args[0])
        if pair:
            how = f"{node.name}({name}_{{{pair}}}) as {node.name}({name})_{{{pair}}}, an entry of "
            how += f"the softmax of the rows of {name}"
        old = self.entry_guesses.get(name, ("", True))[0]
        if how not in old:
            self.entry_guesses[name] = (f"{old}; {how}" if old else how, True)

    def _repeat(self, node: ast.Call) -> sympy.Basic:
        r"""`\operatorname{repeat}_R(K)` (and `tile`), the printer's grouped-query K/V: its
        heads each repeated R times. Its shape is K's rows by R times K's columns however the
        columns split into heads; that split is not written, so the value is opaque (a claim
        about it is at most undecided, `Defs.used`), only the shape is read."""
        assert node.sub is not None
        x = self.term(node.args[0])
        if not isinstance(x, MatExpr):
            raise not_understood(f"{node.name} needs a matrix, got the scalar {plain(x)}", node)
        r = self.dim_term(node.sub)
        text = f"\\operatorname{{{node.name}}}_{{{ast.dump(node.sub)}}}({ast.dump(node.args[0])})"
        self.defs.used.append(text)
        self.defs.notations.add(text)
        return MatSym(text, x.rows, x.cols * r)

    def _online(self, node: ast.Call) -> sympy.Basic:
        r"""`\operatorname{online}_{b_1,\ldots,b_B}(S, V)`: softmax(S)V computed over key
        blocks of the sizes written, as the printer writes the kernel's `OnlineSoftmax` (a
        running maximum, normaliser and rescaled output); the kernel decides claims about it."""
        assert node.sub is not None
        items = node.sub.items if isinstance(node.sub, ast.Seq) else (node.sub,)
        blocks = [self.dim_term(b) for b in items]
        s, v = (self.term(a) for a in node.args)
        if not (isinstance(s, MatExpr) and isinstance(v, MatExpr)):
            raise not_understood("online needs two matrices, the scores and the values", node)
        try:
            return OnlineSoftmax(s, v, blocks)
        except ShapeError as e:
            raise shape_problem(e, node) from None

    def _concat(self, node: ast.Call) -> sympy.Basic:
        a = node.args
        if len(a) >= 1 and not any(isinstance(x, ast.Dots) for x in a):
            return self._concat_listed(node)
        if len(a) != 3 or not isinstance(a[1], ast.Dots):
            raise not_understood("write Concat(Z^{(1)},\\ldots,Z^{(H)})", node)
        first, last = a[0], a[2]
        if not (isinstance(first, ast.HeadSup) and isinstance(last, ast.HeadSup)):
            raise not_understood("Concat takes the members of a head family Z^{(h)}", node)
        if plain_name(first.operand) != plain_name(last.operand):
            raise not_understood("Concat's first and last members are of different families", node)
        if self.index_term(first.head) != 1:
            raise not_understood("Concat must start at head 1", first)
        self.term(first)  # each member is a step of its own, and must be known
        self.term(last)
        count = self.index_term(last.head)
        h = index("h")
        member = ast.HeadSup(
            first.operand, ast.Symbol("h", start=0, end=0), start=first.start, end=first.end
        )
        body = self._head_sup(member)
        assert isinstance(body, MatExpr)
        return Concat(body, h, count)

    def _concat_listed(self, node: ast.Call) -> sympy.Basic:
        """`Concat(Z^{(1)},Z^{(2)},Z^{(3)})`: every member of one family from head 1 to head
        k, in order, is the family's Concat up to k (and nothing else is)."""
        fams = set()
        for k, x in enumerate(node.args, start=1):
            ok = isinstance(x, ast.HeadSup) and isinstance(x.head, ast.Number)
            if not ok or self.index_term(x.head) != k:  # type: ignore[union-attr]
                raise not_understood("Concat lists the heads of one family, 1, 2, ... in order", x)
            fams.add(plain_name(x.operand))  # type: ignore[union-attr]
            self.term(x)
        if len(fams) != 1 or None in fams:
            raise not_understood("Concat's members are of different families", node)
        first = node.args[0]
        assert isinstance(first, ast.HeadSup)
        member = ast.HeadSup(
            first.operand, ast.Symbol("h", start=0, end=0), start=first.start, end=first.end
        )
        body = self._head_sup(member)
        assert isinstance(body, MatExpr)
        return Concat(body, index("h"), sympy.Integer(len(node.args)))


def _two_indices(node: ast.Node) -> str:
    """`ij` of `S_{ij}`: the two index letters of one entry of a matrix; '' for anything else."""
    sub = getattr(node, "sub", None)
    if not isinstance(sub, ast.Product) or len(sub.factors) != 2:
        return ""
    names = [getattr(f, "name", None) for f in sub.factors]
    return "".join(x for x in names if isinstance(x, str)) if all(names) else ""
