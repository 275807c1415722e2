"""Conditions on indices (`j > i`) and the claims they qualify, in one formula or across two.

Imports sympy, the kernel's expression nodes, the scanner's spans and `claims`; never the scope.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

import sympy

from symattn.kernel.dims import STANDARD_DIMS
from symattn.kernel.expr import Concat, MatSum
from symattn.kernel.text import plain
from symattn.reader.claims.number_hypotheses import apply_number_hypotheses
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["ORDER", "REL_TEXT", "attach_conditions", "attach_within", "rel_text"]

ORDER: dict[str, Any] = {
    "<": sympy.StrictLessThan,
    ">": sympy.StrictGreaterThan,
    "le": sympy.LessThan,
    "ge": sympy.GreaterThan,
}
_REL_SIGN = {"StrictLessThan": "<", "StrictGreaterThan": ">", "LessThan": "≤", "GreaterThan": "≥"}


def rel_text(r: sympy.Basic) -> str:
    sign = _REL_SIGN.get(type(r).__name__, "?")
    return f"{plain(r.args[0])} {sign} {plain(r.args[1])}"


REL_TEXT = {"le": "\\le", "ge": "\\ge", "neq": "\\neq", "approx": "\\approx", "lt": "<", "gt": ">"}


def _with_hypotheses(claim: ResolvedClaim, condition: ResolvedClaim) -> ResolvedClaim:
    new = tuple(x for x in condition.conditions if x is not sympy.true)
    return dataclasses.replace(claim, hypotheses=claim.hypotheses + new)


def _premise(condition: ResolvedClaim, where: str) -> ResolvedClaim:
    msg = f"{condition.message}: a premise of the claim {where}"
    return dataclasses.replace(condition, message=msg, attached=True)


def attach_within(claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
    """A condition after claims in the same formula (`a_{ij}=0 \\text{ for } j>i`,
    `a_{ij}=0,\\quad j>i`) is a premise of the claims before it, back to the last condition,
    that have its indices free (`\\sum_j a_{ij} = 1` is not qualified by `j > i`)."""
    out = list(claims)
    waiting: list[int] = []
    for k, c in enumerate(out):
        if c.conditions:
            target = [w for w in waiting if _qualifies(c, out[w])]
            if target:
                for w in target:
                    out[w] = _with_hypotheses(out[w], c)
                out[k] = _premise(c, "before it")
            waiting = []
        elif c.status == "pending":
            waiting.append(k)
    return out


def _qualifies(condition: ResolvedClaim, claim: ResolvedClaim) -> bool:
    """The condition's indices are all free in the claim (a premise about a bound index, or an
    index the claim does not mention, would say nothing about it)."""
    wanted: set[sympy.Basic] = set()
    for r in condition.conditions:
        wanted |= {x for x in r.free_symbols if not _is_dim_symbol(x)}
    have: set[sympy.Basic] = set()
    for lhs, rhs in claim.pairs:
        have |= _free_indices(lhs) | _free_indices(rhs)
    return bool(wanted) and wanted <= have


def _is_dim_symbol(x: sympy.Basic) -> bool:
    """Sizes in a condition (`j \\le n`) are not indices it must find free in the claim."""
    return not isinstance(x, sympy.Symbol) or x.name in STANDARD_DIMS or len(x.name) != 1


def _free_indices(e: sympy.Basic) -> set[sympy.Basic]:
    """The index symbols free in a kernel term: those of `sympy.Sum`, `MatSum` and `Concat`
    bodies are bound (`MatSum.free_symbols` would count its own index)."""
    out: set[sympy.Basic] = set()
    stack: list[tuple[sympy.Basic, frozenset[sympy.Basic]]] = [(e, frozenset())]
    while stack:
        x, bound = stack.pop()
        if isinstance(x, sympy.Symbol):
            if x not in bound:
                out.add(x)
            continue
        if isinstance(x, MatSum):
            stack.append((x.body, bound | {x.var}))
            stack.extend((a, bound) for a in x.args[2:])
            continue
        if isinstance(x, Concat):
            stack.append((x.body, bound | {x.head}))
            stack.append((x.count, bound))
            continue
        if isinstance(x, sympy.Sum):
            inner = bound | {lim[0] for lim in x.limits}
            stack.append((x.function, inner))
            for lim in x.limits:
                stack.extend((a, bound) for a in lim[1:])
            continue
        stack.extend((a, bound) for a in x.args)
    return out


_DELIMS = re.compile(r"\\(?:begin|end)\{[A-Za-z*]+\}|\$|\\[()\[\]]")
_AFTER = re.compile(
    r"^[\s,，;；]*(?:for(?:\s+(?:all|every|each|any))?|if|when|whenever|where|with|given|"
    r"provided(?:\s+that)?|当|若|如果|其中|在|对(?:于)?(?:所有|任意|任何|每个|每一个)?)[\s:：,，]*$",
    re.IGNORECASE,
)
_BEFORE = re.compile(
    r"(?:\bfor(?:\s+(?:all|every|each|any))?|\bif|\bwhen|\bwhenever|\bgiven|\bassuming|"
    r"\bsuppose|\blet|当|若|如果|对于|假设|设)\s*$",
    re.IGNORECASE,
)
_THEN = re.compile(
    r"^\s*[)）]?\s*(?:时|的时候)?\s*[,，:：]?\s*(?:then|we have|有)?\s*[,，:：]?\s*$", re.IGNORECASE
)


def attach_conditions(items: Sequence[Any], text: str) -> list[Any]:
    """Join conditions written in their own formula to the claim they qualify.

    `$a_{ij}=0$ for $j>i$` (after the claim, joined by for / if / when / where / with / given,
    or 当, 若, 如果), and `for $j>i$, $a_{ij}=0$` or `当 $j>i$ 时，$a_{ij}=0$` (before it). A
    condition that qualifies no claim is reported as not understood: it says so, rather than
    leaving the claim checked without it. `items` are the resolver's claims in file order (other
    objects pass through); `text` is the document they were read from.
    """
    out = list(items)
    spans: list[tuple[MathSpan, list[int]]] = []
    for k, c in enumerate(out):
        if not isinstance(c, ResolvedClaim):
            continue
        if spans and spans[-1][0] is c.span:
            spans[-1][1].append(k)
        else:
            spans.append((c.span, [k]))
    apply_number_hypotheses(out, spans, text)
    _mark_hypotheses(out, spans, text)
    for s_idx, (span, idxs) in enumerate(spans):
        for k in idxs:
            c = out[k]
            if not c.conditions or c.attached:
                continue
            target: list[int] = []
            where = "before it"
            if s_idx > 0 and idxs[0] == k:
                prev_span, prev = spans[s_idx - 1]
                if _AFTER.match(_gap(text, prev_span, span)):
                    target = [p for p in prev if out[p].status == "pending"]
                    target = [p for p in target if _qualifies(c, out[p])]
            if not target and s_idx + 1 < len(spans) and idxs[-1] == k:
                next_span, nxt = spans[s_idx + 1]
                before = _text_before(text, spans[s_idx - 1][0] if s_idx else None, span)
                if _BEFORE.search(before) and _THEN.match(_gap(text, span, next_span)):
                    target = [p for p in nxt if out[p].status == "pending"]
                    target = [p for p in target if _qualifies(c, out[p])]
                    where = "after it"
            if target:
                for p in target:
                    out[p] = _with_hypotheses(out[p], c)
                out[k] = _premise(c, where)
            elif not _near_claim(out, spans, s_idx, c):
                # `\mathbf x_i \in \mathbb R^d ($1 \le i \le n$)`: the range of an index the
                # text speaks of, beside no claim about it: context, not a claim
                msg = f"{c.message}: an index range in the prose, context (not a claim)"
                out[k] = dataclasses.replace(c, status="declared", message=msg, conditions=())
            else:
                msg = (
                    f"{c.message}: not joined to a claim; write it in the claim's formula "
                    "(a_{ij}=0 \\text{ for } j>i) or right after it ($a_{ij}=0$ for $j>i$)"
                )
                out[k] = dataclasses.replace(c, status="not_understood", message=msg)
    return out


def _near_claim(
    out: list[Any], spans: Sequence[tuple[MathSpan, list[int]]], s_idx: int, c: ResolvedClaim
) -> bool:
    """Whether a claim to check, in the condition's formula or the formulas just before and
    after it, names one of the condition's indices: the condition may qualify it, so it is
    not mere context (it is reported as not joined)."""
    letters: set[sympy.Basic] = set()
    for rel in c.conditions:
        letters |= {x for x in getattr(rel, "free_symbols", set()) if str(x) not in STANDARD_DIMS}
    for near in range(max(0, s_idx - 1), min(len(spans), s_idx + 2)):
        for p in spans[near][1]:
            claim = out[p]
            if claim is c or claim.status not in ("pending", "shape"):
                continue
            names: set[sympy.Basic] = set()
            for lhs, rhs in claim.pairs:
                names |= _index_symbols(lhs) | _index_symbols(rhs)
            if not claim.pairs or names & letters:
                return True
    return False


def _index_symbols(term: Any) -> set[sympy.Basic]:
    found: set[sympy.Basic] = set()
    stack = [term]
    while stack:
        x = stack.pop()
        if isinstance(x, sympy.Symbol):
            found.add(x)
        stack.extend(getattr(x, "args", ()))
    return found


_HYPOTHESIS = re.compile(
    r"(?:\bsuppose|\bassume|\blet|\bif|\bwhenever|假设|设|令|若|如果)(?:\s+that)?\s*$"
    r"|(?:\bif\s+(?:we|you|one)\s+(?:set|take|choose|let|write)|\bsetting|\btaking|\bchoosing"
    r"|\binstead\s+of\s+(?:saying|writing))\s*$",
    re.IGNORECASE,
)
#: The cues of a supposition the text does not assert: what does not typecheck after them is
#: not an error of the text (`If we set $X = V = K = Q$`, with V and K of different widths).
#: `let` / 设 / 令 introduce definitions, whose shape errors stay errors.
_SUPPOSITION = re.compile(r"^(?!let\b|设|令)", re.IGNORECASE)


def _mark_hypotheses(
    out: list[Any], spans: Sequence[tuple[MathSpan, list[int]]], text: str
) -> None:
    r"""`suppose $\mathbf k_i=\mathbf v_i$`: an identity written after suppose / assume / let /
    if / 假设 / 设 (and the like) is a hypothesis the text makes, not a claim it asserts; it is
    a premise and is not checked (it would be a false alarm to call it false)."""
    for s_idx, (span, idxs) in enumerate(spans):
        before = _text_before(text, spans[s_idx - 1][0] if s_idx else None, span)
        m = _HYPOTHESIS.search(before)
        if m is None:
            continue
        cue = m.group().strip()
        for k in idxs:
            c = out[k]
            if c.status == "pending" and not c.conditions:
                msg = f"a hypothesis (after '{cue}'): assumed, not checked"
                out[k] = dataclasses.replace(c, status="declared", message=msg, pairs=())
            elif c.status == "shape_error" and _SUPPOSITION.match(cue):
                msg = f"a supposition (after '{cue}') that does not typecheck here: {c.message}"
                out[k] = dataclasses.replace(c, status="not_understood", message=msg)


def _end_offset(text: str, span: MathSpan) -> int:
    return span.end


def _gap(text: str, a: MathSpan, b: MathSpan) -> str:
    return _DELIMS.sub("", text[_end_offset(text, a) : b.start.offset])


def _text_before(text: str, prev: MathSpan | None, span: MathSpan) -> str:
    start = _end_offset(text, prev) if prev is not None else 0
    line_start = text.rfind("\n", 0, span.start.offset) + 1
    return _DELIMS.sub("", text[max(start, line_start) : span.start.offset])
