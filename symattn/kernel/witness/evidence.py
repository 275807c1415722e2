"""What a witness reports: `Evidence` per size plan, `WitnessResult`, `Counterexample`.

Imports nothing from symattn; must not import the other witnesses, proof or anything above them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import sympy

RTOL = 1e-9  # float64 agreement: |a - b| <= ATOL + RTOL |b| (numpy.isclose)
ATOL = 1e-12
Term: TypeAlias = sympy.Basic  # a MatExpr or a scalar sympy expression

MAX_SAMPLE = 40  # index points looked at when there are too many to look at all

EXHAUSTIVE = 400  # full expansion looks at every index point up to this many

ENUMERATE = 200_000  # index points counted, at most, before the count is given as a floor


@dataclass(frozen=True)
class Counterexample:
    """Sizes, index values and entries at which the two sides differ, with both values."""

    sizes: tuple[tuple[str, int], ...]
    indices: tuple[tuple[str, int], ...]
    entries: tuple[tuple[str, str], ...]
    lhs: str
    rhs: str
    exact: bool
    certified: bool = False  # not exact, but both values enclosed in disjoint intervals

    def __str__(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.sizes)
        idx = ", ".join(f"{k}={v}" for k, v in self.indices)
        ents = ", ".join(f"{k}={v}" for k, v in self.entries[:12])
        more = f" (and {len(self.entries) - 12} more)" if len(self.entries) > 12 else ""
        how = "exactly" if self.exact else "with 30-digit arithmetic"
        if self.certified:
            how = "with interval arithmetic: the two enclosures do not overlap"
        where = [f"at sizes {sizes}" if sizes else "", f"at {idx}" if idx else ""]
        where.append(f"with {ents}{more}" if ents else "")
        head = ", ".join(w for w in where if w)
        return (
            f"{head + ': ' if head else ''}"
            f"left side = {self.lhs}, right side = {self.rhs} (evaluated {how})"
        )


Method = Literal["expansion", "mod p", "float64"]


@dataclass(frozen=True)
class Evidence:
    """What one witness evaluated at one size plan: the sizes, how, and how many points.

    `total` counts the index points (entries, for a matrix claim) the claim ranges over at these
    sizes, hypotheses applied; `points` those actually evaluated. `total` is None when there
    were too many to count.

    >>> print(Evidence((("n", 3), ("d_k", 2)), "expansion", 9, 9))
    exactly by full expansion at n=3, d_k=2: all 9 index points
    >>> print(Evidence((("n", 9),), "expansion", 40, 81))
    exactly by full expansion at n=9: 40 of 81 index points sampled
    """

    sizes: tuple[tuple[str, int], ...]
    method: Method
    points: int
    total: int | None
    unit: str = "index points"
    trials: int = 0
    primes: tuple[int, ...] = ()
    bound: float | None = None

    @property
    def exhaustive(self) -> bool:
        return self.total is not None and self.points >= self.total

    def __str__(self) -> str:
        at = ", ".join(f"{k}={v}" for k, v in self.sizes) or "the sizes given"
        if self.total == 0:
            what = f"no {self.unit} (every range is empty)"
        elif self.exhaustive:
            what = f"all {self.total} {self.unit}"
        else:
            of = f"{self.total}" if self.total is not None else f"more than {ENUMERATE}"
            what = f"{self.points} of {of} {self.unit} sampled"
        how = {
            "expansion": "exactly by full expansion",
            "mod p": "exactly mod p",
            "float64": "in float64",
        }[self.method]
        text = f"{how} at {at}: {what}"
        if self.method == "mod p":
            ps = ", ".join(str(p) for p in self.primes)
            text += (
                f", {self.trials} random trials (p = {ps}); "
                f"chance of a false 'equal' <= {self.bound:.1e}"
            )
        elif self.method == "float64":
            text += f", within rtol={RTOL}, atol={ATOL}"
        return text


@dataclass(frozen=True)
class WitnessResult:
    """One witness's answer. `holds` is True only with evidence that evaluated something."""

    holds: bool | None  # None: this witness could not decide
    detail: str = ""
    counterexample: Counterexample | None = None
    evidence: tuple[Evidence, ...] = ()
    # False: equal where evaluated, but those sizes cannot rule out a coincidence at others
    settles: bool = True

    @property
    def sizes(self) -> tuple[tuple[tuple[str, int], ...], ...]:
        """The size plans at which every index point was evaluated."""
        return tuple(e.sizes for e in self.evidence if e.exhaustive and e.points)

    @property
    def evaluated(self) -> int:
        return sum(e.points for e in self.evidence)

    @property
    def exhaustive(self) -> bool:
        """Some plan was evaluated at every one of its index points (and there was one)."""
        return any(e.exhaustive and e.points for e in self.evidence)


def supported(evidence: Sequence[Evidence], detail: str) -> WitnessResult:
    """'holds' when the evidence evaluated something; otherwise 'no evidence', never 'holds'."""
    evidence = tuple(evidence)
    if not any(e.points for e in evidence):
        shown = "; ".join(str(e) for e in evidence) or "no size plan"
        return WitnessResult(None, f"no evidence: nothing was evaluated ({shown})", None, evidence)
    return WitnessResult(True, detail, None, evidence)
