"""The resolver's conventions and scopes, one formula or a few lines each."""

from __future__ import annotations

import pytest

from symattn.check import check_text


def kinds(text: str) -> list[tuple[str, str]]:
    return [(r.kind, r.message) for r in check_text(text, "r.md")]


@pytest.mark.parametrize(
    "formula",
    [
        r"(QK^T)_{ij}=q_i\cdot k_j",
        r"(QK^{\mathsf T})_{ij}=\sum_{r=1}^{d_k}Q_{ir}K_{jr}",
        r"(QK^\top)_{ij}=\mathbf q_i\cdot\mathbf k_j",
        r"(QK^{\top})_{ij}=q_i k_j^T",
        r"(QK^T)_{ij}=\sum_r Q_{ir}K_{jr}",
        r"(AV)_{iu}=\sum_{j=1}^{n}a_{ij}V_{ju}",
        r"\operatorname{Attention}(Q,K,V)=\mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V",
        r"(QK^T)^T=KQ^T",
        r"Q^TK\in\mathbb{R}^{d_k\times d_k}",
        r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})\in\mathbf{R}^{n\times Hd_v}",
    ],
)
def test_conventions_verify(formula):
    (r,) = check_text(f"$${formula}$$", "c.md")
    assert r.kind == "verified", (r.message, formula)


def test_sum_over_an_unknown_letter_runs_over_what_it_indexes():
    (r,) = check_text(r"$(QK^T)_{ij}=\sum_x Q_{ix}K_{jx}$", "s.md")
    assert r.kind == "verified"


def test_sum_over_an_unknown_letter_needs_bounds_where_its_entries_disagree():
    (r,) = check_text(r"$\sum_x Q_{ix}V_{jx} = 0$", "s.md")
    assert r.kind == "not-understood" and "cannot tell what \\sum_x ranges over" in r.message


def test_definitions_are_used_in_later_claims():
    text = "$Z=AV$\n\n$z_i=\\sum_j a_{ij}v_j$\n"
    assert [k for k, _ in kinds(text)] == ["verified", "verified"]
    # without Z = AV, Z has no value: the equation is the text's definition of Z's rows
    text = "$z_i=\\sum_j a_{ij}v_j$\n"
    assert [k for k, _ in kinds(text)] == ["undecided"]
    text = "$Z=AV$\n\n$z_i=\\sum_j a_{ji}v_j$\n"
    assert [k for k, _ in kinds(text)] == ["verified", "false"]


def test_a_redefinition_in_the_same_section_is_an_identity_to_prove():
    text = "$Z=AV$ and then $Z=AV$, but $Z=VA^T$\n"
    got = kinds(text)
    assert [k for k, _ in got][:2] == ["verified", "verified"]
    assert got[2][0] == "shape-error"


def test_a_declared_shape_pins_a_definition():
    got = kinds("$B\\in\\mathbb R^{n\\times d}$ so $B=QK^T$\n")
    assert got[0][0] == "declaration"
    assert got[1] == ("shape-error", "B is declared n × d (line 1) but QK^T is n × n")


def test_conflicting_declarations_in_one_section():
    got = kinds("$Q\\in\\mathbb R^{n\\times d_k}$ and $Q\\in\\mathbb R^{n\\times d}$\n")
    assert got[1][0] == "shape-error" and "was declared n × d_k at line 1" in got[1][1]


def test_worked_example_binding_conflict():
    got = kinds("$n=5$ and $Q\\in\\mathbb R^{7\\times64}$\n")
    assert got[1][0] == "shape-error" and "needs n = 7, but n = 5" in got[1][1]


def test_relations_between_sizes_are_assumptions_and_other_relations_not_understood():
    got = kinds("$d_k = d/H$ and $i \\le n$\n")
    assert got[0] == ("declaration", "relation between sizes d_k = d/H: assumed from here on")
    # a condition on an index beside no claim about that index is context, not a claim
    assert got[1][0] == "declaration" and "context (not a claim)" in got[1][1]
    # beside a claim about the index, a condition that qualifies nothing says so
    got = kinds("$d_k = d/H$ and $i \\le n$ and $q_i = k_i$\n")
    assert got[1][0] == "not-understood" and "not joined to a claim" in got[1][1]


def test_head_family_definition_and_declaration():
    text = (
        "$Z^{(h)}=\\operatorname{Attention}(Q^{(h)},K^{(h)},V^{(h)})$, "
        "$Z^{(r)}\\in\\mathbb R^{n\\times d_v}$, $Z^{(h)}\\in\\mathbb R^{n\\times d}$\n"
    )
    assert [k for k, _ in kinds(text)] == ["verified", "verified", "shape-error"]


def test_block_identity_of_w_o():
    text = (
        "$$\\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})W_O=\\sum_{h=1}^{H}Z^{(h)}W_O^{(h)}$$\n"
    )
    assert [k for k, _ in kinds(text)] == ["verified"]


def test_residual_typechecks_and_a_wrong_residual_does_not():
    text = (
        "$O=\\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})W_O$ so $X+O\\in\\mathbb R^{n\\times d}$"
    )
    assert [k for k, _ in kinds(text)] == ["verified", "verified"]
    (r,) = check_text("$X+Q\\in\\mathbb R^{n\\times d}$", "x.md")
    assert r.kind == "shape-error" and r.message.startswith("cannot add X (n × d) and Q (n × d_k)")


def test_undefined_function_is_not_understood():
    (r,) = check_text("$A=\\operatorname{frob}(QK^T)$", "f.md")
    assert r.kind == "not-understood" and "unknown operator 'frob'" in r.message


def test_assumed_size_relations_are_used_by_later_shape_checks():
    concat = "\\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})\\in\\mathbb R^{n\\times d}"
    assert [k for k, _ in kinds(f"${concat}$")] == ["shape-error"]
    assert [k for k, _ in kinds(f"$d_v = d/H$ so ${concat}$")] == ["declaration", "verified"]
