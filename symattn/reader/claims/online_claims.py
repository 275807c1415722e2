"""The online softmax of a text (`m^{(0)} = -\\infty`, `m^{(b)} = \\max(m^{(b-1)}, ...)`, a claim).
Imports sympy, the kernel (expr, recurrent, online_written) and the reader's claims and terms.

The base cases and steps of a recurrence over a letter b (members written `m^{(b)}`, or
`m_i^{(b)}` row by row) are the text's definitions; a claim about the members at another
letter (`O^{(B)}/\\ell^{(B)} = \\operatorname{softmax}(S)V`) is then the kernel's term
`Recurrent(...)`, decided by induction on B (`kernel.online_written`). What the reader cannot
map exactly makes the claim undecided, naming it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import MatExpr, MatSym, Softmax, walk
from symattn.kernel.online_written import ROLES, written_online
from symattn.kernel.recurrent import Operands, Recurrent, Segment, State
from symattn.reader.claims.online_steps import Env, Unread, Value, block_of, evaluate, member
from symattn.reader.claims.online_steps import head_is as _head_is
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.translator import UNREAD, Problem, plain_name

__all__ = ["OnlineSystem", "online_equation", "system_of"]

#: prose that says the keys come in blocks: then `S^{(b)}`, `V_b` are the text's notation
_BLOCKS = re.compile(r"block|tile|chunk|split|块|分块|切分", re.IGNORECASE)


@dataclass
class _Family:
    letter: str
    row: str | None
    base: ast.Node | None = None
    base_text: str = ""
    step: ast.Node | None = None
    step_text: str = ""
    aux: ast.Node | None = None  # defined at b without a step (`\tilde P^{(b)} = ...`)


@dataclass
class OnlineSystem:
    """The recurrence's families read so far in a document, and its prose."""

    families: dict[str, _Family] = field(default_factory=dict)
    letter: str = ""
    text: str = ""
    #: blocks the text defines (`S^{(b)} = QK_b^\top`, `V_b = ...`): (letter, index) -> source
    blocks: dict[tuple[str, str], str] = field(default_factory=dict)
    #: what the text computes for each block (`m_s = \\operatorname{rowmax}(S_s)`): its value
    partials: dict[tuple[str, str], tuple[ast.Node, str]] = field(default_factory=dict)

    def computed(self) -> dict[str, tuple[ast.Node, str]]:
        """The values computed for each block of the recurrence's letter, by name."""
        return {k[0]: v for k, v in self.partials.items() if k[1] == self.letter}


def system_of(owner: Any) -> OnlineSystem:
    """The resolver's online system (made on first use)."""
    found = owner.__dict__.get("_online_system")
    if found is None:
        found = owner.__dict__["_online_system"] = OnlineSystem()
    return found


def _names(node: ast.Node) -> list[ast.Node]:
    out, todo = [], [node]
    while todo:
        x = todo.pop()
        out.append(x)
        todo.extend(ast.children(x))
    return out


def _members_at(node: ast.Node, test) -> list[tuple[str, str | None]]:
    out = []
    for x in _names(node):
        got = member(x)
        if got is not None and test(got[2]):
            out.append(got[:2])
    return out


def online_equation(owner: Any, span: MathSpan, c: ast.Claim) -> list[ResolvedClaim] | None:
    """The claims of `c` when it is a base case, a step or a claim of an online recurrence;
    None when it is none of them (the other readers then read it)."""
    if len(c.subjects) != 1 or len(c.steps) != 1 or c.steps[0].rel != "=":
        return None
    system = system_of(owner)
    left, right = c.subjects[0], c.steps[0].rhs
    got = member(left)
    body = span.body
    if got is not None:
        letter, row, head = got
        if owner.scope.lookup(letter, family=True) is not None and letter not in system.families:
            return None  # a head family the text declared: its members are heads
        key = letter
        if isinstance(head, ast.Number) and head.text == "0" and not _mentions_members(right):
            fam = system.families.setdefault(key, _Family(letter, row))
            fam.base, fam.base_text = right, body[right.start : right.end]
            msg = f"{body[left.start : left.end]}: the initial value of a recurrence over blocks"
            return [new_claim(span, c.start, c.end, "declared", msg)]
        if isinstance(head, ast.Symbol) and head.sub is None and len(head.name) == 1:
            b = head.name
            old = _members_at(right, lambda h: _head_is(h, b, 1))
            now = _members_at(right, lambda h: _head_is(h, b))
            if old and (not system.letter or system.letter == b):
                system.letter = b
                fam = system.families.setdefault(key, _Family(letter, row))
                fam.step, fam.step_text = right, body[right.start : right.end]
                msg = f"{body[left.start : left.end]}: the step of a recurrence over blocks {b}"
                return [new_claim(span, c.start, c.end, "declared", msg)]
            if now and system.letter == b and key not in system.families:
                text = body[right.start : right.end]
                system.families[key] = _Family(letter, row, step_text=text, aux=right)
                msg = f"{body[left.start : left.end]}: defined at each block {b}"
                return [new_claim(span, c.start, c.end, "declared", msg)]
    partial = _partial(system, left, right)
    if partial is not None:
        system.partials[partial] = (right, body[right.start : right.end])
        msg = f"{body[left.start : left.end]}: computed for each block {partial[1]}"
        return [new_claim(span, c.start, c.end, "declared", msg)]
    _note_block(system, left, body[c.start : c.end])
    if not system.letter:
        return None
    for side, other in ((left, right), (right, left)):
        if _final_members(system, side):
            if isinstance(other, ast.Symbol) and _undeclared(owner, other):
                msg = f"{body[other.start : other.end]}: the result after the last block"
                return [new_claim(span, c.start, c.end, "declared", msg)]
            return [_claim(owner, system, span, c, side, other)]
    return None


def _partial(system: OnlineSystem, left: ast.Node, right: ast.Node) -> tuple[str, str] | None:
    """(m, s) of `m_s = \\operatorname{rowmax}(S_s)`: a value of each block, computed by the
    online softmax's operations, that names no other member of its own (no recurrence)."""
    if not isinstance(left, ast.Symbol) or left.font is not None:
        return None
    sub = left.sub
    if not isinstance(sub, ast.Symbol) or sub.sub is not None or len(sub.name) != 1:
        return None
    key = (left.name, sub.name)
    nodes = _names(right)
    # rowmax or rowsum, or a partial already read (`O_s = ... e^{S_s - m_s}V_s`): never a
    # definition of another text that only uses an exponential
    known = {k[0] for k in system.partials if k[1] == sub.name}
    ops = any(
        (isinstance(x, ast.Call) and x.name in ("rowmax", "rowsum"))
        or (isinstance(x, ast.Symbol) and x.name in known and x.sub is not None)
        for x in nodes
    )
    itself = any(isinstance(x, ast.Symbol) and x.name == left.name for x in nodes)
    if not ops or itself or key in system.partials:
        return None
    return key


def _undeclared(owner: Any, node: ast.Symbol) -> bool:
    entry = owner.scope.lookup(plain_name(node) or "")
    return entry is None or entry.origin == "convention"


def _note_block(system: OnlineSystem, left: ast.Node, source: str) -> None:
    """Keep what the text defines as a block (`S^{(b)} = ...`, `V_b = ...`): such a block is
    then the text's own, never read as a block of S or V."""
    got = member(left)
    if got is not None and isinstance(got[2], ast.Symbol) and got[2].sub is None:
        system.blocks.setdefault((got[0], got[2].name), source)
    elif isinstance(left, ast.Symbol) and isinstance(left.sub, ast.Symbol):
        if left.sub.sub is None and len(left.sub.name) == 1 and left.font is None:
            system.blocks.setdefault((left.name, left.sub.name), source)


def _mentions_members(node: ast.Node) -> bool:
    return any(member(x) is not None for x in _names(node))


def _final_members(system: OnlineSystem, node: ast.Node) -> list[tuple[str, str | None]]:
    b = system.letter
    stepped = {k for k, f in system.families.items() if f.step is not None}
    return [
        m
        for m in _members_at(node, lambda h: isinstance(h, ast.Symbol) and not _head_is(h, b))
        if m[0] in stepped
    ]


def _claim(
    owner: Any,
    system: OnlineSystem,
    span: MathSpan,
    c: ast.Claim,
    side: ast.Node,
    other: ast.Node,
) -> ResolvedClaim:
    try:
        return _decide(owner, system, span, c, side, other)
    except Unread as exc:
        msg = f"not understood: the online recurrence over {system.letter}: {exc}"
        return new_claim(span, c.start, c.end, "not_understood", msg)


def _roles(system: OnlineSystem, values: str) -> tuple[_Family, _Family, _Family]:
    """(running maximum, normaliser, output) among the families with a step."""
    stepped = [f for f in system.families.values() if f.step is not None]
    maxima = [f for f in stepped if any(_is_max(x) for x in _names(f.step))]  # type: ignore[arg-type]
    outs = [f for f in stepped if _reads_values(system, f.step, values)]  # type: ignore[arg-type]
    rest = [f for f in stepped if f not in maxima and f not in outs]
    if len(stepped) != 3 or len(maxima) != 1 or len(outs) != 1 or len(rest) != 1:
        names = ", ".join(f.letter for f in stepped) or "none"
        raise Unread(
            f"it needs three steps, a running maximum (\\max), a normaliser and an output "
            f"(times the values of block {system.letter}); the steps read are of {names}"
        )
    for f in stepped:
        if f.base is None:
            raise Unread(f"the initial value {f.letter}^{{(0)}} is not given")
    return maxima[0], rest[0], outs[0]


def _is_max(node: ast.Node) -> bool:
    return isinstance(node, ast.Call) and node.name == "max"


def _expanded(system: OnlineSystem, node: ast.Node) -> list[ast.Node]:
    """The nodes of `node` and of the definitions of each block it names (`O_s = ...`)."""
    out, todo, seen = [], [node], set()
    while todo:
        for x in _names(todo.pop()):
            out.append(x)
            name = block_of(x, system.letter) if isinstance(x, ast.Symbol) else None
            if name is not None and name in system.computed() and name not in seen:
                seen.add(name)
                todo.append(system.computed()[name][0])
    return out


def _reads_values(system: OnlineSystem, node: ast.Node, values: str) -> bool:
    return any(
        isinstance(x, ast.Symbol) and block_of(x, system.letter) == values
        for x in _expanded(system, node)
    )


_ONLINE_OPS = ("rowmax", "rowsum", "exp")


def _letters(system: OnlineSystem) -> tuple[str, str]:
    """The letters of the scores (S of `S^{(b)}`, inside rowmax, rowsum or an exponential) and
    of the values (V of `V_b`, every other block)."""
    fams = system.families.values()
    roots = [f.step for f in fams if f.step is not None] + [f.aux for f in fams if f.aux]
    roots += [node for node, _ in system.computed().values()]
    blocks: set[str] = set()
    inside: set[str] = set()
    for root in roots:
        for x in _names(root):
            name = _block_name(system, x)
            if name is not None:
                blocks.add(name)
            if (isinstance(x, ast.Call) and x.name in _ONLINE_OPS) or _is_exp(x):
                inside |= {n for y in _names(x) if (n := _block_name(system, y)) is not None}
    scores, values = blocks & inside, blocks - inside
    if len(scores) != 1 or len(values) != 1:
        raise Unread(
            f"the steps name the blocks {', '.join(sorted(blocks)) or 'of nothing'}: "
            "one block of scores and one of values were expected"
        )
    return scores.pop(), values.pop()


def _block_name(system: OnlineSystem, x: ast.Node) -> str | None:
    """S of `S^{(b)}`, `S_b` or `S_{i,b}`, V of `V_b`: a block no step or definition gives."""
    b = system.letter
    got = member(x)
    if got is not None and _head_is(got[2], b):
        return got[0] if got[0] not in system.families else None
    if isinstance(x, ast.Symbol) and got is None:
        name = block_of(x, b)
        if name is not None:
            return name if name not in system.computed() else None
        if isinstance(x.sub, ast.Seq) and len(x.sub.items) == 2:
            last = x.sub.items[1]
            if isinstance(last, ast.Symbol) and last.sub is None and last.name == b:
                return x.name
    return None


def _is_exp(x: ast.Node) -> bool:
    base = x.base if isinstance(x, ast.Power) else None
    return isinstance(base, ast.Symbol) and base.name == "e" and base.sub is None


def _decide(
    owner: Any,
    system: OnlineSystem,
    span: MathSpan,
    c: ast.Claim,
    side: ast.Node,
    other: ast.Node,
) -> ResolvedClaim:
    scores, values = _letters(system)
    fm, fl, fo = _roles(system, values)
    for name in (scores, values):
        defined = system.blocks.get((name, system.letter))
        if defined is not None:
            raise Unread(f"the text defines the block itself ({defined}), which is not read")
    rows = {f.row for f in (fm, fl, fo)}
    if len(rows) != 1:
        raise Unread("the steps are not all matrices or all rows of one index")
    row = rows.pop()
    target_node = other
    if row is not None:
        target_node = _row_of(other, row)
    try:
        target = owner.terms.term(target_node)
    except (Problem, ShapeError, *UNREAD) as exc:
        raise Unread(f"the right side is not read ({str(exc).splitlines()[0]})") from None
    S, V = _operand(target, scores), _operand(target, values)
    if not isinstance(target, MatExpr) or S is None or V is None or S.cols != V.rows:
        raise Unread(
            f"the other side does not name the scores {scores} and values {values} of the "
            "blocks as matrices whose keys agree"
        )
    count = _count_letter(system, side)
    aux = {k: f.aux for k, f in system.families.items() if f.aux is not None}
    partial = {k: node for k, (node, _) in system.computed().items()}
    base = tuple(_initial(f) for f in (fm, fl, fo))
    guesses: list[str] = []
    if target != Softmax(S) @ V:  # a mask or a scale: whether the blocks carry it is not said
        raise Unread(f"the other side is not softmax({scores}){values} of the blocks' matrices")

    def env(ops: Operands, seg: Segment | None, **kw: Any) -> Env:
        return Env(ops, seg, system.letter, row, scores, values, aux=aux, partial=partial, **kw)

    def stepped(ops: Operands, seg: Segment, cache: dict[str, Value], **kw: Any) -> Env:
        return dataclasses.replace(env(ops, seg, **kw), cache=cache)

    def step(ops: Operands, state: State, seg: Segment) -> State:
        old = _state(fm, fl, fo, state)
        cache: dict[str, Value] = {}
        m = _as(evaluate(fm.step, stepped(ops, seg, cache, old=old)), "row", fm)  # type: ignore[arg-type]
        new = {fm.letter: Value("row", m)}
        ell = _as(evaluate(fl.step, stepped(ops, seg, cache, old=old, new=new)), "row", fl)  # type: ignore[arg-type]
        new[fl.letter] = Value("row", ell)
        o = _as(evaluate(fo.step, stepped(ops, seg, cache, old=old, new=new)), "out", fo)  # type: ignore[arg-type]
        return (m, ell, o)

    def output(ops: Operands, state: State) -> sympy.Expr:
        final = _state(fm, fl, fo, state)
        return _as(evaluate(side, env(ops, None, final=final, count=count)), "out", None)

    # read once at the text's own operands, so that what is not read is said now
    probe = Segment(sympy.Integer(1), sympy.Integer(0), sympy.Integer(2))
    ops0 = {"S": S, "V": V}
    output(ops0, step(ops0, base, probe))
    key = "\n".join(
        [f.letter + ":" + f.base_text + ":" + f.step_text for f in (fm, fl, fo)]
        + [f"{k}:{f.step_text}" for k, f in sorted(system.families.items()) if f.aux]
        + [f"{k}_:{text}" for k, (_, text) in sorted(system.computed().items())]
        + [repr(S), repr(V), span.body[side.start : side.end], repr(target), str(row)]
    )
    # an output step that reads the new normaliser keeps the output normalised
    normalised = any(
        (got := member(x)) is not None and got[0] == fl.letter and _head_is(got[2], system.letter)
        for x in _names(fo.step)  # type: ignore[arg-type]
    )
    rec = written_online(key, S, V, base, step, output, target, normalised)
    words = system.text
    if words and not _BLOCKS.search(words):
        b = system.letter
        guesses.append(f"{scores}^{{({b})}} and {values}_{b} read as the blocks of keys")
    claim = new_claim(span, c.start, c.end, "pending", pairs=((Recurrent(rec, S, V), target),))
    if guesses:
        claim = dataclasses.replace(claim, premise="; ".join(dict.fromkeys(guesses)))
    return claim


def _row_of(node: ast.Node, row: str) -> ast.Node:
    """`(\\operatorname{softmax}(S)V)_i` -> the matrix in the brackets (row i of it is claimed)."""
    if isinstance(node, ast.IndexedGroup) and len(node.group.items) == 1:
        idx = node.index
        if isinstance(idx, ast.Symbol) and idx.sub is None and idx.name == row:
            return node.group.items[0]
    raise Unread(f"the other side is not row {row} of a matrix, (M)_{row}")


def _operand(target: sympy.Basic, name: str) -> MatSym | None:
    found = {x for x in walk(target) if isinstance(x, MatSym) and x.name == name}
    return found.pop() if len(found) == 1 else None


def _count_letter(system: OnlineSystem, side: ast.Node) -> str:
    heads = {
        h.name
        for x in _names(side)
        if (got := member(x)) is not None and isinstance(h := got[2], ast.Symbol)
    }
    if len(heads) != 1:
        raise Unread("the claim's members are not all at one count")
    return heads.pop()


def _initial(f: _Family) -> sympy.Expr:
    node = f.base
    if isinstance(node, ast.Neg) and isinstance(node.operand, ast.Symbol):
        if node.operand.name == "infty":
            return -sympy.oo
    if isinstance(node, ast.Number):
        return sympy.Rational(node.text)
    raise Unread(f"the initial value of {f.letter} ({f.base_text}) is not -\\infty or a number")


def _state(fm: _Family, fl: _Family, fo: _Family, state: State) -> dict[str, Value]:
    return {
        fm.letter: Value("row", state[0]),
        fl.letter: Value("row", state[1]),
        fo.letter: Value("out", state[2]),
    }


def _as(v: Value, kind: str, f: _Family | None) -> sympy.Expr:
    if v.kind != kind:
        what = f"the step of {f.letter}" if f is not None else "the claimed side"
        want = "a row's number" if kind == "row" else "a row of outputs"
        raise Unread(f"{what} is a {v.kind}, not {want}")
    return v.row()


assert ROLES == ("m", "ℓ", "O")
