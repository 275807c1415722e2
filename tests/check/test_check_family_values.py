"""A family defined by a closed form of its index (`\\mathbf S_t = \\sum_{j=1}^t \\mathbf v_j
\\mathbf k_j^\\top`): its members are that form at their index, so the claims that follow are
decided; a family defined by a recurrence keeps opaque members. True and false uses of each."""

from __future__ import annotations

from claim_helpers import kinds, results

COLUMNS = "Every vector is a column vector.\n\n"
ROWS = COLUMNS + r"Let $\mathbf{Q}, \mathbf{K}, \mathbf{V} \in \mathbb{R}^{n \times d}$." + "\n\n"
CLOSED = ROWS + r"Let $\mathbf{S}_t = \sum_{j=1}^t \mathbf{v}_j\mathbf{k}_j^\top$." + "\n\n"


def test_the_closed_form_decides_the_recurrence_it_implies():
    rec = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$"
    (r,) = results(CLOSED + rec)
    assert r.kind == "verified" and "as defined at line 5" in r.message
    # the new term counted twice: false
    twice = rec.replace(r"\mathbf{v}_t\mathbf{k}_t^\top", r"2\mathbf{v}_t\mathbf{k}_t^\top")
    assert kinds(CLOSED + twice) == ["false"]


def test_a_member_outside_the_forms_range_is_never_an_alarm():
    # true for t >= 2, which the text leaves unsaid; at t = 1 the form of S_{t-2} is no sum
    two = (
        r"$$\mathbf{S}_t = \mathbf{S}_{t-2} + \mathbf{v}_{t-1}\mathbf{k}_{t-1}^\top"
        r" + \mathbf{v}_t\mathbf{k}_t^\top$$"
    )
    (r,) = results(CLOSED + two)
    assert r.kind == "undecided" and "reversed where t < 2" in r.message, r.message
    # the new term at the wrong position: t - 1 a row of V lets t reach n + 1: not an alarm
    late = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_{t-1}\mathbf{k}_{t-1}^\top$$"
    assert kinds(CLOSED + late) == ["undecided"]
    # the previous state counted twice: false
    rec = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$"
    double = rec.replace(r"\mathbf{S}_{t-1}", r"2\mathbf{S}_{t-1}")
    assert kinds(CLOSED + double) == ["false"]


def test_the_output_read_through_the_state():
    out = r"$$\mathbf{S}_t\mathbf{q}_t = \sum_{j=1}^t \mathbf{v}_j(\mathbf{k}_j^\top\mathbf{q}_t)$$"
    assert kinds(CLOSED + out) == ["verified"]
    # keys and values swapped: false
    swapped = out.replace(r"\mathbf{v}_j(\mathbf{k}_j", r"\mathbf{k}_j(\mathbf{v}_j")
    assert kinds(CLOSED + swapped) == ["false"]
    # a dropped transpose: a shape error at the member
    assert kinds(CLOSED + r"$$\mathbf{S}_t\mathbf{q}_t^\top \in \mathbb{R}^{d}$$") == [
        "shape-error"
    ]


def test_members_at_other_indices_are_the_form_there():
    two = r"$$\mathbf{S}_t - \mathbf{S}_{t-1} = \mathbf{v}_t\mathbf{k}_t^\top$$"
    assert kinds(CLOSED + two) == ["verified"]
    assert kinds(CLOSED + two.replace(r"\mathbf{S}_{t-1}", r"\mathbf{S}_t")) == ["false"]


def test_a_recurrence_keeps_its_members_opaque():
    state = ROWS + r"Let $\mathbf{S}_t \in \mathbb{R}^{d\times d}$." + "\n\n"
    rec = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$" + "\n\n"
    # the closed form is true of S_0 = 0 only, which the text does not say: never false
    wrong = r"$$\mathbf{S}_t = \sum_{j=1}^t \mathbf{k}_j\mathbf{v}_j^\top$$"
    *_, r = results(state + rec + wrong)
    assert r.kind == "undecided"
    # nor is the true one an alarm (t has no stated range, the sum may pass the n rows)
    *_, r = results(state + rec + wrong.replace(r"k}_j\mathbf{v}_j", r"v}_j\mathbf{k}_j"))
    assert r.kind == "undecided"


def test_a_member_at_a_number_is_no_closed_form():
    first = ROWS + r"Let $\mathbf{S}_1 = \mathbf{v}_1\mathbf{k}_1^\top$." + "\n\n"
    claim = r"$$\mathbf{S}_2 = \mathbf{v}_1\mathbf{k}_1^\top$$"
    # S_1 says nothing of S_2: not false
    assert "false" not in kinds(first + claim)


def test_unsettled_vectors_leave_the_reading_undecided():
    rows = r"Let $\mathbf{K}, \mathbf{V} \in \mathbb{R}^{n \times d}$." + "\n\n"
    define = r"$$\mathbf{S}_t = \sum_{j=1}^t \mathbf{v}_j\mathbf{k}_j^\top$$" + "\n\n"
    mixed = (
        r"Here $a = \mathbf{q}_1^\top\mathbf{k}_1$ and $\mathbf{q}_1\mathbf{k}_1^\top$." + "\n\n"
    )
    rec = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$"
    got = results(rows + mixed + define + rec)
    assert got[-1].kind == "undecided" and "rows or columns" in got[-1].message
    wrong = rec.replace(r"\mathbf{v}_t\mathbf{k}_t", r"\mathbf{k}_t\mathbf{v}_t")
    assert results(rows + mixed + define + wrong)[-1].kind == "undecided"


def test_a_variant_of_the_model_is_not_a_false_alarm():
    gate = r"Let $\mathbf{G}_t \in \mathbb{R}^{d\times d}$ be the gate." + "\n\n"
    gated = (
        r"$$\mathbf{S}_t = \mathbf{G}_t \odot \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$"
    )
    (r,) = results(CLOSED + gate + gated)
    assert r.kind == "undecided" and "may define it anew" in r.message, r.message
    # in another section: a new model too
    later = "\n\n## Gated attention\n\n" + r"$$\mathbf{S}_t = 2\mathbf{S}_{t-1}$$"
    assert kinds(CLOSED + later) == ["undecided"]
    # in the form's own names and section, a wrong recurrence stays false
    wrong = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{v}_t^\top$$"
    assert kinds(CLOSED + wrong) == ["false"]


def test_a_member_at_the_sums_own_letter_is_not_captured():
    # S_j read from the form would put j both as the sum's letter and as its bound
    capture = r"$$\mathbf{S}_j = \mathbf{S}_{j-1} + \mathbf{v}_j\mathbf{k}_j^\top$$"
    assert "false" not in kinds(CLOSED + capture)
    wrong = r"$$\mathbf{S}_j = \mathbf{S}_{j-1} + \mathbf{k}_j\mathbf{v}_j^\top$$"
    assert "verified" not in kinds(CLOSED + wrong)
