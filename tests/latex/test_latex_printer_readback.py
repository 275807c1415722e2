"""latex2sympy2 as an independent witness: printed explicit expansions read back to the same sum.

latex2sympy2 is in the `test` extra; if it is missing this test fails (it is not skipped).
"""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.derive.sources import bundled_root, chapter
from symattn.kernel.attention import single_head
from symattn.kernel.expr import expand_entries
from symattn.latex.printer import latex

explicit_expansions = chapter(bundled_root() / "ch06").module("sec63").explicit_expansions

# latex2sympy2's pinned antlr4 runtime imports typing.io; that is its business, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:typing.io is deprecated:DeprecationWarning")


def read_back(tex: str) -> sympy.Expr:
    from latex2sympy2 import latex2sympy  # noqa: PLC0415 - the test extra provides it

    return latex2sympy(tex)


def by_name(e: sympy.Expr) -> sympy.Expr:
    """The kernel's expansion with each entry replaced by a symbol named as it is printed."""
    entries = e.atoms(sympy.Indexed)
    return e.xreplace({x: sympy.Symbol(latex(x)) for x in entries})


def kernel_expansion(lhs: sympy.Basic) -> sympy.Expr:
    return expand_entries(lhs).doit()


@pytest.mark.parametrize("derivation", explicit_expansions(), ids=lambda d: d.title)
def test_printed_expansion_reads_back_to_the_kernels(derivation):
    proof = derivation.prove(require="exact")
    printed = latex(proof.rhs)
    assert "+" in printed and "\\sum" not in printed
    parsed = read_back(printed)
    expected = by_name(kernel_expansion(proof.lhs))
    assert parsed.free_symbols == expected.free_symbols
    assert sympy.expand(parsed - expected) == 0


def test_a_misprinted_expansion_is_caught():
    derivation = explicit_expansions()[0]
    proof = derivation.prove(require="exact")
    wrong = latex(proof.rhs).replace("K_{13}", "K_{31}")
    assert sympy.expand(read_back(wrong) - by_name(kernel_expansion(proof.lhs))) != 0


@settings(max_examples=8, deadline=None)
@given(
    n=st.integers(1, 3),
    dk=st.integers(1, 4),
    data=st.data(),
)
def test_any_explicit_score_entry_reads_back(n, dk, data):
    """Property: at random small sizes, the printed expansion of (QK^T)_{ij} reads back."""
    s = single_head(n=n, d_k=dk)
    i = data.draw(st.integers(1, n))
    j = data.draw(st.integers(1, n))
    kernel = kernel_expansion(s.scores[i, j])
    printed = latex(kernel)
    expected_text = " + ".join(f"Q_{{{i}{r}}}K_{{{j}{r}}}" for r in range(1, dk + 1))
    assert printed == expected_text
    assert sympy.expand(read_back(printed) - by_name(kernel)) == 0
