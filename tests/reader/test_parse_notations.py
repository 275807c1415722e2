"""How the notations of third-party texts are written down as trees
(golden strings), and the ones still refused."""

from __future__ import annotations

import pytest

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.lexer import tokenize
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.terms.translator import plain_name

GOLDEN = [
    (r"W^Q", "[(label W Q)]"),
    (r"\mathbf W_i^Q", r"[(label \mathbf{W}_{i} Q)]"),
    (r"W^Q_i", "[(label W_{i} Q)]"),
    (r"\mathbf{W}^{(q)}_i", r"[(label \mathbf{W}_{i} (q))]"),
    (r"W^{\text{out}}", "[(label W out)]"),
    (r"W_i^{(h)}", "[(head W_{i} h)]"),
    (r"Z^{(k)}", "[(head Z k)]"),
    (r"X^T", "[(T X)]"),
    (r"W^{\mathsf T}", "[(T W)]"),
    (r"Q^{-1}", "[(^ Q (- 1))]"),
    (r"x^k", "[(^ x k)]"),
    (r"t' = t", "[t' = t]"),
    (r"x^\prime", "[x']"),
    (r"\hat y = \tilde{\mathbf x}_i + \bar h", r"[\hat{y} = (\tilde{x}_{i} + \bar{h})]"),
    (r"d_{\text{model}} = 512", r"[d_{\text{model}} = 512]"),
    (r"\text{head}_i = W_{\mathrm{out}}", r"[\text{head}_{i} = W_{\text{out}}]"),
    (r"\langle q_i, k_j\rangle", "[(inner q_{i} k_{j})]"),
    (r"\|x\|^2 = |a|", "[(^ (norm x) 2) = (abs a)]"),
    (r"\left\| x - y \right\|", "[(norm (x - y))]"),
    (r"\Vert x\Vert = \vert a\vert", "[(norm x) = (abs a)]"),
    (r"|x| |y|", "[(* (abs x) (abs y))]"),
    (r"a \to b", r"[a \to b]"),
    (r"a \rightsquigarrow b", r"[a \to b]"),
    (r"x \mapsto y", r"[x \mapsto y]"),
    (r"a \Rightarrow b", r"[a \implies b]"),
    (r"\sum_{j\le i} a_{ij}", "[(sum j 1 i a_{(* i j)})]"),
    (r"\sum_{j<i} a_{ij}", "[(sum j 1 (i - 1) a_{(* i j)})]"),
    (r"\sum_{j \in [1, n]} a_{ij}", "[(sum j 1 n a_{(* i j)})]"),
    (r"\sum_{j \in [n]} a_{ij}", "[(sum j 1 n a_{(* i j)})]"),
    (r"\sum_{t'=1}^{n} x_{t'}", "[(sum t' 1 n x_{t'})]"),
    (r"\text{softmax}(x)_i", "[(index (group softmax(x)) i)]"),
    # "defined as" is an equation; the resolver makes the first one about a new name a definition
    (r"\mathcal D \stackrel{\textrm{def}}{=} x", r"[\mathcal{D} = x]"),
    (r"y \overset{\text{def}}{=} x", "[y = x]"),
    (r"a(q, k) := q^T k", "[(* a (group q, k)) = (* (T q) k)]"),
    (r"a \coloneqq b \triangleq c", "[a = b = c]"),
    (r"\scriptstyle{x} = \small y", "[x = y]"),
    # sets, read (never values): a list of elements, or an element and its condition
    (r"\mathcal S = \{S_1, \dots, S_n\}", r"[\mathcal{S} = (set S_{1}, ..., S_{n})]"),
    (r"S_i = \{j : j \le i\}", "[S_{i} = (set j : j, i)]"),
    (r"\{j \mid j < i\}", "[(set j : j, i)]"),
    (r"\lbrace a \rbrace", "[(set a)]"),
    # vectors stacked with `;`, and the Unicode minus
    (r"[s_t; h_i]", "[(bracket s_{t}, h_{i})]"),
    ("x \u2212 y", "[(x - y)]"),
    # style and layout commands that change nothing; arrows over a letter name it
    (r"\color{red}{x} = \mathop{y}", "[x = y]"),
    (r"\overrightarrow{h} = \overleftarrow{h}", r"[\vec{h} = \overleftarrow{h}]"),
    (r"A \subset B \subseteq C", r"[A \subset B \subset C]"),
    # a definition by cases: each row's value, its condition column skipped
    (
        r"m_{ij} = \begin{cases} 0 & \text{if } j \le i \\ 1 & j > i \end{cases}",
        "[m_{(* i j)} = cases[0; 1]]",
    ),
    # a comma that ends a case's value, before its condition, is punctuation
    (
        r"m_{ij} = \begin{cases} 0, & \text{if } j \le i \\ 1, & j > i \end{cases}",
        "[m_{(* i j)} = cases[0; 1]]",
    ),
]


@pytest.mark.parametrize(("text", "expected"), GOLDEN)
def test_golden(text: str, expected: str) -> None:
    assert ast.dump(parse_formula(text)) == expected


ERRORS = [
    (r"(a)'", r"^1:4: a prime is read on a letter"),
    (r"\hat{QK}", r"^1:1: \\hat is read on one letter"),
    (r"\|x", r"^1:1: unbalanced '\\\|'"),
    (r"(y|x)", r"^1:3: unbalanced '\|'"),
    (r"\sum_{j\le i}^{n} a_{ij}", r"^1:14: \\sum has two upper bounds"),
    (r"\sum_{2j} a_{ij}", r"^1:5: cannot read the range of \\sum"),
    (r"\langle q \rangle", r"^1:11: unexpected \\rangle"),
    # only "def" over an equals sign is an equation; anything else stacked is refused
    (r"a \stackrel{?}{=} b", r"^1:3: a symbol with a note set over it"),
    (r"a \overset{\text{def}}{\le} b", r"^1:3: a symbol with a note set over it"),
    (r"\{a, b", r"^1:1: unbalanced '\\\{': it is never closed"),
    (r"a \}", r"^1:3: unbalanced '\\\}'"),
    (r"a : b", r"^1:3: unexpected character ':'"),  # a colon only inside a set or a script
    # parentheses and bars TeX does not pair: unreadable, named as such (not an environment error)
    (r"\begin{aligned} a &= (b \end{aligned}", r"^1:22: unbalanced '\(' before \\end\{aligned\}"),
    (r"\begin{aligned} (c \vert d) \end{aligned}", r"^1:20: unbalanced '\|' before"),
]


@pytest.mark.parametrize(("text", "pattern"), ERRORS)
def test_errors(text: str, pattern: str) -> None:
    with pytest.raises(ParseError, match=pattern):
        parse_formula(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (r"W^Q", "W^Q"),
        (r"\mathbf W^q", "W^q"),
        (r"W_i^Q", "W^Q_i"),
        (r"\mathbf W_i^{(q)}", "W^{(q)}_i"),
        (r"W^{\text{out}}", "W^{out}"),
        (r"d_{\text{model}}", "d_{model}"),
        (r"\hat y", r"\hat{y}"),
        (r"\bar h_t", r"\bar{h}_t"),
        (r"\text{head}_i", r"\text{head}_i"),
        ("t'", "t'"),
        ("d_{ff}", None),  # a size only where sizes are read (terms.word_name)
        ("a_{ij}", None),
    ],
)
def test_plain_names(text: str, name: str | None) -> None:
    claim = parse_formula(text).items[0]
    assert isinstance(claim, ast.Claim)
    assert plain_name(claim.subjects[0]) == name


@pytest.mark.parametrize("env", ["cases", "pmatrix"])
def test_a_worded_subscript_in_a_cell_is_a_name(env: str) -> None:
    # `d_{\text{model}}` in a cell keeps its subscript; a worded cell alone is a label (dropped)
    body = rf"y = \begin{{{env}}} 10000^{{i/d_{{\text{{model}}}}}} \end{{{env}}}"
    got = parse_formula(body)
    assert "d_{model}" in {plain_name(s) for s in ast.symbols(got)}, ast.dump(got)
    label = tokenize(r"\begin{bmatrix} \text{row} & 1 \end{bmatrix}")
    assert [t.kind for t in label] == ["BEGIN_MATRIX", "AMP", "NUMBER", "END_MATRIX"], label
