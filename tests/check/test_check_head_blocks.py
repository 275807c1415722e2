"""W_O^{(h)} declared beside W_O is row block h of W_O, of as many rows as the heads are wide,
and a head numbered outside 1..H is a shape error (or no evidence while H is open), never a
counterexample at a head that is not."""

from __future__ import annotations

import re

import pytest

from symattn.check import check_formula, check_text

CONCAT = "\\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})W_O=\\sum_{h=1}^{H}Z^{(h)}"
DECLARED = (
    "# Heads\n\nLet $W_O\\in\\mathbb R^{Hd_v\\times d}$ and let "
    "$W_O^{(h)}\\in\\mathbb R^{d_v\\times d}$ be the slice of $W_O$ for head $h$. Then\n\n"
    "$${claim}.$$\n"
)


@pytest.mark.parametrize("declared", [True, False])
def test_a_declared_block_of_w_o_stays_a_block_of_w_o(declared):
    text = DECLARED if declared else "# Heads\n\n$${claim}.$$\n"
    ok = check_text(text.replace("{claim}", CONCAT + "W_O^{(h)}"), "h.md")[-1]
    assert (ok.kind, ok.status) == ("verified", "proved"), ok.message
    wrong = check_text(text.replace("{claim}", CONCAT + "W_O^{(1)}"), "h.md")[-1]
    assert wrong.kind == "false" and wrong.counterexample


def test_a_block_of_another_shape_is_its_own_matrix():
    text = DECLARED.replace("{d_v\\times d}", "{d\\times d}").replace("{claim}", "W_O^{(1)} = W_O")
    r = check_text(text, "h.md")[-1]
    assert r.kind == "shape-error", r.message  # d × d beside H·d_v × d


def test_a_head_beyond_the_worked_examples_h_is_a_shape_error():
    text = "# T\n\nTake $H=2$.\n\n$$Z^{(5)}W_O^{(5)} = Z^{(1)}W_O^{(1)}$$\n"
    r = check_text(text, "t.md")[-1]
    assert r.kind == "shape-error" and "there is no head 5: the heads are 1..2" in r.message
    assert check_formula("Z^{(0)} = Z^{(1)}")[-1].kind == "shape-error"


def test_a_numbered_head_is_never_evaluated_at_fewer_heads():
    # false (two heads' products differ), shown at a plan that has a head 5: never at H < 5
    r = check_formula("Z^{(5)}W_O^{(5)} = Z^{(1)}W_O^{(1)}")[-1]
    shown = re.findall(r"\bH=(\d+)", f"{r.message} {r.counterexample or ''}")
    assert r.kind in ("false", "undecided"), r.message
    assert all(int(h) >= 5 for h in shown), r.message
    two = check_formula("W_O^{(2)} = W_O^{(1)}")[-1]
    assert two.kind == "false" and "H=2" in two.counterexample


KEY_WIDE = (
    "# Heads\n\nLet $Z^{(h)}\\in\\mathbb R^{n\\times d_k}$ for $h=1,\\dots,H$ and "
    "$W_O\\in\\mathbb R^{{rows}\\times d}${more}. Then\n\n$${claim}.$$\n"
)


@pytest.mark.parametrize(
    ("rows", "more"),
    [
        ("Hd_k", ""),
        ("d", " with $d = Hd_k$"),
        ("Hd_k", " and $W_O^{(h)}\\in\\mathbb R^{d_k\\times d}$ its rows for head $h$"),
    ],
)
def test_heads_d_k_wide_cut_w_o_into_blocks_of_d_k_rows(rows, more):
    text = KEY_WIDE.replace("{rows}", rows).replace("{more}", more)
    ok = check_text(text.replace("{claim}", CONCAT + "W_O^{(h)}"), "h.md")[-1]
    assert (ok.kind, ok.status) == ("verified", "proved"), ok.message
    wrong = check_text(text.replace("{claim}", CONCAT + "W_O^{(1)}"), "h.md")[-1]
    assert wrong.kind == "false" and wrong.counterexample


@pytest.mark.parametrize(
    ("rows", "more", "said"),
    [
        ("m", "", "inner dims H*d_k and m"),
        ("Hd_v", "", "inner dims H*d_k and H*d_v"),
        ("Hd_k", " and $W_O^{(h)}\\in\\mathbb R^{d_v\\times d}$", "inner dims d_k and d_v"),
    ],
)
def test_blocks_that_do_not_conform_with_heads_d_k_wide_stay_a_shape_error(rows, more, said):
    text = KEY_WIDE.replace("{rows}", rows).replace("{more}", more)
    r = check_text(text.replace("{claim}", CONCAT + "W_O^{(h)}"), "h.md")[-1]
    assert r.kind == "shape-error" and said in r.message, r.message


BLOCKS_ONLY = (
    "# Heads\n\nLet $W_O\\in\\mathbb R^{Hd_k\\times d}$ and "
    "$W_O^{(h)}\\in\\mathbb R^{d_k\\times d}$ its rows for head $h${heads}. Then\n\n$$"
    + CONCAT
    + "W_O^{(h)}.$$\n"
)


def test_heads_whose_width_only_the_chapter_gives_are_a_guess_beside_blocks_of_d_k_rows():
    # the text cuts W_O into blocks of d_k rows and never says how wide Z^(h) is: the
    # chapter's n × d_v is a guess there, so no shape error rests on it
    r = check_text(BLOCKS_ONLY.replace("{heads}", ""), "h.md")[-1]
    assert r.kind == "undecided" and "conventional shapes of Z^(h) (n × d_v)" in r.message
    # said by the text: d_v wide heads do not conform, d_k wide ones do
    said = " and $Z^{(h)}\\in\\mathbb R^{n\\times d_v}$"
    assert check_text(BLOCKS_ONLY.replace("{heads}", said), "h.md")[-1].kind == "shape-error"
    wide = BLOCKS_ONLY.replace("{heads}", said.replace("d_v", "d_k"))
    assert check_text(wide, "h.md")[-1].status == "proved"
