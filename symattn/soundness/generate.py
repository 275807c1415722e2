"""Seeded random claims for the differential suite: true identities and mutants of them.

Imports only the standard library and the generator's own parts (the suite's AST
`symattn.soundness.oracle`, `templates`, `mutants`); nothing from the kernel. True claims are built
by applying rewrites that hold for every size (`(AB)^T = B^T A^T`, `(AB)_{ij} = sum_r A_{ir}
B_{rj}`, `(QK^T)_{ij} = q_i . k_j`, row i of `AV` is `sum_j a_ij v_j`, scaling commutes with
products, `Concat(Z^{(h)}) W_O = sum_h Z^{(h)} W_O^{(h)}`, masked sums `sum_{j=1}^{n} ->
sum_{j=1}^{i}`, ...) to random well-typed matrix expressions; mutants change one place (indices
swapped, a transpose dropped, a bound moved between i, i-1 and n, a scale changed, the wrong
triangle, column softmax, an off-by-one W_O block, factors swapped, ...). Whether a claim is true is
never taken from the generator: the oracle decides it under each context.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from symattn.soundness.mutants import mutate
from symattn.soundness.oracle import (
    MAT_TYPES,
    ClaimSpec,
    nodes,
)
from symattn.soundness.templates import TEMPLATES, subst


@dataclass(frozen=True)
class GenClaim:
    """A generated claim: its AST, the template it came from, the mutations applied."""

    ident: str
    template: str
    spec: ClaimSpec
    mutations: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        muts = "+".join(self.mutations) if self.mutations else "unmutated"
        return f"{self.ident} {self.template} [{muts}]"


def generate(count: int, seed: int = 0, mutant_share: float = 0.6) -> list[GenClaim]:
    """`count` claims, deterministic in `seed`; about `mutant_share` of them mutated.

    >>> [c.label for c in generate(2, seed=1)] == [c.label for c in generate(2, seed=1)]
    True
    """
    rng = random.Random(seed)
    names = list(TEMPLATES)
    weights = [TEMPLATES[k][0] for k in names]
    out: list[GenClaim] = []
    k = 0
    while len(out) < count:
        k += 1
        name = rng.choices(names, weights)[0]
        spec = TEMPLATES[name][1](rng)
        muts: list[str] = []
        if rng.random() < mutant_share:
            for _ in range(1 if rng.random() < 0.85 else 2):
                got = mutate(rng, spec)
                if got is not None:
                    spec, op = got
                    muts.append(op)
        if spec.lhs == spec.rhs:
            continue
        out.append(GenClaim(f"g{seed}-{len(out)}", name, spec, tuple(muts)))
    return out


def size(spec: ClaimSpec) -> int:
    return sum(1 for _ in nodes(spec.lhs)) + sum(1 for _ in nodes(spec.rhs))


__all__ = ["GenClaim", "TEMPLATES", "generate", "mutate", "subst", "MAT_TYPES"]
