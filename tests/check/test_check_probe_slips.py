"""Readings that gave false verdicts on ordinary text: `dV` for the gradient of V, a definition
made inside a worked example that has ended, a sum up to a time step, a relation the text names
as a condition, a number named after its role (`p_o`), `S_0 = 0`, a row of a conventional name
the text never declares. Each with a control that keeps the verdict the rule must not lose."""

from __future__ import annotations

from symattn.check import check_text


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
