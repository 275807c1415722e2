"""Shape errors that rest on the chapter's conventional shapes where the text departs from them.
Imports the kernel's dims and the reader's claims and scope; never the resolver, check or CLI."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection

from symattn.kernel.dims import shape_str
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.conventions import CONVENTIONS
from symattn.reader.terms.scope import Name, Scope

__all__ = ["arguments", "rebound", "unconfirmed"]

_ILL = ("shape_error", "internal_error")
#: the arguments of attention: every attention text writes `\\operatorname{softmax}(QK^T)V` with
#: them, so their conventional shapes (queries and keys of one width) are never only a guess
_ATTENTION = frozenset({"Q", "K", "V"})


_PRODUCT = re.compile(r"^cannot multiply (\S+) \([^)]*\) by (\S+) \(")


def _paired(claims: list[ResolvedClaim], guessed: set[str], conv: dict[str, Name]) -> set[str]:
    """The two factors of a product that does not typecheck, both among `guessed`, when it is
    a weight (`W_K`) times a matrix whose rows are the chapter's tokens (`X`, n × d): the text
    writes its tokens as columns. `XA` (n × d by n × n) is no such product."""
    out: set[str] = set()
    tokens = CONVENTIONS["X"][0]
    for c in claims:
        m = _PRODUCT.match(c.message) if c.status == "shape_error" else None
        if m is None or not {m.group(1), m.group(2)} <= guessed:
            continue
        right = conv.get(m.group(2))
        if m.group(1).startswith("W") and right is not None and right.shape[0] == tokens:
            out |= {m.group(1), m.group(2)}
    return out


def _name_pattern(name: str) -> str:
    r"""`W_O` also as `W_{O}`, `W^O`, `\mathbf{W}_O`: the letter, then the label if any."""
    letter, _, label = name.partition("_")
    pat = rf"(?<![a-z\\]){letter}(?![a-z])"
    return pat + (rf"[}}\s]*[_^]\{{?\s*{label}" if label else "")


def unconfirmed(
    scope: Scope, claims: list[ResolvedClaim], again: Callable[[], list[ResolvedClaim]]
) -> list[ResolvedClaim]:
    """A shape error is the text's only if it holds for the shapes the text gives.

    A conventional name is the text's own when the text declares it, or when a formula of
    the text (this one too: `XW_Q` in `XW_Q \\in \\mathbb R^{n\\times d_v}`) combines it in a
    product or a sum that typechecks with its conventional shape. In a text that declares
    some of the chapter's names with shapes of its own (`V \\in \\mathbb R^{m\\times d_v}`), the
    others' conventional shapes are only a guess: a shape error among them is read `again`
    without the unconfirmed ones (they then have no shape), and if it is no shape error then,
    it is undecided, saying why. A text that never departs, and declares one of them with its
    conventional shape (`Scope.conforms`), keeps the chapter's conventions; one that declares
    none keeps them too, except for the shapes texts vary on (`Scope.VARIES`: W_O, Z, O); Q, K
    and V, the arguments of attention, always keep theirs. The chapter's head families
    (`Z^(h)`, n × d_v) are guesses the same way in a text that departs.
    """
    # a declaration of an earlier section that this formula was read without too
    # (`Resolver._earlier_declarations`) may not hold here: no evidence of a departure
    departed = {k: e for k, e in scope.departures().items() if k not in scope.read_both}
    conv, families = scope.layers[0].names, scope.layers[0].families
    confirmed = scope.confirmed | _ATTENTION
    # head families too (`Z^(h)`, n × d_v): the heads' width is the text's to say
    guessed = sorted(
        k
        for k in scope.conventional_reads
        if (k in conv or k.removesuffix("^(h)") in families) and k not in confirmed
    )
    if not departed and scope.conforms():
        return claims  # a text that speaks the chapter's dialect keeps its conventions
    if not departed:  # a text that declares none of them: the shapes texts vary on, and the
        # layout of a weight applied from the left to the tokens, names it never declares
        # (`W_K X`: its tokens may be X's columns, where the chapter's are its rows)
        paired = _paired(claims, set(guessed), conv)
        guessed = [k for k in guessed if k in scope.VARIES or k in paired]
    if not guessed:
        return claims
    taken = {
        k: (families if k.endswith("^(h)") else conv).pop(k.removesuffix("^(h)")) for k in guessed
    }
    confirming, scope.confirming = scope.confirming, False
    try:
        twins = again()
    finally:
        for k, entry in taken.items():
            (families if k.endswith("^(h)") else conv)[k.removesuffix("^(h)")] = entry
        scope.confirming = confirming
    own = ", ".join(
        f"{k} as {shape_str(e.shape)} (line {e.line})" for k, e in sorted(departed.items())
    )
    own = f"the text declares {own}" if own else "the text declares none of the chapter's names"
    out = []
    for c in claims:
        twin = next((t for t in twins if (t.start, t.end) == (c.start, c.end)), None)
        if c.status != "shape_error" or twin is None or twin.status in _ILL:
            out.append(c)
            continue
        body = c.span.body[c.start : c.end]
        shown = [k for k in guessed if re.search(_name_pattern(k.removesuffix("^(h)")), body)]
        shown = shown or guessed
        names = ", ".join(f"{k} ({shape_str(taken[k].shape)})" for k in shown)
        msg = (
            f"{c.message}; but that rests on the chapter's conventional shapes of "
            f"{names}, which the text never declares nor uses so in a formula that typechecks, "
            f"and {own}; without them: {twin.message or 'it typechecks'}"
        )
        out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=(), set_aside=True))
    return out


def rebound(
    scope: Scope, claims: list[ResolvedClaim], again: Callable[[], list[ResolvedClaim]]
) -> list[ResolvedClaim]:
    """A shape error that rests on a declaration the text may have set aside by then: the
    name became a parameter of a function defined after it (`Q` of
    `\\mathrm{MultiHead}(Q, K, V)`, then `\\mathrm{Attention}(QW_i^Q, ...)`), or it was
    declared in an earlier section and this formula also reads a name declared in this one
    (each section then speaks for itself). Read `again` without those names: if that is no
    shape error, the claim is undecided, naming both places. A contradiction inside one
    section, or with nothing declared in this one, stays a shape error."""
    why = _set_aside(scope)
    if not why:
        return claims
    taken = [
        (i, k, layer.names.pop(k))
        for i, layer in enumerate(scope.layers)
        for k in why
        if k in layer.names
    ]
    confirming, scope.confirming = scope.confirming, False
    try:
        twins = again()
    finally:
        # `again` leaves the scope with copies of its layers: the names go back into those
        for i, k, entry in taken:
            scope.layers[i].names[k] = entry
        scope.confirming = confirming
    said = "; ".join(why.values())
    out = []
    for c in claims:
        twin = next((t for t in twins if (t.start, t.end) == (c.start, c.end)), None)
        if c.status != "shape_error" or twin is None or twin.status in _ILL:
            out.append(c)
            continue
        msg = (
            f"{c.message}; but {said}, and the text does not say whether that declaration "
            f"holds here; without it: {twin.message or 'it typechecks'}"
        )
        out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=(), set_aside=True))
    return out


def arguments(
    scope: Scope,
    claims: list[ResolvedClaim],
    again: Callable[[], list[ResolvedClaim]],
    unread: Collection[str] = (),
) -> list[ResolvedClaim]:
    """A shape error between Q, K or V, which the text never declares (their shapes are the
    chapter's convention, n × d_k and n × d_v), and a matrix the text declares
    (`QW_i^Q` with `W_i^Q \\in \\mathbb R^{d_{model}\\times d_k}`): the text's declaration
    may imply another width for them (Q is n × d_model there). Read `again` with them as n × w
    for each size w of the declared operands: if one reading is no shape error, the claim is
    undecided, naming the guess and that reading; ill-typed in every one, the error stands.
    Names the text declares in a formula that was not read (`unread`) are left to
    `UnreadDeclarations`, which says so."""
    conv = scope.layers[0].names
    if not _ATTENTION & scope.conventional_reads:
        return claims
    # the formula's other arguments too: a first shape error stops the reading at Q
    written = " ".join(c.source for c in claims)
    guessed = [k for k in sorted(_ATTENTION) if re.search(_name_pattern(k), written)]
    guessed = [k for k in guessed if k in conv and not any(k in x.names for x in scope.layers[1:])]
    guessed = [k for k in guessed if k not in unread]
    own = {k: e for k in sorted(scope.reads) if (e := _declared(scope, k)) is not None}
    blamed = {
        id(c): (shown, mine)
        for c in claims
        if c.status == "shape_error"
        and (shown := [k for k in guessed if re.search(_name_pattern(k), c.message)])
        and (mine := [k for k in own if _operand(k, c.message)])
    }
    if not blamed:
        return claims
    widths = [x for _, mine in blamed.values() for k in mine for x in own[k].shape]
    taken = {k: conv[k] for k in guessed}
    found: dict[tuple[int, int], tuple[str, ResolvedClaim]] = {}
    confirming, scope.confirming = scope.confirming, False
    rows = taken[guessed[0]].shape[0]
    try:
        for w in dict.fromkeys(widths):
            for k, e in taken.items():
                conv[k] = dataclasses.replace(e, shape=(rows, w))
            for t in again():
                if t.status not in (*_ILL, "not_understood"):
                    found.setdefault((t.start, t.end), (shape_str((rows, w)), t))
    finally:
        conv.update(taken)
        scope.confirming = confirming
    out = []
    for c in claims:
        got = found.get((c.start, c.end))
        if id(c) not in blamed or got is None:
            out.append(c)
            continue
        shown, mine = blamed[id(c)]
        names = ", ".join(f"{k} ({shape_str(taken[k].shape)})" for k in shown)
        declared = ", ".join(f"{k} as {shape_str(own[k].shape)} (line {own[k].line})" for k in mine)
        msg = (
            f"{c.message}; but that rests on the chapter's conventional shapes of {names}, "
            f"which the text never declares, and the text declares {declared}; with "
            f"{', '.join(guessed)} as {got[0]}: {got[1].message or 'it typechecks'}"
        )
        out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=(), set_aside=True))
    return out


def _operand(name: str, message: str) -> bool:
    """The shape error names `name` as an operand with its shape (`W^Q_i (d_{model} × d_k)`)."""
    return re.search(rf"(?<![A-Za-z\\]){re.escape(name)} \(", message) is not None


def _set_aside(scope: Scope) -> dict[str, str]:
    found = {k: e for k in sorted(scope.reads) if (e := _declared(scope, k)) is not None}
    here = any(e.section == scope.section for e in found.values())
    out = {}
    for k, e in found.items():
        param = scope.parameters.get(k)
        if param is not None and e.line < param[0] <= scope.line:
            out[k] = (
                f"{k} was declared {shape_str(e.shape)} on line {e.line} and line {param[0]} "
                f"makes it a parameter of {param[1]}"
            )
        elif here and 0 < e.section < scope.section:
            out[k] = (
                f"{k} was declared {shape_str(e.shape)} on line {e.line}, in an earlier section"
            )
    return out


def _declared(scope: Scope, name: str) -> Name | None:
    """The text's own declaration of `name` in force (not one given before any formula)."""
    for layer in reversed(scope.layers[1:]):
        entry = layer.names.get(name)
        if entry is not None:
            ok = entry.origin == "declared" and entry.line > 0 and entry.definition is None
            return entry if ok else None
    return None
