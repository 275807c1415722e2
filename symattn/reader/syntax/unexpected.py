"""What a token the grammar did not expect is, when the form is known: the words after
`unexpected ...` in a parse error. Imports only the lexer's token type; never lark."""

from __future__ import annotations

from collections.abc import Sequence

from symattn.reader.syntax.lexer_base import Tok

__all__ = ["unexpected_end", "unexpected_form"]

_OPENS = {"LPAR": "(", "LBRACK": "["}
_CLOSES = {"RPAR": "(", "RBRACK": "["}


def unexpected_form(kind: str, value: str, before: Sequence[Tok]) -> str:
    """`: ...` naming the form a token of kind `kind` (its text `value`) ends, after the
    tokens `before` it; '' when the form is not one of these.

    >>> unexpected_form("REL", "=", [Tok("LETTER", "a", 0, 1), Tok("REL", "=", 2, 3)])
    ': two relations in a row (a = = b)'
    >>> unexpected_form("TEXT", "Dimension of", [Tok("SQRT", "sqrt", 0, 5)])
    ": words inside a value ('Dimension of') are not read"
    >>> unexpected_form("COMMA", ",", [])
    ''
    >>> unexpected_form("QUAD", "quad", [Tok("LBRACK", "[", 0, 1), Tok("LETTER", "a", 1, 2)])[:40]
    ': entries set apart by spaces inside bra'
    """
    last = before[-1].kind if before else ""
    if kind == "TEXT":
        words = " ".join(value.split())
        shown = words if len(words) <= 40 else words[:37] + "..."
        return f": words inside a value ({shown!r}) are not read"
    if kind == "REL" and last == "REL":
        return ": two relations in a row (a = = b)"
    if kind == "SUB" and last == "CDOT":
        return (
            ": a product over an index written under the dot (\\cdot_d) is not read: write \\sum_d"
        )
    if kind in ("MINUS", "PLUS") and last == "SUP":
        return ": a sign raised alone (M^-, x^+) is not read"
    if kind == "QUAD" and value in ("quad", "qquad") and _unclosed(before) is not None:
        return (
            ": entries set apart by spaces inside brackets ([a \\quad b], a row written out) "
            "are not read: write them in a bmatrix"
        )
    if kind in _CLOSES and _unclosed(before) == ("[" if kind == "RPAR" else "("):
        return ": a half-open interval ([a, b), (a, b]) is not read"
    return ""


def unexpected_end(tokens: Sequence[Tok]) -> str:
    """`: ...` naming what a formula that ends too early lacks.

    >>> unexpected_end([Tok("LETTER", "n", 0, 1), Tok("REL", "=", 1, 2)])
    ': nothing stands on the right of the relation'
    """
    last = tokens[-1].kind if tokens else ""
    if last == "REL":
        return ": nothing stands on the right of the relation"
    if last in ("SUM", "SUB", "SUP") and any(t.kind == "SUM" for t in tokens[-3:]):
        return ": a sum without the terms it adds"
    return ""


def _unclosed(before: Sequence[Tok]) -> str | None:
    """The innermost bracket `(` or `[` still open after `before`."""
    stack: list[str] = []
    for t in before:
        if t.kind in _OPENS:
            stack.append(_OPENS[t.kind])
        elif t.kind in _CLOSES and stack:
            stack.pop()
    return stack[-1] if stack else None
