"""The text's hypotheses about numbers (`assume $F = 4D$ and $D = NH$`, `with $D = 8192$`, 设
$d = 512$, `assume $N H = D$`): in force for the later claims of their paragraph, or of
the answer to the question they are stated in. Imports the resolved claims only."""

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
    r"|\bwhen|\bwhenever|\b(?:e\.g\.,?\s+)?for|假设|设|令|取|若|如果|当)(?:\s+that)?\s*$",
    re.IGNORECASE,
)
#: Between two hypotheses of one sentence: `assume $F = 4D$ and $D = NH$`.
_AND = re.compile(r"^\s*(?:,|and|与|和|且|、|，)?\s*(?:,|and|与|和|且|、|，)\s*$", re.IGNORECASE)
_DELIMS = re.compile(r"\$|\\[()\[\]]")
#: Between a claim and the condition after it, in one sentence: `$$claim$$ when $NH = D$`.
_WHEN = re.compile(
    r"^[,，]?\s*(when|whenever|if|provided(?:\s+that)?|given|for|with|where|assuming"
    r"|as\s+long\s+as|当|若|如果|其中)\s*[:：,，]?$",
    re.IGNORECASE,
)
_ROUNDS = 4


#: A sentence that asks (`How many parameters does a model with $D=4096$ have?`): its
#: hypotheses hold for the answer after it, up to the next question or heading.
_ASKS = re.compile(r"[?？](?:\s|\*|$)")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S)
_HEADING = re.compile(r"\n(?:#{1,6}\s|\\(?:sub)*section\*?\{)")
#: A paragraph that asks the next question (`**Question 2:** ... ?`).
_NEXT_QUESTION = re.compile(r"\n\s*\n(?=[^\n]*[?？])")


@dataclasses.dataclass(frozen=True)
class _Hypothesis:
    name: str
    value: sympy.Expr
    line: int
    #: the offset where its paragraph ends
    end: int
    source: str
    #: `N \cdot H = D`: a relation between names (`value` is then its left side minus its
    #: right side, 0 under the hypothesis), used by solving it for a name of the claim
    relation: bool = False


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
    taken: set[int] = set()
    for at, (span, idxs) in enumerate(spans):
        if at in taken:
            prev = span
            continue
        held = [h for h in held if span.start.offset < h.end]
        idxs, within = _conditions_within(out, idxs, span)
        for k, h, word in within:
            msg = f"a condition of the claim before it (after '{word}'): {_shown(h)}, not checked"
            out[k] = dataclasses.replace(out[k], status="declared", message=msg, pairs=())
        if within:
            # `$$claim \quad \text{when } NH = D$$`: a premise of the claims before it
            for k in idxs:
                out[k] = _premised(_under(out[k], [*held, *(h for _, h, _ in within)]), within)
            prev = span
            continue
        after = _conditions_after(out, spans, at, text)
        if after:
            # `$$claim$$ when $N H = D$ and $F = 4D$`: a premise of that claim only
            taken |= {x for x, _, _ in after}
            conds = [h for _, got, _ in after for _, h in got]
            for _, got, word in after:
                for k, h in got:
                    msg = (
                        f"a condition of the claim before it (after '{word}'): {_shown(h)}, "
                        "not checked"
                    )
                    out[k] = dataclasses.replace(out[k], status="declared", message=msg, pairs=())
            flat = [(k, h, w) for _, got, w in after for k, h in got]
            for k in idxs:
                out[k] = _premised(_under(out[k], [*held, *conds]), flat)
            prev = span
            continue
        before = _before(text, prev, span)
        cue = _CUE.search(before)
        continued = prev_was and _AND.match(before) is not None
        prev_was = False
        if cue is not None or continued:
            word = cue.group().strip() if cue is not None else "and"
            found = [(k, _hypothesis(out[k], span, text)) for k in idxs]
            if found and all(h is not None for _, h in found):
                for k, maybe in found:
                    assert maybe is not None
                    h = maybe
                    held.append(h)
                    reach = "end of its paragraph"
                    if h.end > _paragraph_end(text, span.end):
                        reach = "answer to the question it is asked in"
                    msg = (
                        f"a hypothesis (after '{word}'): {_shown(h)}, in force to the {reach}, "
                        "not checked"
                    )
                    out[k] = dataclasses.replace(out[k], status="declared", message=msg, pairs=())
                prev, prev_was = span, True
                continue
            # `with $D=4096$, $V=32,000$, and $L=64$`: an item of the list the text defined
            # already, or cannot read, does not end the list
            prev_was = all(_in_list(out[k]) for k in idxs)
            if prev_was:
                prev = span
                continue
        if held:
            for k in idxs:
                out[k] = _under(out[k], held)
        prev = span


def _conditions_after(
    out: list[Any], spans: Sequence[tuple[MathSpan, list[int]]], at: int, text: str
) -> list[tuple[int, list[tuple[int, _Hypothesis]], str]]:
    """The formulas right after the one at `at`, in its sentence, that state a condition of
    it: `$$claim$$ when $N H = D$ and $F = 4D$` (after when / if / provided / given / for /
    with / where / 当, then after `and` or a comma); each with its hypotheses and its cue."""
    got: list[tuple[int, list[tuple[int, _Hypothesis]], str]] = []
    if not any(out[k].status == "pending" for k in spans[at][1]):
        return got
    prev = spans[at][0]
    for nxt in range(at + 1, min(len(spans), at + 5)):
        span, idxs = spans[nxt]
        gap = " ".join(_DELIMS.sub(" ", text[prev.end : span.start.offset]).split())
        cue = _WHEN.match(gap) if not got else None
        if cue is None and not (got and _AND.match(gap)):
            break
        found = [(k, _hypothesis(out[k], span, text)) for k in idxs]
        if not found or any(h is None for _, h in found):
            break
        word = cue.group(1) if cue is not None else "and"
        got.append((nxt, [(k, h) for k, h in found if h is not None], word))
        prev = span
    return got


#: What only sets a condition apart inside a formula: `\quad`, `\text{when }`, `\,`.
_LAYOUT = re.compile(r"\\(?:text|mathrm|textrm|mbox|quad|qquad)\b|\\[,;: !]|[{}&~]")


def _premised(c: ResolvedClaim, conds: list[tuple[int, _Hypothesis, str]]) -> ResolvedClaim:
    """A claim its conditions do not speak of as the checker reads it (no name of theirs was
    replaced: a claim about matrices, or about other names): a `false` would drop them, so it
    is undecided, naming them."""
    if c.status != "pending" or c.premise or any(_shown(h) in c.context for _, h, _ in conds):
        return c
    theirs = {x.name for _, h, _ in conds for x in h.value.free_symbols} | {
        h.name for _, h, _ in conds if h.name
    }
    if not theirs & _names(c):
        return c  # a condition on names the claim does not use restricts nothing in it
    return dataclasses.replace(c, premise="; ".join(h.source for _, h, _ in conds))


def _names(c: ResolvedClaim) -> set[str]:
    """The names of a claim's sides and of the sizes of its matrices."""
    out: set[str] = set()
    for pair in c.pairs:
        for t in pair:
            out |= {x.name for x in getattr(t, "free_symbols", set()) if hasattr(x, "name")}
            for m in t.atoms(MatExpr) if isinstance(t, sympy.Basic) else ():
                for d in m.shape:
                    out |= {x.name for x in sympy.sympify(d, strict=True).free_symbols}
    return out


def _conditions_within(
    out: list[Any], idxs: list[int], span: MathSpan
) -> tuple[list[int], list[tuple[int, _Hypothesis, str]]]:
    r"""`$$claim \quad \text{when } NH = D, F = 4D$$`, `x = 1 \text{ if } T = 2D`: the claims
    of a formula after a condition word written in it, when each one is an equation between
    numbers; returns the claims before the word and those conditions (none: all the claims)."""
    for n, k in enumerate(idxs[1:], start=1):
        word = _WHEN.match(_gap(span, out[idxs[n - 1]], out[k]))
        if word is None:
            continue
        if not any(out[j].status == "pending" for j in idxs[:n]):
            break
        found: list[tuple[int, _Hypothesis, str]] = []
        for m, j in enumerate(idxs[n:], start=n):
            if m > n and not _AND.match(_gap(span, out[idxs[m - 1]], out[j])):
                return idxs, []
            h = _hypothesis(out[j], span, "")
            if h is None:
                return idxs, []
            found.append((j, h, word.group(1) if m == n else "and"))
        return idxs[:n], found
    return idxs, []


def _gap(span: MathSpan, a: ResolvedClaim, b: ResolvedClaim) -> str:
    return " ".join(_LAYOUT.sub(" ", span.body[a.end : b.start]).split())


def _before(text: str, prev: MathSpan | None, span: MathSpan) -> str:
    """The words before `span` in its paragraph, after the formula before it."""
    para = text.rfind("\n\n", 0, span.start.offset)
    start = max(para + 2 if para >= 0 else 0, prev.end if prev is not None else 0)
    return " ".join(_DELIMS.sub(" ", text[start : span.start.offset]).split())


def _in_list(c: ResolvedClaim) -> bool:
    """An item of a list of hypotheses that is none itself: a number the text defines
    (`V = 32,000`, read as its definition) or a formula the checker cannot read."""
    if c.status == "declared":
        return c.message.startswith("defines ")
    return c.status == "not_understood"


def _shown(h: _Hypothesis) -> str:
    if h.relation:
        sides = re.split(r"==?", h.source, maxsplit=1)
        return " = ".join(" ".join(x.split()) for x in sides)
    return f"{h.name} = {h.value}"


def _hypothesis(c: ResolvedClaim, span: MathSpan, text: str) -> _Hypothesis | None:
    """`F = 4D`, `D = 8192`: a pending claim whose left side is a name the right side does not
    use, both numbers; `N H = D`: a relation between numbers only, linear in one of
    its names (solved for a name of the claim it is used in)."""
    if c.status != "pending" or c.conditions or len(c.pairs) != 1 or c.split:
        return None
    lhs, rhs = c.pairs[0]
    if isinstance(lhs, MatExpr) or isinstance(rhs, MatExpr):
        return None
    if not isinstance(rhs, sympy.Expr) or not isinstance(lhs, sympy.Expr):
        return None
    if any(not isinstance(x, sympy.Symbol) for x in lhs.free_symbols | rhs.free_symbols):
        return None
    line = span.start.line + span.body[: c.start].count("\n")
    end = _reach(text, span)
    if isinstance(lhs, sympy.Symbol) and lhs not in rhs.free_symbols:
        return _Hypothesis(lhs.name, rhs, line, end, c.source)
    gap = sympy.expand(lhs - rhs)
    if gap == 0 or not any(_solvable(gap, x) for x in gap.free_symbols):
        return None
    return _Hypothesis("", gap, line, end, c.source, relation=True)


def _solvable(gap: sympy.Expr, x: sympy.Symbol) -> bool:
    """`gap = 0` is linear in `x`, with a coefficient free of `x` that no positive size zeroes
    (`N H - D` in N: the coefficient H)."""
    poly = sympy.Poly(gap, x) if gap.is_polynomial(x) else None
    if poly is None or poly.degree() != 1:
        return False
    coeff = poly.coeff_monomial(x)
    return bool(coeff.is_positive or coeff.is_negative)


def _reach(text: str, span: MathSpan) -> int:
    """Where a hypothesis stated in `span` stops: the end of its paragraph; or, when its
    paragraph asks a question (`How many parameters does a model with $D=4096$ have? You
    can assume $N H = D$.`), the end of the answer: the next paragraph that asks one,
    or the next heading."""
    end = _paragraph_end(text, span.end)
    para = text.rfind("\n\n", 0, span.start.offset)
    words = _MATH.sub(" ", text[para + 2 if para >= 0 else 0 : end])
    if not _ASKS.search(words):
        return end
    found = [_HEADING.search(text, end), _NEXT_QUESTION.search(text, end)]
    return min((m.start() for m in found if m is not None), default=len(text))


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
    solved: dict[int, tuple[sympy.Symbol, sympy.Expr]] = {}
    for _ in range(_ROUNDS):
        names = {s.name: s for p in pairs for x in p for s in x.free_symbols}
        table = {}
        for h in held:
            if h.relation:
                got = solved.get(id(h)) or _solved(h, names, held)
                if got is not None and got[0].name in names:
                    solved[id(h)] = got
                    table[names[got[0].name]] = got[1]
                    if h not in used:
                        used.append(h)
                continue
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
    shown = ", ".join(f"{_shown(h)} (line {h.line})" for h in used)
    given = f"given {shown}, as the text assumes"
    context = f"{given}; {c.context}" if c.context else given
    out = dataclasses.replace(c, pairs=pairs, context=context)
    if any(h.relation for h in used) and not c.defines:
        # solved for one name, the relation makes it a fraction of the others: a claim that
        # fails so may hold at the whole numbers the text means
        why = f"under {shown} the claim fails, but the sizes the text means may be related further"
        out = dataclasses.replace(out, defines=why)
    return out


def _solved(
    h: _Hypothesis, names: dict[str, sympy.Symbol], held: list[_Hypothesis]
) -> tuple[sympy.Symbol, sympy.Expr] | None:
    """`N H - D = 0` solved for a name the claim uses (one written alone on a side first),
    with the values of the other hypotheses in force put in (`D = 4096`); spelled with the
    claim's symbols."""
    gap = h.value.xreplace({s: names[s.name] for s in h.value.free_symbols if s.name in names})
    values = {x.name: x.value for x in held if not x.relation}
    table = {s: values[s.name] for s in gap.free_symbols if s.name in values}
    gap = sympy.expand(gap.xreplace(table))
    mine = [s for s in gap.free_symbols if s in set(names.values()) and _solvable(gap, s)]
    alone = [s for s in mine if gap.coeff(s).is_number]
    for x in [*sorted(alone, key=str), *sorted(set(mine) - set(alone), key=str)]:
        coeff = gap.coeff(x)
        return x, sympy.cancel(-(gap - coeff * x) / coeff)
    return None
