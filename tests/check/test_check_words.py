"""Names as texts write them without declaring them: words for quantities, functions that keep
their argument's shape (`\\tanh`, ReLU, LayerNorm), residual updates written with `=`."""

from __future__ import annotations

import pytest

from symattn.check import check_text

DECL = (
    r"Let $X\in\mathbb R^{n\times d}$, $W\in\mathbb R^{d\times d}$, $U\in\mathbb R^{d\times n}$"
    r" and $w\in\mathbb R^{d\times 1}$." + "\n\n"
)


def results(text: str) -> list[tuple[str, str]]:
    found = check_text(DECL + text, "words.md")
    return [(r.kind, r.message) for r in found if r.kind not in ("declaration", "not-a-claim")]


def kinds(text: str) -> list[str]:
    return [k for k, _ in results(text)]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # an activation keeps the shape of its argument, however it is written
        (r"\tanh(XW) \in \mathbb R^{n \times d}", "verified"),
        (r"\mathrm{ReLU}(XW) + X \in \mathbb R^{n \times d}", "verified"),
        (r"\operatorname{GELU}(XU)X \in \mathbb R^{n \times d}", "verified"),
        (r"\mathrm{LayerNorm}(X) W \in \mathbb R^{n \times d}", "verified"),
        (r"w^\top \tanh(W w) \in \mathbb R", "verified"),
        # a wrong shape after \in, a dropped transpose, a wrong residual
        (r"\tanh(XW) \in \mathbb R^{n \times n}", "shape-error"),
        (r"\mathrm{ReLU}(XW) X \in \mathbb R^{n \times d}", "shape-error"),
        (r"\mathrm{ReLU}(XW)^\top X \in \mathbb R^{d \times d}", "verified"),
        (r"X + \mathrm{LayerNorm}(XU) \in \mathbb R^{n \times d}", "shape-error"),
        (r"w^\top \tanh(X) \in \mathbb R", "shape-error"),
        # a function that is not known stays undecided, whatever its argument
        (r"\mathrm{Mix}(XW) \in \mathbb R^{n \times d}", "undecided"),
    ],
)
def test_shape_keeping_functions(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$\n") == [kind]


def test_the_value_of_a_shape_keeping_function_is_not_read() -> None:
    # both sides have one shape: a claim about the value is undecided, never verified
    ((kind, message),) = results(r"$$\tanh(XW) = XW$$" + "\n")
    assert kind == "undecided" and r"\operatorname{tanh}(XW) is not read" in message
    # ... and never false: ReLU might be the identity on these values
    assert kinds(r"$$2\,\mathrm{ReLU}(XW) = XW$$" + "\n") == ["undecided"]
    # a scalar argument is the real function, as before
    assert kinds(r"$$\tanh(0) = 0$$" + "\n") == ["verified"]


def test_a_shape_error_names_the_shapes_of_the_function() -> None:
    ((kind, message),) = results(r"$$\mathrm{ReLU}(XW) X \in \mathbb R^{n \times d}$$" + "\n")
    assert kind == "shape-error"
    assert r"\operatorname{ReLU}(XW)" in message and "n × d" in message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a residual connection written with `=` is a step, not a claim that F(x) = 0
        (r"x = x + \mathrm{MultiHeadSelfAttention}(\mathrm{LayerNorm}(x))", []),
        (r"X = X + \mathrm{FFN}(\mathrm{LayerNorm}(X))", []),
        (r"X = X + XW", []),
        # its right side must still typecheck: a wrong residual
        (r"X = X + XU", ["shape-error"]),
        # not an update: the name is not added to a function of itself
        (r"X = 2X - X", ["verified"]),
    ],
)
def test_residual_updates(formula: str, kind: list[str]) -> None:
    assert kinds(f"$${formula}$$\n") == kind


def test_an_update_reads_as_a_step() -> None:
    found = check_text(DECL + "$$X = X + XW$$\n", "words.md")
    assert "an assignment X ← X + XW (n × d)" in found[-1].message


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        (r"value = 0.6 \cdot 10 + 0.4 \cdot 5", r"defines the name value, a scalar"),
        (r"output = XW", "defines the name output"),
        (r"seq\_len = 512", r"defines the name seq\_len, a scalar"),
    ],
)
def test_a_word_is_one_name(formula: str, message: str) -> None:
    found = check_text(DECL + f"$${formula}$$\n", "words.md")
    assert found[-1].kind == "declaration" and message in found[-1].message


@pytest.mark.parametrize(
    "formula",
    [
        "scores = XU",
        "scores \\in \\mathbb R^{n \\times d}",
        "output = X + \\mathrm{FFN}(X)",
        "total = 2 \\cdot 3",
        "value = 2",
    ],
)
def test_a_bare_word_reads_as_the_word_in_text(formula: str) -> None:
    word = formula.split()[0]
    as_text = formula.replace(word, f"\\text{{{word}}}", 1)
    bare = check_text(DECL + f"$${formula}$$\n", "words.md")
    texted = check_text(DECL + f"$${as_text}$$\n", "words.md")
    assert [r.kind for r in bare] == [r.kind for r in texted]
    same = [r.message.replace(f"\\text{{{word}}}", word) for r in (bare[-1], texted[-1])]
    assert same[0] == same[1]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # identifiers of code, in `\text`, a font or bare: one name each, read as numbers
        (r"2\cdot\text{seq_len}\cdot\text{seq_len} = 2\cdot\text{seq_len}^2", "verified"),
        (r"\mathrm{batch\_size} \cdot 2 = 2\, \text{batch_size}", "verified"),
        (r"num\_heads \cdot \text{head_dim} = \text{head_dim} \cdot num\_heads", "verified"),
        (r"\text{Batch Size} \times 2 = 2 \times \text{Batch Size}", "verified"),
        # false as a polynomial, but a word may be a count the text fixes: never an alarm
        (r"2\cdot\text{seq_len}\cdot\text{seq_len} = 2\cdot\text{seq_len}^3", "undecided"),
        (r"\text{seq_len} + \text{seq_len} = \text{seq_len}", "undecided"),
    ],
)
def test_words_as_numbers(formula: str, kind: str) -> None:
    assert kinds(f"$${formula}$$\n") == [kind]


def test_words_read_as_numbers_are_named() -> None:
    ((kind, message),) = results(r"$$\text{seq_len} \cdot 2 = 2\,\text{seq_len}$$" + "\n")
    assert kind == "verified" and r"\text{seq\_len} read as real numbers" in message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\text{总参数} \times 2 = 2 \times \text{总参数}", ["verified"]),
        (
            r"\frac{\text{计算量}}{\text{带宽}} = \text{计算量} \cdot \frac{1}{\text{带宽}}",
            ["verified"],
        ),
        (r"\text{总参数} + \text{总参数} = \text{总参数}", ["undecided"]),
        # prose between formulas is not a name: the formula splits there
        (r"x = 1 \text{，其中} y = 2", []),
    ],
)
def test_names_in_chinese(formula: str, kind: list[str]) -> None:
    assert kinds(f"$${formula}$$\n") == kind


def test_a_name_in_chinese_is_defined() -> None:
    found = check_text(DECL + r"$$\text{参数量} = 4 d^2 + 8 d^2$$" + "\n", "words.md")
    assert found[-1].kind == "declaration"
    assert r"defines the name \text{参数量}, a scalar" in found[-1].message
