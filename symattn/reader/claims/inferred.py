"""Claims read with shapes the reader inferred for undeclared names: the verdict says so, and a
formula no shape makes typecheck is a shape error. Imports the reader's claims and terms only."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

import sympy

from symattn.kernel.dims import shape_str
from symattn.kernel.expr import HeadSym, MatSym, walk
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.inference import Inference
from symattn.reader.terms.unify import shown

__all__ = ["with_inference"]


def with_inference(
    claim: ResolvedClaim, inference: Inference, read: Collection[str] = ()
) -> ResolvedClaim:
    """`claim` as read with the inferred shapes of the names its formula uses (written, or
    `read` by the translator: `w_i` as an entry of the inferred vector w).

    - decided by the kernel: the verdict says which shapes were inferred, and from where;
    - a shape error there is undecided: the shapes come from other formulas, which may use
      the letters otherwise (the text did not declare them);
    - undecided for want of a shape in a formula that contradicts itself whatever the shapes
      of its undeclared names: a shape error, at the two places that clash.
    """
    span = claim.span
    key = (span.start.line, span.start.column)
    conflict = inference.conflicts.get(key)
    if conflict is not None and claim.status == "shape_error":
        return dataclasses.replace(claim, message=conflict.message)
    if (
        conflict is not None
        and claim.status in ("not_understood", "unknown")
        and not claim.set_aside
    ):
        if "declare" in claim.message or "not declared" in claim.message:
            where = (conflict.second[0], max(conflict.second[1], conflict.second[0] + 1))
            if claim.start <= where[0] < claim.end or claim.start <= conflict.first[0] < claim.end:
                return dataclasses.replace(
                    claim, status="shape_error", message=conflict.message, where=where, pairs=()
                )
    against = inference.conventions.get(key)
    if against and claim.status == "shape_error":
        names = ", ".join(against)
        msg = (
            f"not decided: {claim.message}; but the text never declares {names}, and with "
            f"{'a shape' if len(against) == 1 else 'shapes'} of its own (not the chapter's "
            "convention) the formula typechecks (declare them)"
        )
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
    used = inference.uses.get(key, set()) | set(inference.components.get(key, {})) | set(read)
    note = inference.note(span, used | _through_definitions(claim, set(inference.installed)))
    if not note:
        return _contested(claim, inference)
    if claim.status == "shape_error":
        msg = (
            f"not decided: {claim.message}, {note}; the text does not declare these names "
            "and may mean other shapes here (declare them)"
        )
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
    if claim.status == "shape" and inference.circular(span) and _definition(claim):
        size = f", {shape_str(claim.shapes[0])}" if claim.shapes else ""
        msg = f"defines {' '.join(claim.source.split())}{size} ({note})"
        return dataclasses.replace(claim, status="declared", message=msg, shapes=None)
    if claim.status == "shape" and inference.circular(span):
        msg = (
            f"not decided: the shape claimed is the one inferred from this formula ({note}); "
            "declare the names to check it"
        )
        return dataclasses.replace(claim, status="unknown", message=msg, shapes=None)
    if claim.status in ("pending", "shape"):
        context = f"{claim.context}; {note}" if claim.context else note
        claim = dataclasses.replace(claim, context=context, inferred=note)
        one_sided = _one_sided(claim, set(inference.installed))
        if one_sided and not claim.defines:
            why = (
                f"{', '.join(map(shown, one_sided))} (not declared by the text) "
                f"{'is' if len(one_sided) == 1 else 'are'} on one side only: the formula may "
                "say what the text means by them, not hold for every value"
            )
            claim = dataclasses.replace(claim, defines=why)
        families = _families(claim, set(inference.families) & set(inference.installed))
        if families and not claim.defines:
            why = (
                f"{', '.join(families)} {'is a family' if len(families) == 1 else 'are families'}"
                " the text never declares, its members read as unrelated matrices of one "
                "shape: the claim may hold for the members the text means"
            )
            claim = dataclasses.replace(claim, defines=why)
    return claim


def _families(claim: ResolvedClaim, inferred: set[str]) -> list[str]:
    """The inferred families (`R_•`) whose members (`R_m`, `R_n`) the claim reads."""
    found = {
        f"{x.name[:-1]}_•"
        for pair in claim.pairs
        for side in pair
        if isinstance(side, sympy.Basic)
        for x in walk(side)
        if isinstance(x, HeadSym) and x.name.endswith("_")
    }
    return sorted(found & inferred)


def _one_sided(claim: ResolvedClaim, inferred: set[str]) -> list[str]:
    """The inferred names found on one side of an equation only (`QM = K`: M). A claim
    whose undeclared names are on both sides (`(MN)^T = N^T M^T`) is an identity in them;
    a name the text defined stands for its definition (`Q = XW^Q`: Q brings W^Q)."""
    out: set[str] = set()
    defs = {_key(k): v for k, v in claim.defs.items() if _key(k)}
    for lhs, rhs in claim.pairs:
        left, right = _matrix_names(lhs, defs), _matrix_names(rhs, defs)
        out |= (left ^ right) & inferred
    return sorted(out)


def _matrix_names(e: object, defs: dict[str, sympy.Basic] | None = None) -> set[str]:
    """The matrices `e` names, and those of the definitions of the ones the text defined."""
    if not isinstance(e, sympy.Basic):
        return set()
    out: set[str] = set()
    todo = [e]
    while todo:
        for x in walk(todo.pop()):
            key = _key(x)
            if key and key not in out:
                out.add(key)
                if defs and key in defs:
                    todo.append(defs[key])
    return out


def _key(x: object) -> str:
    """How the inference names a matrix: `W^Q`, a head family's `W_q^(h)`, a family's `R_•`."""
    if isinstance(x, MatSym):
        return x.name
    if isinstance(x, HeadSym):
        return f"{x.name[:-1]}_•" if x.name.endswith("_") else f"{x.name}^(h)"
    return ""


def _through_definitions(claim: ResolvedClaim, inferred: set[str]) -> set[str]:
    """The inferred names a claim reaches through the names the text defined (`Q K^T` after
    `Q = XW^Q`, `K = XW^K`: W^Q and W^K)."""
    if not claim.pairs or not inferred:
        return set()
    defs = {_key(k): v for k, v in claim.defs.items() if _key(k)}
    out: set[str] = set()
    for pair in claim.pairs:
        for side in pair:
            out |= _matrix_names(side, defs)
    return out & inferred


def _definition(claim: ResolvedClaim) -> bool:
    """A definition (`Q = XW^Q`) whose two sides have the shape its left side has: with the
    names of its right side inferred from it, it names a value and checks nothing."""
    return claim.message.startswith("definition of ")


def _contested(claim: ResolvedClaim, inference: Inference) -> ResolvedClaim:
    """An undecided claim about a name whose uses give it two shapes: say where."""
    if claim.status not in ("unknown", "not_understood"):
        return claim
    span = claim.span
    names = inference.uses.get((span.start.line, span.start.column), set())
    found = sorted(x for x in names if x in inference.contested)
    if not found:
        return claim
    parts = []
    for name in found:
        line, earlier = inference.contested[name]
        before = (
            f"lines {', '.join(map(str, earlier))}"
            if len(earlier) > 1
            else f"line {earlier[0]}"
            if earlier
            else ""
        )
        said = f"{shown(name)} at line {line}" + (f" and {before}" if before else "")
        parts.append(said)
    msg = f"{claim.message}; no shape is inferred for {'; '.join(parts)}: its uses disagree"
    return dataclasses.replace(claim, message=msg)
