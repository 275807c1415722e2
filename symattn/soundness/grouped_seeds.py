"""Grouped-query attention's backward pass for the whole K and V, block by block (dK_g, dV_g
summed over the R query heads of key head g), plain and causal, true and with one query head
too few: the differential suite's grouped-query seeds.

Imports numpy and the kernel (backward_heads, expr) for the API's calls only; the truth is central
finite differences of a numpy forward pass of its own. Must not import a front end: the runner
(`soundness.differential`) does.

Each claim is rendered three ways: `prove_grouped_gradient`, a formula for `symattn prove` (the
forward pass, then the claim) and a Markdown document with the forward pass in its prose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from symattn.kernel.backward_heads import GroupedBackward, prove_grouped_gradient
from symattn.kernel.expr import MatSum
from symattn.soundness.render import claim_document

__all__ = ["GroupedClaim", "grouped_claims"]

#: The forward pass of query head h, which reads key head ⌈h/R⌉ of the repeated K and V.
_FORWARD = (
    r"S^{(h)} = Q^{(h)}(\operatorname{repeat}_R(K)^{(h)})^\top/\sqrt{d_k}",
    r"A^{(h)} = {softmax}",
    r"O^{(h)} = A^{(h)}\operatorname{repeat}_R(V)^{(h)}",
)
#: The gradients of query head h that the block of K reads.
_HEAD_GRADIENTS = (
    r"\mathit{dA}^{(h)} = \mathit{dO}^{(h)}(\operatorname{repeat}_R(V)^{(h)})^\top",
    r"\mathit{dS}^{(h)} = A^{(h)} \circ (\mathit{dA}^{(h)} - "
    r"\operatorname{rowsum}(A^{(h)} \circ \mathit{dA}^{(h)})\mathbf 1_n^\top)",
)
_MEMBER = "(g-1)R+t"
_CLAIMS = {
    "dV": rf"\mathit{{dV}}_g = \sum_{{t=1}}^{{{{top}}}} (A^{{({_MEMBER})}})^\top "
    rf"\mathit{{dO}}^{{({_MEMBER})}}",
    "dK": rf"\mathit{{dK}}_g = \sum_{{t=1}}^{{{{top}}}} (\mathit{{dS}}^{{({_MEMBER})}})^\top "
    rf"Q^{{({_MEMBER})}}/\sqrt{{d_k}}",
}


def _softmax(s: np.ndarray, causal: bool) -> np.ndarray:
    if causal:
        s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
    z = np.exp(s - s.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _holds(c: GroupedClaim, groups: int, per: int, n: int, dk: int, dv: int, seed: int) -> bool:
    """Whether every claimed block matches central finite differences of the loss summed over
    the GR query heads, query head h (0-based) reading key head h // R (repeat_interleave)."""
    rng = np.random.default_rng(seed)
    heads = groups * per
    q, do = rng.normal(size=(heads, n, dk)), rng.normal(size=(heads, n, dv))
    mats = {"K": rng.normal(size=(n, groups * dk)), "V": rng.normal(size=(n, groups * dv))}

    def cut(m: np.ndarray, g: int, w: int) -> np.ndarray:
        return m[:, g * w : (g + 1) * w]

    def loss(m: dict[str, np.ndarray]) -> float:
        total = 0.0
        for h in range(heads):
            k, v = cut(m["K"], h // per, dk), cut(m["V"], h // per, dv)
            a = _softmax(q[h] @ k.T / np.sqrt(dk), c.causal)
            total += float(np.sum(do[h] * (a @ v)))
        return total

    width = dk if c.claim == "dK" else dv
    numeric = np.zeros(mats[c.claim[1]].shape)
    for idx in np.ndindex(*numeric.shape):
        up = {k: x.copy() for k, x in mats.items()}
        down = {k: x.copy() for k, x in mats.items()}
        up[c.claim[1]][idx] += 1e-5
        down[c.claim[1]][idx] -= 1e-5
        numeric[idx] = (loss(up) - loss(down)) / 2e-5
    top = per if c.holds else per - 1
    for g in range(groups):
        k, v = cut(mats["K"], g, dk), cut(mats["V"], g, dv)
        block = np.zeros((n, width))
        for t in range(top):
            h = g * per + t
            a = _softmax(q[h] @ k.T / np.sqrt(dk), c.causal)
            if c.claim == "dV":
                block += a.T @ do[h]
            else:
                da = do[h] @ v.T
                ds = a * (da - (a * da).sum(axis=1, keepdims=True))
                block += ds.T @ q[h] / np.sqrt(dk)
        if not np.allclose(block, cut(numeric, g, width), rtol=1e-6, atol=1e-8):
            return False
    return True


@dataclass(frozen=True)
class GroupedClaim:
    """Block g of dK or dV of grouped-query attention (G key heads, R query heads each), summed
    over the R query heads of key head g, or (`holds=False`) over R - 1 of them."""

    ident: str
    claim: str  # "dK" or "dV"
    causal: bool
    holds: bool
    template: str = "grouped-backward"
    mutations: tuple[str, ...] = ()

    @property
    def spec(self) -> tuple[str, bool, bool]:
        return (self.claim, self.causal, self.holds)

    @property
    def claimed(self) -> str:
        return _CLAIMS[self.claim].replace("{top}", "R" if self.holds else "R - 1")

    def _forward(self) -> list[str]:
        soft = (
            r"\operatorname{softmax}(\operatorname{mask}(S^{(h)}))"
            if self.causal
            else r"\operatorname{softmax}(S^{(h)})"
        )
        out = [x.replace("{softmax}", soft) for x in _FORWARD]
        return out + (list(_HEAD_GRADIENTS) if self.claim == "dK" else [])

    def truth(self) -> str:
        """ "true" or "false": each claimed block against central finite differences of the
        loss, at two size plans (G, R, n, d_k, d_v) and seeds, float64."""
        plans = ((2, 2, 3, 2, 2, 0), (2, 3, 3, 2, 3, 1))
        return "true" if all(_holds(self, *plan) for plan in plans) else "false"

    def kernel_call(self, seconds: float) -> Any:
        """The claim through the API: `prove_grouped_gradient` on block g of K or V."""
        b = GroupedBackward(causal=self.causal)
        wrt, block = (b.K, b.dK_block) if self.claim == "dK" else (b.V, b.dV_block)
        if not self.holds:
            block = MatSum(block.args[0], b.t, 1, b.per - 1)
        return prove_grouped_gradient(b, wrt, block)

    def prove_argv(self) -> list[str]:
        formula = r",\quad ".join([*self._forward(), self.claimed])
        dims = r"K: n x G d_k; V: n x G d_v; Q^{(h)}: n x d_k"
        return ["prove", formula, "--dims", dims, "--format", "json"]

    def document(self) -> tuple[str, int]:
        """A Markdown document with the grouped-query forward pass in its prose, and the
        claim's line."""
        forward = ", ".join(f"${x}$" for x in self._forward())
        lines = [
            "# The backward pass of grouped-query attention",
            "",
            r"Let $K \in \mathbb{R}^{n\times G d_k}$ and $V \in \mathbb{R}^{n\times G d_v}$ hold "
            r"$G$ key and value heads, and let each query head $h = 1, \ldots, GR$ have "
            r"$Q^{(h)} \in \mathbb{R}^{n\times d_k}$; query head $h$ reads key head "
            r"$\lceil h/R\rceil$.",
            "",
            f"The forward pass is {forward}; the loss sums over the query heads, and the "
            "upstream gradient of each $O^{(h)}$ is given.",
            "",
        ]
        return claim_document(lines, self.claimed)


def grouped_claims() -> list[GroupedClaim]:
    """dK and dV, plain and causal, each true and with one query head too few.

    >>> cs = grouped_claims()
    >>> len(cs), sum(c.holds for c in cs)
    (8, 4)
    """
    return [
        GroupedClaim(
            f"gqa-{name}{'-causal' if causal else ''}{'' if holds else '-one-head-short'}",
            name,
            causal,
            holds,
        )
        for causal in (False, True)
        for name in ("dV", "dK")
        for holds in (True, False)
    ]
