"""Deciding one claim: the kernel's verdict under a time limit, and the result it makes.

Imports the kernel, the reader's claims and check.results; must not import cli.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import sympy

from symattn.check.approximations import approximately
from symattn.check.budget import OutOfTime as _OutOfTime
from symattn.check.budget import time_limit as _time_limit
from symattn.check.counts import size_equation
from symattn.check.entry_values import left_names
from symattn.check.fragments import fragment
from symattn.check.fresh_sizes import open_sizes
from symattn.check.gradients import gradient_verdict, mentions_gradient, read_as_gradient
from symattn.check.guessed import with_guesses
from symattn.check.inferred_shapes import with_unfixed_sizes
from symattn.check.jacobians import has_partial, partial_verdict
from symattn.check.results import ClaimResult, one_line
from symattn.kernel.canon import normal_form
from symattn.kernel.dims import assume, dims_equal, shape_str
from symattn.kernel.errors import Signal, SoundnessAlarm, SymattnError
from symattn.kernel.explain import Explanation, explain
from symattn.kernel.expr import HeadSym, MatExpr, MatMul, MatSym, walk
from symattn.kernel.facts import prove_positive
from symattn.kernel.modern import FeatureMap
from symattn.kernel.proof import Verdict, check_shapes, prove_close, prove_equal, unfold
from symattn.kernel.ranges import NOT_PROVABLY, infer_ranges
from symattn.kernel.witness.symbolic import symbolic
from symattn.reader.claims.earlier_vectors import earlier_vector_note
from symattn.reader.claims.guessed_shapes import blamed, blamed_range
from symattn.reader.claims.literals import unfold as unfold_literals

_KIND_OF_STATUS = {
    "proved": "verified",
    "checked": "verified",
    "agreed": "undecided",
    "unknown": "undecided",
    "false": "false",
    "shape_error": "shape-error",
    "not_understood": "not-understood",
    "declared": "declaration",
    "prose": "not-a-claim",
    "soundness_alarm": "error",
    "internal_error": "error",
    "malformed": "malformed",
}

_SYMBOLIC: tuple[str, ...] = ("symbolic",)


def decide(claim: Any, lines: Sequence[str], document: bool = True) -> ClaimResult:
    """Turn a resolved claim into a verdict, calling the kernel for identities. In a
    `document`, a claim is the text's: an equation between sizes and numbers may refer to a
    worked example, and a relation between a matrix with no value and a number is a property
    the text states of it; a formula on its own (`symattn prove`) is an identity for all
    sizes and all matrices."""
    status, message, cex = claim.status, claim.message, None
    witnesses: tuple[str, ...] = ()
    if status == "shape":
        status, message = _shape(claim)
    if status == "proved":
        witnesses = _SYMBOLIC
        message = message or "shapes agree"
    elif status == "pending":
        decided = open_sizes(claim, _prove, *approximately(claim, *_kernel(claim)))
        status, message, witnesses, cex = fragment(claim, lines, *decided)
        premise = getattr(claim, "premise", "")
        if premise and status == "shape_error" and getattr(claim, "supposed", False):
            status, witnesses, cex = "not_understood", (), None
            message = f"a supposition ('{premise}') that does not typecheck here: {message}"
        if premise and status == "false" and not getattr(claim, "hypotheses", ()):
            status, witnesses, cex = "unknown", (), None
            message = (
                f"undecided: false as written, but the text supposes '{premise}' before it, "
                "which the checker cannot use"
            )
        if (
            document
            and status == "false"
            and not getattr(claim, "negated", False)
            and getattr(claim, "tolerance", None) is None
        ):
            got = size_equation(claim.pairs, getattr(claim, "earlier", {}))
            if got is not None:
                status, message, cex = got
                witnesses = ("exact",) if status != "unknown" else ()
                if status == "unknown":
                    message = f"undecided: {message}"
            elif not getattr(claim, "defines", ""):
                names = _property_of(claim) or left_names(claim)
                if names:
                    status, witnesses, cex = "unknown", (), None
                    message = (
                        f"undecided: it fails for some {names}, but the text gives {names} no "
                        f"value the checker read: this states a property of {names}, "
                        "not an identity"
                    )
    defines = getattr(claim, "defines", "")
    free = getattr(claim, "free", "")
    constant = _constant_gap(claim) if defines and status == "false" and not free else None
    if constant is not None:
        # the two sides differ by a number whatever the values: false in every reading
        message = f"{message}; the sides differ by {constant} for every value"
    elif defines and status == "false":
        status, witnesses, cex = "unknown", (), None
        message = f"undecided: false if read as a claim, but {defines}"
    decimal = getattr(claim, "decimal", "") or _rounded_figure(claim)
    if decimal and status in ("proved", "checked"):
        # the number written is the value rounded, not the value: no identity holds as written
        status, witnesses, cex = "unknown", (), None
        message = f"undecided: {decimal}; as an exact equation it does not hold (write \\approx)"
    unbounded = getattr(claim, "unbounded", "")
    if unbounded and status in ("proved", "checked", "false"):
        status, witnesses, cex = "unknown", (), None
        message = f"undecided: {message} for real matrices; but {unbounded}"
    if status in ("false", "shape_error", "proved", "checked") and _feature_map(claim):
        status, message, witnesses, cex = _arbitrary_map(claim, status, message, witnesses, cex)
    if status == "shape_error" and "inferred from line" in (claim.context or ""):
        # the kernel's shape error rests on shapes the reader inferred from other formulas
        status, witnesses, cex = "unknown", (), None
        message = (
            f"not decided: {message}; the text does not declare these names and may mean "
            "other shapes here (declare them)"
        )
    if status == "shape_error":
        unfixed = with_unfixed_sizes(status, message, witnesses, cex)
        status, message, witnesses, cex = unfixed[0], unfixed[1], unfixed[2], unfixed[3]
    if status == "shape_error" and getattr(claim, "families", "") and _about_indices(message):
        # the kernel's shape error rests on the index of a family's members, whose range the
        # text leaves unsaid (`S_{t-2}` of a closed form at t = 1, `\sum_{j=1}^t` past n); a
        # mismatch of dims (d against d_v) is no matter of the index and stays an error
        status, witnesses, cex = "unknown", (), None
        message = (
            f"not decided: {message}; with members of {claim.families}, whose index range "
            "the text does not state"
        )
    premised = getattr(claim, "premised", "")
    if premised and status == "false":
        status, witnesses, cex = "unknown", (), None
        message = (
            f"undecided: {message}, reading {premised} as free numbers; but the text defines "
            "them by a formula whose value the checker does not read"
        )
    forgotten = getattr(claim, "forgotten", "")
    if forgotten and status in ("false", "shape_error"):
        status, witnesses, cex = "unknown", (), None
        message = (
            f"undecided: {message}; but it reads {forgotten} as unknown, defined inside a "
            "worked example that has ended, and the text may still mean that definition"
        )
    redeclared = getattr(claim, "redeclared", "")
    if redeclared and status in ("false", "shape_error"):
        status, witnesses, cex = "unknown", (), None
        message = f"undecided: {message}; but {redeclared}"
    guessed = blamed(getattr(claim, "guessed", ()), message) if status == "shape_error" else ""
    if status == "shape_error" and not guessed:
        guessed = blamed_range(getattr(claim, "ranged", ()), message)
    if guessed:
        status, witnesses, cex = "unknown", (), None
        message = (
            f"undecided: {message}; but that rests on the chapter's conventional shapes of "
            f"{guessed}, which the text never declares nor uses so in a formula that typechecks"
        )
    if status == "shape_error" and getattr(claim, "earlier_vector", ""):
        status, witnesses, cex = "unknown", (), None
        message = earlier_vector_note(claim, message)
    written = _differential(claim.source) if status in ("false", "shape_error") else ""
    if written and read_as_gradient(claim.pairs, written[1:]):
        pass  # decided as the gradient of the loss, the reading the verdict names
    elif written and "^∇" in message:
        # read as gradients, ill-typed: a backward pass may write `dP - D` for `dP - D 1^T`
        status, witnesses, cex = "unknown", (), None
        message = f"undecided: {message}, with {written} and the like read as gradients"
    elif written:
        status, witnesses, cex = "unknown", (), None
        message = (
            f"undecided: {message}, reading {written} as d times {written[1:]}; but {written} "
            f"may be the text's name for the gradient of {written[1:]}"
        )
    if status == "shape_error" and NOT_PROVABLY in message:
        # `\sum_{r=i-s}^{i-1}`: inside the matrix only where i > s, which the text leaves to
        # the reader; an error of the text only if it were outside for every size
        status, witnesses, cex = "unknown", (), None
        message = f"undecided: {message}, which the text does not state"
    status, message, witnesses, cex = with_guesses(claim, status, message, witnesses, cex)
    if claim.context and message.startswith("proved for all sizes"):
        message = message.replace("proved for all sizes", "proved", 1)
    orientation = getattr(claim, "orientation", "")
    if orientation:
        message = f"{message}; {orientation}"
    if claim.context and not message.startswith("worked example"):
        message = f"{message} ({claim.context})"
    problem = ("not_understood", "shape_error", "malformed")
    focus = claim.focus if status in problem else (claim.start, claim.end)
    return _result(claim.span, focus, status, message, witnesses, cex, claim.source, lines)


#: `dV`, `dS_{ij}`, `d\mathbf{O}`: the letter d written against a capital, as backward passes
#: name the gradient of V (or a differential); the reader takes it for the size d times V
_DIFFERENTIAL = re.compile(r"(?<![A-Za-z\\])d(?:\\(?:mathbf|boldsymbol|bm|mathrm)\{)?([A-Z])")


#: `\frac{dL}{dW}`: a derivative the reader knows (`check.gradients`), not a name
_LEIBNIZ = re.compile(r"\\frac\s*\{\s*d[^{}]*\}\s*\{\s*d[^{}]*\}")


def _differential(source: str) -> str:
    """`dV` when the claim writes d against a capital (`dV = A^\\top dO`), else ''.

    >>> _differential("dV = A^\\\\top dO"), _differential("d_k V"), _differential("\\\\sqrt{d}I")
    ('dV', '', '')
    >>> _differential("\\\\frac{dL}{dW} = X^\\\\top \\\\frac{dL}{dY}")
    ''
    """
    m = _DIFFERENTIAL.search(_LEIBNIZ.sub(" ", source))
    return f"d{m.group(1)}" if m else ""


def _free_matrices(term: Any, defs: Mapping[Any, Any]) -> set[MatSym]:
    return {x for x in walk(term) if isinstance(x, MatSym) and x not in defs}


def _property_of(claim: Any) -> str:
    r"""The names of matrices with no value that a false claim states a property of (`\sum_j
    A_{ij} = 1` with A only declared): one side a number or sizes, the other built from the
    entries of such matrices alone (a product, transpose or softmax of them makes an identity
    the text claims: `(QK^T)_{12} = 0` stays false), with a value that depends on them (the
    kernel shows that renaming them changes it)."""
    defs = claim.defs
    for lhs, rhs in claim.pairs:
        if not isinstance(lhs, sympy.Basic) or not isinstance(rhs, sympy.Basic):
            continue
        sides = [(lhs, rhs), (rhs, lhs)]
        for side, other in sides:
            if any(isinstance(x, MatExpr) for x in walk(other)):
                continue
            names = [x for x in walk(side) if isinstance(x, MatSym | HeadSym)]
            if not names or any(x in defs or isinstance(x, HeadSym) for x in names):
                continue
            if any(isinstance(x, MatExpr) and not isinstance(x, MatSym) for x in walk(side)):
                continue  # a value computed from the matrices (`(QK^T)_{12}`): an identity
            free = sorted(set(names), key=lambda m: m.name)
            renamed = side.xreplace({m: MatSym(f"{m.name}'", m.rows, m.cols) for m in free})
            try:
                with _time_limit(CLAIM_SECONDS), assume(**claim.assumptions):
                    v = prove_equal(side, renamed)
            except (SymattnError, _OutOfTime):
                continue
            if v.status == "false":
                return ", ".join(m.name for m in free)
    return ""


def _constant_gap(claim: Any) -> sympy.Expr | None:
    """A nonzero number that one pair of the claim's sides differs by for every value of its
    names (`\\sum_i \\mathrm{softmax}(x)_i = 0`: 1), by the kernel's normal form, whose every
    rewrite is an identity; None when there is none (or it is not found within the budget)."""
    try:
        with _time_limit(CLAIM_SECONDS), assume(**claim.assumptions):
            for lhs, rhs in claim.pairs:
                if not isinstance(lhs, sympy.Expr) or not isinstance(rhs, sympy.Expr):
                    continue
                if isinstance(lhs, MatExpr) or isinstance(rhs, MatExpr):
                    continue
                gap = normal_form(lhs - rhs)
                if gap.is_Number and gap != 0:
                    return gap
    except (_OutOfTime, SymattnError, Signal, RecursionError, TypeError, ValueError):
        return None
    return None


def _shape(claim: Any) -> tuple[str, str]:
    """A claim about a shape the reader states: proved when both dims of the value's shape are
    provably those the text gives it, under the sizes in force; otherwise a shape error."""
    (rows, cols), (want_rows, want_cols) = claim.shapes
    with assume(**claim.assumptions):
        if dims_equal(rows, want_rows) and dims_equal(cols, want_cols):
            return "proved", claim.message
    has, claimed = shape_str((rows, cols)), shape_str((want_rows, want_cols))
    return "shape_error", f"the value is {has}, not {claimed} (not provably equal)"


def _feature_map(claim: Any) -> str:
    """The feature maps `\\phi(X)` the reader read in the claim (or the definitions it
    reaches), arbitrary maps of an unknown width; "" when none."""
    terms = [x for pair in getattr(claim, "pairs", ()) for x in pair]
    terms += list(getattr(claim, "defs", {}).values())
    for t in terms:
        for x in walk(t):
            if isinstance(x, FeatureMap):
                return x.fname
    return ""


def _arbitrary_map(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: str | None
) -> tuple[str, str, tuple[str, ...], str | None]:
    """A claim about `\\phi(X)` read as an arbitrary row-wise map with a width of its own:
    proved for every such map, it holds for the text's (verified stays, unless the claim is a
    `\\ne`: its counterexample may not be one for the text's map); false or ill-typed for
    the arbitrary one, it may still hold for the text's (width, values): undecided."""
    negated = getattr(claim, "negated", False)
    if status in ("proved", "checked") and not negated:
        return status, message, witnesses, cex
    name = _feature_map(claim)
    msg = (
        f"{status.replace('_', ' ')} with \\{name}(·) read as an arbitrary feature map "
        f"of its own width ({message}); it may hold for the text's \\{name}"
    )
    return "unknown", msg, (), None


def _rounded_figure(claim: Any) -> str:
    """`2 \\cdot 8.3e9 = 17e9`, `7 \\cdot 1.95 \\cdot 10^9 = 14\\text{ GB}`: what a claim written
    with `=` and read to the last digit of its result says of it, where the sides are not equal
    exactly; "" for any other claim."""
    if not getattr(claim, "rounded", False) or len(claim.pairs) != 1:
        return ""
    lhs, rhs = claim.pairs[0]
    if not isinstance(lhs, sympy.Expr) or not isinstance(rhs, sympy.Expr):
        return ""
    if lhs.free_symbols or rhs.free_symbols or sympy.simplify(lhs - rhs) == 0:
        return ""
    return "the result written is the value rounded to its last digit"


def _kernel(claim: Any) -> tuple[str, str, tuple[str, ...], str | None]:

    verdicts: list[Verdict] = []
    notes: list[str] = []  # what a verdict on a gradient rests on
    hypotheses = tuple(getattr(claim, "hypotheses", ()))
    try:
        with _time_limit(CLAIM_SECONDS), assume(**claim.assumptions):
            sign = getattr(claim, "sign", None)
            if sign is not None:
                verdicts.append(_prove_sign(sign, claim.defs))
            split = getattr(claim, "split", 0)
            if split:
                return _two_readings(claim, hypotheses)
            tolerance = getattr(claim, "tolerance", None)
            for lhs, rhs in claim.pairs:
                if mentions_gradient(lhs, rhs) and tolerance is not None:
                    v = Verdict("unknown", (), "undecided: an approximate claim about a gradient")
                elif mentions_gradient(lhs, rhs) and hypotheses:
                    v = Verdict("unknown", (), "a gradient under a hypothesis is not decided")
                elif mentions_gradient(lhs, rhs):
                    v, note = gradient_verdict(lhs, rhs, claim.defs)
                    notes.append(note)
                elif tolerance is not None:
                    v = prove_close(lhs, rhs, tolerance, getattr(claim, "rounded", False))
                else:
                    v = _prove(lhs, rhs, claim.defs, hypotheses)
                verdicts.append(v)
                if v.status in ("false", "shape_error"):
                    break
    except _OutOfTime:
        msg = (
            f"the kernel did not decide within {CLAIM_SECONDS:g} s of CPU time "
            "(SYMATTN_CLAIM_SECONDS)"
        )
        return "unknown", msg, (), None
    except SoundnessAlarm as e:
        msg = f"soundness alarm while checking {_quote(claim)}: {one_line(str(e))}"
        return "soundness_alarm", msg, (), None
    except SymattnError as e:
        return "not_understood", f"the kernel cannot check this: {one_line(str(e))}", (), None
    except Exception as e:  # noqa: BLE001 - never a traceback, never a verdict: an error (exit 2)
        msg = (
            f"internal error in the kernel while checking {_quote(claim)} (please report): "
            f"{type(e).__name__}: {e}"
        )
        return "internal_error", one_line(msg), (), None
    worst = max(verdicts, key=lambda v: _RANK[v.status])
    cex = str(worst.counterexample) if worst.counterexample is not None else None
    if getattr(claim, "negated", False):
        return _negated(worst, cex)
    message = _verdict_message(worst)
    if worst.status in ("proved", "checked", "false") and any(notes):
        message += "; " + "; ".join(dict.fromkeys(x for x in notes if x))
    return worst.status, message, tuple(worst.witnesses), cex


def _worst(pairs: Sequence[Any], defs: Mapping[Any, Any], hypotheses: tuple[Any, ...]) -> Any:
    verdicts = []
    for lhs, rhs in pairs:
        verdicts.append(_prove(lhs, rhs, defs, hypotheses))
        if verdicts[-1].status in ("false", "shape_error"):
            break
    return max(verdicts, key=lambda v: _RANK[v.status])


def _two_readings(
    claim: Any, hypotheses: tuple[Any, ...]
) -> tuple[str, str, tuple[str, ...], str | None]:
    """A claim read with the vectors as columns (`pairs[:split]`) and as rows (the rest),
    where the document never says which: a verdict only when both readings get the same one
    (proved, checked or false), else undecided (convention)."""
    as_columns = _worst(claim.pairs[: claim.split], claim.defs, hypotheses)
    as_rows = _worst(claim.pairs[claim.split :], claim.defs, hypotheses)
    pinned = getattr(claim, "pinnable", False) and as_columns.status == "shape_error"
    if pinned and as_rows.status in ("proved", "checked", "false"):
        # rows of matrices the text never declares typecheck only as the chapter's rows
        cex = as_rows.counterexample
        cex_text = str(cex) if cex is not None else None
        if getattr(claim, "negated", False):
            return _negated(as_rows, cex_text)
        return as_rows.status, _verdict_message(as_rows), tuple(as_rows.witnesses), cex_text
    agree = ("proved", "checked", "false", "shape_error")  # ill-typed either way: an error
    if as_columns.status == as_rows.status and as_rows.status in agree:
        cex = as_columns.counterexample
        cex_text = str(cex) if cex is not None else None
        if getattr(claim, "negated", False):
            return _negated(as_columns, cex_text)
        witnesses = tuple(as_columns.witnesses)
        return as_columns.status, _verdict_message(as_columns), witnesses, cex_text
    readings = getattr(claim, "readings", "")
    if readings:
        msg = (
            f"the formula reads two ways ({readings}); the first: "
            f"{as_columns.status}, the second: {as_rows.status}"
        )
        return "unknown", msg, (), None
    msg = (
        "undecided (convention): the document does not settle whether its vectors are rows or "
        f"columns; read as columns: {as_columns.status}, as rows: {as_rows.status}"
    )
    return "unknown", msg, (), None


def _negated(v: Any, cex: str | None) -> tuple[str, str, tuple[str, ...], str | None]:
    """`a \ne b`: a counterexample to `a = b` is what verifies it (the status `checked`: a
    witness at explicit values, not a proof for all sizes); a proof of `a = b` refutes it."""
    if v.status == "false" and cex is not None:
        return "checked", f"the two sides differ: {cex}", tuple(v.witnesses), None
    if v.status == "proved":
        return "false", "the two sides are equal for all sizes", tuple(v.witnesses), None
    if v.status == "shape_error":
        return v.status, _verdict_message(v), tuple(v.witnesses), cex
    return "unknown", f"not decided: {_verdict_message(v)}", (), None


def _prove_sign(sign: Any, defs: Mapping[Any, Any]) -> Any:
    """`a_{ij} > 0`: the kernel's sign fact on every entry of A, its definitions unfolded.
    A fact it cannot show is `unknown` (undecided), never false."""

    matrix, strict = sign
    return prove_positive(unfold_literals(matrix, defs), strict=strict)


def _quote(claim: Any) -> str:
    text = one_line(claim.source)
    return f"'{text[:117]}...'" if len(text) > 120 else f"'{text}'"


CLAIM_SECONDS = float(os.environ.get("SYMATTN_CLAIM_SECONDS", "30"))


_RANK = {"proved": 0, "checked": 1, "agreed": 2, "unknown": 3, "shape_error": 4, "false": 5}


def _verdict_message(v: Any) -> str:
    w = "+".join(v.witnesses) or "none"
    if v.status == "proved":
        how = one_line(v.reason) if v.reason.startswith("proved by induction") else ""
        return f"proved for all sizes [{w}]" + (f": {how}" if how else "")
    evidence = "; ".join(str(e) for e in getattr(v, "evidence", ()))
    if v.status == "checked":
        sizes = "; ".join(", ".join(f"{k}={x}" for k, x in s) or "the sizes given" for s in v.sizes)
        return f"checked at explicit sizes only ({sizes}) [{w}]: {v.reason}; evidence: {evidence}"
    if v.status == "false":
        return one_line(v.reason) or "the two sides differ"
    if v.status == "agreed":
        why = one_line(v.reason)
        return f"evidence only, not a proof [{w}]: {why}; evidence: {evidence}"
    return one_line(v.reason) or v.status


def _prove(lhs: Any, rhs: Any, defs: Mapping[Any, Any], assuming: Sequence[Any] = ()) -> Any:
    """The kernel's verdict, unfolding as few definitions as a proof needs.

    The symbolic witness alone is probed at each level of unfolding (no definitions, then the
    names the claim mentions, and so on) to find the level a proof needs; the claim is then
    decided there by `prove_equal` with every witness (symbolic, exact and numeric), the same
    safety net as the API, so a witness that contradicts the proof raises the kernel's
    `SoundnessAlarm`. When no level proves it, the kernel decides with every definition the
    claim reaches and every witness, so a `false` always means false given the document's
    definitions. Under hypotheses (`j > i`) the probe is skipped: the kernel decides at once.
    """

    if check_shapes(lhs, rhs) is not None:
        return prove_equal(lhs, rhs)  # the kernel's shape_error verdict, with its message
    if mentions_gradient(lhs, rhs) and assuming:
        return Verdict("unknown", (), "a gradient under a hypothesis is not decided")
    if mentions_gradient(lhs, rhs):
        return gradient_verdict(lhs, rhs, defs)[0]
    if has_partial(lhs, rhs):
        return partial_verdict(lhs, rhs, defs)
    levels = _unfold_levels(lhs, rhs, defs)
    assuming = list(assuming)
    for level in levels if not assuming else ():
        a, b = unfold(lhs, level), unfold(rhs, level)
        try:
            probe = symbolic(a, b, dict(infer_ranges(a, b))).holds
        except SymattnError:
            probe = False
        if probe:
            v = prove_equal(lhs, rhs, defs=level)
            if v.status == "proved":
                return v
    return prove_equal(lhs, rhs, defs=_without_free_products(levels[-1]), assuming=assuming)


def explain_claim(claim: Any) -> list[Explanation]:
    """The derivation behind each identity of a resolved claim, at the level of definitions
    `decide` proves it at (so `a_{ij}` stays `a_{ij}` where the proof needs no more); [] for a
    claim that is not an identity or that the kernel cannot take."""
    if getattr(claim, "status", "") != "pending" or not getattr(claim, "pairs", ()):
        return []
    out = []
    hypotheses = tuple(getattr(claim, "hypotheses", ()))
    try:
        with _time_limit(CLAIM_SECONDS), assume(**claim.assumptions):
            for lhs, rhs in claim.pairs:
                if mentions_gradient(lhs, rhs):
                    continue  # decided by the vector–Jacobian identity, not a derivation
                out.append(
                    explain(lhs, rhs, defs=_level(lhs, rhs, claim.defs), assuming=hypotheses)
                )
    except (_OutOfTime, SymattnError):
        return out
    return out


def _level(lhs: Any, rhs: Any, defs: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """The definitions `_prove` decides a claim with: the fewest that give a proof, else all."""
    if check_shapes(lhs, rhs) is not None:
        return {}
    levels = _unfold_levels(lhs, rhs, defs)
    for level in levels:
        a, b = unfold(lhs, level), unfold(rhs, level)
        try:
            if symbolic(a, b, dict(infer_ranges(a, b))).holds:
                return level
        except SymattnError:
            continue
    return _without_free_products(levels[-1])


def _without_free_products(defs: Mapping[Any, Any]) -> dict[Any, Any]:
    """Drop definitions like `Q = XW_Q`: a product of free matrices over a free inner dim.

    For a large enough inner dim such a product takes every value, so a counterexample with `Q`
    free is one for `XW_Q` too; keeping `Q` folded keeps the kernel's search small. Definitions
    that constrain their values (`A = softmax(...)`, `Z = AV` with A defined) are kept.
    """

    def free(rhs: Any) -> bool:
        if not isinstance(rhs, MatMul):
            return False
        factors = rhs.factors()
        leaves = all(isinstance(f, MatSym | HeadSym) and f not in defs for f in factors)
        inner = [f.cols for f in factors[:-1]]
        return leaves and len(set(factors)) == len(factors) and all(x.is_Symbol for x in inner)

    return {k: v for k, v in defs.items() if not free(v)}


def _unfold_levels(lhs: Any, rhs: Any, defs: Mapping[Any, Any]) -> list[dict[Any, Any]]:

    levels: list[dict[Any, Any]] = [{}]
    frontier = [lhs, rhs]
    chosen: dict[Any, Any] = {}
    while True:
        found = {x for t in frontier for x in walk(t) if x in defs and x not in chosen}
        if not found:
            break
        for x in found:
            chosen[x] = defs[x]
        levels.append(dict(chosen))
        frontier = [defs[x] for x in found]
    # the last level unfolds every definition the claim can reach; the others cannot matter
    return levels


def _result(
    span: Any,
    focus: tuple[int, int],
    status: str,
    message: str,
    witnesses: tuple[str, ...],
    cex: str | None,
    source: str,
    lines: Sequence[str],
) -> ClaimResult:
    start = span.position_at(focus[0])
    end = span.position_at(max(focus[1], focus[0] + 1))
    return ClaimResult(
        file=span.filename,
        line=start.line,
        col=start.column,
        end_line=end.line,
        end_col=end.column,
        kind=_KIND_OF_STATUS.get(status, "undecided"),
        status=status,
        message=message,
        witnesses=witnesses,
        counterexample=cex,
        source=source,
        source_lines=tuple(lines[start.line - 1 : end.line]) if lines else (),
    )


def _about_indices(message: str) -> bool:
    """A shape error about where an index runs (`index j runs over 1..t but K has n rows`, a
    sum that runs from 1 down to -1), not a mismatch of dims (`d` against `d_v`)."""
    return " index " in message or " runs from " in message
