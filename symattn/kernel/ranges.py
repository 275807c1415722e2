"""Index ranges: inferred from the entries that mention an index, and checked against the dims.

Imports only sympy and the kernel below it (dims, text, expr); must not import anything above it.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.expr import (
    Concat,
    Entry,
    MatSum,
    Row,
    RowBlock,
    dims_in,
    named_leaves,
    named_shapes,
    walk,
)
from symattn.kernel.text import plain

Range = tuple[sympy.Expr, sympy.Expr]


def infer_ranges(*exprs: sympy.Basic) -> dict[sympy.Symbol, Range]:
    """Ranges of free indices read off the entries and rows that mention them.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import index
    >>> infer_ranges(single_head().scores[index("i"), index("j")])
    {i: (1, n), j: (1, n)}
    """
    out: dict[sympy.Symbol, Range] = {}
    bound = bound_indices(*exprs)
    for e in exprs:
        for x in walk(e):
            if isinstance(x, Entry):
                for idx, size in ((x.args[1], x.matrix.rows), (x.args[2], x.matrix.cols)):
                    if isinstance(idx, sympy.Symbol):
                        out.setdefault(idx, (sympy.Integer(1), size))
            elif isinstance(x, Row) and isinstance(x.index, sympy.Symbol):
                out.setdefault(x.index, (sympy.Integer(1), x.args[0].rows))
            elif isinstance(x, RowBlock) and isinstance(x.head, sympy.Symbol):
                out.setdefault(x.head, (sympy.Integer(1), x.args[3]))  # block h of H
            elif isinstance(x, RowBlock) and _shifted(x.head) is not None:
                # block h + c of H: h still runs over the heads (at h = H - c + 1 and on the
                # block does not exist, and the claim is ill-formed there, never "proved")
                out.setdefault(_shifted(x.head), (sympy.Integer(1), x.args[3]))
    # a dim used as an index (row n: the newest token) is that size, not an index over 1..n
    sizes: set[sympy.Symbol] = set().union(*(dims_in(e) for e in exprs)) if exprs else set()
    return {k: v for k, v in out.items() if k not in bound and k not in sizes}


def _shifted(head: sympy.Expr) -> sympy.Symbol | None:
    """The index h of a block number written `h + c` (c a whole number), else None."""
    syms = head.free_symbols
    if len(syms) != 1:
        return None
    (h,) = syms
    offset = sympy.expand(head - h)
    return h if isinstance(h, sympy.Symbol) and offset.is_Integer else None


def bound_indices(*exprs: sympy.Basic) -> set[sympy.Symbol]:
    """Indices bound by a sum, a matrix sum or a concatenation somewhere in `exprs`."""
    out: set[sympy.Symbol] = set()
    for e in exprs:
        for x in walk(e):
            if isinstance(x, sympy.Sum):
                out |= {lim[0] for lim in x.limits}
            elif isinstance(x, (MatSum, Concat)):
                out.add(x.args[1])
    return out


def index_range_problem(
    exprs: tuple[sympy.Basic, ...], ranges: Mapping[sympy.Symbol, Range]
) -> str | None:
    """A message when an entry's index provably does not run over its matrix's rows or cols.

    >>> from symattn.kernel.expr import MatSym, index
    >>> from symattn.kernel.dims import n, d_k
    >>> Q = MatSym("Q", n, d_k); i, r = index("i"), index("r")
    >>> print(index_range_problem((sympy.Sum(Q[r, i], (r, 1, d_k)), Q), {i: (1, n)}))
    Q_{r,i}: index r runs over 1..d_k but Q has n rows
    """
    shapes = named_shapes(*exprs)
    for e in exprs:
        for node, limits in _indexed_with_limits(e):
            problem = _check_one(node, {**ranges, **limits}, shapes, limits)
            if problem:
                return problem
    return None


def _indexed_with_limits(e: sympy.Basic):
    """Every Indexed node with the ranges of the sum indices in scope, without recursion."""
    stack: list[tuple[sympy.Basic, dict]] = [(e, {})]
    while stack:
        x, limits = stack.pop()
        if isinstance(x, (sympy.Indexed, Entry, RowBlock, Row)):
            yield x, limits
            if not isinstance(x, Entry | Row):
                continue
        if isinstance(x, sympy.Sum):
            limits = {**limits, **{v: (lo, hi) for v, lo, hi in x.limits}}
        elif isinstance(x, MatSum):
            limits = {**limits, x.var: (x.args[2], x.args[3])}
        stack.extend((a, limits) for a in x.args)


def _check_one(node: sympy.Basic, ranges: Mapping, shapes: Mapping, limits: Mapping) -> str | None:
    shape: tuple[sympy.Expr, ...]
    if isinstance(node, RowBlock):
        return _check_block(node, ranges)
    if isinstance(node, Row):  # `q_i` of a dot product: i must run over Q's rows
        name, idx, shape = plain(node.args[0]), [node.index], (node.args[0].rows,)
        shown_idx = idx
    elif isinstance(node, Entry):
        name, idx, shape = plain(node.matrix), list(node.args[1:]), node.matrix.shape
        shown_idx = idx
    else:
        name = str(node.base.label)
        if name not in shapes:
            return None
        idx = shown_idx = list(node.indices)
        if name.endswith("^()"):
            idx = idx[1:]
        shape = shapes[name]
    if len(idx) != len(shape) or len(idx) not in (1, 2):
        return None
    for k, (ix, size) in enumerate(zip(idx, shape, strict=True)):
        if not isinstance(ix, sympy.Symbol):
            outside = _outside(ix, limits, size)
            if outside is not None:
                what, shown = "rows" if k == 0 else "cols", name.removesuffix("^()")
                sub = ",".join(map(str, shown_idx))
                return f"{shown}_{{{sub}}}: {outside} {shown} has {size} {what}"
            continue
        if ix not in ranges:
            continue
        lo, hi = (sympy.sympify(b) for b in ranges[ix])
        if _fits(lo, hi, size, ranges):
            continue
        what = "rows" if k == 0 else "cols"
        shown = name[:-3] if name.endswith("^()") else name
        sub = ",".join(str(s) for s in shown_idx)
        label = f"row {sub} of {shown}" if isinstance(node, Row) else f"{shown}_{{{sub}}}"
        msg = f"{label}: index {ix} runs over {lo}..{hi} but {shown} has {size} {what}"
        if (lo - 1).is_negative or (hi - size).is_positive:
            return msg  # outside for every size
        bound, need = (lo, f"{lo} >= 1") if not (lo - 1).is_nonnegative else (hi, f"{hi} <= {size}")
        if not bound.free_symbols & set(ranges):
            if bound.free_symbols - _sizing(shapes, size):
                # a count that sizes no matrix here (the first t rows, t a time step): it
                # may well be at most n, which the text leaves to the reader
                return f"{msg} ({NOT_PROVABLY}: it needs {need})"
            return msg  # sizes only (1..d_k for n rows): independent unless declared equal
        # a window that moves with another index (r = i-s .. i-1): inside for some of its values
        return f"{msg} ({NOT_PROVABLY}: it needs {need})"
    return None


def definite_range_problem(node: sympy.Basic, limits: Mapping[sympy.Symbol, Range]) -> str | None:
    """A message when an entry or row of `node` lies outside its matrix at every size.

    Meant for a term as it is built, with the ranges of the sums around it, before a factor
    that is zero at some size (`(n-5)` at n = 5) can drop it: only what is outside whatever
    the other indices are is reported, since the free indices' ranges are not known yet.

    >>> from symattn.kernel.expr import MatSym, index
    >>> from symattn.kernel.dims import n
    >>> S = MatSym("S", n, n); i, j = index("i"), index("j")
    >>> print(definite_range_problem(Entry(S, i, j), {j: (1, n + 1)}))
    S_{i,j}: index j runs over 1..n + 1 but S has n cols
    """
    shape: tuple[sympy.Expr, ...]
    what: tuple[str, ...]
    if isinstance(node, Entry):
        name, idx, shape = plain(node.matrix), list(node.args[1:]), node.matrix.shape
        what = ("rows", "cols")
    elif isinstance(node, Row):
        name, idx, shape = plain(node.args[0]), [node.index], (node.args[0].rows,)
        what = ("rows",)
    elif isinstance(node, RowBlock):
        name, idx, shape = plain(node.args[0]), [node.head], (node.args[3],)
        what = ("blocks",)
    else:
        return None
    sub = ",".join(str(s) for s in idx)
    shown = f"{name}^{{({sub})}}" if isinstance(node, RowBlock) else f"{name}_{{{sub}}}"
    for ix, size, kind in zip(idx, shape, what, strict=True):
        ix = sympy.sympify(ix, strict=True)
        run = _affine_run(ix, limits)
        if run is not None:
            # `x_{j+1}` under `\sum_{j=1}^{n}`, `x_{n-j}` under `\sum_{j=0}^{n-1}`: the index
            # runs over the sum's range, shifted (and reversed)
            lo, hi = run
            if (lo - 1).is_negative or (hi - size).is_positive:
                return f"{shown}: index {ix} runs over {lo}..{hi} but {name} has {size} {kind}"
        elif (ix - size).is_positive:
            # past the end only: a text that counts from 0 writes x_0 for its first row
            return f"{shown}: index {ix} is outside the {size} {kind} of {name}"
    return None


def _outside(ix: sympy.Basic, limits: Mapping, size: sympy.Expr) -> str | None:
    """`index n - j runs over 0..n - 1 but`, when an index written with a summed index
    (`x_{n-j}` under `\\sum_{j=1}^{n}`) lies outside 1..size at one end of the sum, at every
    size; None where it fits or may. A free index is left alone: its range is often one the
    text leaves unsaid (`k_{t-1}` for t >= 2)."""
    if not isinstance(ix, sympy.Expr):
        return None
    run = _affine_run(ix, limits)
    if run is None:
        return None
    lo, hi = run
    if (lo - 1).is_negative or (hi - size).is_positive:
        return f"index {ix} runs over {lo}..{hi} but"
    return None


def _affine_run(ix: sympy.Expr, limits: Mapping[sympy.Symbol, Range]) -> Range | None:
    """The least and the greatest value of an index `c*j + rest` as the sum index j runs over
    its range (c a nonzero whole number, rest free of every sum index), else None.

    >>> from symattn.kernel.expr import index
    >>> from symattn.kernel.dims import n
    >>> j = index("j")
    >>> _affine_run(n - j + 1, {j: (0, n - 1)})
    (2, n + 1)
    >>> _affine_run(2 * j, {j: (1, n)}) is None, _affine_run(j * n, {j: (1, n)}) is None
    (False, True)
    """
    heads = [s for s in ix.free_symbols if s in limits]
    if len(heads) != 1:
        return None
    (head,) = heads
    c = sympy.expand(ix).coeff(head)
    rest = sympy.expand(ix - c * head)
    if not c.is_Integer or c == 0 or rest.free_symbols & set(limits):
        return None
    ends = [c * sympy.sympify(b, strict=True) + rest for b in limits[head]]
    return (ends[0], ends[1]) if c > 0 else (ends[1], ends[0])


def _sizing(shapes: Mapping, size: sympy.Expr) -> set[sympy.Basic]:
    """The sizes that some matrix's rows or columns are made of (and those of `size`)."""
    out: set[sympy.Basic] = set(sympy.sympify(size, strict=True).free_symbols)
    for shape in shapes.values():
        for x in shape:
            out |= sympy.sympify(x, strict=True).free_symbols
    return out


def _check_block(node: RowBlock, ranges: Mapping) -> str | None:
    """Block h of a matrix cut into `count` blocks, h a summed index: h within 1..count."""
    h, count = node.head, node.args[3]
    if not isinstance(h, sympy.Symbol) or h not in ranges:
        return None
    lo, hi = (sympy.sympify(b, strict=True) for b in ranges[h])
    if _fits(lo, hi, count, ranges):
        return None
    shown = f"{plain(node.args[0])}^{{({h})}}"
    msg = f"{shown}: index {h} runs over {lo}..{hi} but {plain(node.args[0])} has {count} blocks"
    if (lo - 1).is_negative or (hi - count).is_positive:
        return msg
    bound, need = (lo, f"{lo} >= 1") if not (lo - 1).is_nonnegative else (hi, f"{hi} <= {count}")
    if not bound.free_symbols & set(ranges):
        return msg
    return f"{msg} ({NOT_PROVABLY}: it needs {need})"


#: How a range message says the index may lie inside for some sizes and outside for others.
NOT_PROVABLY = "not provably within"


def _fits(lo: sympy.Expr, hi: sympy.Expr, size: sympy.Expr, ranges: Mapping) -> bool:
    """1 <= lo and hi <= size, provably (following the range of an index used as a bound)."""
    if not (lo - 1).is_nonnegative:
        return False
    for _ in range(4):
        if dims_equal(hi, size) or (size - hi).is_nonnegative:
            return True
        # hi = i + c with c <= 0 (sum_{j=1}^{i-1}): it fits when i's own upper bound does
        head = next((s for s in hi.free_symbols if s in ranges), None)
        if head is None or not (hi - head).is_nonpositive:
            return False
        hi = sympy.sympify(ranges[head][1], strict=True) + (hi - head)
    return False


def name_clash(*terms: sympy.Basic) -> str | None:
    """A message when one matrix name is used with two shapes that are not provably equal.

    Entries are compared by name, so `W_O` (H d_v × d) and `W_O` (H d_k × d) in one claim
    would otherwise be taken for the same matrix.

    >>> from symattn.kernel.expr import MatSym
    >>> from symattn.kernel.dims import n, d_k, d_v
    >>> print(name_clash(MatSym("V", n, d_v), MatSym("V", n, d_k)))
    V is used with two shapes: n × d_v and n × d_k
    """
    seen: dict[str, tuple[sympy.Expr, sympy.Expr]] = {}
    for label, x in named_leaves(*terms):
        shape = seen.setdefault(label, x.shape)
        if not all(dims_equal(a, b) for a, b in zip(shape, x.shape, strict=True)):
            two = f"{shape_str(shape)} and {shape_str(x.shape)}"
            return f"{label.removesuffix('^()')} is used with two shapes: {two}"
    return None


def dependency_order(ranges: Mapping[sympy.Symbol, Range]) -> list[sympy.Symbol]:
    """Indices ordered so that a range mentioning another index (t in 1..n-i) comes after it.

    >>> from symattn.kernel.expr import index
    >>> from symattn.kernel.dims import n
    >>> i, t = index("i"), index("t")
    >>> dependency_order({t: (1, n - i), i: (1, n)})
    [i, t]
    """
    pending = sorted(ranges, key=lambda s: s.name)
    out: list[sympy.Symbol] = []
    while pending:
        for k, s in enumerate(pending):
            deps = set().union(
                *(sympy.sympify(x, strict=True).free_symbols for x in ranges[s])
            ) & set(pending)
            if not deps - {s}:
                out.append(pending.pop(k))
                break
        else:
            raise ValueError("index ranges depend on each other in a cycle")
    return out


def sum_limits(*exprs: sympy.Basic) -> list[tuple[sympy.Symbol, sympy.Expr, sympy.Expr]]:
    """The (index, lower, upper) of every sum and matrix sum in `exprs`, outermost first."""
    out: list[tuple[sympy.Symbol, sympy.Expr, sympy.Expr]] = []
    for e in exprs:
        for x in walk(e):
            if isinstance(x, sympy.Sum):
                out.extend((v, lo, hi) for v, lo, hi in reversed(x.limits))
            elif isinstance(x, MatSum):
                out.append((x.args[1], x.args[2], x.args[3]))
    return out


def reversed_range(*exprs: sympy.Basic) -> tuple[str, bool] | None:
    """The first sum of `exprs` whose range is not provably well-formed (`hi >= lo - 1`), and
    whether it is reversed at every value of its sizes and free indices (`n+1` down to `n-1`)
    rather than only at some (`i+1` up to `t`, reversed where t < i).

    >>> from symattn.kernel.expr import index
    >>> from symattn.kernel.dims import n
    >>> i, j, t = index("i"), index("j"), index("t")
    >>> reversed_range(sympy.Sum(j, (j, i + 1, t)))
    ('the sum over j runs from i + 1 to t, reversed where t < i', False)
    >>> reversed_range(sympy.Sum(j, (j, n + 1, n - 1)))
    ('the sum over j runs from n + 1 down to n - 1', True)
    >>> reversed_range(sympy.Sum(j, (j, 1, i - 1))) is None
    True
    """
    for v, lo, hi in sum_limits(*exprs):
        gap = sympy.expand(sympy.sympify(hi, strict=True) - lo + 1)  # the number of terms
        if gap.is_nonnegative:
            continue
        if gap.is_negative:
            return f"the sum over {v} runs from {lo} down to {hi}", True
        return f"the sum over {v} runs from {lo} to {hi}, reversed where {_below(gap)}", False
    return None


def _below(gap: sympy.Expr) -> str:
    """`gap < 0` with the negative terms moved to the right: `t < i`, `i < 2`."""
    terms = sympy.Add.make_args(gap)
    up = [x for x in terms if not x.is_Number and not x.could_extract_minus_sign()]
    left, right = sympy.Add(*up), -sympy.Add(*(x for x in terms if x not in up))
    return f"{left} < {right}"
