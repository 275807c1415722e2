"""A star raised on a name (`\\alpha^*`, `p_n^*`) where the text works with complex numbers:
there it may be the conjugate, which the reader does not read; the claim is refused by name.
Imports the syntax tree only; never the translator, the resolver or the checker."""

from __future__ import annotations

from collections.abc import Callable

from symattn.reader.syntax import ast

__all__ = ["conjugate_refusal"]


def conjugate_refusal(claim: ast.Node, cue: str, known: Callable[[str], object]) -> str | None:
    """The refusal of a claim with a starred name in a text that works with complex numbers
    (`cue`, where it says so) or on a matrix or vector of the text (`known` finds it: `Q^*`
    may be its adjoint); None elsewhere, where the star decorates a name (an optimal value,
    as `\\alpha^*`).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> claim = parse_formula("p_n^* = q").items[0]
    >>> conjugate_refusal(claim, "'complex numbers' at line 1", lambda name: None)[:48]
    'a complex conjugate or adjoint (x^*) is not read'
    >>> conjugate_refusal(claim, "", lambda name: None) is None
    True
    >>> conjugate_refusal(claim, "", lambda name: name == "p")
    'a complex conjugate or adjoint (x^*) is not read: p is a matrix or vector of the text'
    """
    starred = [s.name[:-2] for s in ast.symbols(claim) if s.name.endswith("^*")]
    if not starred:
        return None
    message = "a complex conjugate or adjoint (x^*) is not read"
    if cue:
        return f"{message} (the text works with complex numbers: {cue})"
    matrices = [name for name in starred if known(name)]
    if matrices:
        return f"{message}: {matrices[0]} is a matrix or vector of the text"
    return None
