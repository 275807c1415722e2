"""Scalars the text names without a value the checker reads (`\\beta_t \\in \\mathbb R`): a claim
that holds for every value of them is decided, a false one is undecided, and a sum over a
sequence's index is never read as one number. True and false uses of each."""

from __future__ import annotations

from claim_helpers import kinds, results

BASE = (
    "Every vector is a column vector.\n\n"
    r"Let $\mathbf{K}, \mathbf{V} \in \mathbb{R}^{n \times d}$, $\beta_t \in \mathbb{R}$ and "
    r"$\mathbf{S}_t \in \mathbb{R}^{d \times d}$." + "\n\n"
)


def test_the_delta_rule_expanded_holds_for_every_step_size():
    good = (
        r"$$\mathbf{S}_{t-1} - \beta_t(\mathbf{S}_{t-1}\mathbf{k}_t - \mathbf{v}_t)"
        r"\mathbf{k}_t^\top"
        r" = \mathbf{S}_{t-1} - \beta_t\mathbf{S}_{t-1}\mathbf{k}_t\mathbf{k}_t^\top"
        r" + \beta_t\mathbf{v}_t\mathbf{k}_t^\top$$"
    )
    assert kinds(BASE + good) == ["verified"]
    # a sign lost: false for some step size, but the checker does not read beta_t's value
    bad = good.replace(r"+ \beta_t\mathbf{v}_t", r"- \beta_t\mathbf{v}_t")
    (r,) = results(BASE + bad)
    assert r.kind == "undecided" and "beta_t" in r.message
    # a dropped transpose is never verified (with a scalar of the text in the formula, a shape
    # error may be notation: `softmax(e_{ij})` over j; it is not understood)
    wrong = good.replace(r"\mathbf{v}_t\mathbf{k}_t^\top$$", r"\mathbf{v}_t\mathbf{k}_t$$")
    assert kinds(BASE + wrong) == ["not-understood"]


def test_a_sum_over_the_sequence_index_is_not_one_number():
    # beta_t under \sum_t is one number per t: pulling it out of the sum is wrong
    pulled = r"$$\sum_{t=1}^n \beta_t \mathbf{v}_t = \beta_t \sum_{t=1}^n \mathbf{v}_t$$"
    assert "verified" not in kinds(BASE + pulled)
    # a scalar without an index is one number
    alpha = r"Let $\alpha \in \mathbb{R}$." + "\n\n"
    out = r"$$\sum_{t=1}^n \alpha \mathbf{v}_t = \alpha \sum_{t=1}^n \mathbf{v}_t$$"
    assert kinds(BASE + alpha + out) == ["verified"]


AHEAD = (
    "Every vector is a column vector.\n\n"
    r"Let $\mathbf{K}, \mathbf{V} \in \mathbb{R}^{n \times d}$ and "
    r"$\mathbf{S}_t \in \mathbb{R}^{d \times d}$." + "\n\n"
)
RULE = (
    r"$$\mathbf{S}_{t-1} - \beta_t(\mathbf{S}_{t-1}\mathbf{k}_t - \mathbf{v}_t)\mathbf{k}_t^\top"
    r" = \mathbf{S}_{t-1} - \beta_t\mathbf{S}_{t-1}\mathbf{k}_t\mathbf{k}_t^\top"
    r" + \beta_t\mathbf{v}_t\mathbf{k}_t^\top$$" + "\n\n"
)


def test_a_scalar_declared_in_the_list_after_the_formula():
    after = "where:\n\n" + r"- $\beta_t \in \mathbb{R}$ is the learning rate" + "\n"
    assert kinds(AHEAD + RULE + after) == ["verified"]
    # a sign lost: undecided, never false
    bad = RULE.replace(r"+ \beta_t\mathbf{v}_t", r"- \beta_t\mathbf{v}_t")
    assert kinds(AHEAD + bad + after) == ["undecided"]
    # declared in another section only: not in force here
    elsewhere = "## Later\n\n" + r"Here $\beta_t \in \mathbb{R}$." + "\n"
    (got,) = [r for r in results(AHEAD + RULE + elsewhere) if r.kind == "verified"] or [None]
    # the identity holds for every real beta_t: verified only as an undeclared letter read so
    assert got is None or "\\beta_t read as a real number (not declared" in got.message
