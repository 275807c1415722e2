"""Derivations: chains `e0 = e1 = ... = ek` whose every step the kernel checks, and `Proof`s.

Imports only the kernel below it (errors, text, expr, proof for verdicts, match and rules for
the justifications a step may cite); must not import anything above the kernel.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

import sympy

from symattn.kernel.errors import ProofError, ShapeError
from symattn.kernel.expr import MatExpr, MatSym
from symattn.kernel.match import Pattern
from symattn.kernel.proof import ALL_WITNESSES, Verdict, Witness, prove_equal
from symattn.kernel.rules import PHRASES, Rule, get, known_justification
from symattn.kernel.text import plain

_KERNEL = object()  # the token only Derivation.prove holds: a Proof is never made by hand


@dataclass(frozen=True)
class Step:
    """One checked line of a derivation: `before = after`, justified by `by`."""

    before: sympy.Basic
    after: sympy.Basic
    by: str
    verdict: Verdict


@dataclass(frozen=True)
class Proof:
    """A derivation every step of which the kernel checked. Only the kernel makes these."""

    title: str
    steps: tuple[Step, ...]
    defs: Mapping[MatSym, MatExpr] = field(default_factory=dict)
    assuming: tuple[sympy.Basic, ...] = ()  # hypotheses every step was checked under (`j > i`)
    _token: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._token is not _KERNEL:
            raise TypeError("a Proof is made only by the kernel: use Derivation.prove()")

    @property
    def lhs(self) -> sympy.Basic:
        return self.steps[0].before

    @property
    def rhs(self) -> sympy.Basic:
        return self.steps[-1].after

    @property
    def for_all_sizes(self) -> bool:
        """True when every step has the symbolic witness."""
        return all(s.verdict.status == "proved" for s in self.steps)

    @property
    def witnesses(self) -> tuple[Witness, ...]:
        """The witnesses every step has."""
        common = set(ALL_WITNESSES)
        for s in self.steps:
            common &= set(s.verdict.witnesses)
        return tuple(w for w in ALL_WITNESSES if w in common)

    def __str__(self) -> str:
        lines = [f"{self.title}:", f"    {plain(self.lhs)}"]
        for s in self.steps:
            lines.append(f"  = {plain(s.after)}    [{s.by}; {'+'.join(s.verdict.witnesses)}]")
        return "\n".join(lines)


@dataclass(frozen=True)
class Derivation:
    """A chain `e0 = e1 = ... = ek`, each step justified by a rule name or a short phrase.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j, r = index("i"), index("j"), index("r")
    >>> d = Derivation(s.scores[i, j], title="score entry")
    >>> d = d.step(sympy.Sum(s.Q[i, r] * s.K[j, r], (r, 1, s.Q.cols)), by="mul_transpose_apply")
    >>> d = d.step(Dot(s.Q.row(i), s.K.row(j)), by="dot_def")
    >>> d.prove().for_all_sizes
    True
    """

    start: sympy.Basic
    title: str = "derivation"
    chain: tuple[tuple[sympy.Basic, str], ...] = ()
    defs: Mapping[MatSym, MatExpr] = field(default_factory=dict)
    #: (file, line) where each step was written: errors point at the author's own source.
    sites: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)

    def step(self, term: sympy.Basic, by: str) -> Derivation:
        """The derivation with one more line `= term`, justified by `by`."""
        _validate_by(by)
        caller = sys._getframe(1)
        site = (caller.f_code.co_filename, caller.f_lineno)
        chain = self.chain + ((term, by),)
        return Derivation(self.start, self.title, chain, self.defs, self.sites + (site,))

    def prove(
        self,
        *,
        require: Literal["symbolic", "exact"] = "symbolic",
        witnesses: Sequence[Witness] = ALL_WITNESSES,
        assuming: Sequence[sympy.Basic] = (),
    ) -> Proof:
        """Check every step; a `Proof`, or `ProofError` naming the first step that fails.

        A step that cites a rule must also be an instance of it (`match.Pattern`): a true step
        with the wrong reason is a `ProofError` ("step 2 holds but does not follow from ...").
        """
        if not self.chain:
            raise ProofError(f"{self.title}: a derivation needs at least one step")
        steps = []
        before = self.start
        for k, (after, by) in enumerate(self.chain, start=1):
            v = prove_equal(before, after, defs=self.defs, assuming=assuming, witnesses=witnesses)
            _require(v, require, k, self.title, before, after, by)
            _fits(by, k, self.title, before, after, self.defs, tuple(assuming))
            steps.append(Step(before, after, by, v))
            before = after
        return Proof(self.title, tuple(steps), self.defs, tuple(assuming), _token=_KERNEL)


def _validate_by(by: str) -> None:
    known_justification(by)


def _fits(by, k: int, title: str, before, after, defs, assuming) -> None:
    """A step that cites a rule must rewrite instances of it; phrases cite no rule."""
    if by in PHRASES:
        return
    reason = _pattern(get(by)).mismatch(before, after, defs=defs, assuming=assuming)
    if reason is not None:
        where = f"{title}, step {k}: {plain(before)} = {plain(after)}"
        raise ProofError(
            f"step {k} holds but does not follow from {by}: {where}\n  {reason}", step=k
        )


@cache
def _pattern(rule: Rule) -> Pattern:
    lhs, rhs = rule.sides()
    return Pattern(lhs, rhs, rule.assuming())


def _require(v: Verdict, require: str, k: int, title: str, before, after, by) -> None:
    ok = v.status == "proved" or (require == "exact" and v.status == "checked")
    if ok:
        return
    where = f"{title}, step {k} ({by}): {plain(before)} = {plain(after)}"
    if v.status == "false":
        raise ProofError(
            f"step {k} is false: {where}\n  counterexample: {v.counterexample}",
            step=k,
            counterexample=v.counterexample,
        )
    if v.status == "shape_error":
        raise ShapeError(f"step {k} does not typecheck: {where}\n  {v.reason}")
    raise ProofError(f"step {k} not proved ({v.status}): {where}\n  {v.reason}", step=k)
