"""The text's hypotheses about numbers (`assume $F = 4D$ and $D = NH$`, `with $D = 8192$`, 设
$d = 512$): in force for the later claims of their paragraph. Imports the resolved claims only."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["apply_number_hypotheses"]

#: The words that make the equation after them a hypothesis about numbers.
_CUE = re.compile(
    r"(?:\bassume|\bassuming|\bsuppose|\bwith|\bif|\bgiven|\btakes?|\btaking|\bsetting|\bset"
    r"|假设|设|令|取|若|如果|当)(?:\s+that)?\s*$",
    re.IGNORECASE,
)
#: Between two hypotheses of one sentence: `assume $F = 4D$ and $D = NH$`.
_AND = re.compile(r"^\s*(?:,|and|与|和|且|、|，)?\s*(?:,|and|与|和|且|、|，)\s*$", re.IGNORECASE)
_DELIMS = re.compile(r"\$|\\[()\[\]]")
_ROUNDS = 4


@dataclasses.dataclass(frozen=True)
class _Hypothesis:
    name: str
    value: sympy.Expr
    line: int
    #: the offset where its paragraph ends
    end: int
    source: str


def apply_number_hypotheses(
    out: list[Any], spans: Sequence[tuple[MathSpan, list[int]]], text: str
) -> None:
    """Mark each hypothesis about a number (a name equal to a value, after assume / with /
    if / 设 / 令, or after `and` that follows one) as the text's, not checked, and read the
    later claims of its paragraph with the name replaced by its value: a claim that holds
    under it is verified, saying so; one that fails under it fails as written too (replacing
    a name by a value keeps an identity), so the verdict stands, naming the values."""
    if not text:
        return
    held: list[_Hypothesis] = []
    prev: MathSpan | None = None
    prev_was = False
    for span, idxs in spans:
        held = [h for h in held if span.start.offset < h.end]
        before = _before(text, prev, span)
        cue = _CUE.search(before)
        continued = prev_was and _AND.match(before) is not None
        prev_was = False
        if cue is not None or continued:
            word = cue.group().strip() if cue is not None else "and"
            found = [(k, _hypothesis(out[k], span, text)) for k in idxs]
            if found and all(h is not None for _, h in found):
                for k, h in found:
                    assert h is not None
                    held.append(h)
                    msg = (
                        f"a hypothesis (after '{word}'): {h.name} = {h.value}, in force to the "
                        "end of its paragraph, not checked"
                    )
                    out[k] = dataclasses.replace(out[k], status="declared", message=msg, pairs=())
                prev, prev_was = span, True
                continue
        if held:
            for k in idxs:
                out[k] = _under(out[k], held)
        prev = span


def _before(text: str, prev: MathSpan | None, span: MathSpan) -> str:
    """The words before `span` in its paragraph, after the formula before it."""
    para = text.rfind("\n\n", 0, span.start.offset)
    start = max(para + 2 if para >= 0 else 0, prev.end if prev is not None else 0)
    return " ".join(_DELIMS.sub(" ", text[start : span.start.offset]).split())


def _hypothesis(c: ResolvedClaim, span: MathSpan, text: str) -> _Hypothesis | None:
    """`F = 4D`, `D = 8192`: a pending claim whose left side is a name the right side does not
    use, both numbers."""
    if c.status != "pending" or c.conditions or len(c.pairs) != 1 or c.split:
        return None
    lhs, rhs = c.pairs[0]
    if not isinstance(lhs, sympy.Symbol) or isinstance(rhs, MatExpr):
        return None
    if not isinstance(rhs, sympy.Expr) or lhs in rhs.free_symbols:
        return None
    if any(not isinstance(x, sympy.Symbol) for x in rhs.free_symbols):
        return None
    line = span.start.line + span.body[: c.start].count("\n")
    return _Hypothesis(lhs.name, rhs, line, _paragraph_end(text, span.end), c.source)


def _paragraph_end(text: str, at: int) -> int:
    """Where the paragraph at `at` ends; a paragraph whose sentence goes on (it ends with a
    colon, or with no stop at all) into a display goes on with it (`assume $F = 4D$ (as is
    typical):` and the display below)."""
    end = text.find("\n\n", at)
    for _ in range(2):
        if end < 0:
            break
        last = text[:end].rstrip().rstrip("$").rstrip()
        start = end + 2
        while start < len(text) and text[start] in " \t\n":
            start += 1
        display = text.startswith(("$$", "\\[", "\\begin"), start)
        if not display or last.endswith((".", "!", "?", "。", "！", "？", ";", "；")):
            break
        end = text.find("\n\n", start)
    return end if end >= 0 else len(text)


def _under(c: ResolvedClaim, held: list[_Hypothesis]) -> ResolvedClaim:
    """`c` with the names of the hypotheses in force replaced by their values, named."""
    if c.status != "pending" or not c.pairs or c.split:
        return c
    if any(isinstance(x, MatExpr) or not isinstance(x, sympy.Expr) for p in c.pairs for x in p):
        return c
    pairs = c.pairs
    used: list[_Hypothesis] = []
    for _ in range(_ROUNDS):
        names = {s.name: s for p in pairs for x in p for s in x.free_symbols}
        table = {}
        for h in held:
            if h.name in names and names[h.name] not in table:
                # the value's names as the claim spells them (one symbol per name)
                value = h.value.xreplace(
                    {s: names[s.name] for s in h.value.free_symbols if s.name in names}
                )
                table[names[h.name]] = value
                if h not in used:
                    used.append(h)
        if not table:
            break
        pairs = tuple((a.xreplace(table), b.xreplace(table)) for a, b in pairs)
    if not used:
        return c
    shown = ", ".join(f"{h.name} = {h.value} (line {h.line})" for h in used)
    given = f"given {shown}, as the text assumes"
    context = f"{given}; {c.context}" if c.context else given
    return dataclasses.replace(c, pairs=pairs, context=context)
