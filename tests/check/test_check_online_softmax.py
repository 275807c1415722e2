"""The online softmax as papers write it (m, ℓ, O over key blocks, from m^{(0)} = -∞), read by the
checker and by `symattn prove`: the claim after the last block is decided by induction on B,
the classic bugs are refuted with a counterexample, what is not read is never guessed."""

from __future__ import annotations

import pytest
from claim_helpers import results

from symattn.soundness.online_seeds import OnlineClaim

HEAD = (
    r"Let $S \in \mathbb{R}^{n\times n}$ and $V \in \mathbb{R}^{n\times d_v}$, the keys split "
    r"into blocks $b = 1, \ldots, B$." + "\n\n"
)
START = r"The state starts at $m^{(0)} = -\infty$, $\ell^{(0)} = 0$, $O^{(0)} = 0$." + "\n\n"
MAX = r"$$m^{(b)} = \max(m^{(b-1)}, \operatorname{rowmax}(S^{(b)}))$$" + "\n\n"
NORM = (
    r"$$\ell^{(b)} = e^{m^{(b-1)}-m^{(b)}}\ell^{(b-1)} + "
    r"\operatorname{rowsum}(e^{S^{(b)}-m^{(b)}})$$" + "\n\n"
)
OUT = (
    r"$$O^{(b)} = \operatorname{diag}(e^{m^{(b-1)}-m^{(b)}})O^{(b-1)} + e^{S^{(b)}-m^{(b)}}V_b$$"
    + "\n\n"
)
CLAIM = r"$$O^{(B)}/\ell^{(B)} = \operatorname{softmax}(S)V$$"


def one(text: str):
    (r,) = results(text)
    return r


def test_the_claim_after_the_last_block_is_proved_by_induction_on_b() -> None:
    r = one(HEAD + START + MAX + NORM + OUT + CLAIM)
    assert r.kind == "verified", r.message
    assert "proved by induction on B" in r.message


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (r"\operatorname{diag}(e^{m^{(b-1)}-m^{(b)}})O^{(b-1)}", "O^{(b-1)}"),  # not rescaled
        (r"e^{m^{(b-1)}-m^{(b)}}\ell^{(b-1)}", r"\ell^{(b-1)}"),  # normaliser not rescaled
        (r"O^{(B)}/\ell^{(B)}", "O^{(B)}"),  # not normalised
    ],
)
def test_the_classic_bugs_are_refuted_with_a_counterexample(old: str, new: str) -> None:
    text = (HEAD + START + MAX + NORM + OUT + CLAIM).replace(old, new)
    assert text != HEAD + START + MAX + NORM + OUT + CLAIM
    r = one(text)
    assert r.kind == "false", r.message
    assert r.message.startswith("refuted at B="), r.message


def test_a_maximum_started_at_zero_leaves_the_output_right_so_it_is_not_refuted() -> None:
    # the rescale factors telescope for any maxima: the output claim holds, the invariant of
    # m does not; the claim is undecided (the base is not shown), never false
    r = one((HEAD + START + MAX + NORM + OUT + CLAIM).replace(r"-\infty", "0"))
    assert r.kind == "undecided", r.message
    assert "the base is not shown" in r.message


def test_the_row_by_row_form_is_read_too() -> None:
    text = (
        HEAD
        + r"For each row $i$: $m_i^{(0)} = -\infty$, $\ell_i^{(0)} = 0$, $o_i^{(0)} = 0$."
        + "\n\n"
        + r"$$m_i^{(b)} = \max(m_i^{(b-1)}, \operatorname{rowmax}(S_i^{(b)}))$$"
        + "\n\n"
        + r"$$\ell_i^{(b)} = e^{m_i^{(b-1)}-m_i^{(b)}}\ell_i^{(b-1)} + "
        + r"\operatorname{rowsum}(\exp(S_i^{(b)}-m_i^{(b)}))$$"
        + "\n\n"
        + r"$$o_i^{(b)} = e^{m_i^{(b-1)}-m_i^{(b)}}o_i^{(b-1)} + \exp(S_i^{(b)}-m_i^{(b)})V_b$$"
        + "\n\n"
    )
    r = one(text + r"$$\frac{o_i^{(B)}}{\ell_i^{(B)}} = (\operatorname{softmax}(S)V)_i$$")
    assert r.kind == "verified", r.message
    bad = one(
        text.replace(r"e^{m_i^{(b-1)}-m_i^{(b)}}o_i", "o_i")
        + r"$$\frac{o_i^{(B)}}{\ell_i^{(B)}} = (\operatorname{softmax}(S)V)_i$$"
    )
    assert bad.kind == "false", bad.message


def test_a_named_block_of_probabilities_is_read_from_its_definition() -> None:
    tilde = r"$$\tilde P^{(b)} = e^{S^{(b)}-m^{(b)}}$$" + "\n\n"
    norm = (
        r"$$\ell^{(b)} = e^{m^{(b-1)}-m^{(b)}}\ell^{(b-1)} + "
        r"\operatorname{rowsum}(\tilde P^{(b)})$$"
    )
    out = r"$$O^{(b)} = \operatorname{diag}(e^{m^{(b-1)}-m^{(b)}})O^{(b-1)} + \tilde P^{(b)}V_b$$"
    r = one(HEAD + START + MAX + tilde + norm + "\n\n" + out + "\n\n" + CLAIM)
    assert r.kind == "verified", r.message


def test_without_the_prose_of_blocks_a_false_claim_is_undecided() -> None:
    # S^{(b)} and V_b as the blocks of the keys is then the reader's reading, not the text's
    text = (HEAD + START + MAX + NORM + OUT + CLAIM).replace(", the keys split into blocks", ",")
    text = text.replace(r"$b = 1, \ldots, B$.", "")
    r = one(text.replace(r"\operatorname{diag}(e^{m^{(b-1)}-m^{(b)}})O^{(b-1)}", "O^{(b-1)}"))
    assert r.kind == "undecided", r.message
    assert "read as the blocks of keys" in r.message


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (HEAD + START + MAX + OUT + CLAIM, "three steps"),  # no normaliser
        (HEAD + START.replace(r"$\ell^{(0)} = 0$, ", "") + MAX + NORM + OUT + CLAIM, "initial"),
        (HEAD + START + MAX + NORM.replace("rowsum", "rowmean") + OUT + CLAIM, "rowmean"),
        # a scale or a mask: whether the blocks carry it is not said
        (HEAD + START + MAX + NORM + OUT + CLAIM.replace("(S)", r"(S/\sqrt{d_k})"), "not softmax"),
    ],
)
def test_what_is_not_read_is_not_understood_naming_it(text: str, why: str) -> None:
    r = one(text)
    assert r.kind == "not-understood", r.message
    assert why in r.message


def test_the_base_cases_and_steps_are_no_shape_errors() -> None:
    from symattn.check import check_text

    got = check_text(HEAD + START + MAX + NORM + OUT, "doc.md")
    assert {r.kind for r in got} <= {"declaration", "not-a-claim"}, [r.message for r in got]


@pytest.mark.parametrize(
    ("ident", "verdict"),
    [("online-diag-rescaled-inf-ratio", "proved"), ("online-plain-rescaled-inf-ratio", "false")],
)
def test_prove_decides_the_recurrence_in_one_formula(ident: str, verdict: str) -> None:
    import json
    import subprocess
    import sys

    _, out, norm, start, claim = ident.split("-")
    argv = OnlineClaim(ident, out, norm, start, claim).prove_argv()
    r = subprocess.run(
        [sys.executable, "-m", "symattn", *argv], capture_output=True, text=True, check=False
    )
    data = json.loads(r.stdout)
    last = data["results"][-1]
    assert last["status"] == verdict, last


VARIANT = (
    r"Let $S \in \mathbb{R}^{n\times n}$ and $V \in \mathbb{R}^{n\times d_v}$; the keys come in "
    r"blocks. Initialise $m^{(0)} = -\infty$, $l^{(0)} = 0$, $O^{(0)} = 0$. For each block $j$:"
    "\n\n"
    r"$$m^{(j)} = \max\left(m^{(j-1)}, \mathrm{rowmax}(S^{(j)})\right)$$" + "\n\n"
    r"$$\tilde{P}^{(j)} = \exp\left(S^{(j)} - m^{(j)}\right)$$" + "\n\n"
    r"$$l^{(j)} = e^{m^{(j-1)} - m^{(j)}} l^{(j-1)} + \text{rowsum}(\tilde{P}^{(j)})$$" + "\n\n"
    r"$$O^{(j)} = \text{diag}\left(e^{m^{(j-1)} - m^{(j)}}\right) O^{(j-1)} + \tilde{P}^{(j)} V_j$$"
    "\n\n"
)


def test_other_letters_fonts_and_a_result_named_after_the_last_block() -> None:
    got = results(
        VARIANT + r"Finally $O = \text{diag}(l^{(T)})^{-1} O^{(T)}$, and "
        r"$\mathrm{diag}(l^{(T)})^{-1} O^{(T)} = \mathrm{softmax}(S) V$."
    )
    assert [r.kind for r in got] == ["verified"], [r.message for r in got]


def test_a_block_the_text_defines_is_not_read_as_a_block_of_s() -> None:
    # S^{(j)} = QK_j^T may differ from the columns of S (a scale): the claim is not read
    text = VARIANT.replace("the keys come in blocks.", r"the blocks are $S^{(j)} = QK_j^\top$.")
    got = results(text + r"$$\mathrm{diag}(l^{(T)})^{-1} O^{(T)} = \mathrm{softmax}(S) V$$")
    last = got[-1]
    assert last.kind == "not-understood", last.message
    assert "defines the block itself" in last.message


FA1 = (
    r"$$O^{(b)} = \operatorname{diag}(\ell^{(b)})^{-1}(\operatorname{diag}(\ell^{(b-1)})"
    r"e^{m^{(b-1)}-m^{(b)}}O^{(b-1)} + e^{S^{(b)}-m^{(b)}}V_b)$$" + "\n\n"
)


def test_an_output_kept_normalised_is_proved_with_the_normalised_invariant() -> None:
    # the first FlashAttention paper rescales the normalised output by the old normaliser
    r = one(HEAD + START + MAX + NORM + FA1 + r"$$O^{(B)} = \operatorname{softmax}(S)V$$")
    assert r.kind == "verified", r.message
    over = one(HEAD + START + MAX + NORM + FA1 + CLAIM)  # normalised twice
    assert over.kind == "false", over.message
    dropped = FA1.replace(r"\operatorname{diag}(\ell^{(b-1)})", "")
    bad = one(HEAD + START + MAX + NORM + dropped + r"$$O^{(B)} = \operatorname{softmax}(S)V$$")
    assert bad.kind == "false", bad.message


SPLITS = (
    r"Let $S \in \mathbb{R}^{n\times n}$ and $V \in \mathbb{R}^{n\times d_v}$; the keys are cut "
    r"into splits $s = 1, \ldots, B$, with the scores $S_s$ and values $V_s$ of split $s$."
    "\n\n"
    r"$$m_s = \operatorname{rowmax}(S_s)$$" + "\n\n"
    r"$$\ell_s = \operatorname{rowsum}(e^{S_s - m_s})$$" + "\n\n"
    r"$$O_s = \operatorname{diag}(\ell_s)^{-1}e^{S_s - m_s}V_s$$" + "\n\n"
    r"The partials merge from $m^{(0)} = -\infty$, $\ell^{(0)} = 0$, $O^{(0)} = 0$:" + "\n\n"
    r"$$m^{(s)} = \max(m^{(s-1)}, m_s)$$" + "\n\n"
    r"$$\ell^{(s)} = e^{m^{(s-1)} - m^{(s)}}\ell^{(s-1)} + e^{m_s - m^{(s)}}\ell_s$$" + "\n\n"
    r"$$O^{(s)} = \operatorname{diag}(\ell^{(s)})^{-1}(\operatorname{diag}(e^{m^{(s-1)} - "
    r"m^{(s)}}\ell^{(s-1)})O^{(s-1)} + \operatorname{diag}(e^{m_s - m^{(s)}}\ell_s)O_s)$$"
    "\n\n"
    r"$$O^{(B)} = \operatorname{softmax}(S)V$$"
)


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("", "", "verified"),
        # merged without rescaling to the common maximum
        (r"e^{m^{(s-1)} - m^{(s)}}\ell^{(s-1)})", r"\ell^{(s-1)})", "false"),
        # the partial outputs merged without their normalisers as weights
        (r"\ell_s)O_s", ")O_s", "false"),
    ],
)
def test_the_split_kv_merge_of_partial_results(old: str, new: str, kind: str) -> None:
    text = SPLITS.replace(old, new) if old else SPLITS
    assert not old or text != SPLITS
    got = results(text)
    assert [r.kind for r in got] == [kind], [r.message for r in got]
    if kind == "verified":
        assert "proved by induction on B" in got[0].message
