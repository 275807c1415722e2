"""Commands a formula uses that neither the document nor the reader defines, read by their use.
Imports the standard library, kernel.errors and the tokenizer's parts (which commands it knows).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from symattn.kernel.errors import ParseError
from symattn.reader.syntax.braces import group_end
from symattn.reader.syntax.layout import SIZE_SWITCHES
from symattn.reader.syntax.lexer import tokenize
from symattn.reader.syntax.lexer_tables import FONTS, GREEK, TEXTS

__all__ = ["Guess", "guesses_of", "read_undefined", "shared_guesses", "trailing_only"]

# A copy of a web page loses its site's macro file: `\vect{x}`, `\x`, `\rc{i}` stay undefined.
# Each such command is read by how it is used (a wrapper of a name is a font or a colour, a
# one-letter command is that letter, a trailing one is punctuation) or by the meaning it has by
# custom (`\norm{x}` is `\|x\|`); every reading is a `Guess`, which the verdict names, and a
# false claim or a shape error that rests on one is never reported as the text's error.

_COMMAND = re.compile(r"\\([A-Za-z]+)")

#: Commands of LaTeX that are not a font around a name, even where the reader does not know them:
#: never read as a wrapper of their argument.
_NOT_WRAPPERS = frozenset(
    "ref eqref cite href url footnote intertext hspace vspace phantom hphantom vphantom mathclap "
    "mathllap mathrlap overline underline widehat widetilde bar hat tilde dot ddot vec sqrt frac "
    "dfrac tfrac binom cancel bcancel xcancel fbox colorbox mathring check breve acute grave "
    "overrightarrow overleftarrow stackrel overset underset sideset substack pmod pod not "
    "newcommand renewcommand def let require class cssId style unicode htmlClass enclose tag "
    "label nonumber begin end left right xrightarrow xleftarrow xmapsto xLeftarrow "
    "xRightarrow overunderset operatorname mathop mathbin mathrel raisebox scalebox P S".split()
)

#: Undefined commands whose meaning is the custom one: (arguments, expansion, what it is read as).
_MEANINGS: dict[str, tuple[int, str, str]] = {
    "norm": (1, "\\|#1\\|", "the norm \\|..\\|"),
    "abs": (1, "|#1|", "the absolute value |..|"),
    "softmax": (0, "\\operatorname{softmax}", "softmax"),
    "Softmax": (0, "\\operatorname{softmax}", "softmax"),
    "attention": (0, "\\operatorname{Attention}", "the attention operator"),
    "Attention": (0, "\\operatorname{Attention}", "the attention operator"),
    "concat": (0, "\\operatorname{Concat}", "concatenation"),
    "Concat": (0, "\\operatorname{Concat}", "concatenation"),
    "argmax": (0, "\\operatorname{argmax}", "argmax"),
    "argmin": (0, "\\operatorname{argmin}", "argmin"),
    "mathscr": (1, "\\mathcal{#1}", "a script letter, as \\mathcal{..}"),
    "mathds": (1, "\\mathbb{#1}", "a double-struck letter, as \\mathbb{..}"),
    "mathbbm": (1, "\\mathbb{#1}", "a double-struck letter, as \\mathbb{..}"),
    "hbox": (1, "\\text{#1}", "text, as \\text{..}"),
    "reals": (0, "\\mathbb{R}", "the real numbers \\mathbb{R}"),
    "Reals": (0, "\\mathbb{R}", "the real numbers \\mathbb{R}"),
    "RR": (0, "\\mathbb{R}", "the real numbers \\mathbb{R}"),
}

#: Names of commands that say they are a font or a colour (`\\vect`, `\\bv`, `\\rc`): only
#: these are read as a wrapper of more than one name (`\\vect{W_q x}`); around one name any
#: undefined command is (a function's macro around a product, `\\act{Wx}`, is not a font).
_FONTISH = re.compile(
    r"vec|bf|bold|bm|mb|math|^[bv][a-z]?$|^[a-z]c$|col|red|blue|green|orange|gr[ae]y|purple"
)

#: One name: a letter, a digit or a Greek letter, with primes and scripts.
_ONE_NAME = re.compile(
    r"\s*(?:\\[A-Za-z]+\s*|[A-Za-z0-9])'*(?:\s*[_^]\s*(?:\{[^{}]*\}|[A-Za-z0-9]|\\[A-Za-z]+))*\s*"
)

#: Standard commands that render exactly as others the reader knows: read so, nothing guessed.
_STANDARD = {"lVert": "\\|", "rVert": "\\|", "lvert": "|", "rvert": "|", "cfrac": "\\frac"}

#: A wrapper's argument that stands where a name does: letters, digits, scripts, primes, and
#: the Greek letters and fonts the reader knows; no operator, relation or delimiter.
_NAME_LIKE = re.compile(r"[A-Za-z0-9_^{}\s']+")

#: Equivalences between two statements: each side is read on its own.
_EQUIVALENCES = frozenset(("Leftrightarrow", "Longleftrightarrow", "iff"))

#: What may follow a trailing command that is punctuation: the end of the row or formula.
_ROW_END = re.compile(r"\s*(?:\\\\|\\end\{|&|\Z)")


@dataclass(frozen=True)
class Guess:
    """One reading of an undefined command: `name` without its backslash, `kind` one of
    `font`, `letter`, `punctuation`, `meaning`; `note` says it as a verdict does; `start`,
    `end` are its expansion's offsets in the formula's body (-1 when the guess was made in
    another formula of the document); `letters` are the names read through it."""

    name: str
    kind: str
    note: str
    start: int = -1
    end: int = -1
    letters: tuple[str, ...] = ()


@functools.lru_cache(maxsize=512)
def known(name: str) -> bool:
    """Whether the reader's tokenizer knows the command `\\name`.

    >>> known("mathbf"), known("alpha"), known("vect")
    (True, True, False)
    """
    for probe in (f"\\{name}", f"\\{name}{{x}}"):
        try:
            tokenize(probe)
        except ParseError as e:
            if str(e).split(": ", 1)[-1].startswith(f"unknown command \\{name}"):
                return False
        except Exception:  # a tokenizer failure on a probe says nothing about the name
            return True
    return True


def _letters(arg: str) -> tuple[str, ...]:
    plain = re.sub(r"\\[A-Za-z]+", " ", arg)
    return tuple(sorted(set(re.findall(r"[A-Za-z]", plain))))


def _name_like(arg: str) -> bool:
    rest = re.sub(
        r"\\([A-Za-z]+)",
        lambda m: " " if m.group(1) in GREEK or m.group(1) in FONTS | TEXTS else "\\",
        arg,
    )
    return bool(arg.strip()) and _NAME_LIKE.fullmatch(rest) is not None


def _escaped(text: str, at: int) -> bool:
    """Whether the backslash at `at` is the second of a `\\\\` (a row break, then letters)."""
    k = at
    while k > 0 and text[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1


def _one_name(arg: str) -> bool:
    return _ONE_NAME.fullmatch(arg) is not None


def _after_command(out: list[str]) -> bool:
    """Whether the output so far ends in a control word (a letter next would join it)."""
    for piece in reversed(out):
        if piece:
            return re.search(r"\\[A-Za-z]+$", piece) is not None
    return False


def _wrapped(arg: str, before: str, after: str) -> str:
    """The argument without the wrapper: bare when it is one letter or one Greek letter, or
    when no script binds it to its neighbours (`\\vect{W_q x}`); braced when a script does
    (`\\vect{VA}^T`, `x_\\rc{ij}`)."""
    a = arg.strip()
    if re.fullmatch(r"[A-Za-z0-9]", a):
        return a
    if re.fullmatch(r"\\[A-Za-z]+", a):
        return a + " "
    if before.rstrip().endswith(("_", "^")) or after.lstrip().startswith(("_", "^", "'")):
        return "{" + a + "}"
    return " " + a + " "


def trailing_only(bodies: Sequence[str]) -> frozenset[str]:
    """The one-letter commands the formulas `bodies` write at the end of a row or formula
    twice or more and nowhere else: the text's punctuation (`\\p` for a full stop).

    >>> sorted(trailing_only([r"a = b \\p", r"c = d\\p", r"\\x = \\x \\q", r"e = \\q f"]))
    ['p']
    """
    ends: dict[str, int] = {}
    elsewhere: set[str] = set()
    for body in bodies:
        for m in re.finditer(r"(?<!\\)\\([A-Za-z])(?![A-Za-z])", body):
            if _ROW_END.match(body, m.end()):
                ends[m.group(1)] = ends.get(m.group(1), 0) + 1
            else:
                elsewhere.add(m.group(1))
    return frozenset(k for k, count in ends.items() if count >= 2 and k not in elsewhere)


def read_undefined(
    text: str, origin: Sequence[int], trailing: frozenset[str] = frozenset()
) -> tuple[str, list[int], tuple[Guess, ...]]:
    """`text` with its undefined commands read by their use, the origin of each character
    (`origin` maps `text`'s offsets, one past its end included), and the guesses made;
    the one-letter commands in `trailing` (`trailing_only`) are punctuation at a row's end.

    >>> body, _, gs = read_undefined(r"\\y_\\rc{i} = \\W\\x_\\rc{i} \\p", range(27), {"p"})
    >>> body
    'y_i = Wx_i '
    >>> [g.note for g in gs][:3]
    ['reading the undefined \\\\y as the letter y', 'reading the undefined \\\\rc{..} as a font \
or colour', 'reading the undefined \\\\W as the letter W']
    """
    if not _anything_to_read(text):
        return text, list(origin), ()
    out: list[str] = []
    where: list[int] = []
    guesses: list[Guess] = []
    _rewrite(text, list(origin), out, where, guesses, 0, trailing)
    body = _vector_bars("".join(out), guesses)
    if body == text:
        return text, list(origin), ()
    where.append(origin[len(text)] if len(origin) > len(text) else len(text))
    return body, where, tuple(guesses)


def _anything_to_read(text: str) -> bool:
    """Whether `text` holds a command this module reads, or bars around an arrowed vector."""
    special = _EQUIVALENCES | SIZE_SWITCHES | _STANDARD.keys()
    if "|" in text and "\\vec" in text:
        return True
    return any(m in special or not known(m) for m in set(_COMMAND.findall(text)))


def _rewrite(
    text: str,
    origin: list[int],
    out: list[str],
    where: list[int],
    guesses: list[Guess],
    depth: int,
    trailing: frozenset[str] = frozenset(),
) -> None:
    i = 0
    n = len(text)
    while i < n:
        m = _COMMAND.search(text, i)
        if m is None or depth > 8:
            out.append(text[i:])
            where.extend(origin[i:n])
            return
        out.append(text[i : m.start()])
        where.extend(origin[i : m.start()])
        i = m.end()
        name = m.group(1)
        if name in _EQUIVALENCES and not _escaped(text, m.start()):
            _connective(name, origin[m.start()], out, where, guesses)
            continue
        if name in SIZE_SWITCHES and not _escaped(text, m.start()):
            if _size_group(text, m.end(), origin, out, where):
                i = (group_end(text, _skip(text, m.end())) or m.end()) + 1
                continue
        if name in _STANDARD and not _escaped(text, m.start()):
            same = _STANDARD[name] + (" " if text[i : i + 1].isalpha() else "")
            out.append(same)
            where.extend([origin[m.start()]] * len(same))
            continue
        if _escaped(text, m.start()) or known(name):
            out.append(m.group())
            where.extend(origin[m.start() : m.end()])
            continue
        at = origin[m.start()]
        start = len(where)
        k = i
        while k < n and text[k] in " \t":
            k += 1
        close = group_end(text, k) if k < n and text[k] == "{" else None
        arg = text[k + 1 : close] if close is not None else None
        got = _reading(name, text, m.start(), i, arg, trailing)
        if got is None:
            out.append(m.group())
            where.extend(origin[m.start() : m.end()])
            continue
        kind, body, note, takes_arg = got
        if takes_arg and arg is not None and close is not None:
            head, _, tail = body.partition("#1")
            out.append(head)
            where.extend([at] * len(head))
            inner = _wrapped(arg, text[: m.start()], text[close + 1 :]) if body == "#1" else arg
            if body == "#1" and _after_command(out):
                out.append(" ")
                where.append(at)
            nested = [origin[k + 1]] * len(inner)
            _rewrite(inner, nested, out, where, guesses, depth + 1, trailing)
            out.append(tail)
            where.extend([at] * len(tail))
            i = close + 1
        else:
            if body and re.fullmatch(r".*\\[A-Za-z]+", body) and text[i : i + 1].isalpha():
                body += " "
            if body[:1].isalpha() and _after_command(out):
                body = " " + body
            out.append(body)
            where.extend([at] * len(body))
        end = len(where)
        letters = _letters(arg) if kind == "font" and arg is not None else ()
        if kind == "letter":
            letters = (name,)
        guesses.append(Guess(name, kind, note, start, end, letters))


#: `|\\vec a|`: bars around a vector drawn with an arrow, as physics texts write its length.
_VECTOR_BARS = re.compile(r"(?<![\\|‖])\|(\s*\\vec\s*(?:\{\s*[A-Za-z]\s*\}|[A-Za-z])\s*)\|(?!\|)")


def _vector_bars(text: str, guesses: list[Guess]) -> str:
    """`|\\vec a|` read as the vector's length `\\|\\vec a\\|` (written with the one-character
    `‖`, so every offset stays), each a guess."""
    note = "reading |\\vec{..}| as the length of the vector, \\|\\vec{..}\\|"
    for m in _VECTOR_BARS.finditer(text):
        guesses.append(Guess("vec", "meaning", note, m.start(), m.end()))
    return _VECTOR_BARS.sub(lambda m: f"‖{m.group(1)}‖", text)


def _skip(text: str, k: int) -> int:
    while k < len(text) and text[k] in " \t":
        k += 1
    return k


def _size_group(text: str, at: int, origin: list[int], out: list[str], where: list[int]) -> bool:
    """`\\small{\\text{; a note}}`: a size switch given its text as an argument renders the
    text; the braces go, so a note in an aligned column reads as one (nothing is guessed)."""
    k = _skip(text, at)
    close = group_end(text, k) if text[k : k + 1] == "{" else None
    if close is None:
        return False
    out.append(" " + text[k + 1 : close] + " ")
    where.extend([origin[k]] + origin[k + 1 : close] + [origin[close]])
    return True


def _connective(name: str, at: int, out: list[str], where: list[int], guesses: list[Guess]) -> None:
    """`A \\iff B`: each side read as a claim of its own (an identity holds whatever the other
    side says), the equivalence itself not decided."""
    start = len(where)
    out.append(" \\quad ")
    where.extend([at] * 7)
    note = f"reading each side of \\{name} on its own (the equivalence itself is not decided)"
    guesses.append(Guess(name, "connective", note, start, len(where)))


def _reading(
    name: str, text: str, start: int, end: int, arg: str | None, trailing: frozenset[str]
) -> tuple[str, str, str, bool] | None:
    """How `\\name` at `start` is read: (kind, expansion, note, whether it takes the `{...}`)."""
    if name in _MEANINGS:
        count, body, what = _MEANINGS[name]
        if count == 1 and arg is None:
            return None
        shown = f"\\{name}{{..}}" if count else f"\\{name}"
        return "meaning", body, f"reading the undefined {shown} as {what}", count == 1
    if name == "circ" and not _in_superscript(text, start):
        return "meaning", "\\odot", "reading \\circ as the entrywise product", False
    if name == "T" and _in_superscript(text, start):
        return (
            "meaning",
            "\\top",
            "reading the undefined \\T in a superscript as the transpose",
            False,
        )
    if name in _NOT_WRAPPERS:
        return None
    if arg is not None and _name_like(arg) and (_one_name(arg) or _FONTISH.search(name)):
        return "font", "#1", f"reading the undefined \\{name}{{..}} as a font or colour", True
    if name in trailing and _ROW_END.match(text, end):
        return "punctuation", "", f"reading the undefined \\{name} at the end as punctuation", False
    if len(name) == 1 and arg is None:
        return "letter", name, f"reading the undefined \\{name} as the letter {name}", False
    return None


def _in_superscript(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return before.endswith("^") or before.endswith("^{")


S = TypeVar("S")


def shared_guesses(items: list[S]) -> list[S]:
    """Each formula's guesses, and those of every other formula of the document that read a
    name through a font or a letter (at offset -1): a claim about `x` rests on reading `\\x`
    as x wherever that was read."""
    names = {
        (g.name, g.kind, g.note, g.letters): None
        for s in items
        for g in getattr(s, "guesses", ())
        if g.letters
    }
    if not names:
        return items
    elsewhere = tuple(Guess(n, k, note, -1, -1, lt) for n, k, note, lt in names)
    out: list[S] = []
    for s in items:
        own = getattr(s, "guesses", None)
        if own is None:
            out.append(s)
            continue
        seen = {(g.name, g.kind, g.note, g.letters) for g in own}
        extra = tuple(g for g in elsewhere if (g.name, g.kind, g.note, g.letters) not in seen)
        out.append(replace(s, guesses=own + extra))  # type: ignore[type-var]
    return out


def guesses_of(
    guesses: Sequence[Guess], start: int, end: int, source: str, body: str = ""
) -> list[Guess]:
    """The guesses a claim (offsets `start`, `end` of its formula's `body`; `source` its text)
    rests on: those made inside it or in the punctuation right after it, and those that read a
    name it writes.

    >>> g = Guess("x", "letter", "reading the undefined \\\\x as the letter x", -1, -1, ("x",))
    >>> [h.name for h in guesses_of([g], 0, 5, "y = x_i")], guesses_of([g], 0, 3, "y=z")
    (['x'], [])
    """
    out = []
    for g in guesses:
        inside = 0 <= g.start and (start <= g.start <= end or g.kind == "connective")
        if g.kind == "punctuation" and 0 <= end <= g.start:
            inside = inside or not body[end : g.start].strip()
        named = any(
            re.search(rf"(?<![A-Za-z\\]){re.escape(c)}(?![A-Za-z])", source) for c in g.letters
        )
        if inside or named:
            out.append(g)
    return out
