"""Claims read with shapes the reader inferred for undeclared names: the verdict says so, and a
formula no shape makes typecheck is a shape error. Imports the reader's claims and terms only."""

from __future__ import annotations

import dataclasses

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.inference import Inference

__all__ = ["with_inference"]


def with_inference(claim: ResolvedClaim, inference: Inference) -> ResolvedClaim:
    """`claim` as read with the inferred shapes of the names its formula uses.

    - decided by the kernel: the verdict says which shapes were inferred, and from where;
    - a shape error there is undecided: the shapes come from other formulas, which may use
      the letters otherwise (the text did not declare them);
    - undecided for want of a shape in a formula that contradicts itself whatever the shapes
      of its undeclared names: a shape error, at the two places that clash.
    """
    span = claim.span
    key = (span.start.line, span.start.column)
    conflict = inference.conflicts.get(key)
    if conflict is not None and claim.status in ("not_understood", "unknown"):
        if "declare" in claim.message or "not declared" in claim.message:
            where = (conflict.second[0], max(conflict.second[1], conflict.second[0] + 1))
            if claim.start <= where[0] < claim.end or claim.start <= conflict.first[0] < claim.end:
                return dataclasses.replace(
                    claim, status="shape_error", message=conflict.message, where=where, pairs=()
                )
    note = inference.note(span)
    if not note:
        return claim
    if claim.status == "shape_error":
        msg = (
            f"not decided: {claim.message}, {note}; the text does not declare these names "
            "and may mean other shapes here (declare them)"
        )
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
    if claim.status in ("pending", "shape"):
        context = f"{claim.context}; {note}" if claim.context else note
        return dataclasses.replace(claim, context=context)
    return claim
