"""Chapter 8 (derivations/ch08, the backward pass and FlashAttention): every chain proves for all
sizes, every gradient is proved and every mistake is false with a counterexample."""

from __future__ import annotations

import pytest

from symattn.derive.blocks import Fact, ProofBlock
from symattn.derive.sources import bundled, bundled_root, chapter
from symattn.latex.derivation import step_scope

CH08 = chapter(bundled_root() / "ch08")

CHAINS = {
    "8.2 the identity for dV",
    "8.2 the identity for dA",
    "8.4 the row term from dO and O",
    "8.4 dS from D",
}


class _All:
    """The sections of chapter 8, each run (and so checked) once."""

    def __init__(self) -> None:
        self.sections = {p.stem: CH08.module(p.stem).content() for p in CH08.scripts}
        self.blocks = [b for s in self.sections.values() for b in s.blocks]


@pytest.fixture(scope="module")
def chapter8():
    return _All()


def _facts(sec) -> list[Fact]:
    return [b for b in sec.blocks if isinstance(b, Fact)]


@pytest.mark.slow
def test_every_chain_proves_for_all_sizes(chapter8) -> None:
    proofs = {b.proof.title: b.proof for b in chapter8.blocks if isinstance(b, ProofBlock)}
    assert set(proofs) == CHAINS
    for title, proof in proofs.items():
        assert proof.for_all_sizes, title
        assert {step_scope(s) for s in proof.steps} == {"all"}, title


@pytest.mark.slow
def test_every_claim_of_sections_1_to_6_is_proved(chapter8) -> None:
    counts = {}
    for stem in ("sec81", "sec82", "sec83", "sec84", "sec85", "sec86"):
        facts = _facts(chapter8.sections[stem])
        assert facts, stem
        assert all(f.verdict.status == "proved" for f in facts), stem
        assert all("symbolic" in f.verdict.witnesses for f in facts if f.verdict.witnesses)
        counts[stem] = len(facts)
    # the rules, dV and dA, the Jacobian and dS, the row term twice, dQ and dK twice each,
    # the causal rule and three causal gradients, and dV and dK summed over the heads that share
    # them (multi-query, and the R query heads of a grouped-query key head)
    assert counts == {"sec81": 5, "sec82": 2, "sec83": 2, "sec84": 2, "sec85": 4, "sec86": 8}


@pytest.mark.slow
def test_the_mistakes_are_false_with_a_counterexample(chapter8) -> None:
    facts = _facts(chapter8.sections["sec87"])
    assert len(facts) == 4
    assert all(f.verdict.status == "false" and f.verdict.counterexample for f in facts)


def test_a_gradient_with_another_verdict_stops_the_section() -> None:
    from symattn.derive import Builder, DerivationError, Text
    from symattn.kernel.backward import attention_backward, prove_gradient

    b, sec81 = attention_backward(), CH08.module("sec81")
    builder = Builder("8.x", Text("x", "x"))
    wrong = prove_gradient(b.S, b.Q, b.S, b.S @ b.K)  # no 1/sqrt(d_k): false
    with pytest.raises(DerivationError, match="expected proved, got false"):
        sec81.gradient(builder, "x", "x", wrong)
    assert builder.blocks == []


def test_the_chapter_is_bundled_after_chapter_7() -> None:
    assert [p.stem for p in CH08.scripts] == [f"sec8{k}" for k in range(1, 8)]
    assert [(u.name, u.number) for u in bundled()][-1] == ("chapter8", "8")
