"""The mutation corpus through the API under every context of the differential suite.

Imports the kernel and the suite's own modules (corpus, mutation, oracle, truth, judging); nothing
in symattn but the soundness package imports it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import sympy

from symattn.kernel.dims import STANDARD_DIMS, assume
from symattn.kernel.errors import SoundnessAlarm, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.kernel.proof import prove_within
from symattn.soundness import oracle
from symattn.soundness import truth as T
from symattn.soundness.corpus import corpus
from symattn.soundness.judging import Item, _where, classify
from symattn.soundness.mutation import mutants
from symattn.soundness.oracle import CONTEXTS, Context


def corpus_items(
    contexts: Sequence[Context] = CONTEXTS, seconds: float = 10.0, derivations: bool = False
) -> list[Item]:
    """Every mutant of the existing corpus through the API under each context; truth by the
    corpus's independent route at size plans that satisfy the context."""

    # the dims no context sets (m, p, q, and modern attention's G, R, D, ell, b), as the truth
    # oracle's first plan has them, so the corpus's modern claims are decided, not undecided
    extra = [k for k in T.TRUTH_PLANS[0] if k.name not in STANDARD_DIMS]
    items = []
    pool = [mu for c in corpus(derivations=derivations) for mu in mutants(c)]
    for ctx in contexts:
        plans = [
            _apart({STANDARD_DIMS[k]: v for k, v in plan.items()}, extra)
            for plan in oracle.plans(ctx)
        ]
        numbers = (
            {STANDARD_DIMS[k]: sympy.Integer(v) for k, v in (ctx.explicit or {}).items()}
            if ctx.kind == "explicit"
            else {}
        )
        asm: dict[str, Any] = {}
        if ctx.relation:
            a, b = ctx.relation.split("=")
            asm[a] = (
                STANDARD_DIMS[b.split("/")[0]] / STANDARD_DIMS[b.split("/")[1]]
                if "/" in b
                else STANDARD_DIMS[b]
            )
        if ctx.kind == "worked":
            asm.update({k: int(v) for k, v in (ctx.explicit or {}).items()})
        for mu in pool:
            start = time.monotonic()
            label = f"{mu.base.name} | {mu.operator}: {mu.where}"
            if mu.error is not None or mu.lhs is None or mu.rhs is None:
                items.append(
                    Item(
                        label,
                        "corpus",
                        mu.operator,
                        ctx.name,
                        "api",
                        "false",
                        "rejected_at_construction",
                        "rejected",
                        mu.error or "",
                        0.0,
                    )
                )
                continue
            lhs, rhs = mu.lhs.xreplace(numbers), mu.rhs.xreplace(numbers)
            defs = {k.xreplace(numbers): v.xreplace(numbers) for k, v in mu.base.defs.items()}
            truth = _corpus_truth(lhs, rhs, defs, mu.base.assuming, plans)
            try:
                with assume(**asm):
                    v = prove_within(
                        lhs, rhs, seconds=seconds, defs=defs, assuming=mu.base.assuming
                    )
                status, detail, sizes = v.status, v.summary(), v.sizes
            except SoundnessAlarm as exc:
                status, detail, sizes = "alarm", str(exc), ()
            except SymattnError as exc:
                status, detail, sizes = "shape_error", f"{type(exc).__name__}: {exc}", ()
            except Exception as exc:
                status, detail, sizes = "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})", ()
            ok = None
            if status == "checked" and truth != "true":
                listed = [dict(s) for s in sizes if s]
                ok = bool(listed) and all(
                    _corpus_truth(
                        lhs,
                        rhs,
                        defs,
                        mu.base.assuming,
                        [
                            {
                                **plans[0],
                                **{
                                    STANDARD_DIMS.get(
                                        k, sympy.Symbol(k, integer=True, positive=True)
                                    ): v
                                    for k, v in s.items()
                                },
                            }
                        ],
                    )
                    == "true"
                    for s in listed
                )
            items.append(
                Item(
                    label,
                    "corpus",
                    mu.operator,
                    ctx.name,
                    "api",
                    truth,
                    status,
                    classify(truth, status, ok),
                    detail[:500],
                    round(time.monotonic() - start, 3),
                )
            )
    return items


def _apart(plan: dict[Any, int], extra: Sequence[Any]) -> dict[Any, int]:
    """`plan` with a size for each dim in `extra`, each differing from every other size, so a
    claim that holds only when two dims coincide (`R` summed up to `d_v`) is not judged true.

    >>> _apart({"n": 3, "d_v": 3 + 1}, ["R", "G"])
    {'n': 3, 'd_v': 4, 'R': 2, 'G': 5}
    """
    out, used = dict(plan), set(plan.values())
    for k in extra:
        v = 2
        while v in used:
            v += 1
        out[k] = v
        used.add(v)
    return out


def _corpus_truth(lhs: Any, rhs: Any, defs: Any, assuming: Any, plans: Sequence[Any]) -> str:
    try:
        a, b = T._unfold(lhs, defs), T._unfold(rhs, defs)
        if isinstance(a, MatExpr) != isinstance(b, MatExpr):
            return "false"
        free = T._ranges(a, b)
        decided = False
        for plan in plans:
            for seed in (0, 1):
                t = T._truth_at(a, b, free, plan, seed, assuming)
                if t == "false":
                    return "false"
                if t == "undecided":
                    return "undecided"
                decided = True
        return "true" if decided else "undecided"
    except SymattnError:
        return "undecided"
