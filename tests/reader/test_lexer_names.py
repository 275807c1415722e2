"""`reader.syntax.lexer_names`: words written bare in math are one name, letters stay letters."""

from __future__ import annotations

import pytest

from symattn.reader.syntax import ast
from symattn.reader.syntax.lexer_names import word_name_end
from symattn.reader.syntax.parse import parse_formula

GOLDEN = [
    (r"value = 0.6 \cdot 10", r"[\text{value} = (0.6 \cdot 10)]"),
    (r"output = x + y", r"[\text{output} = (x + y)]"),
    (r"Scores = QK^T", r"[\text{Scores} = (* Q (T K))]"),
    (r"seq\_len = 512", r"[\text{seq\_len} = 512]"),
    (r"num_heads \times d", r"[(\text{num\_heads} \times d)]"),
    # a word with an index keeps it
    (r"head_i = 2", r"[\text{head}_{i} = 2]"),
    # a word before parentheses is a function, as before
    (r"score(q, k) = 1", r"[score(q, k) = 1]"),
    # not a word of the table: letters side by side
    (r"abc = 1", "[(* a b c) = 1]"),
    (r"qkv = 1", "[(* q k v) = 1]"),
    # operators keep their meaning; a word inside a longer run of letters is no name
    (r"\log x = 1", "[log(x) = 1]"),
    (r"values2 = 1", "[(* v a l u e s 2) = 1]"),
    # an identifier of code in `\text` or a font is one name, its underscores escaped
    (r"\mathrm{batch\_size} = 2", r"[\text{batch\_size} = 2]"),
    (r"\text{seq_len} = 2", r"[\text{seq\_len} = 2]"),
    (r"\mathbf{seq\_len}^2", r"[(^ \text{seq\_len} 2)]"),
    # a letter or word with a one-letter index keeps its index
    (r"\mathrm{head_i} = 1", r"[\text{head}_{i} = 1]"),
    (r"\mathbf{W_q} = 1", r"[\mathbf{W}_{q} = 1]"),
    # a name in Chinese where a value stands; prose stays prose
    (r"\text{参数量} = 12 d^2", r"[\text{参数量} = (* 12 (^ d 2))]"),
    # an activation in capitals before parentheses is a function, as `PE(...)` is
    (r"GELU(x) = 1", "[GELU(x) = 1]"),
]


@pytest.mark.parametrize(("text", "tree"), GOLDEN)
def test_words_in_math(text: str, tree: str) -> None:
    assert ast.dump(parse_formula(text)) == tree


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("output", ("output", 6)),
        ("GPUs = 8", ("GPUs", 4)),
        ("gpu = 8", None),  # capitals only: the acronym as written
        ("max = 1", None),  # an operator's name is not taken as a word
        ("ab = 1", None),  # two letters are never a word here
        ("batch_size_ = 1", ("batch\\_size", 10)),
    ],
)
def test_word_name_end(text: str, found: tuple[str, int] | None) -> None:
    assert word_name_end(text, 0) == found
