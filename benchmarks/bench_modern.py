"""Benchmark: modern-attention identities, symbolic proof (all sizes) against the exact check at
explicit sizes 2, 3, 4, timed in one run.

Run: `.venv/bin/python benchmarks/bench_modern.py [REPEAT]` (default 3). Prints the median time of
each and the ratio exact/symbolic: how much a check at one size costs against a proof for all.
A second table times the proofs by induction on the number of blocks or tokens (base, step and
conclusion; then the cross-checks unrolled at 1 to 4), as multiples of the symbolic proof of
the online softmax with 4 explicit blocks of b; a third the grouped-query proofs for every G, R.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

import sympy


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median processor time of `fn` over `repeat` runs, in seconds (after one warm-up run):
    the work done, which other jobs on the machine change far less than the wall time."""
    fn()
    runs = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        runs.append(time.process_time() - start)
    return statistics.median(runs)


def cases() -> list[tuple[str, Callable[[object], tuple[sympy.Basic, sympy.Basic]]]]:
    """Each identity as a function of one size (a dim for the proof, an int for the check)."""
    from symattn.kernel.dims import d_v, n
    from symattn.kernel.expr import CausalMask, MatSym, Softmax
    from symattn.kernel.modern import (
        OnlineSoftmax,
        PairDots,
        PositionBias,
        Rope,
        alibi,
        pair_sum,
    )

    lam = sympy.Symbol("lambda", positive=True)
    m, t = sympy.Symbol("m_q", real=True), sympy.Symbol("n_k", real=True)

    def online(b: object) -> tuple[sympy.Basic, sympy.Basic]:
        s, v = MatSym("S", n, 2 * b), MatSym("V", 2 * b, d_v)  # type: ignore[operator]
        return OnlineSoftmax(s, v, (b, b)), Softmax(s) @ v

    def rope(p: object) -> tuple[sympy.Basic, sympy.Basic]:
        q, k = MatSym("q", p, 2), MatSym("k", p, 2)
        return pair_sum(PairDots(Rope(q, m), Rope(k, t))), pair_sum(PairDots(q, Rope(k, t - m)))

    def bias(size: object) -> tuple[sympy.Basic, sympy.Basic]:
        s = MatSym("S", size, size)
        shifted = Softmax(CausalMask(s + alibi(size, lam)))
        return shifted, Softmax(CausalMask(s + PositionBias(size, 0, lam)))

    return [("online softmax, 2 blocks of b", online), ("RoPE, p pairs", rope), ("ALiBi, n", bias)]


def main(argv: list[str]) -> int:
    from symattn.kernel.dims import dim
    from symattn.kernel.proof import forget, prove_equal

    repeat = int(argv[0]) if argv else 3
    size = dim("b")

    def run(lhs: sympy.Basic, rhs: sympy.Basic, witness: str) -> str:
        forget()
        status = prove_equal(lhs, rhs, witnesses=(witness,)).status
        if status not in ("proved", "checked"):
            raise SystemExit(f"{witness} witness gave {status}")
        return status

    print(f"{'identity':32} {'symbolic':>10} " + " ".join(f"{f'exact@{k}':>10}" for k in (2, 3, 4)))
    for name, build in cases():
        lhs, rhs = build(size)
        sym = timed(lambda lhs=lhs, rhs=rhs: run(lhs, rhs, "symbolic"), repeat)
        cells = []
        for k in (2, 3, 4):
            a, b = build(k)
            ex = timed(lambda a=a, b=b: run(a, b, "exact"), repeat)
            cells.append(f"{ex / sym:>9.2f}x")
        print(f"{name:32} {sym * 1000:>8.0f}ms " + " ".join(cells))
    print("(exact@k: the exact check at size k, as a multiple of the symbolic proof's time)")
    print()
    induction_table(repeat, size)
    print()
    heads_table(repeat)
    return 0


def induction_table(repeat: int, size: sympy.Symbol) -> None:
    """Each recurrence's proof by induction (no unrolling), and its unrolled cross-checks, as
    multiples of the fixed-block proof of the online softmax with 4 blocks of b."""
    from symattn.kernel.dims import d_v, n
    from symattn.kernel.expr import MatSym, Softmax
    from symattn.kernel.induction import prove_recurrence
    from symattn.kernel.modern import OnlineSoftmax
    from symattn.kernel.proof import forget, prove_equal
    from symattn.kernel.recurrences import recurrences

    s, v = MatSym("S", n, 4 * size), MatSym("V", 4 * size, d_v)
    fixed = (OnlineSoftmax(s, v, (size,) * 4), Softmax(s) @ v)

    def base() -> None:
        forget()
        if prove_equal(*fixed, witnesses=("symbolic",)).status != "proved":
            raise SystemExit("the fixed-block proof failed")

    ref = timed(base, repeat)
    print(f"fixed blocks (b, b, b, b), symbolic proof: {ref * 1000:.0f} ms")
    print(f"{'recurrence':24} {'induction':>10} {'ratio':>7} {'unrolled 1-4':>13} {'ratio':>7}")
    for rec in recurrences():

        def proof(rec=rec) -> None:
            forget()
            if prove_recurrence(rec, counts=()).status != "proved":
                raise SystemExit(f"{rec.name} not proved")

        def both(rec=rec) -> None:
            forget()
            if prove_recurrence(rec).status != "proved":
                raise SystemExit(f"{rec.name} not proved")

        ind = timed(proof, repeat)
        unrolled = timed(both, repeat) - ind
        print(
            f"{rec.name:24} {ind * 1000:>8.0f}ms {ind / ref:>6.2f}x "
            f"{unrolled * 1000:>11.0f}ms {unrolled / ref:>6.2f}x"
        )
    print("(ratio: a multiple of the fixed-block proof's time)")


def heads_table(repeat: int) -> None:
    """The grouped-query proofs for every G, R: the output (symbolic witness) and the whole dK,
    dV block by block (`prove_grouped_gradient`, every witness; its rules shown once before)."""
    from symattn.kernel.backward_heads import GroupedBackward, prove_grouped_gradient
    from symattn.kernel.proof import forget, prove_equal
    from symattn.soundness.identities import identities

    out = next(x for x in identities() if x.name == "gqa_output")
    jobs: list[tuple[str, Callable[[], str]]] = [
        ("gqa_output", lambda: prove_equal(out.lhs, out.rhs, witnesses=("symbolic",)).status)
    ]
    for causal in (False, True):
        b = GroupedBackward(causal=causal)
        for name, wrt, block in (("dK", b.K, b.dK_block), ("dV", b.V, b.dV_block)):
            label = f"gqa {name}{' causal' if causal else ''}"
            jobs.append((label, lambda b=b, w=wrt, k=block: prove_grouped_gradient(b, w, k).status))
    print(f"{'grouped-query proof':24} {'time':>10}")
    for label, job in jobs:

        def once(job=job, label=label) -> None:
            forget()
            if job() != "proved":
                raise SystemExit(f"{label} not proved")

        print(f"{label:24} {timed(once, repeat) * 1000:>8.0f}ms")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
