"""The derivation behind a verdict: each side unfolded one named rule at a time; where they part.

Imports only the kernel below it (expr, proof, rules, derivation); must not import anything above
the kernel. It explains, it never decides: every line it shows is checked by `prove_equal`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from symattn.kernel.derivation import Derivation, Proof
from symattn.kernel.errors import ProofError, ShapeError
from symattn.kernel.expr import (
    Dot,
    Entry,
    Fresh,
    HeadSym,
    MatAdd,
    MatExpr,
    MatMul,
    MatSym,
    Row,
    Scale,
    Softmax,
    Transpose,
    expand_entries,
    index,
    walk,
)
from symattn.kernel.proof import Verdict, prove_equal, unfold
from symattn.kernel.rules import PHRASES, describe
from symattn.kernel.text import plain
from symattn.kernel.witness.evidence import Counterexample

#: How a line reads by its status; any other (agreed, unknown) is `=?`: shown, not established.
RELATION = {"proved": "=", "checked": "=", "false": "≠"}
_MAX_STEPS = 24  # a side unfolded further than this is left as it is: the verdict still stands


@dataclass(frozen=True)
class Line:
    """One line of an explanation: `before = after` by the rule `by`.

    `side` is "left" for a step that unfolds the left side, "right" for one that folds back
    into the right side (the right's own unfolding, read backwards), "meet" for the step that
    joins them; `holds` is the kernel's status of the step; `value` is the step's right-hand
    expression evaluated at the counterexample (a false claim only).
    """

    before: sympy.Basic
    after: sympy.Basic
    by: str
    side: str
    status: str
    value: sympy.Expr | None = None


@dataclass(frozen=True)
class Explanation:
    """What the kernel found for `lhs = rhs`, written out as a chain of named steps.

    >>> from symattn.kernel.attention import single_head
    >>> s = single_head(); i, j = sympy.symbols("i j", integer=True, positive=True)
    >>> e = explain(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)))
    >>> e.verdict.status, [x.by for x in e.lines]
    ('proved', ['mul_apply', 'transpose_apply', 'dot_def'])
    >>> bad = explain(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)))
    >>> bad.verdict.status, bad.parted
    ('false', 3)
    """

    lhs: sympy.Basic
    rhs: sympy.Basic
    verdict: Verdict
    lines: tuple[Line, ...]
    start_value: sympy.Expr | None = None
    differences: tuple[tuple[sympy.Basic, sympy.Basic], ...] = ()
    defs: Mapping[MatSym, MatExpr] | None = None

    @property
    def parted(self) -> int | None:
        """The 1-based number of the first line whose two sides differ (None: none does)."""
        for k, line in enumerate(self.lines, start=1):
            if line.status == "false":
                return k
        return None

    @property
    def agreed(self) -> int:
        """How many lines hold before the sides part (all of them for a true claim)."""
        p = self.parted
        return len(self.lines) if p is None else p - 1

    def derivation(self, title: str = "derivation") -> Derivation:
        """The chain as a `Derivation` (prove it, or add it to a section with `Builder.prove`)."""
        d = Derivation(self.lhs, title=title, defs=dict(self.defs or {}))
        for line in self.lines:
            d = d.step(line.after, by=line.by)
        return d

    def proof(self, title: str = "derivation") -> Proof | None:
        """The kernel's `Proof` of the chain, or None when a line is not proved for all sizes."""
        if any(line.status != "proved" for line in self.lines):
            return None
        try:
            return self.derivation(title).prove()
        except (ProofError, ShapeError):
            return None

    def __str__(self) -> str:
        out = [f"{plain(self.lhs)} = {plain(self.rhs)}: {self.verdict.summary()}"]
        out.append(f"    {plain(self.lhs)}" + _value(self.start_value))
        for line in self.lines:
            rel = RELATION.get(line.status, "=?")
            why = describe(line.by, "en")
            tail = f"    [{line.by}: {why}{_direction(line)}]"
            if line.status == "false":
                tail = "    [the two sides part here]"
            elif line.status not in RELATION:
                tail += f" (not proved: {line.status})"
            out.append(f"  {rel} {plain(line.after)}{tail}{_value(line.value)}")
        out.append(self.conclusion())
        return "\n".join(out)

    def conclusion(self, lang: str = "en") -> str:
        """One sentence: every step holds, or how far the sides agree and where they part."""
        p = self.parted
        zh = lang == "zh"
        if p is None:
            if self.verdict.ok:
                return "每一步都成立。" if zh else "Every step holds."
            return (
                "内核没有证明这一等式：" if zh else "The kernel did not prove the claim: "
            ) + self.verdict.reason
        diffs = "; ".join(f"{plain(a)} vs {plain(b)}" for a, b in self.differences)
        if zh:
            text = f"两边在前 {p - 1} 步一致，在第 {p} 步分开"
            return text + (f"：左边是 {diffs.replace(' vs ', '，右边是 ')}。" if diffs else "。")
        text = f"The two sides agree for {p - 1} step{'s' * (p != 2)} and part at step {p}"
        return text + (
            f": the left has {diffs.replace(' vs ', ' where the right has ')}." if diffs else "."
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form: the lines (text), where the sides part, the values there."""
        return {
            "status": self.verdict.status,
            "lhs": plain(self.lhs),
            "rhs": plain(self.rhs),
            "steps": [
                {
                    "from": plain(line.before),
                    "to": plain(line.after),
                    "rule": line.by,
                    "side": line.side,
                    "status": line.status,
                    "value": None if line.value is None else str(line.value),
                }
                for line in self.lines
            ],
            "agreed_steps": self.agreed,
            "parted_at": self.parted,
            "differences": [[plain(a), plain(b)] for a, b in self.differences],
            "conclusion": self.conclusion(),
        }


def _value(v: sympy.Expr | None) -> str:
    return "" if v is None else f"    (= {v} at the counterexample)"


def _direction(line: Line) -> str:
    return ", read right to left" if line.side == "right" and line.by not in PHRASES else ""


def explain(
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    *,
    defs: Mapping[MatSym, MatExpr] | None = None,
    assuming: Sequence[sympy.Basic] = (),
) -> Explanation:
    """Decide `lhs = rhs` and write out why: each side's entries unfolded by named rules
    (`mul_apply`, `transpose_apply`, `dot_def`, ...) until the two meet or part.

    The verdict is `prove_equal`'s, unchanged; each line is decided by `prove_equal` too.
    """
    verdict = prove_equal(lhs, rhs, defs=defs, assuming=assuming)
    if verdict.status == "shape_error":
        return Explanation(lhs, rhs, verdict, (), defs=defs)
    if isinstance(lhs, MatExpr) and isinstance(rhs, MatExpr):
        # two matrices are equal when every entry is: the derivation of entry (i, j), which
        # the kernel decides as it decides the matrices
        i, j = _free_pair(lhs, rhs, *(defs or {}).values())
        return explain(Entry(lhs, i, j), Entry(rhs, i, j), defs=defs, assuming=assuming)
    a, b = unfold(lhs, defs), unfold(rhs, defs)
    if isinstance(a, MatExpr) or isinstance(b, MatExpr):
        return Explanation(lhs, rhs, verdict, (), defs=defs)
    used = _symbols(lhs, rhs, a, b)  # each side names its own bound indices, as a reader would
    left = _unfolding(a, Fresh(used))
    right = _unfolding(b, Fresh(used))
    chain: list[tuple[sympy.Basic, sympy.Basic, str, str]] = []
    before = lhs
    if a != lhs:
        chain.append((lhs, a, "def", "left"))
        before = a
    for rule, term in left:
        chain.append((before, term, rule, "left"))
        before = term
    meet = right[-1][1] if right else b
    if meet != before:
        chain.append((before, meet, "algebra", "meet"))
        before = meet
    backwards = [b] + [t for _, t in right]
    for k in range(len(right) - 1, -1, -1):
        chain.append((backwards[k + 1], backwards[k], right[k][0], "right"))
    if b != rhs:
        chain.append((b, rhs, "def", "right"))
    lines = [_decided(x, y, by, side, defs, assuming) for x, y, by, side in chain]
    start, lines = _values(lhs, lines, verdict.counterexample, defs)
    differences = _differences(lines) if verdict.status == "false" else ()
    return Explanation(lhs, rhs, verdict, tuple(lines), start, differences, defs)


def _free_pair(*terms: sympy.Basic) -> tuple[sympy.Symbol, sympy.Symbol]:
    used = {x.name for x in _symbols(*terms)}
    names = (f"{letter}{k or ''}" for k in range(len(used) + 2) for letter in "ij")
    free = (x for x in names if x not in used)
    return index(next(free)), index(next(free))


def _symbols(*terms: sympy.Basic) -> set[sympy.Symbol]:
    return {x for t in terms for x in walk(t) if isinstance(x, sympy.Symbol)}


def _decided(x, y, by, side, defs, assuming) -> Line:
    return Line(x, y, by, side, prove_equal(x, y, defs=defs, assuming=assuming).status)


# ---- one rule at a time -----------------------------------------------------------------


def _unfolding(term: sympy.Basic, fresh: Fresh) -> list[tuple[str, sympy.Basic]]:
    """The terms met unfolding the first unexpanded entry, again and again, with the rule used."""
    out: list[tuple[str, sympy.Basic]] = []
    for _ in range(_MAX_STEPS):
        found = _first_entry(term)
        if found is None:
            break
        rule, value = _one_rule(found, fresh)
        term = term.xreplace({found: value})
        out.append((rule, term))
    return out


def _first_entry(term: sympy.Basic) -> sympy.Basic | None:
    for x in walk(term):
        if isinstance(x, (Entry, Dot)) and not _leaf_entry(x):
            return x
    return None


def _leaf_entry(x: sympy.Basic) -> bool:
    return isinstance(x, Entry) and isinstance(x.matrix, (MatSym, HeadSym))


def _cell(m: MatExpr, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
    """Entry (i, j) of m, left unexpanded unless m is a name (or a row of a name)."""
    if isinstance(m, Row) and isinstance(m.args[0], (MatSym, HeadSym)):
        return Entry(m.args[0], m.index, j)
    return Entry(m, i, j)


def _one_rule(e: sympy.Basic, fresh: Fresh) -> tuple[str, sympy.Expr]:
    """One rule applied to one entry (or dot product): the rule's name and the result."""
    if isinstance(e, Dot):
        u, v = e.args
        r = fresh(u.cols)
        one = sympy.Integer(1)
        return "dot_def", sympy.Sum(
            _cell(u, one, r, fresh) * _cell(v, one, r, fresh), (r, 1, u.cols)
        )
    m, i, j = e.args
    if isinstance(m, MatMul) and type(m.args[0]) in _PLAIN_FACTORS:
        a, b = m.args
        r = fresh(a.cols)
        return "mul_apply", sympy.Sum(_cell(a, i, r, fresh) * _cell(b, r, j, fresh), (r, 1, a.cols))
    if isinstance(m, Transpose):
        return "transpose_apply", _cell(m.args[0], j, i, fresh)
    if isinstance(m, MatAdd):
        return "add_apply", _cell(m.args[0], i, j, fresh) + _cell(m.args[1], i, j, fresh)
    if isinstance(m, Scale):
        return "smul_apply", expand_entries(m.scalar, fresh) * _cell(m.args[1], i, j, fresh)
    if isinstance(m, Softmax) and getattr(m.args[0], "nonempty", None) is None:
        s = m.args[0]
        k = fresh(s.cols)
        num = sympy.exp(_cell(s, i, j, fresh))
        return "softmax_apply", num / sympy.Sum(sympy.exp(_cell(s, i, k, fresh)), (k, 1, s.cols))
    if isinstance(m, Row):
        return "def", _cell(m.args[0], m.index, j, fresh)
    return "def", expand_entries(e, fresh)  # a node without a one-step rule: its definition


# factors whose product's entry is a plain sum (a concatenation's product sums over blocks)
_PLAIN_FACTORS = (MatSym, HeadSym, MatMul, MatAdd, Scale, Transpose, Row, Softmax)


# ---- the counterexample, step by step ------------------------------------------------------


def _values(
    lhs: sympy.Basic,
    lines: list[Line],
    cex: Counterexample | None,
    defs: Mapping[MatSym, MatExpr] | None,
) -> tuple[sympy.Expr | None, list[Line]]:
    """Each line's right-hand side evaluated at the counterexample; none at all unless the
    first agrees with the kernel's left value and the last with its right value."""
    if cex is None or not cex.exact or not lines:
        return None, lines
    at = _point(cex)
    start = _at(lhs, at, defs)
    values = [_at(line.after, at, defs) for line in lines]
    if start is None or None in values:
        return None, lines
    if start != _number(cex.lhs) or values[-1] != _number(cex.rhs):
        return None, lines
    out = [
        Line(x.before, x.after, x.by, x.side, x.status, v)
        for x, v in zip(lines, values, strict=True)
    ]
    return start, out


_NUMBER = re.compile(r"\s*-?\d+(?:\s*/\s*\d+)?\s*\Z")
_DECIMAL = re.compile(r"\s*-?\d*\.\d+(?:[eE][-+]?\d+)?\s*\Z")


def _number(text: object) -> sympy.Expr:
    """A value the kernel wrote as text (`-5`, `3/2`, `0.7310585786`), read as a number; never
    evaluates other text (a value that is not a plain number is NaN, which compares unequal)."""
    if isinstance(text, sympy.Basic):
        return text
    if isinstance(text, int):
        return sympy.Integer(text)
    t = str(text)
    if _NUMBER.match(t):
        return sympy.Rational(t.replace(" ", ""))
    if _DECIMAL.match(t):
        return sympy.Float(t.strip(), 30)
    return sympy.nan


def _point(cex: Counterexample) -> dict[str, dict]:
    entries: dict[tuple[str, tuple[int, ...]], sympy.Expr] = {}
    for key, value in cex.entries:
        name, _, rest = key.partition("[")
        idx = tuple(int(x) for x in rest.rstrip("]").split(",") if x.strip())
        entries[(name, idx)] = _number(value)
    scalars = {k: sympy.Integer(v) for k, v in (*cex.sizes, *cex.indices)}
    return {"scalars": scalars, "entries": entries}


def _at(term: sympy.Basic, at: dict[str, dict], defs) -> sympy.Expr | None:
    """The exact value of a scalar at the point, or None when it cannot be had exactly."""
    try:
        e = expand_entries(unfold(term, defs))
        e = e.xreplace(
            {s: at["scalars"][s.name] for s in e.free_symbols if s.name in at["scalars"]}
        )
        e = e.doit()
        e = e.replace(
            lambda x: isinstance(x, sympy.Indexed),
            lambda x: at["entries"].get(
                (str(x.base), tuple(int(k) for k in x.indices)), sympy.Integer(0)
            ),
        )
        e = sympy.nsimplify(sympy.simplify(e)) if e.has(sympy.exp) else sympy.simplify(e)
    except (TypeError, ValueError, AttributeError):
        return None
    return e if not e.free_symbols else None


# ---- where the two sides differ ------------------------------------------------------------


def _differences(lines: list[Line]) -> tuple[tuple[sympy.Basic, sympy.Basic], ...]:
    """The smallest parts in which the two sides of the parting line differ."""
    for line in lines:
        if line.status == "false":
            return tuple((_shown(a), _shown(b)) for a, b in _diff(line.before, line.after))[:4]
    return ()


def _shown(x: sympy.Basic) -> sympy.Basic:
    return x.matrix.entry(x.args[1], x.args[2]) if _leaf_entry(x) else x


def _diff(a: sympy.Basic, b: sympy.Basic) -> list[tuple[sympy.Basic, sympy.Basic]]:
    if a == b:
        return []
    if type(a) is not type(b) or len(a.args) != len(b.args) or not a.args:
        return [(a, b)]
    if isinstance(a, (sympy.Indexed, Entry)):
        return [(a, b)]
    pairs = [_diff(x, y) for x, y in zip(a.args, b.args, strict=True)]
    out = [p for ps in pairs for p in ps]
    return [(a, b)] if len(out) > 4 else out
