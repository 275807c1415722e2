"""Values a text gives its names outside formulas (a code block, a table of a model's
configuration, `d_model = 512` or "a hidden size of 2048" in a sentence): the claims between
numbers that use those names are decided at those values, saying where each comes from; a
claim false there is undecided (the value is a guess about what the formula means), and a name
the text gives two values has none."""

from __future__ import annotations

import pytest
from claim_helpers import results

from symattn.reader.claims.stated_values import stated_values

_CODE = """# A small model

```python
n_heads = 12
d_model: int = 768
n_layers = 6  # blocks
```

"""

_TABLE = """# Configuration

| name | value |
|---|---|
| `hidden_dim` | 2048 |
| `seq_len` | 1024 |

"""


def _one(text: str):
    (r,) = results(text)
    return r


@pytest.mark.parametrize(
    ("text", "kind", "says"),
    [
        (_CODE + r"Each head has $d_{model} / n_{heads} = 64$ columns.", "verified", "line 5"),
        (_CODE + r"Each head has $d_{model} / n_{heads} = 96$ columns.", "undecided", "line 5"),
        (_CODE + r"It keeps $2 n_{layers} d_{model} = 9216$ numbers.", "verified", "line 6"),
        (_CODE + r"It keeps $2 n_{layers} d_{model} = 9000$ numbers.", "undecided", "line 6"),
        (_TABLE + r"The scores take $\text{seq\_len}^2 = 1048576$ entries.", "verified", "table"),
        (_TABLE + r"The scores take $\text{seq\_len}^2 = 1000000$ entries.", "undecided", "table"),
        (
            _TABLE + r"It is $\text{hidden\_dim} \times (64 \cdot 4) = 2048 \times 256$.",
            "verified",
            "hidden\\_dim} = 2048",
        ),
        (
            _TABLE + r"It is $\text{hidden\_dim} \times (64 \cdot 4) = 2048 \times 512$.",
            "undecided",
            "hidden\\_dim} = 2048",
        ),
    ],
)
def test_a_value_from_code_or_a_table(text, kind, says):
    r = _one(text)
    assert r.kind == kind and says in r.message, r


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        (r"We take d_model = 1024 here, so $d_{model} / 16 = 64$.", "verified"),
        (r"We take `d_model=1024` here, so $d_{model} / 16 = 60$.", "undecided"),
        # a size in words, read for the names formulas write for it
        (
            r"A hidden size of 1024 and 16 heads give $\frac{d_{model}}{n_{heads}} = 64$.",
            "verified",
        ),
        (
            r"A hidden size of 1024 and 16 heads give $\frac{d_{model}}{n_{heads}} = 32$.",
            "undecided",
        ),
        # worded quantities in \text, named as the sentence names them
        (
            r"With a batch size of 8 and a sequence length of 512, "
            r"$\text{Batch Size} \times \text{Sequence Length} = 4096$ tokens.",
            "verified",
        ),
        (
            r"With a batch size of 8 and a sequence length of 512, "
            r"$\text{Batch Size} \times \text{Sequence Length} = 4000$ tokens.",
            "undecided",
        ),
        # KV-cache arithmetic per token, with the unit after the number
        (
            r"With 24 layers and a hidden size of 1024, a token's cache is "
            r"$2 \times n_{layers} \times d_{model} \times 2 = 96\text{ KiB}$.",
            "verified",
        ),
        (
            r"With 24 layers and a hidden size of 1024, a token's cache is "
            r"$2 \times n_{layers} \times d_{model} \times 2 = 48\text{ KiB}$.",
            "undecided",
        ),
    ],
)
def test_a_value_from_a_sentence(sentence, kind):
    r = _one(f"# Sizes\n\n{sentence}\n")
    assert r.kind == kind, r
    assert "from " in r.message, r


def test_a_size_from_code_is_a_worked_example_for_the_sizes():
    text = "```\nd_k = 64\n```\n\nThe scale is $\\sqrt{d_k} = 8$; not $\\sqrt{d_k} = 9$.\n"
    got = results(text)
    assert [r.kind for r in got] == ["verified", "undecided"], got
    assert "d_k = 64 from the code block at line 2" in got[1].message


def test_a_name_given_two_values_has_none():
    text = "```\nn_layers = 24\n```\n\n```\nn_layers = 12\n```\n\n$2 n_{layers} = 48$\n"
    r = _one(text)
    assert r.kind == "undecided" and "2 values" in r.message, r


def test_code_is_read_never_run():
    # an expression in code is not a value the checker computes
    text = "```\nd_model = 64 * 12\n```\n\n$d_{model} / 12 = 64$\n"
    r = _one(text)
    assert r.kind == "undecided" and "from the code" not in r.message, r


def test_an_identity_stays_an_identity():
    # without a value it holds for every value; with one it does not fail on its account
    text = _CODE + r"$(d_{model} + 1)^2 = d_{model}^2 + 2 d_{model} + 1$" + "\n"
    assert _one(text).kind == "verified"


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("```\nn_heads = 32\n```", "n_heads", 32),
        ("```\nself.dim: int = 4_096\n```", "dim", 4096),
        ('```json\n{"hidden_size": 4096,\n "num_attention_heads": 32}\n```', "hidden_size", 4096),
        ("```\nModelArgs(dim=512, n_heads=8)\n```", "n_heads", 8),
        ("```yaml\nn_layers: 24\n```", "n_layers", 24),
        ("| hidden_dim | 4,096 |", "hidden_dim", 4096),
        ("with 32 attention heads", "num_heads", 32),
        ("a head dimension of 128", "head_dim", 128),
    ],
)
def test_where_values_are_found(text, name, value):
    (got,) = stated_values(text)[name]
    assert got.value == value


def test_what_is_not_a_value():
    got = stated_values("$d_model = 3$ in math, `i = 5`, batch_size = 1, `x = 2`\n")
    assert got == {}
    # words of a sentence's arithmetic are no names: `2 bytes = 16 bits`, `20 GB = 140 GB`
    assert stated_values("so 2 bytes = 16 bits, and 160 GB - 20 GB = 140 GB\n") == {}
    assert stated_values("x_1 = 5 and h_2 = 3 are entries\n") == {}


def test_a_value_in_words_after_a_code_name():
    got = stated_values("a model where d_model is 8192 and `n_heads` set to 64\n")
    assert got["d_model"][0].value == 8192 and got["n_heads"][0].value == 64


@pytest.mark.parametrize(
    ("approx", "kind"),
    [
        (r"0.46 \times 10^6", "verified"),  # 2 * 6 * 768 * 50 = 460800
        (r"4.6 \times 10^5", "verified"),
        (r"0.9 \times 10^6", "undecided"),  # far off, but only at the code's values
    ],
)
def test_an_approximation_at_the_values_of_the_code(approx, kind):
    text = (
        _CODE
        + "\n"
        + r"A window of 50 keeps $2 \cdot n_{layers} \cdot d_{model} \cdot 50 \approx "
        + approx
        + "$.\n"
    )
    r = _one(text)
    assert r.kind == kind and "from the code block" in r.message, r
