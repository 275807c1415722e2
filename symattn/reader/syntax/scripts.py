"""What sub- and superscripts make of their base, sum ranges, and how top-level items join.

Works on ast nodes and duck-typed tokens (`.type`, `.start_pos`); imports only kernel.errors and
the reader's AST; must not import lark or the rest of the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.sum_scripts import (
    Range,
    chained,
    one,
    plus,
    set_range,
    several,
    split_letters,
)

Fail = Callable[[str, int], ParseError]
ToExpr = Callable[[Any], ast.Expr]


class ScriptLike(Protocol):
    kind: str
    arg: Any
    start: int
    end: int


def is_top(arg: Any) -> bool:
    """Whether a script argument is `\\top`, `{\\top}` or a lone letter T in any font."""
    items = getattr(arg, "items", None)
    if items is not None and not isinstance(arg, ast.Node):  # braces
        if len(items) != 1 or items[0][1]:
            return False
        arg = items[0][0]
    kind = getattr(arg, "type", None)
    if kind == "TOP":
        return True
    if kind == "LETTER":
        return str(arg) == "T"
    if kind == "SYMBOL":
        return str(arg).split("|")[1] == "T"
    return False


def apply_scripts(
    base: ast.Expr, scripts: Sequence[ScriptLike], expr: ToExpr, fail: Fail, start: int
) -> ast.Expr:
    """Attach `_x` and `^y` to `base` in the written order (TeX forbids two of a kind)."""
    if isinstance(base, ast.Set) and scripts and _index_range(scripts[0]):
        return _ranged_set(base, scripts, fail)
    seen: set[str] = set()
    for script in scripts:
        if script.kind == "PRIME":
            base = _prime(base, fail, script)
            continue
        if script.kind in seen:
            word = "subscript" if script.kind == "SUB" else "superscript"
            raise fail(f"double {word}: use braces", script.start)
        seen.add(script.kind)
        if script.kind == "SUB":
            base = _subscript(base, expr(script.arg), fail, start, script)
        else:
            base = _superscript(base, script, expr, fail, start)
    return base


def _index_range(script: ScriptLike) -> bool:
    """`_{i=1}` below a set: one letter equal to its first value (braces not read yet)."""
    items = getattr(script.arg, "items", None)
    if script.kind != "SUB" or items is None or isinstance(script.arg, ast.Node):
        return False
    if len(items) != 1 or len(items[0][1]) != 1:
        return False
    letter = items[0][0]
    return items[0][1][0][0] == "=" and getattr(letter, "type", None) == "LETTER"


def _ranged_set(base: ast.Set, scripts: Sequence[ScriptLike], fail: Fail) -> ast.Expr:
    """`\\{c_i\\}_{i=1}^T`: the family c_1, ..., c_T written as a set (the range is not
    read as a value: the set is one)."""
    rest = list(scripts[1:])
    if rest and rest[0].kind == "SUP":
        rest = rest[1:]
    if rest:
        raise fail(
            "a set with an index range takes one subscript and one superscript", rest[0].start
        )
    end = scripts[1].end if len(scripts) > 1 else scripts[0].end
    return ast.Set(base.items, base.such_that, start=base.start, end=end)


def _prime(base: ast.Expr, fail: Fail, script: ScriptLike) -> ast.Expr:
    """`t'`, `x_i'`, `\\mathbf x'`: a prime makes a new name of a letter (as an accent does);
    so does a raised star (`\\alpha^*`, `a_j^*`: an optimal value), named `alpha^*`."""
    star = script.arg == "*"
    if isinstance(base, ast.Symbol) and (base.font != "text" or star):
        return replace(base, name=base.name + ("^*" if star else "'"), end=script.end)
    if star:
        raise fail("a complex conjugate or adjoint (x^*) is not read", script.start)
    raise fail("a prime is read on a letter, as in t'", script.start)


def _subscript(
    base: ast.Expr, index: ast.Expr, fail: Fail, start: int, script: ScriptLike
) -> ast.Expr:
    end = script.end
    if isinstance(base, ast.Symbol) and base.sub is None:
        return replace(base, sub=index, end=end)
    p = _norm_index(index)
    if isinstance(base, ast.Norm) and not base.p and p:
        return replace(base, p=p, end=end)  # `\\|x\\|_2`: which norm, as written
    if isinstance(base, ast.Power) and isinstance(base.base, ast.Norm) and not base.base.p and p:
        return replace(base, base=replace(base.base, p=p), end=end)  # `\\|x\\|^2_2`
    if isinstance(base, ast.Group) and base.delim == "(":
        return ast.IndexedGroup(base, index, start=start, end=end)
    if isinstance(base, ast.Inner) and isinstance(index, ast.Symbol) and index.name == "F":
        # `\langle A, B\rangle_F`: the Frobenius inner product, tr(A^T B) by definition
        pair = (base.left, base.right)
        return ast.Call("frobenius", pair, parens=True, start=base.start, end=end)
    if isinstance(base, ast.Call) and base.parens and base.sub is None:
        # `\operatorname{softmax}(S)_{ij}`: TeX sets the subscript after the parenthesis
        group = ast.Group((base,), "(", start=base.start, end=base.end)
        return ast.IndexedGroup(group, index, start=start, end=end)
    if isinstance(base, ast.Transpose | ast.HeadSup | ast.Power | ast.Labeled):
        # x^a_b renders as x_b^a: the subscript belongs to the letter.
        inner = base.operand if not isinstance(base, ast.Power) else base.base
        if isinstance(inner, ast.Symbol) and inner.sub is None:
            moved = replace(inner, sub=index, end=max(inner.end, end))
            field = "base" if isinstance(base, ast.Power) else "operand"
            return replace(base, **{field: moved}, end=end)  # type: ignore[arg-type]
    what = _describe(base)
    hint = ": write \\sqrt{d_k}, not \\sqrt d_k" if isinstance(base, ast.Sqrt) else ""
    raise fail(f"cannot put a subscript on {what}{hint}", script.start)


def _norm_index(index: ast.Expr) -> str:
    """The subscript of a norm as written: a number (`2`, `1`), a letter (`F`) or `\\infty`."""
    if isinstance(index, ast.Number):
        return index.text
    if isinstance(index, ast.Symbol) and index.sub is None:
        return "\\infty" if index.name == "infty" else index.name
    return ""


def _superscript(
    base: ast.Expr, script: ScriptLike, expr: ToExpr, fail: Fail, start: int
) -> ast.Expr:
    end = script.end
    if is_top(script.arg):
        mark = "top" if "TOP" in _kinds(script.arg) else "T"
        return ast.Transpose(base, mark, start=start, end=end)
    sup = expr(script.arg)
    label = _label(base, sup)
    if label is not None:
        assert isinstance(base, ast.Symbol)
        return ast.Labeled(base, label, start=start, end=end)
    if isinstance(base, ast.Reals):
        if base.shape:
            raise fail("\\mathbb R has two superscripts", script.start)
        return ast.Reals(_shape(sup), start=start, end=end)
    if isinstance(sup, ast.Group) and sup.delim == "(" and len(sup.items) == 1:
        return ast.HeadSup(base, sup.items[0], start=start, end=end)
    if (
        isinstance(sup, ast.Product)
        and len(sup.factors) == 2
        and isinstance(sup.factors[0], ast.Group)
        and sup.factors[0].delim == "("
        and len(sup.factors[0].items) == 1
        and _is_t(sup.factors[1])
    ):
        # `K^{(h)\mathsf T}`: head h of K, transposed (as `(K^{(h)})^{\mathsf T}`)
        head = ast.HeadSup(base, sup.factors[0].items[0], start=start, end=end)
        return ast.Transpose(head, "T", start=start, end=end)
    return ast.Power(base, sup, start=start, end=end)


#: `W_i^{(q)}`: d2l's names of the query, key, value and output projections, not heads.
PROJECTION_LABELS = frozenset("qkvo")


def _label(base: ast.Expr, sup: ast.Expr) -> str | None:
    """The superscript of `W^Q`, `W^q`, `P^v`, `W^{\\text{out}}`, `W_i^{(q)}` names the matrix.

    Only on a capital letter (powers of capitals are not written that way in these texts, and
    `T`, `\\top`, numbers and `(h)` keep their meaning), with one letter or word as the label;
    on any letter but e, capitals side by side (`c_t^{KV}`, `W^{UQ}`, `h^{QK}`): a label, never
    a power of the product K·V."""
    capitals = _capitals(sup)
    if capitals and isinstance(base, ast.Symbol) and len(base.name) == 1 and base.name != "e":
        if base.name.isalpha() and base.font in (None, "mathbf", "boldsymbol", "bm", "mathit"):
            return capitals
    if not (
        isinstance(base, ast.Symbol)
        and len(base.name) == 1
        and base.name.isupper()
        and base.font in (None, "mathbf", "boldsymbol", "bm", "mathit", "mathrm")
    ):
        return None
    if isinstance(sup, ast.Symbol) and sup.sub is None and not _is_t(sup):
        if sup.font == "text" or (len(sup.name) == 1 and sup.name.isalpha()):
            return sup.name
    if capitals:
        return capitals  # `W^{DKV}`, `W^{UK}`: a projection's name, not a power
    if (
        isinstance(sup, ast.Group)
        and sup.delim == "("
        and len(sup.items) == 1
        and base.name == "W"
        and isinstance(sup.items[0], ast.Symbol)
        and sup.items[0].sub is None
        and sup.items[0].name in PROJECTION_LABELS
    ):
        return f"({sup.items[0].name})"
    return None


def _capitals(sup: ast.Expr) -> str:
    """`KV`, `UQ`, `DKV`: two to four capitals written side by side (not T); '' otherwise."""
    factors = sup.factors if isinstance(sup, ast.Product) else ()
    if not 2 <= len(factors) <= 4:
        return ""
    letters = [capital_letter(x) for x in factors]
    return "".join(letters) if all(letters) and "T" not in letters else ""


def capital_letter(node: ast.Node) -> str:
    """`K`, `\\mathbf K`: one plain capital letter, as a label spells a name with (`W^{DKV}`,
    `W_{KV}`); "" for anything else."""
    if not isinstance(node, ast.Symbol) or node.sub is not None:
        return ""
    if node.font not in (None, "mathbf", "mathrm") or len(node.name) != 1:
        return ""
    return node.name if node.name.isascii() and node.name.isupper() else ""


def _is_t(node: ast.Expr) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and node.name == "T"
        and node.sub is None
        and node.font in (None, "mathsf", "mathrm")
    )


def _kinds(arg: Any) -> set[str]:
    items = getattr(arg, "items", None)
    if items is not None and not isinstance(arg, ast.Node):
        return {getattr(items[0][0], "type", "")}
    return {getattr(arg, "type", "")}


def _shape(sup: ast.Expr) -> tuple[ast.Expr, ...]:
    """The dims of `\\mathbb R^{...}`: `\\times` separates them, `/` and `\\cdot` stay inside
    one (`n\\times d/H` is n by d/H, not (n·d)/H); parentheses around them all are no part of
    a dim (`\\mathbb R^{(d \\times r)}` is d by r)."""
    if isinstance(sup, ast.Group) and sup.delim == "(" and len(sup.items) == 1:
        inner = sup.items[0]
        if isinstance(inner, ast.Mul) and "times" in inner.ops:
            sup = inner
    if not isinstance(sup, ast.Mul) or "times" not in sup.ops:
        return (sup,)
    out: list[ast.Expr] = []
    factors: list[ast.Expr] = [sup.factors[0]]
    ops: list[str] = []
    for op, factor in zip(sup.ops, sup.factors[1:], strict=True):
        if op == "times":
            out.append(_one_dim(factors, ops))
            factors, ops = [factor], []
        else:
            factors.append(factor)
            ops.append(op)
    out.append(_one_dim(factors, ops))
    return tuple(out)


def _one_dim(factors: list[ast.Expr], ops: list[str]) -> ast.Expr:
    if len(factors) == 1:
        return factors[0]
    return ast.Mul(tuple(factors), tuple(ops), start=factors[0].start, end=factors[-1].end)


def _describe(node: ast.Expr) -> str:
    names = {
        ast.Sqrt: "\\sqrt",
        ast.Frac: "\\frac",
        ast.Call: "a function call",
        ast.Number: "a number",
        ast.Symbol: "a letter that already has one",
        ast.Sum: "\\sum",
    }
    return names.get(type(node), f"this {type(node).__name__}")


def call_sub(name: str, scripts: Sequence[ScriptLike], expr: ToExpr, fail: Fail) -> ast.Expr | None:
    """The subscript of an operator name (`\\max_j`); superscripts on names are not read."""
    sub: ast.Expr | None = None
    for script in scripts:
        if script.kind == "PRIME":
            mark = "a star" if script.arg == "*" else "a prime"
            raise fail(f"{mark} on \\{name} is not read", script.start)
        if script.kind == "SUP":
            raise fail(f"a superscript on \\{name} is not read", script.start)
        if sub is not None:
            raise fail("double subscript: use braces", script.start)
        sub = expr(script.arg)
    return sub


def sum_range(
    scripts: Sequence[ScriptLike], expr: ToExpr, fail: Fail, start: int
) -> list[tuple[ast.Symbol | None, ast.Expr | None, ast.Expr | None]]:
    """The letters a `\\sum` runs over, outermost first, each with its bounds:
    `\\sum_{r=1}^{d_k}` -> [(r, 1, d_k)]; `\\sum_j` -> [(j, None, None)]; `\\sum` -> [(None,
    None, None)]; `\\sum_{j\\le i}` -> [(j, 1, i)]; `\\sum_{j<i}` -> [(j, 1, i-1)];
    `\\sum_{j\\in[1,n]}` -> [(j, 1, n)]; `\\sum_{kl}` -> [(k, None, None), (l, None, None)]
    (other forms: `syntax.sum_scripts`)."""
    ranges: list[tuple[ast.Symbol | None, ast.Expr | None, ast.Expr | None]] = [(None, None, None)]
    upper: ast.Expr | None = None
    upper_at = start
    seen: set[str] = set()
    for script in scripts:
        if script.kind == "PRIME" or script.kind in seen:
            raise fail("\\sum has two scripts of the same kind", script.start)
        seen.add(script.kind)
        if script.kind == "SUP":
            upper, upper_at = expr(script.arg), script.start
        else:
            ranges = list(_sum_lower(script, expr, fail))
    if upper is None:
        return ranges
    if any(hi is not None for _, _, hi in ranges):
        raise fail("\\sum has two upper bounds", upper_at)
    return [(var, lo, upper) for var, lo, _ in ranges]


def _sum_lower(script: ScriptLike, expr: ToExpr, fail: Fail) -> Sequence[Range]:
    arg = script.arg
    items = getattr(arg, "items", None)
    at = script.start
    if items is not None and not isinstance(arg, ast.Node) and len(items) > 1:
        got = several(items, expr, at, fail)
        if got is not None:
            return got
        arg = None
    if items is not None and not isinstance(arg, ast.Node) and arg is not None:
        value, rels = items[0]
        var = expr(value) if len(rels) == 1 else None
        if isinstance(var, ast.Symbol) and var.sub is None:
            rel, bound = rels[0]
            # indices are 1-based, so "j up to i" starts at 1
            if rel == "=":
                return [(var, bound, None)]
            if rel == "le":
                return [(var, one(at), bound)]
            if rel == "<":
                return [(var, one(at), plus(bound, "-", at))]
            if rel in ("ge", ">"):  # `j \\ge i`: from i up to the end of what j indexes
                return [(var, bound if rel == "ge" else plus(bound, "+", at), None)]
            if rel == "in" and isinstance(bound, ast.Group) and bound.delim == "[":
                if len(bound.items) == 2:  # `[1, n]`: the integers from 1 to n
                    return [(var, bound.items[0], bound.items[1])]
                if len(bound.items) == 1:  # `[n]`: 1, ..., n
                    return [(var, one(at), bound.items[0])]
            if rel == "in":
                return [set_range(var, bound, at, fail)]
            if rel in ("neq", "ne"):
                raise fail(
                    f"\\sum_{{{var.name} \\ne ..}} (every {var.name} but one) is not read: "
                    "write the whole sum minus the term left out",
                    at,
                )
        if len(rels) == 2:
            got_chain = chained(expr(value), rels, at)
            if got_chain is not None:
                return [got_chain]
        if not rels:
            arg = value
        else:
            arg = None
    if arg is not None and not hasattr(arg, "items"):
        single = expr(arg)
        if isinstance(single, ast.Symbol):
            return [(single, None, None)]
        split = split_letters(single)
        if split is not None:
            return split
    raise fail("cannot read the range of \\sum: write \\sum_{j=1}^{n} or \\sum_j", script.start)


def join_items(kids: list[Any], token_class: type, fail: Fail) -> list[ast.Item]:
    """Top-level pieces -> items: prose from `\\text`, `Q,K\\in...` as one claim with two
    subjects, and align rows starting with a relation continuing the claim above."""
    out: list[ast.Item] = []
    seps: list[str] = []
    column = 0  # the column of an aligned row (`a &= b & c &= d`: `c` is in column 1)
    columns: dict[int, int] = {}  # column -> index in `out` of the last claim there
    # index in `out` of a claim whose subject is in the prose -> the offset of its relation
    orphans: dict[int, int] = {}
    for kid in kids:
        if isinstance(kid, token_class):
            tok: Any = kid
            if tok.type == "TEXT":
                out.append(ast.Prose(str(tok), start=tok.start_pos, end=tok.end_pos))
            if tok.type == "ROWSEP":
                column = 0
            elif tok.type == "QUAD" and str(tok).startswith("&"):
                column += 1
            seps.append(tok.type)
            continue
        at = columns.get(column) if columns else None
        _add_item(out, kid, seps, fail, at, orphans)
        if isinstance(kid, ast.Claim) and kid.subjects:
            columns[column] = len(out) - 1
        elif isinstance(kid, ast.Claim) and len(out) - 1 in orphans:
            columns[column] = len(out) - 1
        seps = []
    for k, rel in orphans.items():
        item = out[k]
        if isinstance(item, ast.Claim) and not item.steps:
            raise fail("a row that starts with a relation needs a claim before it", rel)
    return [_split_dots(i) for i in out]


def _add_item(
    out: list[ast.Item],
    item: Any,
    seps: list[str],
    fail: Fail,
    at: int | None = None,
    orphans: dict[int, int] | None = None,
) -> None:
    """`at`: in an aligned block with columns, the claim a row starting with a relation
    continues (the last one in its own column), else the last claim. `orphans`: the claims
    whose subject is in the words before the formula (`_without_subject`)."""
    orphans = {} if orphans is None else orphans
    prev = out[-1] if out else None
    if isinstance(item, ast.Claim) and not item.subjects:
        k = at if at is not None else len(out) - 1
        target = out[k] if 0 <= k < len(out) else None
        if not isinstance(target, ast.Claim):
            orphans[len(out)] = item.start
            out.append(_without_subject(item))
            return
        if k in orphans and "ROWSEP" not in seps:
            # `= a \\quad = b`: the second relation's left side is not `a`
            raise fail("a row that starts with a relation needs a claim before it", item.start)
        out[k] = replace(target, steps=target.steps + item.steps, end=max(target.end, item.end))
        return
    if isinstance(item, ast.Claim) and isinstance(prev, ast.Claim) and seps == ["COMMA"]:
        if not prev.steps and len(out) - 1 not in orphans:
            out[-1] = ast.Claim(
                prev.subjects + item.subjects, item.steps, start=prev.start, end=item.end
            )
            return
    out.append(item)


def _without_subject(item: ast.Claim) -> ast.Claim:
    """`= 1 + 2 = 3` after words that name its subject ("the coefficient"): the first link's
    left side is in the prose, so only the links after its first value are read, `1 + 2 = 3`
    (each link of a chain is a claim of its own). With one link, its value waits for the rows
    below (`= 2d \\\\ = 8`)."""
    first = item.steps[0].rhs
    return ast.Claim((first,), item.steps[1:], start=first.start, end=item.end)


def _split_dots(item: ast.Item) -> ast.Item:
    """`W_V^{(1)}\\ldots` at the end of a list of subjects is two subjects, not a product."""
    if not isinstance(item, ast.Claim) or item.steps:
        return item
    subjects: list[ast.Expr] = []
    for s in item.subjects:
        if isinstance(s, ast.Product) and isinstance(s.factors[-1], ast.Dots):
            rest = s.factors[:-1]
            head = rest[0] if len(rest) == 1 else ast.Product(rest, start=s.start, end=rest[-1].end)
            subjects.extend((head, s.factors[-1]))
        else:
            subjects.append(s)
    return replace(item, subjects=tuple(subjects))
