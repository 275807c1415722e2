"""Layout inside formulas (spacing and size commands, fills, boxed operator symbols, CJK words,
asides, wide spaces between equations, quantifiers) and small notations (`==`, word fonts, a sum
of negated terms): each read with a true and a false use; what is not read is named."""

from __future__ import annotations

import pytest

from symattn.check import check_text
from symattn.reader.syntax.lexer import tokenize

DECL = (
    r"Let $Q,K\in\mathbb R^{n\times d_k}$ and $A,B\in\mathbb R^{n\times n}$ and $S=QK^T$." + "\n\n"
)
TRUE_ENTRY = r"S_{ij} = \sum_{r=1}^{d_k} Q_{ir}K_{jr}"
FALSE_ENTRY = r"S_{ij} = \sum_{r=1}^{d_k} Q_{ir}K_{ir}"


def results(text: str) -> list[tuple[str, str]]:
    return [
        (r.kind, r.message)
        for r in check_text(DECL + text, "layout.md")
        if r.kind not in ("declaration", "not-a-claim")
    ][1:]  # the definition of S comes first


def kinds(text: str) -> list[str]:
    return [k for k, _ in results(text)]


@pytest.mark.parametrize(
    "wrap",
    [
        r"{} \space",
        r"\tiny {}",
        r"\Large {}",
        r"\scriptsize {}",
        r"{} \enspace",
        r"{} \hspace{{1em}}",
        r"{} \hspace*{{2pt}}",
        r"{} \kern3pt",
        r"{} \mkern-2mu",
        r"{} \phantom{{x}}",
        r"{} \mspace{{3mu}}",
        r"\strut {}",
        r"{} \mathstrut",
    ],
)
@pytest.mark.parametrize(("entry", "kind"), [(TRUE_ENTRY, "verified"), (FALSE_ENTRY, "false")])
def test_spacing_and_size_commands_are_read_through(wrap: str, entry: str, kind: str) -> None:
    assert kinds("$$" + wrap.format(entry) + "$$") == [kind]


@pytest.mark.parametrize("fill", [r"\hfill", r"\hfil"])
def test_a_fill_sets_a_formula_apart_from_its_condition(fill: str) -> None:
    found = [
        (r.kind, r.message)
        for r in check_text(DECL + f"$${TRUE_ENTRY} {fill} j \\le i$$", "layout.md")
    ]
    assert ("verified" in [k for k, _ in found]) and any("condition j" in m for _, m in found)
    assert kinds(f"$${FALSE_ENTRY} {fill} j \\le i$$") == ["false"]


@pytest.mark.parametrize("size", [r"\bigm", r"\Bigm", r"\biggm", r"\Biggm"])
def test_a_sized_middle_bar_is_a_bar(size: str) -> None:
    def kinds_of(body: str) -> list[tuple[str, str]]:
        return [(t.kind, t.value) for t in tokenize(body)]

    assert kinds_of(f"p(y {size}| x)") == kinds_of("p(y | x)")


def test_a_disjoint_union_is_named() -> None:
    [(kind, message)] = results(r"$$S_{ij} = A \sqcup B$$")
    assert kind == "not-understood" and "a disjoint union (\\sqcup) is not read" in message


def test_a_kern_without_a_length_is_named() -> None:
    [(kind, message)] = results(r"$$S_{ij} \kern = 0$$")
    assert kind == "not-understood" and "\\kern needs its length" in message


BOXED = r"\operatorname{\text{\raisebox{0.25ex}{\scalebox{0.8}{$%s$}}}}"


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"(A %s B)_{ij} = A_{ij}B_{ij}" % (BOXED % r"\odot"), "verified"),
        (r"(A %s B)_{ij} = A_{ij}B_{ji}" % (BOXED % r"\odot"), "false"),
        (r"(A \mathbin{\odot} B)_{ij} = A_{ij}B_{ij}", "verified"),
        (r"(A \mathbin{\odot} B)_{ij} = A_{ji}B_{ij}", "false"),
    ],
)
def test_an_operator_drawn_in_boxes_is_its_symbol(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$") == [kind]


def test_a_boxed_symbol_the_reader_does_not_know_is_named() -> None:
    [(kind, message)] = results("$$A " + BOXED % r"\boxplus" + " B = B$$")
    assert kind == "not-understood" and "unknown command \\boxplus" in message


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        # CJK words inside math are prose between the claims
        (r"S_{ii} = \sum_{r=1}^{d_k} Q_{ir}K_{ir} 对所有 i", ["verified"]),
        (r"S_{ii} = \sum_{r=1}^{d_k} Q_{ir}Q_{ir} 对所有 i", ["false"]),
        # an aside in parentheses holding prose: its claims are read one by one
        (r"(n 个位置, \frac{512}{8} = 64)", ["verified"]),
        (r"(n 个位置, \frac{512}{8} = 63)", ["false"]),
        (r"(n \text{ positions}, \frac{512}{8} = 64)", ["verified"]),
        # a count word after a number (维, 个) says what it counts: the bare numbers are compared
        (r"\frac{512}{8} = 64维", ["verified"]),
        (r"\frac{512}{8} = 32维", ["false"]),
        (r"\frac{512}{8} = 64 \text{ 维}", ["verified"]),
        # a multiplier (亿, 万) changes the value: read with it, and never refuted
        (r"10^8 = 1亿", ["verified"]),
        (r"\frac{512}{8} = 64 \text{ 万}", ["undecided"]),
    ],
)
def test_cjk_words_in_math_are_prose(formula: str, expected: list[str]) -> None:
    assert kinds(f"$${formula}$$") == expected


def test_parentheses_after_a_value_are_never_an_aside() -> None:
    """`f(x \\text{ if } y)` is a call whose argument holds prose: not split into claims."""
    found = kinds(r"$$A (B \text{ when } n = 2) = A$$")
    assert found == ["not-understood"]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # braces around a whole formula group it (`\small{...}`, `{\color{c} ...}`)
        (r"\small{" + TRUE_ENTRY + "}", "verified"),
        (r"\small{" + FALSE_ENTRY + "}", "false"),
        (r"{\color{red} " + TRUE_ENTRY + "}", "verified"),
        (r"{\color{red} " + FALSE_ENTRY + "}", "false"),
        # `==` is the equality of code
        (TRUE_ENTRY.replace("=", "=="), "verified"),
        (FALSE_ENTRY.replace("=", "=="), "false"),
        # a word in a sans-serif or typewriter font is a name, as in \mathrm
        (
            r"\mathsf{Attention}(Q,K,A) = \operatorname{softmax}(QK^\mathsf{T}/\sqrt{d_k})A",
            "verified",
        ),
        (r"\mathsf{Attention}(Q,K,A) = \operatorname{softmax}(QK^\mathsf{T}/\sqrt{n})A", "false"),
    ],
)
def test_braces_equality_and_word_fonts(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$") == [kind]


def test_braces_after_a_script_or_a_value_are_not_an_aside() -> None:
    """`\\sum_{j=1}` keeps its braces; `a{b = c}` is not split into claims."""
    assert kinds(r"$$S_{ii} = \sum_{r=1}^{d_k} Q_{ir}K_{ir}$$") == ["verified"]
    assert kinds(r"$$A{B = A}$$") == ["not-understood"]


def test_a_typewriter_word_is_a_name() -> None:
    found = [(r.kind, r.message) for r in check_text(DECL + r"$$\texttt{scores} = QK^T$$", "t.md")]
    assert ("declaration", "defines the name \\texttt{scores}, n × n") in found


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        # a wide space after a claim, before a name and its relation, starts another claim
        (r"A = QK^T \; B = QK^T", ["verified", "verified"]),
        (r"A = QK^T \;\; S^T = QK^T", ["verified", "false"]),
        (r"A = QK^T \,\, B = QK^T", ["verified", "verified"]),
        (r"A = QK^T \: B = QK^T", ["verified", "verified"]),
        # inside a sum's body, or before a value that is not a name, a space is a product
        (r"S_{ij} = \sum_{r=1}^{d_k} Q_{ir} \; K_{jr} = (QK^T)_{ij}", ["verified", "verified"]),
        (r"S_{ij} = \sum_{r=1}^{d_k} Q_{ir} \; K_{ir} = (QK^T)_{ij}", ["false", "false"]),
        (r"A = Q \; K^T = S", ["verified", "verified"]),
    ],
)
def test_a_wide_space_between_equations_separates_them(formula: str, expected: list[str]) -> None:
    found = [
        r.kind
        for r in check_text(DECL + f"$${formula}$$", "gaps.md")
        if r.kind not in ("declaration", "not-a-claim")
    ][1:]
    assert found == expected


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a quantifier before its colon is prose: the claim's free indices range over all values
        (r"\forall i, j: " + TRUE_ENTRY, "verified"),
        (r"\forall i, j: " + FALSE_ENTRY, "false"),
        (r"\forall i \in [n]: S_{ii} = \sum_{r=1}^{d_k} Q_{ir}K_{ir}", "verified"),
    ],
)
def test_a_quantifier_is_prose(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$") == [kind]


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        (r"S_{ij} = Q_{ir}^* K_{jr}", "a complex conjugate or adjoint (x^*) is not read"),
        ("1: " + TRUE_ENTRY, "a numbered step of an algorithm (1:) is not read"),
        ("2-3: " + TRUE_ENTRY, "a numbered step of an algorithm (1:) is not read"),
    ],
)
def test_unread_marks_are_named(formula: str, message: str) -> None:
    [(kind, found)] = results(f"$${formula}$$")
    assert kind == "not-understood" and message in found


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"-S_{ij} = \sum_{r=1}^{d_k} -Q_{ir}K_{jr}", "verified"),
        (r"S_{ij} = \sum_{r=1}^{d_k} -Q_{ir}K_{jr}", "false"),
        # the body of a sum is a product: the sum ends before the `+`
        (r"\sum_{r=1}^{d_k} -Q_{ir}K_{jr} + S_{ij} = 0", "verified"),
    ],
)
def test_a_sum_of_negated_terms(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$") == [kind]


@pytest.mark.parametrize(
    ("env", "same"),
    [("dcases", "cases"), ("cases*", "cases"), ("matrix", "bmatrix"), ("smallmatrix", "bmatrix")],
)
def test_environments_read_as_another(env: str, same: str) -> None:
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    cells = r"1 & j \le i \\ 0 & j > i" if same == "cases" else r"1 & 2 \\ 3 & 4"
    body = r"A = \begin{%s} " + cells + r" \end{%s}"
    assert ast.dump(parse_formula(body % (env, env))) == ast.dump(
        parse_formula(body % (same, same))
    )


def test_a_determinant_is_not_a_matrix() -> None:
    [(kind, message)] = results(r"$$\begin{vmatrix} 1 & 2 \\ 3 & 4 \end{vmatrix} = -2$$")
    assert kind == "not-understood" and "a determinant written with bars (vmatrix)" in message


@pytest.mark.parametrize(("entry", "kind"), [(TRUE_ENTRY, "verified"), (FALSE_ENTRY, "false")])
def test_the_placement_of_an_aligned_block_is_layout(entry: str, kind: str) -> None:
    body = entry.replace(" = ", " &= ", 1)
    assert kinds(r"$$\begin{aligned}[t] " + body + r" \end{aligned}$$") == [kind]


@pytest.mark.parametrize(
    "formula",
    [
        r"A = \mathrm{softmax}(S) \; B = A",  # after a call's parentheses: a product
        r"A = \frac{1}{2} \; B = A",  # after a fraction
        r"S_{11} + A = QK^T \; B = QK^T",  # not a list of definitions
        r"A = QK^T \, B = QK^T",  # one thin space
    ],
)
def test_where_a_space_does_not_separate(formula: str) -> None:
    from symattn.reader.syntax.asides import open_gaps
    from symattn.reader.syntax.lexer import tokenize

    assert "QUAD" not in [t.kind for t in open_gaps(formula, tokenize(formula))]


@pytest.mark.parametrize(
    ("formula", "gap"),
    [
        # the gap is the wide one before the second name, not the thin one inside the product
        (r"q_i = x_i \: W_Q \; \; \; k_i = x_i \: W_K", r"\;"),
        (r"\mathbf{q_i} = x_i \: W_Q \; \; \; \mathbf{k_i} = x_i \: W_K", r"\;"),
        (r"\mathbf{q}_i = x_i W_Q \; \mathbf{k}_i = x_i W_K", r"\;"),
    ],
)
def test_the_space_that_separates_is_before_a_name_and_its_relation(formula, gap) -> None:
    from symattn.reader.syntax.asides import open_gaps
    from symattn.reader.syntax.lexer import tokenize

    tokens = open_gaps(formula, tokenize(formula))
    quads = [t for t in tokens if t.kind == "QUAD"]
    assert [t.value for t in quads] == [gap]
    assert formula[quads[0].end :].lstrip().startswith(("k_i", r"\mathbf"))


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"K^{(h)}{}^{\top} = (K^{(h)})^{\top}", "verified"),
        (r"K^{(h)}{}^{T} = (K^{(h)})^{T}", "verified"),
        (r"K^{(h)}{}^{\top} = K^{(h)}", "shape-error"),
        (r"\left(K Q^{\top}\right){}^{\top} = Q K^{\top}", "verified"),
        (r"\left(K Q^{\top}\right){}^{\top} = K Q^{\top}", "false"),
        (r"\begin{aligned} S_{ij} &{}= \sum_{r=1}^{d_k} Q_{ir}K_{jr} \end{aligned}", "verified"),
        (r"\begin{aligned} S_{ij} &{}= \sum_{r=1}^{d_k} Q_{ir}K_{ir} \end{aligned}", "false"),
    ],
)
def test_an_empty_group_that_only_places_what_follows(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$") == [kind]


@pytest.mark.parametrize("formula", [r"S_{ij} = x^{} + 1", r"S_{ij} = \frac{1}{}"])
def test_an_empty_argument_stays_unread(formula: str) -> None:
    assert kinds(f"$${formula}$$") == ["not-understood"]
