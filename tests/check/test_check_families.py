"""Families indexed by time or position (`\\mathbf S_t`, `S_{t-1}`, `\\mathbf{M_k}`), the entrywise
product `\\odot` (with the mask the prose names), and notation read as prose or named where it is
not read. Each rule has a true and a false use."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.check import check_text

#: Column vectors, stated in the prose (the text's own convention).
COLUMNS = "Every vector is a column vector.\n\n"
VECTORS = COLUMNS + r"Let $\mathbf{k}_t, \mathbf{v}_t, \mathbf{q}_t \in \mathbb{R}^{d}$." + "\n\n"
STATE = VECTORS + r"Let $\mathbf{S}_t \in \mathbb{R}^{d\times d}$ be the state." + "\n\n"


def declarations(text: str) -> list[str]:
    return [r.message for r in check_text(text, "doc.md") if r.kind == "declaration"]


# ---- a family declared by its shape ---------------------------------------------------------


def test_a_declared_family_gives_every_member_its_shape():
    assert any("family of matrices indexed by t" in m for m in declarations(STATE))
    assert kinds(STATE + r"$$\mathbf{S}_{t-1}\mathbf{k}_t \in \mathbb{R}^{d}$$") == ["verified"]
    # a dropped transpose is a shape error at the member
    assert kinds(STATE + r"$$\mathbf{S}_{t-1}\mathbf{k}_t^\top \in \mathbb{R}^{d}$$") == [
        "shape-error"
    ]


def test_distinct_index_expressions_are_distinct_members():
    same = r"$$\mathbf{S}_t + \mathbf{S}_{t-1} = \mathbf{S}_{t-1} + \mathbf{S}_t$$"
    assert kinds(STATE + same) == ["verified"]
    # S_t and S_{t-1} are two matrices: S_t + S_{t-1} is not 2 S_t
    assert kinds(STATE + r"$$\mathbf{S}_t + \mathbf{S}_{t-1} = 2\mathbf{S}_t$$") == ["false"]
    transpose = r"$$(\mathbf{S}_t\mathbf{q}_t)^\top = \mathbf{q}_t^\top\mathbf{S}_t^\top$$"
    assert kinds(STATE + transpose) == ["verified"]
    assert kinds(STATE + transpose.replace(r"\mathbf{S}_t^\top", r"\mathbf{S}_{t-1}^\top")) == [
        "false"
    ]


def test_a_second_declaration_with_another_shape_is_a_shape_error():
    again = r"Here $\mathbf{S}_t \in \mathbb{R}^{d\times 2d}$."
    assert kinds(STATE + again) == ["shape-error"]
    assert kinds(STATE + again.replace("2d", "d")) == []


# ---- a family defined by its first equation ----------------------------------------------------


def test_the_recurrence_defines_a_declared_family():
    rec = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$"
    (r,) = results(STATE + rec)
    assert r.kind == "verified" and "definition of S_t" in r.message
    # a definition that does not typecheck is a shape error, never a silent accept
    assert kinds(STATE + rec.replace(r"\mathbf{k}_t^\top", r"\mathbf{k}_t")) == ["shape-error"]


def test_a_closed_form_defines_a_new_family_and_later_claims_are_not_false_alarms():
    define = r"Let $\mathbf{S}_t = \sum_{j=1}^t \mathbf{v}_j\mathbf{k}_j^\top$." + "\n\n"
    rows = (
        COLUMNS + r"Let $\mathbf{Q}, \mathbf{K}, \mathbf{V} \in \mathbb{R}^{n \times d}$." + "\n\n"
    )
    assert any("a family of d × d matrices" in m for m in declarations(rows + define))
    # the members are the closed form at their index: the recurrence it implies holds
    rec = r"$$\mathbf{S}_t = \mathbf{S}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$"
    (r,) = results(rows + define + rec)
    assert r.kind == "verified" and "S_• as defined at line 5" in r.message
    # a wrong recurrence (the outer product turned round) is false, not a member's freedom
    (r,) = results(
        rows + define + rec.replace(r"\mathbf{v}_t\mathbf{k}_t", r"\mathbf{k}_t\mathbf{v}_t")
    )
    assert r.kind == "false"
    # true for every value of the member: decided
    transpose = r"$$(\mathbf{S}_t\mathbf{q}_t)^\top = \mathbf{q}_t^\top\mathbf{S}_t^\top$$"
    assert kinds(rows + define + transpose) == ["verified"]
    # its shape is the definition's
    assert kinds(rows + define + r"$$\mathbf{S}_t\mathbf{q}_t \in \mathbb{R}^{d}$$") == ["verified"]
    bad = r"$$\mathbf{S}_t + \mathbf{q}_t \in \mathbb{R}^{d\times d}$$"
    assert kinds(rows + define + bad) == ["shape-error"]


def test_a_recurrence_alone_defines_a_family_from_its_other_terms():
    rec = r"$$\mathbf{G}_t = \mathbf{G}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top$$" + "\n\n"
    assert any("a family of d × d matrices" in m for m in declarations(VECTORS + rec))
    bad = r"$$\mathbf{G}_t = \mathbf{G}_{t-1} + \mathbf{v}_t\mathbf{k}_t^\top + \mathbf{q}_t$$"
    assert kinds(VECTORS + bad) == ["shape-error"]


def test_a_font_around_the_scripted_name_and_a_written_matrix():
    rot = (
        r"$$\mathbf{M_k} = \begin{bmatrix} \cos(\omega k) & \sin(\omega k) \\"
        r" -\sin(\omega k) & \cos(\omega k) \end{bmatrix}$$"
    )
    assert any("M_k" in m and "2 × 2" in m for m in declarations(rot + "\n\n"))
    assert kinds(rot + "\n\n" + r"$$\mathbf{M_k}^\top \in \mathbb{R}^{2\times 2}$$") == ["verified"]
    assert kinds(rot + "\n\n" + r"$$\mathbf{M_k} \in \mathbb{R}^{2\times 3}$$") == ["shape-error"]


@pytest.mark.parametrize(
    "name", [r"\mathbf{W}_q", r"S_{ij}", r"\mathbf{v}_t", r"W_Q"], ids=["W_q", "S_ij", "v_t", "WQ"]
)
def test_names_that_are_not_members_of_a_family(name):
    from symattn.reader.syntax.parse import parse_formula
    from symattn.reader.terms.members import family_letter

    node = parse_formula(name).items[0].subjects[0]
    assert family_letter(node) is None
    assert family_letter(parse_formula(r"\mathbf{S}_{t-1}").items[0].subjects[0]) == "S"


# ---- the entrywise product ------------------------------------------------------------------

QKVM = r"Let $\mathbf{Q}, \mathbf{K}, \mathbf{V} \in \mathbb{R}^{L \times d}$." + "\n\n"


def test_hadamard_product():
    decl = QKVM + r"Let $\mathbf{A} \in \mathbb{R}^{L \times L}$." + "\n\n"
    good = (
        r"$$(\mathbf{Q}\mathbf{K}^\top \odot \mathbf{A})^\top"
        r" = \mathbf{A}^\top \odot \mathbf{K}\mathbf{Q}^\top$$"
    )
    assert kinds(decl + good) == ["verified"]
    assert kinds(decl + good.replace(r"\mathbf{A}^\top", r"\mathbf{A}")) == ["false"]
    assert kinds(decl + r"$$\mathbf{Q} \odot \mathbf{A} \in \mathbb{R}^{L\times d}$$") == [
        "shape-error"
    ]


def test_the_mask_the_prose_names_is_the_causal_mask():
    mask = (
        r"- $$\mathbf{M} \in \mathbb{R}^{L \times L}$$ is the causal mask of the decoder." + "\n\n"
    )
    row = r"$$\mathbf{o}_t^\top = \sum_{j=1}^t (\mathbf{q}_t^\top \mathbf{k}_j) \mathbf{v}_j^\top$$"
    doc = (
        COLUMNS
        + QKVM
        + mask
        + r"$$\mathbf{O} = (\mathbf{Q}\mathbf{K}^\top \odot \mathbf{M})\mathbf{V}$$"
        + "\n\n"
    )
    assert kinds(doc + row) == ["verified"]
    assert kinds(doc + row.replace("^t", "^{t-1}")) == ["false"]
    # a matrix the prose does not call a mask keeps the general product: the claim is false
    plain = doc.replace("is the causal mask of the decoder", "is a matrix of weights")
    assert kinds(plain + row) == ["false"]


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"$$\mathbf{Q} \otimes \mathbf{K} = \mathbf{K}$$", r"\otimes"),
        (r"$$\nabla \mathcal{L}(\mathbf{Q}) = \mathbf{Q}$$", r"\nabla"),
        (r"$$\frac{\partial f}{\partial x} = 0$$", r"\partial"),
        (r"$$\mathbf{Q} \oslash \mathbf{K} = \mathbf{K}$$", r"\oslash"),
    ],
)
def test_notation_that_is_not_read_is_named(formula, named):
    (r,) = results(QKVM + formula)
    assert r.kind == "not-understood" and named in r.message


# ---- layout inside displays -------------------------------------------------------------------


def test_a_prose_label_in_an_aligned_row_is_not_read():
    label = (
        r"$$\begin{aligned} \mathrm{Parallel\ training:} &&& \mathbf{Q}\mathbf{K}^\top"
        r" \in \mathbb{R}^{L\times L} \end{aligned}$$"
    )
    assert kinds(QKVM + label) == ["verified"]
    assert kinds(QKVM + label.replace(r"\mathbf{K}^\top", r"\mathbf{K}")) == ["shape-error"]


def test_sized_angle_brackets_sets_and_accents_on_scripted_names():
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    assert ast.dump(parse_formula(r"\Big\langle a, b \Big\rangle")) == "[(inner a b)]"
    assert ast.dump(parse_formula(r"\left\{ a \right\}")) == "[(set a)]"
    assert ast.dump(parse_formula(r"\widetilde{Z_j}")) == ast.dump(parse_formula(r"\tilde{Z}_j"))
    top = parse_formula(r"K^{(h)\top}")
    assert ast.dump(top) == ast.dump(parse_formula(r"K^{(h)\mathsf T}"))


# ---- conditions in the prose --------------------------------------------------------------


def test_an_index_range_beside_no_claim_is_context():
    doc = r"Let $\mathbf{x}_i \in \mathbb{R}^d$ ($1 \leq i \leq n$) be the inputs." + "\n"
    (r,) = [x for x in check_text(doc, "doc.md") if "condition" in x.message]
    assert r.kind == "declaration" and "context (not a claim)" in r.message
    # beside a claim about i that it does not qualify, it is reported as not joined
    claim = r"Then $\mathbf{q}_i = \mathbf{k}_i$, and $1 \leq i \leq n$." + "\n"
    (r,) = [x for x in check_text(claim, "doc.md") if "condition" in x.message]
    assert r.kind == "not-understood" and "not joined" in r.message


# ---- a vector's components ------------------------------------------------------------------

QK = r"Let $q, k \in \mathbb{R}^{d_k}$ be vectors with independent components." + "\n\n"


def test_components_of_a_declared_vector():
    assert kinds(QK + r"$$q\cdot k = \sum_{i=1}^{d_k} q_i k_i$$") == ["verified"]
    # a bound n-1 for n is an error of the text
    assert kinds(QK + r"$$q\cdot k = \sum_{i=1}^{d_k-1} q_i k_i$$") == ["false"]
    # without bounds, the index runs over the vectors' length
    assert kinds(QK + r"$$q^\top k = \sum_{i} q_i k_i$$") == ["verified"]
    assert kinds(QK + r"$$q^\top k = \sum_{i} q_i q_i$$") == ["false"]
    # with a lower bound only, the upper bound is the length
    assert kinds(QK + r"$$q^\top k = \sum_{i=1} q_i k_i$$") == ["verified"]


def test_a_row_of_a_declared_matrix_stays_a_row():
    doc = r"Let $Q, K \in \mathbb{R}^{n \times d_k}$." + "\n\n"
    assert kinds(doc + r"$$(QK^\top)_{ij} = \sum_{r=1}^{d_k} Q_{ir} K_{jr}$$") == ["verified"]
    assert kinds(doc + r"$$(QK^\top)_{ij} = q_i k_j^\top$$") == ["verified"]


def test_an_equation_for_rows_gives_the_matrix_its_width():
    doc = r"Let $V \in \mathbb{R}^{n \times d_v}$ and $A \in \mathbb{R}^{n \times n}$." + "\n\n"
    rows = r"$$o_i = \sum_j a_{ij} v_j$$" + "\n\n"
    assert not kinds(doc + rows)  # a definition, never a shape error against the convention
    assert any("O is n × d_v" in m for m in declarations(doc + rows))
    assert kinds(doc + rows + r"$$o_i \in \mathbb{R}^{n}$$") == ["shape-error"]
    # a width equal to the convention's is a claim about the chapter's O, as before
    same = r"Let $V \in \mathbb{R}^{n \times d}$ and $A \in \mathbb{R}^{n \times n}$." + "\n\n"
    assert not any("defines the rows" in m for m in declarations(same + rows))


# ---- assignments, rows that go on, operator words before sized parentheses -----------------

QKS = r"Let $Q, K \in \mathbb{R}^{n\times d_k}$ and $S \in \mathbb{R}^{n\times n}$." + "\n\n"


def test_an_assignment_is_a_step_not_a_claim():
    step = r"$$S \leftarrow S + QK^\top$$"
    assert kinds(QKS + step) == []
    assert any("an assignment" in m for m in declarations(QKS + step))
    # its right side must typecheck
    assert kinds(QKS + step.replace("K^\\top", "K")) == ["shape-error"]


def test_a_row_that_ends_in_a_relation_goes_on():
    rows = r"$$\begin{align} (QK^\top)^\top &= \\ KQ^\top \end{align}$$"
    assert kinds(QKS + rows) == ["verified"]
    assert kinds(QKS + rows.replace(r"KQ^\top \end", r"QK^\top \end")) == ["false"]


def test_an_operator_word_before_sized_parentheses():
    good = r"$$\text{softmax} \bigg( \frac{QK^\top}{\sqrt{d_k}} \bigg) \in \mathbb{R}^{n\times n}$$"
    assert kinds(QKS + good) == ["verified"]
    assert kinds(QKS + good.replace("n\\times n}", "n\\times d_k}")) == ["shape-error"]


def test_a_superscripted_feature_of_no_family_is_an_undeclared_name():
    # (a number in a scalar claim; `\cos\theta\, x` may also read as cos(θx): undecided)
    (r,) = results(r"$$x^{(1)}_m \cos\theta = \cos\theta\, x^{(1)}_m$$")
    assert r.kind == "undecided" and "x_m^{(1)}" in r.message
    # a capital with a head superscript still names a matrix that must be declared
    (r,) = results(r"$$X^{(1)}_m = 0$$")
    assert r.kind == "not-understood"


# ---- definitions that do not typecheck, orders between sizes --------------------------------


def test_a_function_definition_ill_typed_apart_from_its_parameters_is_a_shape_error():
    doc = r"Let $Q, K \in \mathbb{R}^{n\times d_k}$." + "\n\n"
    assert kinds(doc + r"$$f(x) = QK x$$") == ["shape-error"]
    assert kinds(doc + r"$$f(x) = QK^\top x$$") == []
    # a conflict that involves the parameters is not the text's error (they are its own)
    assert kinds(doc + r"$$\text{score}(Q, K) = QK$$") == []


def test_an_order_between_sizes_the_example_gives():
    example = "Let $n = 3$ and $d = 5$.\n\n"
    assert kinds(example + r"$$n \le d$$") == ["verified"]
    assert kinds(example + r"$$d < n$$") == ["false"]
    assert kinds(example + r"$$d \ge n + 2$$") == ["verified"]
    assert kinds(example + r"$$d > n + 2$$") == ["false"]
    # sizes without numbers: the text assumes the order, nothing is claimed
    assert kinds(r"Let $Q \in \mathbb{R}^{n\times d}$ with $n \le d$.") == []


def test_a_run_of_rows():
    doc = r"Let $X \in \mathbb{R}^{n\times d}$." + "\n\n"
    assert kinds(doc + r"$$x_{1:n} = X$$") == ["verified"]
    assert kinds(doc + r"$$x_{1:n} = X^\top$$") == ["shape-error"]
    # a run whose end is not known to lie within the rows is not read
    (r,) = results(doc + r"$$x_{1:t} \in \mathbb{R}^{t \times d}$$")
    assert r.kind == "not-understood" and "t <= n" in r.message


def test_a_shape_declared_for_a_defined_name_must_agree_with_its_definition():
    doc = (
        r"Let $Q, K, V \in \mathbb{R}^{n\times d}$, $W_i^Q, W_i^K \in \mathbb{R}^{d\times d_k}$"
        r" and $W_i^V \in \mathbb{R}^{d\times d_v}$." + "\n\n"
        r"$$\mathrm{head_i} = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)$$" + "\n\n"
    )
    assert kinds(doc + r"$$\operatorname{head}_i \in \mathbb{R}^{n\times d_v}$$") == ["verified"]
    assert kinds(doc + r"$$\operatorname{head}_i \in \mathbb{R}^{n\times d_k}$$") == ["shape-error"]


def test_the_named_mask_alone_is_the_matrix_of_ones_below_the_diagonal():
    mask = (
        r"- $$\mathbf{M} \in \mathbb{R}^{L \times L}$$ is the causal mask of the decoder." + "\n\n"
    )
    doc = QKVM + mask
    good = (
        r"$$(\mathbf{Q}\mathbf{K}^\top \odot \mathbf{M})^\top"
        r" = \mathbf{M}^\top \odot \mathbf{K}\mathbf{Q}^\top$$"
    )
    assert kinds(doc + good) == ["verified"]
    assert kinds(doc + good.replace(r"\mathbf{M}^\top", r"\mathbf{M}")) == ["false"]


def test_a_mask_role_the_prose_denies_is_not_given():
    entry = r"$$(\mathbf{Q}\mathbf{K}^\top \odot \mathbf{M})_{12} = 0$$"
    mask = r"- $$\mathbf{M} \in \mathbb{R}^{L \times L}$$ is the causal mask here." + "\n\n"
    assert kinds(QKVM + mask + entry) == ["verified"]
    denied = mask.replace("is the causal", "is not the causal")
    assert kinds(QKVM + denied + entry) == ["false"]


def test_a_component_beside_a_matrix_of_the_same_letter():
    doc = (
        r"Let $Q, K \in \mathbb{R}^{n\times d_k}$ and $q, k \in \mathbb{R}^{d_k}$ be vectors."
        + "\n\n"
    )
    # a sum up to the vector's length: components
    assert kinds(doc + r"$$q\cdot k = \sum_{i=1}^{d_k} q_i k_i$$") == ["verified"]
    assert kinds(doc + r"$$q\cdot k = \sum_{i=1}^{d_k} q_i q_i$$") == ["false"]
    # a sum up to Q's rows: rows of Q, as the chapter reads them (rows or columns: not settled)
    (r,) = results(doc + r"$$\sum_{i=1}^{n} q_i^\top k_i = Q^\top K$$")
    assert r.kind == "undecided" and "as rows: proved" in r.message
    # no sum: two readings, not guessed
    (r,) = results(doc + r"$$q_i = k_i$$")
    assert r.kind == "not-understood" and "declares both" in r.message
