"""Golden tables for the formula grammar: text -> AST summary, errors with message and position."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.kernel.errors import ParseError
from symattn.reader import ast, parse_formula, parse_span, scan
from symattn.reader.syntax.scanner import MathSpan

#: The formulas of the textbook's chapter 6, in its order, with the project's own prose.
CHAPTER = Path(__file__).resolve().parents[1] / "check" / "data" / "chapter6_formulas.md"


def dump(text: str) -> str:
    return ast.dump(parse_formula(text))


GOLDEN = [
    (r"Q=XW_Q", "[Q = (* X W_{Q})]"),
    (r"Q=XW_{Q}", "[Q = (* X W_{Q})]"),
    (r"Q=XW_Q,\quad K=XW_K", "[Q = (* X W_{Q})] ; [K = (* X W_{K})]"),
    (r"QK^T", "[(* Q (T K))]"),
    (r"QK^{T}", "[(* Q (T K))]"),
    (r"QK^{\mathsf T}", "[(* Q (T K))]"),
    (r"QK^\top", "[(* Q (T K))]"),
    (r"QK^{\top}", "[(* Q (T K))]"),
    (r"Hd_v", "[(* H d_{v})]"),
    (r"AV", "[(* A V)]"),
    (r"Q_{ir}", "[Q_{(* i r)}]"),
    (r"a_{ij}V_{ju}", "[(* a_{(* i j)} V_{(* j u)})]"),
    (r"\mathbf q_i", r"[\mathbf{q}_{i}]"),
    (r"\mathbf{q}_i", r"[\mathbf{q}_{i}]"),
    (r"\boldsymbol{q}", r"[\boldsymbol{q}]"),
    (r"\alpha_{ij}", r"[\alpha_{(* i j)}]"),
    (r"Z^{(h)}", "[(head Z h)]"),
    (r"W_Q^{(1)}", "[(head W_{Q} 1)]"),
    (r"x^2", "[(^ x 2)]"),
    (r"d_k^{1/2}", "[(^ d_{k} (1 / 2))]"),
    (r"x^{-1}", "[(^ x (- 1))]"),
    (r"z_12", "[(* z_{1} 2)]"),
    (r"64", "[64]"),
    (r"Q,K\in\mathbb R^{n\times d_k}", r"[Q, K \in R^(n, d_{k})]"),
    (r"X\in\mathbb{R}^{5\times64}", r"[X \in R^(5, 64)]"),
    (r"X\in\mathbf{R}^{n\times d}", r"[X \in R^(n, d)]"),
    (r"X\in\R^{d}", r"[X \in R^(d)]"),
    (r"w\in\mathbb R", r"[w \in R]"),
    (r"W_O\in\mathbb R^{Hd_v\times d}.", r"[W_{O} \in R^((* H d_{v}), d)]"),
    (r"Q\in\mathbb R^{n\times d/H}", r"[Q \in R^(n, (d / H))]"),
    (r"Q\in\mathbb R^{n/2\times d\cdot H}", r"[Q \in R^((n / 2), (d \cdot H))]"),
    (r"(QK^T)_{ij}=q_i\cdot k_j", "[(index (group (* Q (T K))) (* i j)) = (q_{i} \\cdot k_{j})]"),
    (r"\left(AV\right)_{iu}", "[(index (group (* A V)) (* i u))]"),
    (r"\bigl(AV\bigr)_{iu}", "[(index (group (* A V)) (* i u))]"),
    (r"\frac{QK^T}{\sqrt{d_k}}", "[(frac (* Q (T K)) (sqrt d_{k}))]"),
    (r"\operatorname{softmax}(X)", "[softmax(X)]"),
    (r"\mathrm{softmax}(X)", "[softmax(X)]"),
    (r"\text{softmax}(X)", "[softmax(X)]"),
    (r"\exp(x)", "[exp(x)]"),
    (r"\max_j x_j", "[max_{j}(x_{j})]"),
    (r"\operatorname{Attention}(Q,K,V)", "[Attention(Q, K, V)]"),
    (
        r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})W_O",
        "[(* Concat((head Z 1), ..., (head Z H)) W_{O})]",
    ),
    (r"x_1+\cdots+x_n", "[(x_{1} + ... + x_{n})]"),
    (r"\sum_{r=1}^{d_k}Q_{ir}K_{jr}", "[(sum r 1 d_{k} (* Q_{(* i r)} K_{(* j r)}))]"),
    (r"\sum_{j} a_{ij}v_j", "[(sum j _ _ (* a_{(* i j)} v_{j}))]"),
    (r"\sum_j a_{ij}v_j", "[(sum j _ _ (* a_{(* i j)} v_{j}))]"),
    (r"\sum^{n}_{j=1} x_j", "[(sum j 1 n x_{j})]"),
    (r"\sum_r q_r\cdot k_r + 1", "[((sum r _ _ (q_{r} \\cdot k_{r})) + 1)]"),
    (r"\sum_j x_j = 1", "[(sum j _ _ x_{j}) = 1]"),
    (r"a-b+c", "[(a - b + c)]"),
    (r"-10^{6}", "[(- (^ 10 6))]"),
    (r"a=b=c", "[a = b = c]"),
    (r"a\neq b\le c\approx d", r"[a \neq b \le c \approx d]"),
    (r"a\ne b\leq c", r"[a \neq b \le c]"),
    (r"A &= B \\ &= C", "[A = B = C]"),
    (r"a=b \\ c=d", "[a = b] ; [c = d]"),
    (r"a=b \text{ for all } i", "[a = b] ; text(' for all ') ; [i]"),
    # a condition in parentheses after a claim is a claim of its own (a hypothesis)
    (r"a_{ij}=0 \quad (j>i)", "[a_{(* i j)} = 0] ; [j > i]"),
    (r"a_{ij}=0, (i \lt j \le n)", "[a_{(* i j)} = 0] ; [i < j \\le n]"),
    (r"a=0 \text{ if } j\gt i", "[a = 0] ; text(' if ') ; [j > i]"),
    (r"\boxed{Z=AV}", "boxed{[Z = (* A V)]}"),
    (r"Z=AV;", "[Z = (* A V)]"),
    (r"a\,b\;c\!d~e\ f", "[(* a b c d e f)]"),
    (r"W_Q,W_K,W_V", "[W_{Q}, W_{K}, W_{V}]"),
    (r"W_Q^{(1)},W_K^{(1)}\ldots", "[(head W_{Q} 1), (head W_{K} 1), ...]"),
    (r"\begin{bmatrix} z_1\\ z_2 \end{bmatrix}", "[bmatrix[z_{1}; z_{2}]]"),
    (r"\begin{pmatrix} a & b \\ c & d \\ \end{pmatrix}", "[pmatrix[a, b; c, d]]"),
    (r"n\times Hd_v", "[(n \\times (* H d_{v}))]"),
    (r"p_{i,2j}", "[p_{(seq i, (* 2 j))}]"),
    (r"Z^{(h)}_{ij}", "[(head Z_{(* i j)} h)]"),
    (r"\begin{aligned} a &= b \end{aligned}", "[a = b]"),
    (r"a = b \label{eq:x}", "[a = b]"),
    ("", ""),
]


@pytest.mark.parametrize(("text", "expected"), GOLDEN)
def test_golden(text: str, expected: str) -> None:
    assert dump(text) == expected


ERRORS = [
    (r"A=\foo", r"^1:3: unknown command \\foo"),
    (r"{a", r"^1:1: unbalanced '\{': it is never closed"),
    (r"a}", r"^1:2: unbalanced '\}'"),
    (r"(a", r"^1:1: unbalanced '\('"),
    (r"a)", r"^1:2: unexpected '\)'"),
    (r"a^", r"^1:3: unexpected end of formula"),
    (r"x_", r"^1:3: unexpected end of formula"),
    (r"a+", r"^1:3: unexpected end of formula"),
    (r"\sqrt d_k", r"^1:8: cannot put a subscript on \\sqrt"),
    (r"x^a^b", r"^1:4: double superscript"),
    (r"x_a_b", r"^1:4: double subscript"),
    (r"\begin{tabular}a\end{tabular}", r"^1:1: unsupported environment 'tabular'"),
    (r"\begin{bmatrix}a\end{pmatrix}", r"^1:17: unbalanced \\end\{pmatrix\}"),
    (r"\begin{bmatrix}a & \end{bmatrix}", r"^1:1: empty cell"),
    (r"\sum_{1}x", r"^1:5: cannot read the range of \\sum"),
    (r"=b", r"^1:1: a row that starts with a relation"),
    (r"\mathbf{QK}_i", r"^1:1: a script after several letters in one font"),
    (r"\mathbf{Q + K}", r"^1:1: \\mathbf takes one letter here"),
    (r"(a)'", r"^1:4: a prime is read on a letter"),
    (r"\hat{QK}", r"^1:1: \\hat is read on one letter"),
    (r"+a", r"^1:1: a unary '\+' is not read"),
    (r"x_{i=1}", r"^1:3: a relation inside braces"),
    (r"\left\lVert a\right\rVert", r"^1:1: unsupported delimiter after \\left"),
    (r"\|x", r"^1:1: unbalanced '\\\|': it is never closed"),
    (r"(y|x)", r"^1:3: unbalanced '\|'"),
    (r"x^\top y \top", r"^1:10: \\top is only read as a superscript"),
    (r"a=\text{ and }+b", r"^1:3: unexpected \\text"),
    (r"(a \quad b)", r"^1:4: unexpected \\quad"),
    ("a\n+\\foo", r"^2:2: unknown command \\foo"),
    ("a = 患者{", r"^1:7: unbalanced '{'"),
    ("\x00\xff", r"^1:1: unexpected character"),
    ("x" * 20_001, r"^1:1: formula too long: 20001 characters"),
    ("{" * 201 + "a" + "}" * 201, r"^1:201: nesting deeper than 200"),
    ("-" * 250 + "a", r"^1:1: nesting deeper than 200"),
    (r"\sum_j" * 210 + "x", r"^1:1: nesting deeper than 200"),
]


@pytest.mark.parametrize(("text", "pattern"), ERRORS)
def test_errors(text: str, pattern: str) -> None:
    with pytest.raises(ParseError, match=pattern):
        parse_formula(text)


def test_error_message_has_no_position_prefix() -> None:
    with pytest.raises(ParseError) as info:
        parse_formula(r"A=\foo")
    assert info.value.message == r"unknown command \foo"
    assert info.value.position is not None and info.value.position.offset == 2


@pytest.mark.parametrize(
    ("text", "sub", "start", "end"),
    [
        (r"Q=XW_Q", "W_Q", 3, 6),
        (r"(QK^T)_{ij}=q_i", "(QK^T)_{ij}", 0, 11),
        (r"A=\operatorname{softmax}(X)", r"\operatorname{softmax}(X)", 2, 27),
    ],
)
def test_node_offsets(text: str, sub: str, start: int, end: int) -> None:
    claim = parse_formula(text).items[0]
    assert isinstance(claim, ast.Claim)
    node = claim.subjects[0] if start == 0 else claim.steps[0].rhs
    if isinstance(node, ast.Product):
        node = node.factors[-1]
    assert (node.start, node.end) == (start, end)
    assert text[node.start : node.end] == sub


def test_every_node_has_a_span_inside_the_formula() -> None:
    text = (
        r"\boxed{ \operatorname{Attention}(Q,K,V) = "
        r"\operatorname{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V }"
    )
    stack: list[ast.Node] = [parse_formula(text)]
    while stack:
        node = stack.pop()
        assert 0 <= node.start <= node.end <= len(text), node
        stack.extend(ast.children(node))


def test_parse_span_reports_file_positions() -> None:
    doc = "intro\n\n$$\nA=B\n  +\\foo\n$$\n"
    span = scan(doc, kind="md")[0]
    assert isinstance(span, MathSpan)
    with pytest.raises(ParseError, match=r"^5:4: unknown command \\foo"):
        parse_span(span)


def test_import_is_cheap() -> None:
    import subprocess
    import sys

    code = "import sys, symattn.reader; print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_huge_and_garbage_input_fail_fast() -> None:
    for text in ("x" * 100_000, "\x00\x01\xfe" * 30_000, "{" * 19_000):
        started = time.perf_counter()
        with pytest.raises(ParseError):
            parse_formula(text)
        assert (
            time.perf_counter() - started < 5.0
        )  # a hang guard, not a benchmark (see benchmarks/)


def test_long_valid_formula_is_linear_enough() -> None:
    parse_formula("a")  # build the parser outside the timing
    started = time.perf_counter()
    formula = parse_formula("+".join(["a_i"] * 2_000))
    assert time.perf_counter() - started < 10.0  # a hang guard, not a benchmark
    assert ast.depth(formula) < 10


# --- the chapter and the corpus --------------------------------------------------------------


def _spans(path: Path) -> list[MathSpan]:
    return [s for s in scan(path.read_text("utf-8"), str(path)) if isinstance(s, MathSpan)]


def test_every_chapter_formula_parses() -> None:
    spans = _spans(CHAPTER)
    assert len(spans) == 37
    for span in spans:
        parse_span(span)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            89,
            "[(index (group (* Q (T K))) (* i j)) = (sum r 1 d_{k} (* Q_{(* i r)} K_{(* j r)}))"
            " = (q_{i} \\cdot k_{j})]",
        ),
        (93, "[(index (group (* A V)) (* i u)) = (sum j 1 n (* a_{(* i j)} V_{(* j u)}))]"),
        (
            121,
            "[O = (* Concat((head Z 1), ..., (head Z H)) W_{O})] ; [W_{O} \\in R^((* H d_{v}), d)]",
        ),
    ],
)
def test_chapter_golden(line: int, expected: str) -> None:
    span = next(s for s in _spans(CHAPTER) if s.start.line == line)
    assert ast.dump(parse_span(span)) == expected


@pytest.mark.corpus("corpus/d2l-en")
def test_d2l_files_scan_and_parse_or_raise_parse_error(d2l_file: Path) -> None:
    spans = _spans(d2l_file)
    parsed = 0
    for span in spans:
        try:
            parse_span(span)
            parsed += 1
        except ParseError:
            pass
    assert spans and parsed >= 0.8 * len(spans), (parsed, len(spans))


# --- properties ------------------------------------------------------------------------------

ALPHABET = "abQKVXW_^{}()[]+-=,.\\ \n&" + "".join(["\\sum", "\\frac", "\\sqrt", "\\in", "\\top"])
FRAGMENTS = [
    "Q",
    "K",
    "_",
    "^",
    "{",
    "}",
    "(",
    ")",
    "\\sum_{j=1}^{n}",
    "\\frac",
    "\\sqrt",
    "\\cdot",
    "\\times",
    "\\in",
    "=",
    ",",
    "\\quad",
    "\\\\",
    "&",
    "\\mathbb R",
    "\\operatorname{softmax}",
    "\\begin{bmatrix}",
    "\\end{bmatrix}",
    "\\ldots",
    "T",
    "\\top",
    "\\mathbf",
    "1",
    "-",
    "+",
    "\\text{ a }",
    "\\boxed",
    "\\left(",
    "\\right)",
    "\\foo",
    "$",
    "%",
]


def _check(text: str) -> None:
    started = time.perf_counter()
    try:
        parse_formula(text)
    except ParseError as err:
        assert err.position is not None
        assert 0 <= err.position.offset <= len(text)
    assert time.perf_counter() - started < 5.0  # a hang guard, not a benchmark


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_only_raises_parse_error(text: str) -> None:
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
def test_random_fragments_only_raise_parse_error(parts: list[str]) -> None:
    _check("".join(parts))


CHAPTER_BODIES = [s.body for s in _spans(CHAPTER)]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(CHAPTER_BODIES),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.text(max_size=3),
)
def test_mangled_chapter_formulas_only_raise_parse_error(
    body: str, cut: int, other: int, insert: str
) -> None:
    a, b = sorted((cut % (len(body) + 1), other % (len(body) + 1)))
    _check(body[:a] + insert + body[b:])
    _check(body[:a] + body[a:b][::-1] + body[b:])


def test_dump_is_stable_for_equal_trees() -> None:
    assert parse_formula("W_{Q}") == parse_formula("W_Q")
    assert re.fullmatch(r"\[.*\]", dump("W_Q"))
