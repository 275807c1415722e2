"""The split-KV merge as texts write it (partials m_s, ℓ_s, O_s merged split by split), bugs too.
Imports numpy and the kernel's named recurrences for the API's terms only; the truth is numpy
loops of its own. Must not import a front end: the runner does.

Each claim is the partials of each split, the merge from the empty state and the claim after
the last split, rendered like `soundness.online_seeds`: kernel terms (the kernel's own
`split_kv_merge` and its bugs), a formula for `symattn prove` and a Markdown document.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symattn.kernel import expr as E
from symattn.kernel.recurrences import cases

__all__ = ["SplitClaim", "split_claims"]

_PARTIALS = (
    r"m_s = \operatorname{rowmax}(S_s)",
    r"\ell_s = \operatorname{rowsum}(e^{S_s - m_s})",
    r"O_s = \operatorname{diag}(\ell_s)^{-1}e^{S_s - m_s}V_s",
)
_START = (r"m^{(0)} = -\infty", r"\ell^{(0)} = 0", "O^{(0)} = 0")
_MAX = r"m^{(s)} = \max(m^{(s-1)}, m_s)"
_A, _B = r"e^{m^{(s-1)} - m^{(s)}}", r"e^{m_s - m^{(s)}}"
_MERGE = {  # (the normaliser's step, the output's step), each as the kernel's case of that name
    "split_kv_merge": (
        rf"\ell^{{(s)}} = {_A}\ell^{{(s-1)}} + {_B}\ell_s",
        rf"O^{{(s)}} = \operatorname{{diag}}(\ell^{{(s)}})^{{-1}}(\operatorname{{diag}}({_A}"
        rf"\ell^{{(s-1)}})O^{{(s-1)}} + \operatorname{{diag}}({_B}\ell_s)O_s)",
    ),
    "split_kv_no_rescale": (
        r"\ell^{(s)} = \ell^{(s-1)} + \ell_s",
        r"O^{(s)} = \operatorname{diag}(\ell^{(s)})^{-1}(\operatorname{diag}(\ell^{(s-1)})"
        r"O^{(s-1)} + \operatorname{diag}(\ell_s)O_s)",
    ),
    "split_kv_unweighted": (
        rf"\ell^{{(s)}} = {_A}\ell^{{(s-1)}} + {_B}\ell_s",
        rf"O^{{(s)}} = \operatorname{{diag}}({_A} + {_B})^{{-1}}(\operatorname{{diag}}({_A})"
        rf"O^{{(s-1)}} + \operatorname{{diag}}({_B})O_s)",
    ),
}
_CLAIM = r"O^{(B)} = \operatorname{softmax}(S)V"
_SIZES = ((5, 3, (2, 1, 2)), (6, 2, (1, 3, 2)), (4, 2, (4,)))


@dataclass(frozen=True)
class SplitClaim:
    """The partials of each split, a merge (`merge` names the kernel's case) and the claim."""

    ident: str
    merge: str
    template: str = "split_kv"
    mutations: tuple[str, ...] = ()

    @property
    def spec(self) -> tuple[str, ...]:
        return ("split", self.merge)

    @property
    def equations(self) -> tuple[str, ...]:
        return (*_PARTIALS, *_START, _MAX, *_MERGE[self.merge])

    @property
    def formula(self) -> str:
        """Every equation in one formula, as `symattn prove` reads them."""
        return r",\quad ".join((*self.equations, _CLAIM))

    def truth(self) -> str:
        """ "true" or "false": the splits merged in numpy, the claim compared at the end."""
        for seed, (n, dv, blocks) in enumerate(_SIZES):
            rng = np.random.default_rng(seed)
            s, v = rng.normal(size=(n, n)) * 3, rng.normal(size=(n, dv))
            m, ell, o, lo = np.full(n, -np.inf), np.zeros(n), np.zeros((n, dv)), 0
            for size in blocks:
                sb, vb = s[:, lo : lo + size], v[lo : lo + size]
                ms = sb.max(axis=1)
                p = np.exp(sb - ms[:, None])
                ls = p.sum(axis=1)
                os_ = (p @ vb) / ls[:, None]
                new = np.maximum(m, ms)
                a, b = np.exp(m - new), np.exp(ms - new)
                if self.merge == "split_kv_no_rescale":
                    a, b = np.ones(n), np.ones(n)
                total = a * ell + b * ls
                if self.merge == "split_kv_unweighted":
                    o = (a[:, None] * o + b[:, None] * os_) / (a + b)[:, None]
                else:
                    o = ((a * ell)[:, None] * o + (b * ls)[:, None] * os_) / total[:, None]
                m, ell, lo = new, total, lo + size
            w = np.exp(s - s.max(axis=1, keepdims=True))
            if not np.allclose(o, (w / w.sum(axis=1, keepdims=True)) @ v, rtol=1e-9):
                return "false"
        return "true"

    def kernel_terms(self) -> tuple[E.MatExpr, E.MatExpr]:
        """The claim for the Python API: the kernel's own recurrence of that name."""
        (case,) = [x for x in cases() if x.name == self.merge]
        return case.recurrence.statement()

    def prove_argv(self) -> list[str]:
        return ["prove", self.formula, "--dims", "S: n x n; V: n x d_v", "--format", "json"]

    def document(self) -> tuple[str, int]:
        """A Markdown document that states the splits, the partials and the merge."""
        lines = [
            "# Merging the splits",
            "",
            r"Let $S \in \mathbb{R}^{n\times n}$ and $V \in \mathbb{R}^{n\times d_v}$. The keys "
            r"are cut into splits $s = 1, \ldots, B$, with the scores $S_s$ and the values "
            r"$V_s$ of split $s$.",
            "",
        ]
        for eq in _PARTIALS:
            lines += [f"$${eq}$$", ""]
        lines += ["The merge starts at " + ", ".join(f"${x}$" for x in _START) + ".", ""]
        for eq in (_MAX, *_MERGE[self.merge]):
            lines += [f"$${eq}$$", ""]
        lines += [f"$${_CLAIM}$$"]
        line = len(lines)
        lines.append("")
        return "\n".join(lines), line


def split_claims() -> list[SplitClaim]:
    """The right merge and its two classic bugs.

    >>> [c.truth() for c in split_claims()]
    ['true', 'false', 'false']
    """
    return [SplitClaim(f"split-{m}", m) for m in _MERGE]
