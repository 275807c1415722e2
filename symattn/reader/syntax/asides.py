"""Asides that group whole claims: parentheses holding prose (`(n 个词, d_k = 64)`), braces
around a formula (`\\small{a = b}`): separators, not one value.
Imports only lexer.py's token type; parse.py calls it between the lexer and the grammar.
"""

from __future__ import annotations

import dataclasses
import re

from symattn.reader.syntax.lexer_base import Tok

__all__ = ["open_asides", "open_gaps"]

#: Tokens that set two items of a formula apart (the grammar's `sep`).
_SEPARATORS = frozenset("COMMA PERIOD SEMI QUAD ROWSEP TEXT".split())
_OPEN = frozenset("LPAR LBRACK LBRACE LSET BEGIN_MATRIX BAR_OPEN NORM_OPEN LANGLE".split())
_CLOSE = frozenset("RPAR RBRACK RBRACE RSET END_MATRIX BAR_CLOSE NORM_CLOSE RANGLE".split())


def open_asides(tokens: list[Tok]) -> list[Tok]:
    r"""Parentheses that stand alone between items and hold prose at their own level, and
    braces that stand alone and hold a relation (`\small{a = b}`, `{\color{c} a = b}`), are an
    aside: they become separators, so the claims inside are read one by one, as `\quad` sets
    them apart. Parentheses or braces after a value, a function or a script are never one.

    >>> from symattn.reader.syntax.lexer import tokenize
    >>> [t.kind for t in open_asides(tokenize(r"(n \text{ words}, d = 2)"))]
    ['QUAD', 'LETTER', 'TEXT', 'COMMA', 'LETTER', 'REL', 'NUMBER', 'QUAD']
    >>> [t.kind for t in open_asides(tokenize(r"f(x \text{ if } y)"))][:2]
    ['LETTER', 'LPAR']
    >>> [t.kind for t in open_asides(tokenize(r"\small{a = b}"))]
    ['QUAD', 'LETTER', 'REL', 'LETTER', 'QUAD']
    """
    out = list(tokens)
    depth = 0
    for k, t in enumerate(out):
        if t.kind in _CLOSE:
            depth -= 1
        elif t.kind in _OPEN:
            alone = depth == 0 and (k == 0 or out[k - 1].kind in _SEPARATORS)
            if alone and t.kind in ("LPAR", "LBRACE"):
                close = _aside_end(out, k)
                if close is not None:
                    out[k] = dataclasses.replace(t, kind="QUAD")
                    out[close] = dataclasses.replace(out[close], kind="QUAD")
                    continue
            depth += 1
    return out


def _aside_end(tokens: list[Tok], at: int) -> int | None:
    """The index of the `)` or `}` that closes the `(` or `{` at `at`, when prose (a relation,
    for braces) stands at its own level and an item ends after it; else None."""
    depth, prose = 0, False
    inside = "TEXT" if tokens[at].kind == "LPAR" else "REL"
    closer = "RPAR" if tokens[at].kind == "LPAR" else "RBRACE"
    for k in range(at, len(tokens)):
        kind = tokens[k].kind
        if kind in _OPEN:
            depth += 1
        elif kind in _CLOSE:
            depth -= 1
            if depth == 0:
                after = tokens[k + 1].kind if k + 1 < len(tokens) else None
                ok = kind == closer and prose and (after is None or after in _SEPARATORS)
                return k if ok else None
        elif kind == inside and depth == 1:
            prose = True
    return None


#: Spacing that sets two equations apart when a name and a relation follow: a thick space, or
#: two spaces or more (`A = X \; B = Y`, `a = 1 \,\, b = 2`); one thin space `\,` never does.
#: (a line break too: `S = QK^T` and `A = \mathrm{softmax}(S)` on lines of their own)
_GAP = re.compile(r"\A\s*(?:\\[;:> ]|\\,\s*\\[,;:> ]|(?:\\[,;:> ]\s*){3,})|\A[ \t]*\n\s*")
#: Tokens that may stand in a name before its relation: `B`, `\mathbf v_t`, `W^{(h)}`, `x'`.
_NAME_PART = frozenset("LETTER SYMBOL SUB SUP LBRACE RBRACE NUMBER PRIME COMMA ACCENT".split())
#: What starts a name: a letter, a symbol, an accent, or a group (`{\mathbf k_i}`).
_BASES = frozenset("LETTER SYMBOL ACCENT LBRACE".split())

#: What the value before a separating space ends with: a letter, a number, a written matrix
#: (after a call's parentheses or a fraction, a space is more often a product's).
_VALUE_ENDS = frozenset("LETTER SYMBOL NUMBER END_MATRIX PRIME TOP".split())
_TRANSPOSES = frozenset(("T", "mathsf|T", "mathrm|T", "top", "intercal"))


def open_gaps(body: str, tokens: list[Tok]) -> list[Tok]:
    r"""A wide space (or a line break) after a claim and before a name with its relation
    separates two claims: `A = QK^T \; B = KQ^T` is two definitions, not the chain `A = QK^T
    B = KQ^T`. Only in a
    list of definitions (the formula starts with a name and its relation) and after a letter, a
    number or a written matrix.

    >>> from symattn.reader.syntax.lexer import tokenize
    >>> body = r"A = X \; B = Y"
    >>> [t.kind for t in open_gaps(body, tokenize(body))]
    ['LETTER', 'REL', 'LETTER', 'QUAD', 'LETTER', 'REL', 'LETTER']
    >>> body = r"a = \sum_j x_j \; y_j = z"
    >>> "QUAD" in [t.kind for t in open_gaps(body, tokenize(body))]
    False
    """
    out: list[Tok] = []
    depth, claimed, summed = 0, False, False
    named = _name_then_relation(tokens, 0)
    for k, t in enumerate(tokens):
        if t.kind in _CLOSE:
            depth -= 1
        if depth == 0 and t.kind in _SEPARATORS:
            claimed = False
            named = _name_then_relation(tokens, k + 1)  # a list of definitions: `a = 1 \; b = 2`
        if depth == 0 and t.kind in ("SUM", "REL"):
            summed = t.kind == "SUM"  # a sum's body goes on past a space: `\sum_r a_r \; b_r`
        free = claimed and named and not summed
        if k and depth == 0 and free and t.kind in _BASES:
            prev = tokens[k - 1]
            if prev.kind not in _VALUE_ENDS:
                out.append(t)  # `\mathrm{softmax}(S) \; V`, `\frac{1}{2} \; b`: a product
                continue
            gap = _GAP.match(body[prev.end : t.start])
            if gap is not None and _name_then_relation(tokens, k):
                out.append(Tok("QUAD", gap.group().strip(), prev.end, t.start))
                claimed = False
        if t.kind in _OPEN:
            depth += 1
        if depth == 0 and t.kind == "REL":
            claimed = True
        out.append(t)
    return out


def _name_then_relation(tokens: list[Tok], at: int) -> bool:
    """From `at`, a name (a letter with its scripts) and then a relation at the same level."""
    depth, sup, based, prev = 0, False, False, ""
    for t in tokens[at:]:
        if depth == 0 and t.kind == "REL":
            return True
        if t.kind not in _NAME_PART or (depth == 0 and t.kind == "COMMA"):
            return False
        if depth == 0 and t.kind in _BASES and prev not in ("SUB", "SUP"):
            if based:
                return False  # `W_Q \mathbf k_i = ...`: two names, the gap is before the second
            based = True
        prev = t.kind
        if sup and (t.kind == "TOP" or t.value in _TRANSPOSES):
            return False  # `K^T = S`: a transpose is a product's factor, not a name
        sup = t.kind == "SUP" or (sup and t.kind == "LBRACE")
        depth += (t.kind == "LBRACE") - (t.kind == "RBRACE")
    return False
