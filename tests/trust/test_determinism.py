"""Determinism: same input, same verdicts and LaTeX bytes, whatever PYTHONHASHSEED is."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    r"""
    import sympy
    from symattn.kernel.attention import single_head
    from symattn.kernel.dims import d_v, n
    from symattn.kernel.expr import Dot, Softmax, index
    from symattn.latex.derivation import render_proof
    from symattn.latex.document import Document, Math
    from symattn.latex.printer import latex
    from symattn.kernel.proof import prove_equal
    from symattn.kernel.derivation import Derivation
    from symattn.kernel.rules import registry
    from symattn.soundness import chapter_claims, mutants

    i, j, r = index("i"), index("j"), index("r")
    s = single_head()
    Q, K, V, A = s.Q, s.K, s.V, s.A
    for name in ("mul_apply", "softmax_rowsum", "concat_mul"):
        print(name, registry()[name].check().summary())
    false_claims = [
        (s.scores[i, j], Dot(Q.row(j), K.row(i))),
        ((A @ V)[i, index("u")], sympy.Sum(A[j, i] * V[j, index("u")], (j, 1, n))),
        (s.weights, Softmax(s.scores / sympy.sqrt(d_v))),
    ]
    for lhs, rhs in false_claims:
        v = prove_equal(lhs, rhs)
        print(v.summary())
    proof = (
        Derivation(s.scores[i, j], title="score entry")
        .step(sympy.Sum(Q[i, r] * K[j, r], (r, 1, Q.cols)), by="mul_transpose_apply")
        .step(Dot(Q.row(i), K.row(j)), by="dot_def")
        .prove()
    )
    for lang in ("en", "zh"):
        doc = Document(lang, "Scores")
        doc.section("Scores").paragraph(["Let ", Math(latex(s.weights)), "."])
        doc.raw(render_proof(proof, lang))
        print(doc.render_standalone())
    print([m.label for m in mutants(chapter_claims()[1])])
    """
)


def _run_both(seeds: tuple[str, ...]) -> dict[str, str]:
    procs = {
        seed: subprocess.Popen(
            [sys.executable, "-c", SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in seeds
    }
    out = {}
    for seed, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-2000:]
        out[seed] = stdout
    return out


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    return _run_both(("0", "12345"))


@pytest.mark.slow
def test_output_is_rich_enough_to_compare(outputs):
    text = outputs["0"]
    assert "proved [symbolic+exact+numeric]" in text
    assert text.count("counterexample:") == 3
    assert "\\begin{align*}" in text and "\\documentclass" in text


@pytest.mark.slow
def test_same_verdicts_counterexamples_and_latex_bytes_under_two_hash_seeds(outputs):
    a, b = outputs["0"], outputs["12345"]
    if a != b:
        diff = [(x, y) for x, y in zip(a.splitlines(), b.splitlines(), strict=False) if x != y]
        pytest.fail(f"outputs differ at {len(diff)} lines; first: {diff[:2]}")
    assert hashlib.sha256(a.encode()).hexdigest() == hashlib.sha256(b.encode()).hexdigest()
