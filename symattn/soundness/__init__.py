"""The soundness suite: mutation corpus, reader fuzzing, and the differential suite.

Imports its own modules (mutation, differential), which import everything below them: the kernel,
the reader, check, latex, derive and cli. Nothing in symattn imports this package.

- `symattn.soundness.corpus`: the true identities the project proves (rules, chapter, derivations).
- `symattn.soundness.mutation`: wrong variants (mutants) of each, judged by the kernel.
- `symattn.soundness.truth`: the mutants' truth by an independent route (numpy, every point).
- `symattn.soundness.fuzzing`: random and mangled formulas through the reader and the checker.
- `symattn.soundness.oracle`: an independent evaluator (numpy and the standard library only) of
  a small claim AST of its own.
- `symattn.soundness.generate`: seeded random claims (true identities and mutants) over that AST.
- `symattn.soundness.wild`: claims as third-party texts write them (scalar functions, sizes as
  numbers, components, Hadamard, written matrices, a time-indexed state), with an evaluator of
  their own (numpy and the standard library only).
- `symattn.soundness.render`: each claim as kernel terms, as a LaTeX formula for `symattn
  prove`, and as a Markdown document for `symattn check`.
- `symattn.soundness.differential`: every claim through every front end under every context.

Run: `python -m symattn.soundness [--sample N]`, `python -m symattn.soundness fuzz ...`,
`python -m symattn.soundness diff --claims N --seed S --jobs 2 --json out.json`.
"""

from __future__ import annotations

import sys

from symattn.soundness.corpus import Claim, chapter_claims, corpus, derivation_claims, rule_claims
from symattn.soundness.differential import diff_main
from symattn.soundness.fuzzing import (
    ATOMS,
    TOKENS,
    UNICODE,
    FuzzProblem,
    fuzz,
    fuzz_main,
    fuzz_one,
    mangle,
    random_formula,
)
from symattn.soundness.mutation import Mutant, Outcome, Report, judge, mutants, run
from symattn.soundness.mutation import main as _mutation_main
from symattn.soundness.truth import DIMS, TRUTH_PLANS, truth


def main(argv: list[str] | None = None) -> int:
    """`python -m symattn.soundness [fuzz | diff] ...`; exit 1 when a false claim escaped."""

    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["diff"]:
        return diff_main(args[1:])
    return _mutation_main(args)


__all__ = [
    "ATOMS",
    "DIMS",
    "TOKENS",
    "TRUTH_PLANS",
    "UNICODE",
    "Claim",
    "FuzzProblem",
    "Mutant",
    "Outcome",
    "Report",
    "chapter_claims",
    "corpus",
    "derivation_claims",
    "fuzz",
    "fuzz_main",
    "fuzz_one",
    "judge",
    "main",
    "mangle",
    "mutants",
    "random_formula",
    "rule_claims",
    "run",
    "truth",
]
