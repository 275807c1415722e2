"""The online softmax as texts write it (m, ℓ, O over key blocks), true and with its classic bugs.
Imports numpy and the kernel (dims, expr, recurrent, online_written) for the API's terms only;
the truth is numpy loops of its own. Must not import a front end: the runner does.

Each claim is the three base cases, the three steps and a claim about the output, rendered
three ways like `soundness.recurrence_seeds`: kernel terms, a formula for `symattn prove` and
a Markdown document for `check`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
import sympy

from symattn.kernel import dims as D
from symattn.kernel import expr as E
from symattn.kernel.online_written import written_online
from symattn.kernel.recurrences import c, i
from symattn.kernel.recurrent import Operands, Recurrent, Segment, State

__all__ = ["OnlineClaim", "online_claims"]

_OUT = {  # the output's step: the old output rescaled (diag or a plain product), or not
    "diag": r"O^{(b)} = \operatorname{diag}(e^{m^{(b-1)}-m^{(b)}})O^{(b-1)} + "
    r"e^{S^{(b)}-m^{(b)}}V_b",
    "plain": r"O^{(b)} = O^{(b-1)} + e^{S^{(b)}-m^{(b)}}V_b",
}
_NORM = {
    "rescaled": r"\ell^{(b)} = e^{m^{(b-1)}-m^{(b)}}\ell^{(b-1)} + "
    r"\operatorname{rowsum}(e^{S^{(b)}-m^{(b)}})",
    "plain": r"\ell^{(b)} = \ell^{(b-1)} + \operatorname{rowsum}(e^{S^{(b)}-m^{(b)}})",
}
_MAX = r"m^{(b)} = \max(m^{(b-1)}, \operatorname{rowmax}(S^{(b)}))"
_START = {"inf": r"m^{(0)} = -\infty", "zero": "m^{(0)} = 0"}
_CLAIM = {
    "ratio": r"O^{(B)}/\ell^{(B)} = \operatorname{softmax}(S)V",
    "unnormalised": r"O^{(B)} = \operatorname{softmax}(S)V",
}
_SIZES = ((5, 3, (2, 1, 2)), (6, 2, (1, 3, 2)), (4, 2, (4,)))


@dataclass(frozen=True)
class OnlineClaim:
    """The online softmax's base cases, its steps (`out`, `norm` say which are rescaled) and a
    claim about the output after the last block."""

    ident: str
    out: str
    norm: str
    start: str
    claim: str
    template: str = "online_softmax"
    mutations: tuple[str, ...] = ()

    @property
    def spec(self) -> tuple[str, ...]:
        return ("online", self.out, self.norm, self.start, self.claim)

    @property
    def equations(self) -> tuple[str, ...]:
        return (
            _START[self.start],
            r"\ell^{(0)} = 0",
            "O^{(0)} = 0",
            _MAX,
            _NORM[self.norm],
            _OUT[self.out],
        )

    @property
    def formula(self) -> str:
        """Every equation in one formula, as `symattn prove` reads them."""
        return r",\quad ".join((*self.equations, _CLAIM[self.claim]))

    def truth(self) -> str:
        """ "true" or "false": the blocks iterated in numpy, the claim compared at the end."""
        for seed, (n, dv, blocks) in enumerate(_SIZES):
            rng = np.random.default_rng(seed)
            s, v = rng.normal(size=(n, n)) * 3, rng.normal(size=(n, dv))
            m = np.full(n, -np.inf if self.start == "inf" else 0.0)
            ell, o, lo = np.zeros(n), np.zeros((n, dv)), 0
            for size in blocks:
                sb, vb = s[:, lo : lo + size], v[lo : lo + size]
                new = np.maximum(m, sb.max(axis=1))
                alpha, p = np.exp(m - new), np.exp(sb - new[:, None])
                ell = (alpha if self.norm == "rescaled" else 1) * ell + p.sum(axis=1)
                o = (alpha[:, None] if self.out == "diag" else 1) * o + p @ vb
                m, lo = new, lo + size
            w = np.exp(s - s.max(axis=1, keepdims=True))
            want = (w / w.sum(axis=1, keepdims=True)) @ v
            got = o / ell[:, None] if self.claim == "ratio" else o
            if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
                return "false"
        return "true"

    def kernel_terms(self) -> tuple[E.MatExpr, E.MatExpr]:
        """The claim for the Python API: `Recurrent(...)` of the recurrence built in the kernel's
        terms, against `softmax(S)V`."""
        S, V = E.MatSym("S", D.n, D.n), E.MatSym("V", D.n, D.d_v)

        def step(ops: Operands, st: State, seg: Segment) -> State:
            m = sympy.Max(st[0], seg.max(lambda k: E.Entry(ops["S"], i, k)), evaluate=False)
            a = sympy.exp(st[0] - m)
            w = lambda k: sympy.exp(E.Entry(ops["S"], i, k) - m)  # noqa: E731
            ell = (a if self.norm == "rescaled" else 1) * st[1] + seg.sum(w)
            o = (a if self.out == "diag" else 1) * st[2]
            return (m, ell, o + seg.sum(lambda k: w(k) * E.Entry(ops["V"], k, c)))

        def output(ops: Operands, st: State) -> sympy.Expr:
            return st[2] / st[1] if self.claim == "ratio" else st[2]

        start = -sympy.oo if self.start == "inf" else sympy.Integer(0)
        target = E.Softmax(S) @ V
        rec = written_online(
            f"api:{self.ident}",
            S,
            V,
            (start, sympy.Integer(0), sympy.Integer(0)),
            step,
            output,
            target,
        )
        return Recurrent(rec, S, V), target

    def prove_argv(self) -> list[str]:
        return ["prove", self.formula, "--dims", "S: n x n; V: n x d_v", "--format", "json"]

    def document(self) -> tuple[str, int]:
        """A Markdown document that states the blocks and the recurrence, and the claim's line."""
        lines = [
            "# The online softmax",
            "",
            r"Let $S \in \mathbb{R}^{n\times n}$ and $V \in \mathbb{R}^{n\times d_v}$. The keys "
            r"are split into blocks $b = 1, \ldots, B$: $S^{(b)}$ holds the columns of block "
            r"$b$ of $S$ and $V_b$ the rows of block $b$ of $V$.",
            "",
            "The state starts at " + ", ".join(f"${x}$" for x in self.equations[:3]) + ".",
            "",
        ]
        for eq in self.equations[3:]:
            lines += [f"$${eq}$$", ""]
        lines += ["After the last block,", "", f"$${_CLAIM[self.claim]}$$"]
        line = len(lines)
        lines.append("")
        return "\n".join(lines), line


def online_claims() -> list[OnlineClaim]:
    """Every combination of the output's and the normaliser's steps, the start of the maximum
    and the claim (true and false ones alike).

    >>> cs = online_claims()
    >>> len(cs), sorted(x.ident for x in cs if x.truth() == "true")[:2]
    (16, ['online-diag-rescaled-inf-ratio', 'online-diag-rescaled-zero-ratio'])
    """
    return [
        OnlineClaim(f"online-{o}-{n}-{s}-{k}", o, n, s, k)
        for o, n, s, k in product(_OUT, _NORM, _START, _CLAIM)
    ]
