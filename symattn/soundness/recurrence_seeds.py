"""Recurrence claims (`S_0 = 0`, `S_t = S_{t-1} + k_t^T v_t`, then `S_t = ...`), true and false.

Imports numpy and the kernel (dims, expr, unfold) for the API's terms only; the truth is numpy
loops of its own. Must not import a front end: the runner (`soundness.differential`) does.

Each claim is a base case, a step and a claim about the family, rendered three ways: kernel terms
(`kernel.unfold.member`), a formula for `symattn prove` and a Markdown document for `check`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

import numpy as np

from symattn.kernel import dims as D
from symattn.kernel import expr as E
from symattn.kernel.unfold import member, zeros
from symattn.soundness.render import claim_document

__all__ = ["RecClaim", "recurrence_claims"]

# step kinds: (LaTeX, numpy step S_{t-1}, K, V, t -> S_t); t is 1-based
_STEPS: dict[str, tuple[str, Callable[..., np.ndarray]]] = {
    "accumulate": (r"S_t = S_{t-1} + k_t^\top v_t", lambda s, k, v, t: s + _outer(k, v, t, t)),
    "overwrite": (r"S_t = k_t^\top v_t", lambda s, k, v, t: _outer(k, v, t, t)),
    "first_key": (r"S_t = S_{t-1} + k_1^\top v_t", lambda s, k, v, t: s + _outer(k, v, 1, t)),
    "doubled": (r"S_t = 2S_{t-1} + k_t^\top v_t", lambda s, k, v, t: 2 * s + _outer(k, v, t, t)),
}
# base cases: (LaTeX, index, numpy value)
_BASES: dict[str, tuple[str, int, Callable[..., np.ndarray]]] = {
    "zero": ("S_0 = 0", 0, lambda k, v: np.zeros((k.shape[1], v.shape[1]))),
    "first": (r"S_1 = k_1^\top v_1", 1, lambda k, v: _outer(k, v, 1, 1)),
}
# claims: (LaTeX, the index it is at: "t" every t, else a number or "n", numpy value at t)
_CLAIMS: dict[str, tuple[str, str, Callable[..., np.ndarray]]] = {
    "prefix": (r"S_t = \sum_{j=1}^{t} k_j^\top v_j", "t", lambda k, v, t: _prefix(k, v, t)),
    "one_short": (
        r"S_t = \sum_{j=1}^{t-1} k_j^\top v_j",
        "t",
        lambda k, v, t: _prefix(k, v, t - 1),
    ),
    "two": (r"S_2 = k_1^\top v_1 + k_2^\top v_2", "2", lambda k, v, t: _prefix(k, v, 2)),
    "gap": (
        r"S_3 = k_1^\top v_1 + k_3^\top v_3",
        "3",
        lambda k, v, t: _outer(k, v, 1, 1) + _outer(k, v, 3, 3),
    ),
    "whole": (r"S_n = K^\top V", "n", lambda k, v, t: k.T @ v),
    "last": (r"S_t = k_t^\top v_t", "t", lambda k, v, t: _outer(k, v, t, t)),
}


def _outer(k: np.ndarray, v: np.ndarray, a: int, b: int) -> np.ndarray:
    return np.outer(k[a - 1], v[b - 1])


def _prefix(k: np.ndarray, v: np.ndarray, t: int) -> np.ndarray:
    return k[:t].T @ v[:t]


@dataclass(frozen=True)
class RecClaim:
    """A base case, a step and a claim about the family S_t over the rows k_t, v_t of K, V."""

    ident: str
    step: str
    base: str
    claim: str
    template: str = "recurrence"
    mutations: tuple[str, ...] = ()

    @property
    def spec(self) -> tuple[str, str, str]:
        return (self.step, self.base, self.claim)

    @property
    def formula(self) -> str:
        """The three equations in one formula, as `symattn prove` reads them."""
        return r",\quad ".join((_BASES[self.base][0], _STEPS[self.step][0], self.claimed))

    @property
    def claimed(self) -> str:
        return _CLAIMS[self.claim][0]

    def truth(self) -> str:
        """ "true" or "false": the family iterated in numpy from its base case and compared with
        the claim at every t it speaks of, at two size plans and two seeds."""
        for n, dk, dv, seed in ((4, 2, 3, 0), (5, 3, 2, 1)):
            rng = np.random.default_rng(seed)
            k, v = rng.normal(size=(n, dk)), rng.normal(size=(n, dv))
            _, start, base = _BASES[self.base]
            states = {start: base(k, v)}
            for t in range(start + 1, n + 1):
                states[t] = _STEPS[self.step][1](states[t - 1], k, v, t)
            at = _CLAIMS[self.claim][1]
            ts = range(1, n + 1) if at == "t" else [n if at == "n" else int(at)]
            for t in ts:
                if not np.allclose(states[t], _CLAIMS[self.claim][2](k, v, t), rtol=1e-9):
                    return "false"
        return "true"

    def kernel_terms(self) -> tuple[E.MatExpr, E.MatExpr]:
        """The claim for the Python API: `member(...)` against the claimed side."""
        n, dk, dv = D.n, D.d_k, D.d_v
        K, V = E.MatSym("K", n, dk), E.MatSym("V", n, dv)
        t = E.index("t")
        j = E.index("j")

        def outer(a: object, b: object) -> E.MatExpr:
            return E.Row(K, a).T @ E.Row(V, b)

        prev = E.MatSym("S_previous", dk, dv)
        step = {
            "accumulate": E.MatAdd(prev, outer(t, t)),
            "overwrite": outer(t, t),
            "first_key": E.MatAdd(prev, outer(1, t)),
            "doubled": E.MatAdd(E.Scale(2, prev), outer(t, t)),
        }[self.step]
        base = zeros(dk, dv) if self.base == "zero" else outer(1, 1)
        start = _BASES[self.base][1]
        at = {"t": t, "n": n}.get(_CLAIMS[self.claim][1], None)
        index = at if at is not None else int(_CLAIMS[self.claim][1])
        lhs = member("S", index, base, step, prev, t, start)
        rhs = {
            "prefix": E.MatSum(outer(j, j), j, 1, t),
            "one_short": E.MatSum(outer(j, j), j, 1, t - 1),
            "two": E.MatAdd(outer(1, 1), outer(2, 2)),
            "gap": E.MatAdd(outer(1, 1), outer(3, 3)),
            "whole": K.T @ V,
            "last": outer(t, t),
        }[self.claim]
        return lhs, rhs

    def prove_argv(self) -> list[str]:
        return [
            "prove",
            self.formula,
            "--dims",
            "K: n x d_k; V: n x d_v",
            "--conventions",
            "vectors=row",
            "--format",
            "json",
        ]

    def document(self) -> tuple[str, int]:
        """A Markdown document that states the recurrence in its prose, and the claim's line."""
        lines = [
            "---",
            "symattn:",
            "  vectors: row",
            "---",
            "# A recurrence",
            "",
            r"Let $K \in \mathbb{R}^{n\times d_k}$ and $V \in \mathbb{R}^{n\times d_v}$, with "
            "rows $k_t$ and $v_t$.",
            "",
            f"The state starts at ${_BASES[self.base][0]}$ and is updated by "
            f"${_STEPS[self.step][0]}$.",
            "",
        ]
        return claim_document(lines, self.claimed)


def recurrence_claims() -> list[RecClaim]:
    """Every combination of step, base case and claim (true and false ones alike).

    >>> cs = recurrence_claims()
    >>> len(cs), sum(c.truth() == "true" for c in cs)
    (48, 8)
    """
    return [
        RecClaim(f"rec-{step}-{base}-{claim}", step, base, claim)
        for step, base, claim in product(_STEPS, _BASES, _CLAIMS)
    ]
