"""Proofs as align* blocks (symattn.latex.derivation): lines, justifications, and what compiles."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import n
from symattn.kernel.expr import MatSym, index
from symattn.latex import Document, compile_pdf
from symattn.latex.derivation import proof_lines, render_proof
from symattn.latex.document import LatexInputError, partition_alignment

i, j = index("i"), index("j")
S = MatSym("S", n, n)
# A term by cases (an infinite scalar such as a masked entry's -oo is ill-formed outside softmax)
MASKED = sympy.Piecewise((S[i, j], j <= i), (0, True))


def _padding_proof():
    written = sympy.Piecewise((S[i, j], sympy.Le(j, i)), (0, True))
    return Derivation(MASKED, title="mask").step(written, by="algebra").prove()


def test_a_cases_term_in_a_proof_renders_one_alignment_point_per_line():
    lines = proof_lines(_padding_proof())
    assert lines and all(partition_alignment(tex)[1] == "&" for tex, _ in lines)
    block = render_proof(_padding_proof())
    assert block.count(r"\begin{cases}") == 2 and block.startswith(r"\begin{align*}")


def test_partition_alignment_skips_ampersands_inside_environments_and_braces():
    assert partition_alignment(r"\begin{cases} a & b \end{cases} &= c")[2] == "= c"
    assert partition_alignment(r"{a & b} &= c")[0] == "{a & b} "
    assert partition_alignment("a = b") == ("a = b", "", "")


def test_a_line_without_its_alignment_point_is_still_refused():
    with pytest.raises(LatexInputError, match="exactly one alignment point"):
        Document("en", "t").align([("a = b", None)]).render_fragment()


def test_a_proof_with_cases_compiles(tex: None, tmp_path: Path) -> None:
    doc = Document("en", "cases").raw(render_proof(_padding_proof()))
    path = tmp_path / "cases.tex"
    path.write_text(doc.render_standalone(), encoding="utf-8")
    assert compile_pdf(path).exists()
