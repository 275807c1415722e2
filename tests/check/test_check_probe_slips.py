"""Readings that gave false verdicts on ordinary text: `dV` for the gradient of V, a definition
made inside a worked example that has ended, a sum up to a time step, a relation the text names
as a condition, a number named after its role (`p_o`), `S_0 = 0`, a row of a conventional name
the text never declares, a key of the text's own width (`k_t` in R^r), a number given to an indexed
letter (`x_1 = 0`), an entry of an earlier section's vector (`x_i` in `k_i = x_iW_K`), a
declaration set aside for one formula. Each with a control that keeps the verdict the rule must
not lose."""

from __future__ import annotations

import contextlib
import io

from symattn.check import check_text
from symattn.cli import main


def claims(text: str):
    return [r for r in check_text(text, "t.md") if r.kind not in ("not-a-claim", "declaration")]


def at(text: str, source: str):
    found = [r for r in check_text(text, "t.md") if r.source.strip() == source]
    assert found, f"no result for {source!r}"
    return found[-1]


BACKWARD = (
    "Let $A \\in \\mathbb{R}^{n \\times n}$ and $V \\in \\mathbb{R}^{n \\times d_v}$, "
    "and $O = AV$. "
)


def test_dv_written_against_the_letter_is_the_gradient_of_v_and_is_not_called_false():
    r = at(BACKWARD + "Then $dV = A^\\top dO$ holds.\n", "dV = A^\\top dO")
    assert r.kind == "verified" and "a loss the text does not define" in r.message
    r = at(BACKWARD + "Then $dV = A\\, dO$ holds.\n", "dV = A\\, dO")
    assert r.kind == "false" and "not the gradient" in r.message


def test_d_times_v_written_apart_is_still_false():
    r = at(BACKWARD + "Then $d V = A^\\top d O$ holds.\n", "d V = A^\\top d O")
    assert r.kind == "false"


EXAMPLE = (
    "Let $Q \\in \\mathbb{R}^{n \\times d_k}$, $K \\in \\mathbb{R}^{n\\times d_k}$ with "
    "$d_k = 64$. Put\n\n$$S = QK^\\top/\\sqrt{d_k}$$\n\n## Entries\n\n"
)


def test_a_definition_of_a_closed_worked_example_is_not_refuted_as_an_unknown_matrix():
    for claim in ("S_{ij} = q_i \\cdot k_j / \\sqrt{d_k}", "S_{ij} = q_j \\cdot k_i"):
        r = at(EXAMPLE + f"Entry by entry, ${claim}$.\n", claim)
        assert r.kind == "undecided" and "worked example that has ended" in r.message


def test_the_same_definition_outside_any_example_still_refutes_swapped_indices():
    text = EXAMPLE.replace(" with $d_k = 64$", "") + "Entry by entry, $S_{ij} = q_j \\cdot k_i$.\n"
    assert at(text, "S_{ij} = q_j \\cdot k_i").kind in ("false", "shape-error")


RECURRENCE = (
    "Keep a state $S_t \\in \\mathbb{R}^{d_v \\times d_k}$ with $S_0 = 0$ and\n\n"
    "$$S_t = S_{t-1} + v_t k_t^\\top$$\n\nfor keys $k_t \\in \\mathbb{R}^{d_k}$ and values "
    "$v_t \\in \\mathbb{R}^{d_v}$ (column vectors). "
)


UPDATE = RECURRENCE.replace(" with $S_0 = 0$ and", " updated by")


def test_a_sum_up_to_a_time_step_is_no_shape_error():
    claim = "S_t = \\sum_{i=1}^{t} v_i k_i^\\top"
    # without a base case the members are opaque: the bound t sizes no matrix, so undecided
    r = at(UPDATE + f"So ${claim}$.\n", claim)
    assert r.kind == "undecided" and "t <= n" in r.message
    # with the base case S_0 = 0 the closed form is proved by induction on t
    r = at(RECURRENCE + f"So ${claim}$.\n", claim)
    assert r.kind == "verified" and "induction on t" in r.message


def test_a_sum_past_the_last_row_is_no_alarm_while_the_length_is_unsaid():
    # the text never gives the number of keys (no K is declared): n + 1 may be within it
    src = "S_t = \\sum_{i=1}^{n+1} v_i k_i^\\top"
    assert at(UPDATE + f"So ${src}$.\n", src).kind == "undecided"
    assert at(RECURRENCE + f"So ${src}$.\n", src).kind == "undecided"


def test_zero_is_the_zero_matrix_of_a_family_but_one_is_a_scalar():
    assert at(RECURRENCE, "S_0 = 0").kind == "declaration"
    # the scalar base case is a shape error, reported with the recurrence it starts
    one = RECURRENCE.replace("$S_0 = 0$", "$S_0 = 1$")
    r = at(one, "S_t = S_{t-1} + v_t k_t^\\top")
    assert r.kind == "shape-error" and "S_0 = 1 is a scalar" in r.message


WIDTHS = (
    "Let $Q \\in \\mathbb{R}^{n \\times d_k}$, $V\\in\\mathbb{R}^{n\\times d_v}$, "
    "with $d_k = 64$ and $d_v = 32$. "
)


def test_a_relation_after_only_holds_when_is_not_put_in_force():
    text = (
        WIDTHS
        + "The output is not $n \\times d_k$, which only holds when $d_k = d_v$. "
        + "So $\\sqrt{d_v} = 8$ is wrong.\n"
    )
    assert at(text, "\\sqrt{d_v} = 8").kind != "verified"
    assert "not assumed" in at(text, "d_k = d_v").message


def test_a_number_named_after_its_role_is_not_a_sequence():
    text = "With $h = 5$ heads and $p_o = 100$ features, each head has $p_o/h = 20$.\n"
    assert at(text, "p_o/h = 20").kind != "false"
    # a sequence proper is still one: its definition mentions the index
    assert (
        "one per position" in at("Let $c_i = -\\max_j x_j$ here.\n", "c_i = -\\max_j x_j").message
    )


def test_a_row_of_a_conventional_name_the_text_never_declares_is_no_shape_error():
    text = (
        UPDATE.replace("for keys", "for queries $q_t \\in \\mathbb{R}^{d_k}$, keys")
        + "The output is $o_t = S_t q_t$.\n"
    )
    declared = text.replace("The output", "Its rows $O \\in \\mathbb{R}^{n \\times d}$. The output")
    r = at(text, "o_t = S_t q_t")
    assert r.kind == "undecided" and "conventional shapes of O" in r.message
    assert at(declared, "o_t = S_t q_t").kind == "shape-error"


OWN_KEYS = (
    "Write $P \\in \\mathbb{R}^{N \\times r}$ for the mapped queries. "
    "Let $k_t \\in \\mathbb{R}^{r}$ and $v_t \\in \\mathbb{R}^{d}$ be column vectors, "
    "with $V \\in \\mathbb{R}^{N \\times d}$. The "
    "state $S_t \\in \\mathbb{R}^{r \\times d}$ starts at $S_0 = 0$ and\n\n"
    "$$S_t = S_{t-1} + k_t v_t^\\top$$\n\n"
)


def test_a_key_of_the_texts_own_width_is_no_row_of_the_chapters_k():
    # k_t is r x 1 and the text never declares K: k_j is the text's own key, not row j of
    # the chapter's n x d_k K, so the closed form is not a shape error
    for bound in ("t", "t-1"):
        claim = f"S_t = \\sum_{{j=1}}^{{{bound}}} k_j v_j^\\top"
        r = at(OWN_KEYS + f"Unrolling, ${claim}$.\n", claim)
        assert r.kind not in ("false", "shape-error") and "k_t as r × 1" in r.message


def test_a_key_that_fits_the_row_of_k_is_still_that_row():
    text = OWN_KEYS.replace("\\mathbb{R}^{r}$", "\\mathbb{R}^{d_k}$").replace(
        "{r \\times d}", "{d_k \\times d}"
    )
    claim = "S_t = \\sum_{j=1}^{t} k_j v_j^\\top"
    r = at(text + f"Unrolling, ${claim}$.\n", claim)
    assert r.kind == "undecided" and "row j of V" in r.message and "no row of" not in r.message


def test_a_text_that_declares_k_keeps_its_rows():
    # the text's own K has d_k columns: k_j is its row j, and the shape error is the text's
    text = OWN_KEYS.replace("Write $P", "Let $K \\in \\mathbb{R}^{N \\times d_k}$. Write $P")
    claim = "S_t = \\sum_{j=1}^{t} k_j v_j^\\top"
    assert at(text + f"Unrolling, ${claim}$.\n", claim).kind == "shape-error"


SAMPLES = "Given samples $(x_i, y_i)$, take a query $x=0$ and the two samples $x_1=0$, $x_2=2$.\n"


def test_a_number_given_to_an_indexed_letter_is_no_row_of_the_chapters_x():
    for claim in ("x_1=0", "x_2=2"):
        r = at(SAMPLES, claim)
        assert r.kind == "undecided" and "X (n × d), which the text never" in r.message


def test_a_row_of_a_declared_x_set_to_a_number_is_still_a_shape_error():
    text = "Let $X \\in \\mathbb{R}^{n \\times d}$. " + SAMPLES
    assert at(text, "x_2=2").kind == "shape-error"


NORM_THEN_CACHE = (
    "## Norm\n\nFor a token $x\\in\\mathbb{R}^d$ the mean is "
    "$\\mu=\\frac{1}{d}\\sum_{i=1}^{d}x_i$.\n\n"
    "## Cache\n\nThe cache keeps $k_i=x_iW_K$ for the $i$-th token.\n"
)


def test_an_entry_of_an_earlier_sections_vector_is_no_shape_error():
    r = at(NORM_THEN_CACHE, "k_i=x_iW_K")
    assert r.kind == "undecided" and "vector x (d × 1) declared on line 3" in r.message


def test_the_same_vector_in_the_same_section_keeps_the_shape_error():
    text = NORM_THEN_CACHE.replace("\n\n## Cache\n\n", " ")
    assert at(text, "k_i=x_iW_K").kind == "shape-error"


SECTIONS = (
    "# A\n\nLet $Q \\in \\mathbb{R}^{m \\times d_k}$ and $K \\in \\mathbb{R}^{m \\times d_k}$.\n\n"
    "# B\n\nLet $W \\in \\mathbb{R}^{e \\times e}$. Then $QW \\in \\mathbb{R}^{m \\times e}$.\n\n"
    "Now $QK^T \\in \\mathbb{R}^{m \\times m}$ and $QK^T \\in \\mathbb{R}^{n \\times n}$.\n"
)


def test_a_declaration_set_aside_for_one_formula_holds_for_the_next():
    # QW fails with the earlier section's Q and is undecided; Q is still m x d_k afterwards,
    # not the chapter's n x d_k
    assert at(SECTIONS, "QW \\in \\mathbb{R}^{m \\times e}").kind == "undecided"
    assert at(SECTIONS, "QK^T \\in \\mathbb{R}^{m \\times m}").kind == "verified"
    assert at(SECTIONS, "QK^T \\in \\mathbb{R}^{n \\times n}").kind == "shape-error"


def test_the_shapes_command_reads_rows_of_two_letters_without_a_document():
    # `symattn shapes` has a symbol table of its own, without the document's layers
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["shapes", "q_1 k_j"])
    assert code == 1 and "cannot multiply q_1" in out.getvalue() + err.getvalue()
