"""Words written bare in math as one name (`value = 0.6 \\cdot 10`, `output = x + y`, `seq_len`).
Imports the tokenizer's tables only; it must not import lark, the kernel or the terms."""

from __future__ import annotations

import re

from symattn.reader.syntax.lexer_tables import FUNCS, OPERATOR_WORDS, SCALAR_WORDS

__all__ = ["NAME_WORDS", "cjk_name", "identifier", "word_name_end"]

#: Words that texts about attention write bare in a formula for a quantity (`score = q \cdot k`,
#: `loss = -\log p`, `params = 12 L d^2`): English words and their usual short forms, never
#: letters side by side, which no text writes as a product of single-letter names.
NAME_WORDS = frozenset(
    """
    value values output outputs input inputs query queries key keys score scores weight weights
    token tokens loss cost mask head heads hidden state states embedding embeddings logit logits
    prob probs context memory batch seq len length size dim model layer layers param params
    total time bytes flops vocab label labels pred target result step rate count scale bias gate
    pos position offset window block blocks cache new old temp tmp energy feature features emb
    enc dec encoder decoder src tgt out num avg mean std ratio speedup throughput latency
    bandwidth compute intensity budget seconds hours days width depth height scaled attn sim
    similarity distance dist freq theta angle weighted sequence word words sentence capacity
    factor expert experts epoch epochs warmup steps decay precision recall accuracy perplexity
    entropy reward advantage gain eos bos pad cls sep unk
    """.split()
)

#: Capitals that name a quantity, not a product of matrices.
_CAPS_NAME_WORDS = frozenset("GPU GPUs TPU HBM SRAM DRAM FLOPs FLOPS MFU TFLOPs TFLOPS".split())

_KNOWN = frozenset(w.lower() for w in (*FUNCS, *OPERATOR_WORDS, *SCALAR_WORDS))

#: What joins the words of a name: `_`, `\\_`, or `\\_` of inline Markdown math, which the
#: scanner unescapes to ` _` (a space keeps the offsets): `$\\text{seq\\_len}$`.
_JOIN = re.compile(r" ?\\?_")

#: A run of letters, perhaps joined to more by underscores (`num_heads`, `head_dim`).
_RUN = re.compile(r"[A-Za-z]{3,}(?: ?\\?_[A-Za-z]{2,})*(?![A-Za-z0-9])")


def _name_word(word: str) -> bool:
    if word in _CAPS_NAME_WORDS:
        return True
    low = word.lower()
    return low in NAME_WORDS and low not in _KNOWN and any(c.islower() for c in word)


def word_name_end(text: str, i: int) -> tuple[str, int] | None:
    """The word at `i` and where it ends, when it is a name the text writes as a word; its
    parts joined by underscores (`seq_len`, `num\\_heads`) are one name when the first is.

    >>> word_name_end("output = x + y", 0)
    ('output', 6)
    >>> word_name_end("seq_len \\\\times d", 0)
    ('seq\\\\_len', 7)
    >>> word_name_end("head_i", 0), word_name_end("abc = 1", 0), word_name_end("values_{ij}", 0)
    (('head', 4), None, ('values', 6))
    """
    m = _RUN.match(text, i)
    if m is not None:
        parts = re.split(_JOIN, m.group())
        if _name_word(parts[0]):
            return "\\_".join(parts), m.end()
    return None


#: An identifier of code in a font or `\\text` (`batch\\_size`, `seq_len`, `GPU_peak_FLOPs`).
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?: ?\\?_[A-Za-z0-9]{2,})+\Z")


def identifier(inner: str) -> str | None:
    """The words joined by underscores inside `\\text{...}` or `\\mathrm{...}`, as one name
    with its underscores escaped; None for anything else (one word, a space, a command, a
    letter with its index: `\\mathrm{head_i}` is head with the index i).

    >>> identifier("batch\\\\_size"), identifier("n_layers")
    ('batch\\\\_size', 'n\\\\_layers')
    >>> identifier("head_i"), identifier("a b")
    (None, None)
    """
    word = inner.strip()
    if not _IDENTIFIER.match(word):
        return None
    return "\\_".join(re.split(_JOIN, word))


#: A name in Chinese (`\\text{参数量}`, `\\text{计算量}`): two to twelve characters, nothing else.
_CJK_NAME = re.compile(r"[\u4e00-\u9fff]{2,12}\Z")

#: First words of a Chinese `\\text{...}` that is prose between formulas, never a name.
_CJK_PROSE = (
    "其中 和 或 且 当 若 如果 对于 所以 因为 因此 由于 即 则 为 是 时 的 其 这 那 每 所有 可 "
    "得 有 令 设 记 假设 表示 就是 等于 约 也 并 但 而 从 到 在 与 及 以及 故 又 再 于 使 被"
).split()


def cjk_name(inner: str) -> bool:
    """Whether `\\text{...}` holds a name written in Chinese rather than prose.

    >>> cjk_name("参数量"), cjk_name("其中"), cjk_name("个"), cjk_name("参数量，")
    (True, False, False, False)
    """
    word = inner.strip()
    return bool(_CJK_NAME.match(word)) and not any(word.startswith(p) for p in _CJK_PROSE)
