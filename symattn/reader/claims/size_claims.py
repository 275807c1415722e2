"""Formulas about sizes: a worked example's values (`n = 5`, `d_k = d_v = 64`) and relations
between sizes (`d_v = d/H`), kept in the scope or checked against the sizes in force.

Imports sympy, the kernel and the reader's AST, spans, claims, scope, size relations and
translator; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from symattn.kernel.dims import assume
from symattn.kernel.expr import Dot, Entry, MatExpr
from symattn.kernel.text import plain
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.arithmetic import add_scalars, chain_scalar
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.size_names import lettered_size
from symattn.reader.terms.size_relations import reduced, size_value, solve_for, substitute
from symattn.reader.terms.translator import Problem, plain_name, word_name

__all__ = ["assume_relation", "bind_dims", "relations_only", "size_chain", "sizes_only"]


def relations_only(
    dims: dict[str, sympy.Symbol], claims: Sequence[ast.Claim], numbers: bool = False
) -> bool:
    """Every claim an equation between sizes with a dim in each member (`Hd_v = d`, `d_k =
    d_v`; with `numbers`, also `H = 8`), read without touching the scope: what a premise after
    "when" must be."""
    if not claims:
        return False
    for c in claims:
        if len(c.subjects) != 1 or not c.steps or any(s.rel != "=" for s in c.steps):
            return False
        for m in (c.subjects[0], *(s.rhs for s in c.steps)):
            x = _size_expr(dims, m)
            if x is None or not (numbers or x.free_symbols):
                return False
    return True


def _size_expr(dims: dict[str, sympy.Symbol], node: ast.Node) -> sympy.Expr | None:
    """A size as written, with no worked-example values substituted: known dims and numbers
    under `+ - * /` and juxtaposition; None for anything else (an index, a matrix)."""
    if isinstance(node, ast.Number):
        try:
            return sympy.Rational(node.text)
        except (TypeError, ValueError):
            return None
    name = plain_name(node)
    if name is not None:
        return dims.get(name)
    word = word_name(node) or lettered_size(node)  # `d_{model}`, `B_r`: sizes named so
    if word is not None:
        return dims.get(word)
    parts: list[sympy.Expr] = []
    kids: Sequence[ast.Node] = ()
    if isinstance(node, ast.Product):
        kids = node.factors
    elif isinstance(node, ast.Mul):
        kids = node.factors
    elif isinstance(node, ast.Add):
        kids = node.terms
    elif isinstance(node, ast.Group) and len(node.items) == 1:
        kids = node.items
    elif isinstance(node, ast.Frac):
        kids = (node.num, node.den)
    elif isinstance(node, ast.Neg):
        kids = (node.operand,)
    else:
        return None
    for k in kids:
        x = _size_expr(dims, k)
        if x is None:
            return None
        parts.append(x)
    if isinstance(node, ast.Product):
        return sympy.Mul(*parts)
    if isinstance(node, ast.Mul):
        return chain_scalar(node, parts)
    if isinstance(node, ast.Add):
        return add_scalars(node, parts)
    if isinstance(node, ast.Frac):
        return parts[0] / parts[1]
    if isinstance(node, ast.Neg):
        return -parts[0]
    return parts[0]


def sizes_only(dims: dict[str, sympy.Symbol], e: sympy.Basic) -> bool:
    """A scalar made of dims and numbers only, with at least one dim (`p_o/h`)."""
    if isinstance(e, MatExpr) or not isinstance(e, sympy.Expr) or e.has(Entry, Dot):
        return False
    names = {s.name for s in e.free_symbols if isinstance(s, sympy.Symbol)}
    return bool(names) and names <= set(dims)


def bind_dims(
    scope: Scope, new: dict[sympy.Symbol, sympy.Integer], span: MathSpan, node: ast.Node
) -> ResolvedClaim:
    """`n = 5`: a value for a size, in the worked example (opened here if there is none);
    after "typically", "usually" (`Scope.typical`) a value texts often take, not this one's."""
    if scope.typical:
        text = ", ".join(f"{k} = {v}" for k, v in new.items())
        msg = f"a typical value, {text}: said of models in general, not used as this text's"
        return new_claim(span, node.start, node.end, "declared", msg)
    scope.rebound(new)
    top = scope.example()
    top.bindings.update(new)
    text = ", ".join(f"{k} = {v}" for k, v in new.items())
    return new_claim(span, node.start, node.end, "declared", f"worked example: {text}")


def assume_relation(
    scope: Scope, span: MathSpan, lhs: sympy.Basic, rhs: sympy.Basic, start: int, end: int
) -> ResolvedClaim:
    """`d_k = d/H` written with more than a product of sizes (`\\sqrt{d_k} = 8`): a relation
    between sizes kept only when its left side is one size not yet related."""
    text = f"relation between sizes {plain(lhs)} = {plain(rhs)}"
    doc = scope.document
    usable = isinstance(lhs, sympy.Symbol) and lhs not in rhs.free_symbols
    if isinstance(lhs, sympy.Expr) and isinstance(rhs, sympy.Expr):
        ctx = scope.context()
        a = substitute(lhs, ctx.bindings, ctx.relations)
        b = substitute(rhs, ctx.bindings, ctx.relations)
        # (a sum of Kronecker deltas has no degree bound in the kernel: it could only come
        # back undecided, so it stays what it was, a relation taken as an assumption)
        deltas = a.has(sympy.KroneckerDelta) or b.has(sympy.KroneckerDelta)
        summed = (a.has(sympy.Sum) or b.has(sympy.Sum)) and not deltas
        if summed or reduced(a - b) == 0:
            # `4d^2 + 4d^2 = 8d^2` holds; `\\sum_{i=1}^{n} i = n(n+1)/2` is a claim, not a relation
            return new_claim(span, start, end, "pending", pairs=((a, b),), defs=scope.defs())
        if (
            not usable
            and not deltas
            and not scope.bindings
            and (a.free_symbols | b.free_symbols) <= set(scope.earlier)
        ):
            # `3hd_{model}d_k = 3d_{model}^2` after a worked example has closed: a count the
            # text makes at the example's values, decided there (`ResolvedClaim.earlier`)
            return new_claim(span, start, end, "pending", pairs=((a, b),), defs=scope.defs())
    if usable and lhs not in doc.relations and lhs not in scope.bindings:
        assert isinstance(lhs, sympy.Symbol) and isinstance(rhs, sympy.Expr)
        doc.relations[lhs] = rhs
        scope.relation_section[lhs] = scope.section
        problems = scope.context().problems
        if problems:
            del doc.relations[lhs]
            raise Problem(
                "shape_error", f"{text} contradicts the sizes in force: {problems[0]}", None
            )
        return new_claim(span, start, end, "declared", f"{text}: assumed from here on")
    return new_claim(span, start, end, "declared", f"{text}: taken as an assumption, not used")


def size_chain(scope: Scope, span: MathSpan, c: ast.Claim) -> list[ResolvedClaim] | None:
    """`d_v = d/H`, `d_k = d_v = 64`, `H = 8`: a chain whose members are all sizes.

    A chain means each link (`a = b = c` is `a = b` and `b = c`). With a number in it, it is
    a worked example: every size written alone gets that value in the example's scope, and
    any other member is a relation solved for one size (`d/H = 64` gives `d = 64*H`) or,
    when its value is already known, a claim checked by the kernel (`d/H = 64` after `d =
    512`, `H = 8`). Without a number, each link is a relation assumed from here on.
    """
    if len(c.subjects) != 1:
        return None
    members = [c.subjects[0], *(step.rhs for step in c.steps)]
    raw = [_size_expr(scope.dims, m) for m in members]
    if any(r is None for r in raw):
        return None
    sizes: list[sympy.Expr] = raw
    if not any(r.free_symbols for r in sizes):
        return None  # numbers only: arithmetic, an ordinary claim
    if scope.typical:
        # "typically $d_k = 64$", "usually $h = d$": said of models in general
        text = " ".join(span.body[c.start : c.end].split())
        what = "value" if any(not r.free_symbols for r in sizes) else "relation"
        msg = f"a typical {what}, {text}: said of models in general, not used as this text's"
        return [new_claim(span, c.start, c.end, "declared", msg)]
    saved = [(dict(x.bindings), dict(x.relations)) for x in scope.layers]
    opened = False
    try:
        with assume(**scope.assumptions):
            if any(not r.free_symbols for r in sizes):
                opened = scope.top().kind != "example"
                return _example_chain(scope, span, members, sizes)
            return _relation_chain(scope, span, members, sizes)
    except Problem as p:
        for layer, (b, r) in zip(scope.layers, saved, strict=False):
            layer.bindings, layer.relations = b, r
        if opened and scope.top().kind == "example" and len(scope.layers) > len(saved):
            scope.layers.pop()
        where = p.where
        return [new_claim(span, c.start, c.end, p.status, p.message, where=where)]


def _example_chain(
    scope: Scope, span: MathSpan, members: Sequence[ast.Node], sizes: list[sympy.Expr]
) -> list[ResolvedClaim]:
    value = next(r for r in sizes if not r.free_symbols)
    plain_sizes = [r for r, m in zip(sizes, members, strict=True) if isinstance(r, sympy.Symbol)]
    before = scope.bindings
    replaced = [f"{r} = {before[r]}" for r in plain_sizes if before.get(r, value) != value]
    scope.rebound(dict.fromkeys(plain_sizes, value))
    top = scope.example()
    notes: list[str] = []
    checks: dict[int, sympy.Expr] = {}
    for k, (node, r) in enumerate(zip(members, sizes, strict=True)):
        if not r.free_symbols:
            continue
        if isinstance(r, sympy.Symbol) and plain_name(node) is not None:
            if not (value.is_Integer and value > 0):
                msg = (
                    f"{r} = {value}: {r} names a size, which is a positive integer; the text may "
                    f"mean another quantity by {r} here (an entropy, a position): not read"
                )
                raise not_understood(msg, node)
            top.bindings[r] = size_value(value, f"{r} = {value}", node)
            notes.append(f"{r} = {value}")
            continue
        known = substitute(r, scope.bindings, scope.context().relations)
        if not known.free_symbols:
            checks[k] = known  # its value follows already: a claim to check
            continue
        solved = solve_for(known, value, [], set(scope.bindings) | set(scope.assumptions_sym))
        if solved is None:
            raise not_understood(f"cannot tell which size {plain(r)} = {value} determines", node)
        sym, sol = solved
        if sol.free_symbols:
            top.relations[sym] = sol
        else:
            top.bindings[sym] = size_value(sol, f"{plain(r)} = {value}", node)
        notes.append(f"{sym} = {plain(sol)}")
    problems = scope.context().problems
    if problems and scope.drop_earlier_relations():
        problems = scope.context().problems
    if problems:
        raise Problem(
            "shape_error", f"these sizes contradict the worked example: {problems[0]}", None
        )
    out: list[ResolvedClaim] = []
    said = False
    for k in range(len(members) - 1):
        left, right = members[k], members[k + 1]
        start, end = left.start, right.end
        a = checks.get(k, sizes[k] if not sizes[k].free_symbols else None)
        b = checks.get(k + 1, sizes[k + 1] if not sizes[k + 1].free_symbols else None)
        if (a is None or b is None) and (k in checks or k + 1 in checks):
            # a member whose value is known (d/H after d = 512, H = 8) next to a size that
            # gets the chain's value: the known value is checked against the chain's
            a, b = checks.get(k, value), checks.get(k + 1, value)
        if a is not None and b is not None:
            pair = ((sympy.sympify(a, strict=True), sympy.sympify(b, strict=True)),)
            out.append(new_claim(span, start, end, "pending", pairs=pair, defs=scope.defs()))
            continue
        text = ", ".join(notes) if notes and not said else "the same sizes"
        if replaced and not said:
            # `n = 3` and then `n = 4`: two values for one size; what follows uses the second
            text += f" (a second value: {', '.join(replaced)} before; formulas from here use it)"
        said = True
        msg = f"worked example: {text}"
        out.append(new_claim(span, start, end, "declared", msg))
    return out


def _relation_chain(
    scope: Scope, span: MathSpan, members: Sequence[ast.Node], sizes: list[sympy.Expr]
) -> list[ResolvedClaim]:
    doc = scope.document
    out: list[ResolvedClaim] = []
    for k in range(len(members) - 1):
        left, right = members[k], members[k + 1]
        lhs, rhs = sizes[k], sizes[k + 1]
        start, end = left.start, right.end
        text = f"relation between sizes {plain(lhs)} = {plain(rhs)}"
        ctx = scope.context()
        a = substitute(lhs, ctx.bindings, ctx.relations)
        b = substitute(rhs, ctx.bindings, ctx.relations)
        diff = reduced(a - b)
        if not diff.free_symbols and diff != 0:
            pair = ((a, b),)  # both known here and different: the kernel says false
            out.append(new_claim(span, start, end, "pending", pairs=pair, defs=scope.defs()))
            continue
        general = scope.context(upto=2)
        ga = substitute(lhs, general.bindings, general.relations)
        gb = substitute(rhs, general.bindings, general.relations)
        if reduced(ga - gb) == 0:
            # `4d^2 + 4d^2 = 8d^2`, or `Hd_v = d` after `d_v = d/H`: a claim that holds (the
            # kernel proves it with the relations substituted)
            pair = ((ga, gb),)
            out.append(new_claim(span, start, end, "pending", pairs=pair, defs=scope.defs()))
            continue
        prefer = [x for x in (lhs, rhs) if isinstance(x, sympy.Symbol)]
        taken = set(general.relations) | set(general.bindings)
        solved = solve_for(ga, gb, [x for x in prefer if x not in taken], taken)
        if solved is None:
            msg = f"{text}: taken as an assumption, not used"
            out.append(new_claim(span, start, end, "declared", msg))
            continue
        sym, sol = solved
        if not sol.free_symbols:
            raise Problem(
                "shape_error",
                f"{text} gives {sym} = {sol} for every example: write it as {sym} = {sol}",
                right,
            )
        doc.relations[sym] = sol
        scope.relation_section[sym] = scope.section
        problems = scope.context().problems
        if problems:
            raise Problem(
                "shape_error", f"{text} contradicts the sizes in force: {problems[0]}", right
            )
        out.append(new_claim(span, start, end, "declared", f"{text}: assumed from here on"))
    return out
