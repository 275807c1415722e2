"""Values a text gives its names outside formulas: `n_heads = 32` in a code block, `| hidden_dim |
4096 |` in a table, "d_model = 512" or "a hidden size of 4096" in a sentence, read as the text's
worked example for the formulas that use those names. Imports sympy and the resolved claims."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["Stated", "stated_values", "with_stated_values"]

#: A number as code, tables and sentences write one: `4096`, `4_096`, `4,096`, `0.5`.
_NUMBER = r"([0-9]{1,3}(?:,[0-9]{3})+|[0-9][0-9_]*(?:\.[0-9]+)?)(?!\w|\.[0-9])"
#: An identifier of two characters or more (`d_k`, `n_heads`, `hidden_dim`, `self.dim`).
_IDENT = (
    r"(?:self\.|args\.|config\.|cfg\.)?([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Za-z]{2,}[0-9]*)"
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_LINE = (
    # `n_heads = 32`, `d_model: int = 512`, `dim: int = 4096  # width`
    re.compile(
        r"^\s*" + _IDENT + r"\s*(?::\s*[A-Za-z]\w*\s*)?=\s*" + _NUMBER + r"\s*,?\s*(?:#.*)?$"
    ),
    # `"hidden_size": 4096,` (JSON, a dict) and `hidden_size: 4096` (YAML)
    re.compile(r"^\s*\{?\s*[\"']?" + _IDENT + r"[\"']?\s*:\s*" + _NUMBER + r"\s*[,}]?\s*(?:#.*)?$"),
)
#: `ModelArgs(dim=4096, n_heads=32)`: keyword arguments of a call.
_KEYWORD = re.compile(r"[(,]\s*" + _IDENT + r"\s*=\s*" + _NUMBER + r"\s*(?=[,)])")
#: A row of a table of two cells, a name and a number: `| hidden_dim | 4096 |`.
_TABLE_ROW = re.compile(r"^\s*\|\s*`?" + _IDENT + r"`?\s*\|\s*" + _NUMBER + r"\s*\|?\s*$")
#: `d_model = 512` (or `` `n_heads=32` ``) in a sentence, outside formulas: a name written as
#: code (with `_`, or in backticks), never a word of the sentence (`20 GB = 140 GB`)
_PROSE = re.compile(
    r"(?<![\w\\{.`])(?:`"
    + _IDENT
    + r"\s*=\s*"
    + _NUMBER
    + r"`|`?([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)`?"
    r"(?:\s*[=:]\s*|\s+(?:is|of|equals|set\s+to)\s+)" + _NUMBER + r")"
)
_MATH = re.compile(
    r"\$\$.*?\$\$|\$[^$\n]*\$|\\\(.*?\\\)|\\\[.*?\\\]|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S
)
#: The names code and formulas write for one size of a model (`hidden_size`, `hid_dim`,
#: `d_model`): a value given to one is read for the others the text names nowhere else.
_HIDDEN = ("hidden_size", "hidden_dim", "hid_size", "hid_dim", "d_model", "model_dim")
_HEAD = ("head_dim", "head_size", "d_head", "dim_head")
_HEADS = ("n_heads", "num_heads", "n_head", "num_attention_heads")
_KV_HEADS = ("n_kv_heads", "num_kv_heads", "num_key_value_heads", "n_kv_head")
_LAYERS = ("n_layers", "num_layers", "n_layer", "num_hidden_layers")
_SEQ = ("seq_len", "seq_length", "sequence_length", "max_seq_len")
_VOCAB = ("vocab_size", "n_vocab")
_SYNONYMS = (_HIDDEN, _HEAD, _HEADS, _KV_HEADS, _LAYERS, _SEQ, _VOCAB)
_OF = r"(?:\s+(?:of|is|=|:))?\s+"
#: What texts call a model's sizes in words, and the names formulas give them.
_WORDED: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\b(?:hidden|model)[ -](?:size|dim(?:ension)?|width)" + _OF + _NUMBER, re.I),
        _HIDDEN,
    ),
    (re.compile(r"\bhead[ -](?:size|dim(?:ension)?)" + _OF + _NUMBER, re.I), _HEAD),
    (re.compile(r"(?<![\w.,])" + _NUMBER + r"\s+(?:attention\s+|query\s+)?heads\b", re.I), _HEADS),
    (
        re.compile(
            r"(?<![\w.,])" + _NUMBER + r"\s+(?:transformer\s+|decoder\s+|encoder\s+)?layers\b",
            re.I,
        ),
        _LAYERS,
    ),
    (re.compile(r"\bvocab(?:ulary)?[ -]size" + _OF + _NUMBER, re.I), _VOCAB),
    (re.compile(r"\b(?:sequence|context)[ -]length" + _OF + _NUMBER, re.I), _SEQ),
    (re.compile(r"\bbatch[ -]size" + _OF + _NUMBER, re.I), ("batch_size",)),
)


@dataclass(frozen=True)
class Stated:
    """A value the text gives a name outside its formulas, and where (`the code block at line
    7`, `the table at line 12`, `the sentence at line 3`)."""

    value: sympy.Rational
    where: str


def key(name: str) -> str:
    r"""The name as a key that code, tables and formulas share: `d_{\text{model}}`, `d_{model}`,
    `\text{d\_model}` and `D_MODEL` are all `d_model`.

    >>> key(r"d_{\text{model}}"), key(r"\text{hidden\_dim}"), key("N_HEADS"), key("d_k")
    ('d_model', 'hidden_dim', 'n_heads', 'd_k')
    """
    out = re.sub(r"\\(?:text|mathrm|textrm|operatorname|mathit|mbox|rm)\s*", "", name)
    out = out.replace("\\_", "_").replace("{", "").replace("}", "").replace("\\", "")
    out = re.sub(r"\s+", "_", out.strip())
    return out.lower() if sum(c.isalpha() for c in out) >= 3 or "_" in out else out


_MEMBER = re.compile(r"[A-Za-z]_[0-9]+\Z")


def stated_values(text: str) -> dict[str, tuple[Stated, ...]]:
    r"""Every value the text gives a name in code, in a table or in a sentence, by the name's
    key: one value where the text agrees with itself, several where it gives two.

    >>> got = stated_values("```\nn_heads = 32\n```\nwith a hidden size of 4096.")
    >>> got["n_heads"][0], got["d_model"][0].value
    (Stated(value=32, where='the code block at line 2'), 4096)
    """
    out: dict[str, dict[sympy.Rational, Stated]] = {}
    groups: dict[str, tuple[str, ...]] = {}  # each name given a value: the names of its size
    # (`x_1 = 5` is a member of a family, an entry or a row: no size of the text's)
    found = [
        (key(name), (), number, where)
        for name, number, where in _found(text)
        if not _MEMBER.match(name)
    ]
    for own, names, number, where in [*found, *_worded(text)]:
        value = _value(number)
        if value is not None:
            out.setdefault(own, {}).setdefault(value, Stated(value, where))
            group = names or next((x for x in _SYNONYMS if own in x), ())
            groups[own] = group
    # a value for one of the names of a size (`hidden_size`, or `a hidden size of 4096` in
    # words) is read for its other names only where the text names them nowhere else
    named = set(out)
    lent: dict[str, dict[sympy.Rational, Stated]] = {}
    for own, group in groups.items():
        for name in group:
            if name not in named:
                lent.setdefault(name, {}).update(out[own])
    out.update(lent)
    return {k: tuple(v.values()) for k, v in out.items()}


def _found(text: str) -> Iterator[tuple[str, str, str]]:
    """(name, number, where) of each `name = number` of the text's code, tables and prose."""
    fence = ""
    for k, line in enumerate(text.splitlines(), start=1):
        m = _FENCE.match(line)
        if m is not None:
            fence = "" if fence == m.group(1) else fence or m.group(1)
            continue
        if fence:
            where = f"the code block at line {k}"
            for pattern in _CODE_LINE:
                got = pattern.match(line)
                if got is not None:
                    yield got.group(1), got.group(2), where
                    break
            else:
                for got in _KEYWORD.finditer(line):
                    yield got.group(1), got.group(2), where
            continue
        got = _TABLE_ROW.match(line)
        if got is not None:
            yield got.group(1), got.group(2), f"the table at line {k}"
            continue
    prose = _MATH.sub(lambda m: " " * len(m.group()), _without_code(text))
    for got in _PROSE.finditer(prose):
        at = text.count("\n", 0, got.start()) + 1
        name, number = (got.group(1), got.group(2)) if got.group(1) else got.group(3, 4)
        yield name, number, f"the sentence at line {at}"


def _worded(text: str) -> Iterator[tuple[str, tuple[str, ...], str, str]]:
    """(the key of its words, the names formulas write for it, number, where) of each size
    the text gives in words."""
    prose = _MATH.sub(lambda m: " " * len(m.group()), _without_code(text))
    for pattern, names in _WORDED:
        for got in pattern.finditer(prose):
            line = text.count("\n", 0, got.start()) + 1
            words = re.sub(
                r"[0-9.,_]+|\b(?:of|is|attention|query|transformer|decoder|encoder)\b",
                " ",
                got.group(),
            )
            own = key(re.sub(r"[^A-Za-z ]", " ", words).strip().lower())
            yield own, names, got.group(1), f"'{got.group().strip()}' at line {line}"


def _without_code(text: str) -> str:
    """The text with its fenced code blocks and table rows blanked (same length)."""
    out: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if m is not None:
            fence = "" if fence == m.group(1) else fence or m.group(1)
            out.append(" " * (len(line) - 1) + line[-1:])
            continue
        blank = fence or line.lstrip().startswith("|")
        out.append(re.sub(r"[^\n]", " ", line) if blank else line)
    return "".join(out)


def _value(number: str) -> sympy.Rational | None:
    """The number, or None; also None for 0 and 1, which a text gives a size to simplify
    (`batch_size = 1`) and at which too many false identities hold (x^2 = x)."""
    try:
        value = sympy.Rational(number.replace(",", "").replace("_", ""))
    except (TypeError, ValueError):
        return None
    return None if value in (0, 1) else value


def with_stated_values(
    claim: ResolvedClaim, stated: dict[str, tuple[Stated, ...]] | None
) -> ResolvedClaim:
    r"""A claim between numbers whose names have no value in the formulas, read with the values
    the text gives them elsewhere (`2 n_{layers} d_{model}` with `n_layers = 32` and `d_model =
    4096` from a code block), saying where each comes from. Such a value is a guess about what
    the text means in the formula: a claim false under it is undecided, naming it (`defines`,
    `free`). A name the text gives two values keeps none, and a false names both.

    >>> from symattn.reader.syntax.scanner import scan
    >>> from symattn.reader.claims.resolved import new_claim
    >>> span = scan("$2 d_{model} = 1024$", kind="md")[0]
    >>> x = sympy.Symbol("d_{model}", real=True)
    >>> claim = new_claim(span, 0, len(span.body), "pending", pairs=((2 * x, sympy.Integer(1024)),))
    >>> claim = dataclasses.replace(claim, defines="d_{model} is not declared")
    >>> got = with_stated_values(claim, {"d_model": (Stated(sympy.Integer(512), "line 1"),)})
    >>> got.pairs, got.context
    (((1024, 1024),), 'd_{model} = 512 from line 1')
    """
    if not stated or claim.status != "pending" or not claim.pairs:
        return claim
    sides = [x for pair in claim.pairs for x in pair]
    if not all(_numbers(x) for x in sides):
        return claim
    symbols = sorted(
        {s for x in sides for s in x.free_symbols if isinstance(s, sympy.Symbol)}, key=str
    )
    if not claim.defines and not all(s.is_integer and s.is_positive for s in symbols):
        # (without `defines` a claim in free numbers is an identity in them: for every value;
        # one in sizes alone holds only for particular sizes, which the text gives here)
        return claim
    values: dict[sympy.Symbol, sympy.Rational] = {}
    said: list[str] = []
    doubts: list[str] = []
    for s in symbols:
        got = stated.get(key(s.name), ()) if s not in claim.defs and len(s.name) > 1 else ()
        if len(got) == 1:
            values[s] = got[0].value
            said.append(f"{s.name} = {got[0].value} from {got[0].where}")
        elif got:
            both = ", ".join(f"{x.value} ({x.where})" for x in got)
            doubts.append(f"the text gives {s.name} {len(got)} values, {both}: it has none here")
    if not values and not doubts:
        return claim
    if any(not (a - b).free_symbols for a, b in claim.pairs):
        return claim  # (`x + 1 = x`: the sides differ by a number, false for every value)
    pairs = tuple((a.xreplace(values), b.xreplace(values)) for a, b in claim.pairs)
    reads = f"it reads {', '.join(said)}, which the formula itself does not state" if said else ""
    why = "; ".join(x for x in (*doubts, reads) if x)
    context = claim.context
    if not any(a.free_symbols or b.free_symbols for a, b in pairs):
        # every name now has its value: what was said of them as unknowns no longer holds
        defines = free = why
        context = "; ".join(x for x in context.split("; ") if _NOT_DECLARED not in x)
    else:
        defines = f"{claim.defines}; {why}" if claim.defines else why
        free = f"{claim.free}; {why}" if claim.free else why
    context = "; ".join(x for x in (context, *said) if x)
    claim = dataclasses.replace(claim, pairs=pairs, defines=defines, free=free, context=context)
    return _close(claim) if values else claim


#: The number written after `\approx`: `0.26`, `2.6 \times 10^5`, `1.3 \cdot 10^{9}`.
_WRITTEN = re.compile(
    r"\\approx\s*([0-9]+(?:\.([0-9]+))?)(?:\s*\\(?:times|cdot)\s*10\^\{?\s*(-?[0-9]+)\s*\}?)?\s*\Z"
)


def _close(claim: ResolvedClaim) -> ResolvedClaim:
    """`2 n_{layers} d_{model} \\approx 2.6 \\times 10^5` with the text's values in place: a
    claim between numbers, within one unit of the last digit written (as `approximate` reads
    one that has its numbers in the formula); any other claim as it is."""
    if not claim.approximate or claim.tolerance is not None or len(claim.pairs) != 1:
        return claim
    lhs, rhs = claim.pairs[0]
    m = _WRITTEN.search(claim.source)
    if m is None or lhs.free_symbols or rhs.free_symbols:
        return claim
    power = sympy.Integer(10) ** int(m.group(3) or 0)
    written = sympy.Rational(m.group(1)) * power
    if written != rhs:
        return claim
    unit = power / sympy.Integer(10) ** len(m.group(2) or "")
    context = f"{claim.context}; \\approx read as within one unit of the last digit written, {unit}"
    return dataclasses.replace(claim, approximate=False, tolerance=unit, context=context)


_NOT_DECLARED = "(not declared by the text)"


def _numbers(x: object) -> bool:
    """A side between numbers: no matrix anywhere inside it (an entry's shape has sizes)."""
    if not isinstance(x, sympy.Expr):
        return False
    return not any(isinstance(y, MatExpr) for y in sympy.preorder_traversal(x))
