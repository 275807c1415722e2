"""The notations third-party attention texts use (superscript names, words in
subscripts, primes and accents, relations, inner products, norms, sums up to i), each with a
true and a false variant; what is not settled stays "not understood", never verified."""

from __future__ import annotations

import pytest

from symattn.check import check_text

DECL = r"Let $Q,K\in\mathbb R^{n\times d_k}$ and $X\in\mathbb R^{n\times d}$." + "\n\n"


def verdicts(text: str) -> list[str]:
    return [
        r.kind
        for r in check_text(DECL + text, "notations.md")
        if r.kind not in ("declaration", "not-a-claim")
    ]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # \langle u, v\rangle is the dot product u . v
        (r"\langle q_i,k_j\rangle = (QK^T)_{ij}", "verified"),
        (r"\langle q_i,k_j\rangle = (QK^T)_{ji}", "false"),
        (r"\langle q_i,k_j\rangle = q_i\cdot k_j", "verified"),
        # \|x\| is the Euclidean length of a vector
        (r"\|q_i\|^2 = q_i\cdot q_i", "verified"),
        (r"\|q_i\|^2 = q_i\cdot k_i", "false"),
        (r"\left\| q_i \right\|^2 = \sum_{r=1}^{d_k} Q_{ir}^2", "verified"),
        # sums written with a bound on the index
        (r"\sum_{j\le i} a_{ij} = \sum_{j=1}^{i} a_{ij}", "verified"),
        (r"\sum_{j< i} a_{ij} = \sum_{j=1}^{i} a_{ij}", "false"),
        (r"\sum_{j<i} a_{ij} + a_{ii} = \sum_{j=1}^{i} a_{ij}", "verified"),
        (r"\sum_{j\in[1,n]} a_{ij} = \sum_{j=1}^{n} a_{ij}", "verified"),
        (r"\sum_{j\in[n]} a_{ij} = \sum_{j=1}^{n-1} a_{ij}", "false"),
        # a primed index is an index
        (r"\sum_{t'=1}^{n} a_{it'} = \sum_{j=1}^{n} a_{ij}", "verified"),
        (r"\sum_{t'=1}^{n} a_{it'} = \sum_{j=1}^{n} a_{ji}", "false"),
        # |x| of a number
        (r"|a_{ij}| = |a_{ij}|", "verified"),
        (r"|a_{ij}| = a_{ij}", "false"),
        # relations the kernel does not decide are never verified: read, and undecided
        (r"a_{ij} \approx a_{ji}", "undecided"),
        (r"q_i \propto k_i", "undecided"),
        (r"x \to y", "undecided"),
        (r"x \rightsquigarrow y", "undecided"),
        (r"x \mapsto y", "undecided"),
        (r"x \mapsto QK", "shape-error"),  # its sides are still read
        (r"x \mapsto \sum_{j=1} y_j", "not-understood"),
        # a norm of a matrix, |x| of a vector: not read
        (r"\|Q\| = \|K\|", "not-understood"),
        (r"|q_i| = |k_i|", "not-understood"),
    ],
)
def test_notation(formula: str, kind: str) -> None:
    assert verdicts(f"$${formula}$$\n") == [kind]


@pytest.mark.parametrize(
    ("written", "used", "kind"),
    [
        (r"W^Q", r"Q = XW^Q", "verified"),
        (r"\mathbf W^q", r"Q = X\mathbf{W}^q", "verified"),
        (r"W^Q", r"(XW^Q)_{ij} = \sum_{r=1}^{d} X_{ir} W^Q_{rj}", "verified"),
        (r"W^Q", r"(XW^Q)_{ij} = 2\sum_{r=1}^{d} X_{ir} W^Q_{rj}", "false"),
        (r"W_i^Q", r"XW^Q_i = XW_i^Q", "verified"),
        (r"\mathbf W_i^{(q)}", r"XW_i^{(q)} = X\mathbf W^{(q)}_i", "verified"),
        (r"W^{\text{out}}", r"Q = XW^{\mathrm{out}}", "verified"),
        (r"W_{\text{out}}", r"Q = XW_{\text{out}}", "verified"),
    ],
)
def test_superscript_and_word_names(written: str, used: str, kind: str) -> None:
    text = f"and ${written}\\in\\mathbb R^{{d\\times d_k}}$.\n\n$${used}$$\n"
    assert verdicts(text) == [kind]


def test_a_superscript_name_is_not_another_name() -> None:
    # W^Q, W^K: two matrices; W^Q is not W_Q and a power is not read as a name
    text = r"and $W^Q,W^K\in\mathbb R^{d\times d_k}$." + "\n\n$$XW^Q = XW^K$$\n"
    assert verdicts(text) == ["false"]
    # W^Q never declared: its shape is inferred, and a name on one side only is not refuted
    assert verdicts("$$XW^Q = XW_Q$$\n") == ["undecided"]


def test_transpose_inverse_and_heads_keep_their_meaning() -> None:
    assert verdicts(r"$$(QK^{\mathsf T})^\top = KQ^\top$$" + "\n") == ["verified"]
    assert verdicts(r"$$(QK^{\mathsf T})^\top = QK^\top$$" + "\n") == ["false"]
    assert verdicts(r"$$Q^{-1} = Q$$" + "\n") == ["not-understood"]


@pytest.mark.parametrize("name", [r"\hat y", r"\tilde{\mathbf x}", r"\bar h", "t'", r"\hat q_i"])
def test_an_accent_or_a_prime_makes_a_new_name(name: str) -> None:
    # never the letter under it: \hat q_i is not row i of Q; a first equation defines it
    assert verdicts(f"$${name} = q_1$$\n") == []
    assert verdicts(f"$${name} = q_1$$\n\n$${name} = q_1$$\n") == ["undecided"]
    declared = f"and ${name}\\in\\mathbb R^{{1\\times d_k}}$.\n\n$${name} = {name}$$\n"
    assert verdicts(declared) == ["verified"]


@pytest.mark.parametrize(
    ("inner", "kind"), [(r"d_\mathrm{model}", "verified"), ("d_{ff}", "shape-error")]
)
def test_a_word_in_a_subscript_is_part_of_a_size(inner: str, kind: str) -> None:
    text = (
        r"and $Y\in\mathbb R^{n\times d_{\text{model}}}$, "
        f"$W_{{\\text{{out}}}}\\in\\mathbb R^{{{inner}\\times d}}$.\n\n"
        r"$$Q = YW_{\text{out}}W_Q$$" + "\n"
    )
    assert verdicts(text) == [kind]


# ---- names the text defines: scalars, sequences, uninterpreted functions ------------------
# The first equation about a new name is its definition (a declaration, claiming nothing);
# afterwards the name is an opaque term of the shape its definition gave: a claim about it is
# undecided when its sides have the same shape, and never verified or false.


@pytest.mark.parametrize(
    "definition",
    [
        r"a(q_i,k_j) = q_i\cdot k_j",
        r"a(q_i,k_j) := q_i\cdot k_j",
        r"a(q_i,k_j) \stackrel{\text{def}}{=} q_i\cdot k_j",
        r"\text{score}(q_i,k_j) = q_i\cdot k_j",
        r"\alpha(q_i,k_j) = \exp(q_i\cdot k_j)",
    ],
)
def test_a_function_definition_is_a_declaration(definition: str) -> None:
    results = check_text(DECL + f"$${definition}$$\n", "notations.md")
    assert [r.kind for r in results if r.kind != "declaration" or "defines" in r.message][-1:] == [
        "declaration"
    ]
    assert "defines the function" in results[-1].message
    assert "a scalar" in results[-1].message


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"a(q_i,k_j) = a(q_i,k_j)", "undecided"),  # never verified: its value is not used
        (r"a(q_i,k_j) = q_i\cdot k_j + 1", "undecided"),  # never false either
        (r"\sum_{j=1}^{n} a(q_i,k_j) = 1", "undecided"),
        (r"a(q_i,k_j) = q_i", "not-understood"),  # a scalar against a row
        (r"a(Q,K) = 1", "not-understood"),  # other argument shapes: value not known
        (r"a(q_i) = 1", "not-understood"),  # one argument, defined with two
        (r"QK = a(q_i,k_j)\, q_i", "shape-error"),  # QK does not typecheck: n × d_k by n × d_k
    ],
)
def test_claims_about_a_defined_function(claim: str, kind: str) -> None:
    text = r"$$a(q_i,k_j) = q_i\cdot k_j$$" + f"\n\n$${claim}$$\n"
    assert verdicts(text) == [kind]


def test_an_undeclared_name_or_function_is_undecided_never_decided() -> None:
    # q_i already means something, so this is a claim; f is used without a definition: read
    # around it, undecided, naming it
    results = check_text(DECL + r"$$q_i = f(q_i)$$" + "\n", "notations.md")
    assert [r.kind for r in results][-1] == "undecided"
    assert "f(·) is not declared by the text" in results[-1].message
    assert verdicts(r"$$q_i = q_i + \tanh(x)$$" + "\n") == ["undecided"]
    # the parts it can read are still checked: QK does not typecheck
    assert verdicts(r"$$q_i = f(QK)$$" + "\n") == ["shape-error"]
    assert verdicts(r"$$q_i = f(x) + QK$$" + "\n") == ["shape-error"]
    # a capital names a matrix, which must be declared (a typo keeps its "did you mean")
    assert verdicts(r"$$Q = XW_q$$" + "\n") == ["not-understood"]
    # ... but a capital written before parentheses is a function of the text's, F(x)
    assert verdicts(r"$$q_i = F(q_i) - q_i$$" + "\n") == ["undecided"]
    assert verdicts(r"$$q_i = F(QK)$$" + "\n") == ["shape-error"]
    # an offset the text names, in an index: p_{i+\delta}
    assert verdicts(r"$$q_{i+\delta} = q_i$$" + "\n") == ["undecided"]
    # a sum without bounds, a bmatrix, stay unreadable around an undeclared name
    assert verdicts(r"$$q_i = \sum_{j=1} f(x_j)$$" + "\n") == ["not-understood"]
    # a known operator is never redefined
    assert verdicts(r"$$\operatorname{softmax}(q_i) = q_i$$" + "\n") == ["false"]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # the shape of an expression with an undeclared name is not decided; its parts are read
        (r"f(q_i, k_j) \in \mathbb R^{d_k}", "undecided"),
        (r"f(QK) \in \mathbb R^{d_k}", "shape-error"),
        (r"g(q_i) + q_i \in \mathbb R^{d_k}", "undecided"),
        # tanh keeps its argument's shape: q_i is row i of Q here
        (r"\tanh(q_i) + q_i \in \mathbb R^{1 \times d_k}", "verified"),
        # a scalar claimed a scalar
        (r"\frac{\exp(q_i\cdot k_j)}{\sum_{r=1}^{n}\exp(q_i\cdot k_r)} \in \mathbb R", "verified"),
        (r"\exp(a_{ij}) \in \mathbb R", "verified"),
        (r"\sigma(a_{ij}) + 1 \in \mathbb R", "undecided"),
        (r"\sigma(a_{ij}) \in \mathbb R", []),  # declares sigma scalar-valued
        (r"q_i \in \mathbb R", "not-understood"),  # a row claimed a scalar: not read
    ],
)
def test_shapes_of_expressions_with_undeclared_names(formula: str, kind: str | list) -> None:
    assert verdicts(f"$${formula}$$\n") == (kind if isinstance(kind, list) else [kind])


def test_index_letters_of_the_left_side_are_integers_on_the_right() -> None:
    # `p_{i,2j} = \sin(...)`: i and j are the entry's indices, not undeclared names
    results = check_text(DECL + r"$$a_{ij} = \sin(i + j)$$" + "\n", "notations.md")
    assert results[-1].kind == "undecided"
    # sin is read (a function of numbers): the equation defines the entries of A
    assert "definition of the entries of A" in results[-1].message
    assert "sin" not in results[-1].message
    # A is any n × n matrix the text never gives a value: the equation defines its entries
    assert verdicts(r"$$a_{ij} = i + j$$" + "\n") == ["undecided"]
    assert verdicts(DECL + r"$$A = QK^T$$ $$a_{ij} = i + j$$" + "\n")[-1] == "false"


def test_a_definition_that_does_not_typecheck_is_a_shape_error() -> None:
    assert verdicts(r"$$f(q_i) = QK$$" + "\n") == ["shape-error"]
    assert verdicts(r"$$f(q_i) = QK^T$$" + "\n") == []
    # unless the conflict involves its parameters, which are its own variables
    assert verdicts(r"$$f(x_i) = x_i^T q_i$$" + "\n") == []
    # (`x_i^T q_i` is a cue for column vectors: read so, f's argument is another shape)
    assert verdicts(r"$$f(x_i) = x_i^T q_i$$" + "\n\n" + r"$$f(x_i) = x_i q_i$$") == [
        "not-understood"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a sequence: its index letters are integers inside its definition
        # a scalar whose value is not read: true for every value is verified, else undecided
        (r"$$\omega_j = 1/10000^{2j/d}$$" + "\n\n" + r"$$\omega_r = \omega_r$$", ["verified"]),
        (r"$$\omega_j = 1/10000^{2j/d}$$" + "\n\n" + r"$$\omega_r = \omega_r + 1$$", ["undecided"]),
        (r"$$e_{ij} = q_i\cdot k_j$$" + "\n\n" + r"$$e_{ir} = q_i\cdot k_r + 1$$", ["undecided"]),
        (r"$$e_{ij} = q_i\cdot k_j$$" + "\n\n" + r"$$e_{ir} = q_i$$", ["not-understood"]),
        # a sequence with another number of indices is not the one defined
        (r"$$e_{ij} = q_i\cdot k_j$$" + "\n\n" + r"$$e_{ijr} = q_1\cdot k_1$$", ["undecided"]),
        # names: words and accents
        # a size named by a word takes a value: the second is another worked example
        (r"$$d_{\text{model}} = 512$$" + "\n\n" + r"$$d_{\text{model}} = 511$$", []),
        (r"$$d_{\text{model}} = 512$$" + "\n\n" + r"$$2d_{\text{model}} = 1023$$", ["false"]),
        (r"$$\hat y = q_1$$" + "\n\n" + r"$$\hat y = q_2$$", ["undecided"]),
        (r"$$\hat y = q_1$$" + "\n\n" + r"$$\hat y = QK^T$$", ["not-understood"]),
        # a definition whose value is not read: later uses are as undeclared names
        (r"$$\hat z = g(x)$$" + "\n\n" + r"$$\hat z = q_1$$", ["undecided"]),
        (r"$$\hat z = g(x)$$" + "\n\n" + r"$$\hat z = QK$$", ["shape-error"]),
    ],
)
def test_defined_names_and_sequences(text: str, expected: list[str]) -> None:
    assert verdicts(text + "\n") == expected


@pytest.mark.parametrize(
    ("declared", "claim", "kind"),
    [
        (r"e_{ij}\in\mathbb R", r"e_{ij} = e_{ji}", "undecided"),
        (r"e_{ij}\in\mathbb R", r"e_{ij} = q_i", "not-understood"),
        (r"\beta\in\mathbb R", r"\beta = \beta + 1", "undecided"),
        (r"\alpha(q_i,k_j)\in\mathbb R", r"\sum_{j=1}^{n}\alpha(q_i,k_j) = 1", "undecided"),
        (r"\alpha(q_i,k_j)\in\mathbb R", r"\alpha(q_i,k_j) = q_i", "not-understood"),
        (r"\alpha(q_i,k_j)\in\mathbb R", r"QK = \alpha(q_i,k_j)\, q_i", "shape-error"),
    ],
)
def test_declared_scalars(declared: str, claim: str, kind: str) -> None:
    text = f"Let ${declared}$.\n\n$${claim}$$\n"
    results = check_text(DECL + text, "notations.md")
    assert any(r.kind == "declaration" and "as a scalar" in r.message for r in results)
    assert verdicts(text) == [kind]


def test_a_known_matrix_is_never_redefined() -> None:
    # Q is declared: `Q = ...` stays a claim, checked against what Q is
    assert verdicts(r"$$Q = XW_Q + 1$$" + "\n") != []
    assert verdicts(r"$$q_1 = q_2$$" + "\n") == ["false"]


def test_a_capital_label_in_a_subscript_names_a_new_vector() -> None:
    # `\mathbf v_{A,i}` (d2l's NLI chapter) is not entry (A, i) of V, nor `\mathbf v_A` row A
    text = r"$$\mathbf v_A = \sum_{i=1}^{m} \mathbf v_{A,i}$$" + "\n"
    assert verdicts(text) == []
    assert verdicts(r"$$\mathbf v_A = q_1$$" + "\n\n" + r"$$\mathbf v_A = q_2$$" + "\n") == [
        "undecided"
    ]
    # a size stays an index: q_n is row n of Q
    assert verdicts(r"$$q_n = q_n$$" + "\n") == ["verified"]


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        # an open parenthesis or bar is unreadable, not malformed LaTeX (TeX does not pair them)
        (r"\begin{aligned} y &= (c \vert d) \end{aligned}", "not-understood"),
        (r"\begin{aligned} y &= (q_1 \end{aligned}", "not-understood"),
        # an unbalanced brace is malformed: TeX itself stops there
        (r"\begin{aligned} y &= {q_1 \end{aligned}", "malformed"),
    ],
)
def test_unpaired_delimiters_before_an_environment_end(body: str, kind: str) -> None:
    assert verdicts(f"$${body}$$\n") == [kind]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a set named by its first equation is a definition; a set is never a value
        (r"$$\mathcal S = \{S_1, \dots, S_n\}$$", []),
        (r"$$q_1 = \{q_1\}$$", ["not-understood"]),
        # membership: both sides read, never decided
        (r"$$U_i = \{j : j \le i\}$$" + "\n\n" + r"$$j \in U_i$$", ["undecided"]),
        (r"$$a_{ij} \in \{0, 1\}$$", ["undecided"]),
        (r"$$z \in [0, s]$$", ["undecided"]),
        (r"$$QK \in \{0, 1\}$$", ["shape-error"]),
        # an undeclared capital set stays a name to declare
        (r"$$j \in T_i$$", ["not-understood"]),
    ],
)
def test_sets_and_membership(text: str, expected: list[str]) -> None:
    assert verdicts(text + "\n") == expected


ARROWS = r"$$\overrightarrow{h} = \overleftarrow{h}$$"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a text column after the equation's column break is a comment, not part of it
        (r"$$\begin{aligned} q_1 &= q_1 & \small{\text{; note}} \end{aligned}$$", ["verified"]),
        (r"$$\begin{aligned} q_1 &= q_2 & \scriptstyle{\text{; note}} \end{aligned}$$", ["false"]),
        # a bmatrix as a value: its cells are read; with undeclared names it is undecided
        (
            r"$$\begin{bmatrix} \cos(x) & \sin(x) \end{bmatrix} \in \mathbb R^{1\times 2}$$",
            ["undecided"],
        ),
        (r"$$\begin{bmatrix} QK & 1 \end{bmatrix} \in \mathbb R^{1\times 2}$$", ["shape-error"]),
        (r"$$\begin{bmatrix} 1 & 2 \end{bmatrix} \in \mathbb R^{1\times 2}$$", ["not-understood"]),
        # the two arrows name different vectors
        (ARROWS + "\n\n" + r"$$\overrightarrow{h} = q_1$$", ["undecided"]),
    ],
)
def test_comment_columns_matrices_and_arrows(text: str, expected: list[str]) -> None:
    assert verdicts(text + "\n") == expected


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # an order between values: both sides read, undecided (the kernel decides only = and
        # conditions on indices)
        (r"\gamma_t \geq 1", "undecided"),
        (r"a(q_i) \geq 0", "undecided"),
        (r"\gamma_t \geq \sum_{j=1} 2", "not-understood"),  # a side it cannot read
        (r"j > i", "declaration"),  # a condition on indices beside no claim: context
        # a letter above a vector labels a new one, never a power: undecided
        (r"s_t^n = s_t", "undecided"),
        (r"q_i^n = QK", "shape-error"),
        (r"Q^n = Q", "undecided"),  # a labelled capital never declared: any matrix, not Q
    ],
)
def test_orders_between_values_and_labels_above_vectors(formula: str, kind: str) -> None:
    results = check_text(DECL + f"$${formula}$$\n", "notations.md")
    assert results[-1].kind == kind


def test_a_definition_by_cases() -> None:
    # a new function or sequence defined by cases: a declaration (its value is not read)
    cases = r"\begin{cases} \sin(i) & \text{if } t = 0 \\ \cos(i) & t > 0 \end{cases}"
    text = r"$$\text{PE}(i, t) = " + cases + "$$"
    results = check_text(DECL + text + "\n", "notations.md")
    assert results[-1].kind == "declaration" and "defines the function" in results[-1].message
    # a comma after a case's value (`x, & x > 0`) is punctuation: the same definition
    comma = r"$$\mathrm{ELU}(x) = \begin{cases} x, & x > 0 \\ e^x - 1, & x \le 0 \end{cases}$$"
    results = check_text(DECL + comma + "\n", "notations.md")
    assert results[-1].kind == "declaration" and "defines the function" in results[-1].message
    # a matrix the document declared is never compared with the column of values
    assert verdicts(r"$$Q = \begin{cases} 0 & j \le i \\ 1 & j > i \end{cases}$$" + "\n") == [
        "not-understood"
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a capital that only the conventions know (the weights A, the scores S) given a list
        # or a set by the text: the text's own sequence or set, a definition
        (r"$$\mathbf A = (\mathbf a_1, \ldots, \mathbf a_m)$$", []),
        (r"$$S_i = \{j : j \le i\}$$" + "\n\n" + r"$$j \in S_i$$", ["undecided"]),
        # a matrix the document declared is never redefined: Q is declared above
        (r"$$Q = (q_1, \ldots, q_n)$$", ["not-understood"]),
        # index ranges are not claims
        (r"$$i = 1, \ldots, m, j = 1, \ldots, n$$", []),
    ],
)
def test_lists_and_sets_given_to_convention_names(text: str, expected: list[str]) -> None:
    assert verdicts(text + "\n") == expected


def test_a_product_of_written_matrices_with_undeclared_names() -> None:
    # [cos δ, sin δ; -sin δ, cos δ][q_{1,1}; q_{1,2}] = [...]: read around δ, cos, sin: undecided
    rot = r"\begin{bmatrix} \cos(\delta) & \sin(\delta) \\ -\sin(\delta) & 1 \end{bmatrix}"
    col = r"\begin{bmatrix} Q_{11} \\ Q_{12} \end{bmatrix}"
    out = r"\begin{bmatrix} \cos(\delta) Q_{11} \\ Q_{12} \end{bmatrix}"
    assert verdicts(f"$${rot}{col} = {out}$$\n") == ["undecided"]
    # without an undeclared name it stays unread (only M = [rows] is checked)
    assert verdicts(f"$${col} = {col}$$\n") == ["not-understood"]


def test_two_digits_under_a_square_matrix_are_an_entry():
    text = "Let $A\\in\\mathbb R^{n\\times n}$ with entries $a_{ij}$. Then $a_{12}={rhs}$.\n"
    ok = check_text(text.replace("{rhs}", "A_{12}"), "e.md")[-1]
    assert (ok.kind, ok.status) == ("verified", "proved"), ok.message
    wrong = check_text(text.replace("{rhs}", "A_{21}"), "e.md")[-1]
    assert wrong.kind == "false" and wrong.counterexample
    # Q is n × d_k, not square: q_{12} stays row 12, a row vector
    rows = check_text("Then $q_{12} = Q_{12}$.\n", "q.md")[-1]
    assert rows.kind == "shape-error", rows.message  # as a row or as a column
    assert "row vector" in rows.message or "column vector" in rows.message
