"""Names joined by escaped underscores, as Markdown sources write them: `batch\\_size`,
`\\mathrm{time\\_of\\_computations}`, `C_{KV\\_cache}`. Imports only the standard library and
the lexer's tokens; never the parser, the translator or the claim readers.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["UNDERSCORED", "join_before"]

#: A word of letters and digits joined by `\\_`: one name, rendered with underscores.
UNDERSCORED = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:\\_[A-Za-z0-9]+)+\Z")

_TAIL = re.compile(r"(?:\\_[A-Za-z0-9]+)+")


def join_before(lexer: Any, i: int) -> bool:
    """At `\\_` (offset `i`): the letters just before it and the words joined after it are
    one name (`batch\\_size`), emitted as a word name; False (nothing done) when no letter
    touches the `\\_` on its left or no word follows it."""
    out = lexer.out
    j, start = len(out), i
    while j > 0 and out[j - 1].kind == "LETTER" and out[j - 1].end == start:
        j -= 1
        start = out[j].start
    tail = _TAIL.match(lexer.text, i)
    if j == len(out) or tail is None:
        return False
    word = "".join(t.value for t in out[j:]) + tail.group().replace("\\_", "_")
    del out[j:]
    lexer.emit("SYMBOL", f"text|{word}", start, tail.end())
    lexer.i = tail.end()
    return True
