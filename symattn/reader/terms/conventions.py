"""The chapter's conventions: its names' shapes, what a bare sum ranges over, what is a matrix.

Also a document's own conventions (row or column vectors), read from its front matter, its
prose and its formulas (with its own macros expanded). Imports only the kernel's dims and
errors and the reader's macros; the scope, the claim readers, the translator, the checker and
the CLI read it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import sympy

from symattn.kernel.dims import STANDARD_DIMS, H, d, d_k, d_v
from symattn.kernel.errors import InputError
from symattn.reader.syntax.macros import Macros, front_matter_macros

n = STANDARD_DIMS["n"]

#: The chapter's conventional shapes; a declaration in the document overrides them.
CONVENTIONS: dict[str, tuple[sympy.Expr, sympy.Expr]] = {
    "X": (n, d),
    "Q": (n, d_k),
    "K": (n, d_k),
    "V": (n, d_v),
    "A": (n, n),
    "S": (n, n),
    "Z": (n, d_v),
    "O": (n, d),
    "W_Q": (d, d_k),
    "W_K": (d, d_k),
    "W_V": (d, d_v),
    "W_O": (H * d_v, d),
}
#: Per-head families `F^{(h)}` and their conventional shapes (`W_O^{(h)}` is a row block of W_O).
FAMILIES: dict[str, tuple[sympy.Expr, sympy.Expr]] = {
    "Z": (n, d_v),
    "Q": (n, d_k),
    "K": (n, d_k),
    "V": (n, d_v),
    "A": (n, n),
    "W_Q": (d, d_k),
    "W_K": (d, d_k),
    "W_V": (d, d_v),
}
#: What a sum without bounds ranges over, by its letter (`\sum_j` runs over the n positions).
SUM_LETTERS: dict[str, sympy.Expr] = {
    **dict.fromkeys("jkl", n),
    **dict.fromkeys("rst", d_k),
    **dict.fromkeys("uvw", d_v),
    **dict.fromkeys("hgf", H),
}


def looks_like_matrix(name: str) -> bool:
    """A capital, alone or with a subscript, is a matrix's name (`Q`, `W_O`; `H` is a size).

    >>> [looks_like_matrix(x) for x in ("Q", "W_O", "H", "q_i", "Wx")]
    [True, True, False, False, False]
    """
    return name[:1].isupper() and name not in ("H",) and (len(name) == 1 or name[1] == "_")


# ---- a document's own conventions -------------------------------------------------------------

#: The conventions a document (or `--conventions`) may set, with the values each may take
#: (`matrices` takes capital letters, `matrices=H` or `matrices=H+M`: letters that are matrices
#: there, where the chapter has a size, `H` heads).
SETTINGS: dict[str, tuple[str, ...]] = {"vectors": ("row", "column"), "matrices": ()}


class ConventionError(InputError):
    """A convention set with an unknown name or value (front matter or `--conventions`)."""


#: The source of a reading settled by typing (`check.document`).
TYPING = "the only reading under which every formula of the document typechecks"


@dataclass(frozen=True)
class Convention:
    """One convention: its value (`row`, `column`; empty when not settled), where it comes
    from (`front matter, line 3`, `--conventions`, `prose, line 7`), and whether the user set it
    (front matter, a LaTeX comment or the option) rather than the checker inferring it."""

    value: str
    source: str
    explicit: bool = False

    def applies(self) -> bool:
        """Whether formulas are read with this convention: one the user set or the prose
        states; one inferred from the formulas themselves is shown but never applied (the
        formulas under test are not evidence for how to read them). One settled by typing (the
        only reading under which every formula of the document typechecks) applies too."""
        settled = self.source.startswith(("prose", TYPING))
        return bool(self.value) and (self.explicit or settled)

    def describe(self) -> str:
        return f"{self.value} ({self.source})" if self.value else f"undecided ({self.source})"


@dataclass(frozen=True)
class DocumentConventions:
    """A document's conventions, shown in the summary line; `problems` are bad settings as
    (line, message)."""

    vectors: Convention = Convention("", "not stated")
    problems: tuple[tuple[int, str], ...] = ()
    matrices: Convention = Convention("", "not stated")
    unsettled_matrices: tuple[str, ...] = ()

    def matrix_letters(self) -> set[str]:
        """Letters that are matrices in this document where the chapter has a size (`H`)."""
        return {x for x in self.matrices.value.split("+") if x}

    def summary(self) -> str:
        """`vectors=row (prose, line 7)`, as the summary line shows it; empty when the
        document says nothing (its vectors are then the chapter's rows, or undecided where
        declared in R^{d}, as each such formula says)."""
        parts = [
            f"{key}={c.describe()}"
            for key, c in (("vectors", self.vectors), ("matrices", self.matrices))
            if c.source != "not stated"
        ]
        return ", ".join(parts)

    def to_json(self) -> dict[str, dict[str, object]]:
        return {
            key: {"value": c.value or None, "source": c.source, "explicit": c.explicit}
            for key, c in (("vectors", self.vectors), ("matrices", self.matrices))
        }


def parse_settings(spec: str, where: str = "--conventions") -> dict[str, str]:
    """`vectors=row,...` (also `vectors: row`) into a dict; `ConventionError` naming the bad
    part and where it was written.

    >>> parse_settings("vectors=row")
    {'vectors': 'row'}
    >>> parse_settings("vectors=rows", "cli")
    Traceback (most recent call last):
    symattn.reader.terms.conventions.ConventionError: cli: vectors must be row or column, not 'rows'
    """
    out: dict[str, str] = {}
    for item in spec.split(","):
        if not item.strip():
            continue
        key, sep, value = item.strip().partition("=")
        if not sep:
            key, sep, value = item.strip().partition(":")
        if not sep:
            raise ConventionError(f"{where}: expected NAME=VALUE, got '{item.strip()}'")
        key, value = key.strip(), value.strip()
        if key not in SETTINGS:
            known = ", ".join(SETTINGS)
            raise ConventionError(f"{where}: unknown convention '{key}' (known: {known})")
        if key == "matrices":
            letters = [x.strip() for x in re.split(r"[+ ]", value) if x.strip()]
            if not all(re.fullmatch(r"[A-Z]", x) for x in letters):
                raise ConventionError(
                    f"{where}: matrices must be capital letters joined by + (H+M), not '{value}'"
                )
            out[key] = "+".join(letters)
            continue
        if value not in SETTINGS[key]:
            allowed = " or ".join(SETTINGS[key])
            raise ConventionError(f"{where}: {key} must be {allowed}, not '{value}'")
        out[key] = value
    return out


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_TEX_COMMENT = re.compile(r"^[ \t]*%+[ \t]*symattn[ \t]*:(.*)$", re.MULTILINE)
_ROW_WORDS = re.compile(r"\brow[- ]vectors?\b|行向量", re.IGNORECASE)
_COLUMN_WORDS = re.compile(r"\bcolumn[- ]vectors?\b|列向量", re.IGNORECASE)
_VEC = (
    r"(?:\\(?:mathbf|boldsymbol|bm)\s*\{?\s*|(?<![\\A-Za-z])|(?<=_\w)|(?<=_\{\w\}))"
    r"[a-z](?![A-Za-z])\}?"
    r"(?:_(?:\{[^{}$]*\}|\w))?"
)
_TOP = r"\^\s*(?:\{\s*)?(?:\\top|T|\\intercal|\\mathsf\s*\{?\s*T\s*\}?)(?:\s*\})?"
#: `\mathbf q^\top\mathbf k`: an inner product only when the vectors are columns.
_COLUMN_USE = re.compile(_VEC + r"\s*" + _TOP + r"\s*" + _VEC)
#: `\mathbf q_i\mathbf k_j^\top`: an inner product only when they are rows.
_ROW_USE = re.compile(_VEC + r"\s*" + _VEC + r"\s*" + _TOP)
_IN_REALS = r"\s*\\in\s*\\mathbb\s*(?:\{\s*R\s*\}|R)"
_IN_MATRICES = _IN_REALS + r"\s*\^\s*\{[^{}$]*\\times"
_IN_SCALARS = _IN_REALS + r"(?![\s}]*\^)"
#: a product of two vectors with the shape the text gives it: `\mathbf v_t\mathbf k_t^\top \in
#: \mathbb R^{d\times d}` (an outer product) and `\mathbf k^\top\mathbf q \in \mathbb R` (an inner
#: one) are written for columns; `\mathbf q\mathbf k^\top \in \mathbb R` and `\mathbf q^\top
#: \mathbf k \in \mathbb R^{d\times d}` for rows.
_SHAPED_COLUMN = re.compile(
    f"{_VEC}\\s*{_VEC}\\s*{_TOP}{_IN_MATRICES}|{_VEC}\\s*{_TOP}\\s*{_VEC}{_IN_SCALARS}"
)
_SHAPED_ROW = re.compile(
    f"{_VEC}\\s*{_VEC}\\s*{_TOP}{_IN_SCALARS}|{_VEC}\\s*{_TOP}\\s*{_VEC}{_IN_MATRICES}"
)


def shaped_reading(text: str) -> str:
    r"""`column` or `row` when the products of two vectors whose shape the text states (`\mathbf
    v_t\mathbf k_t^\top \in \mathbb R^{d\times d}`, `\mathbf k^\top\mathbf q \in \mathbb R`)
    are all written for that reading; "" when there are none, or some of each. Never a setting
    (the formulas under test are no evidence for how to read them): it tells a document whose
    products `q k^T` and `q^T k` are outer and inner products of one kind of vector from a
    mixed one, so that typing may settle it.

    >>> shaped_reading(r"$v k^T \in \mathbb R^{d\times d}$, $q^T k \in \mathbb R$")
    'column'
    >>> shaped_reading(r"$q k^T \in \mathbb{R}$, $q^T k \in \mathbb R$"), shaped_reading("$q^T k$")
    ('', '')
    """
    row, column = bool(_SHAPED_ROW.search(text)), bool(_SHAPED_COLUMN.search(text))
    return "" if row == column else "row" if row else "column"


def read_conventions(
    text: str, given: dict[str, str] | None = None, project: Mapping[str, Convention] | None = None
) -> DocumentConventions:
    r"""A document's vector convention: `given` (the `--conventions` option) first, then front
    matter (`symattn:` then `  vectors: row`) or a LaTeX comment `% symattn: vectors=row`, then
    the prose ("row vectors", "column vectors", 行向量, 列向量), then the formulas
    (`\mathbf q^\top\mathbf k` is an inner product of columns, `\mathbf q\mathbf k^\top` of
    rows). Cues that disagree leave it undecided, never guessed. `project` (the `vectors` of
    `[tool.symattn]` in the nearest pyproject.toml) comes after the document's own settings and
    before its prose: a project's convention, which a document may still override.

    >>> read_conventions("The $q_i$ are row vectors.").summary()
    'vectors=row (prose, line 1)'
    >>> read_conventions("rows: row vectors; then column vectors").summary()
    'vectors=undecided (prose says row vectors at line 1 and column vectors at line 1)'
    >>> read_conventions("---\nsymattn:\n  vectors: column\n---\nrow vectors").summary()
    'vectors=column (front matter, line 3)'
    """
    given = given or {}
    problems: list[tuple[int, str]] = []
    written = _explicit(text, problems)
    matrices, unsettled = _matrices(text, given, written)
    if "vectors" in given:
        vectors = Convention(given["vectors"], "--conventions", True)
    elif "vectors" in written:
        vectors = written["vectors"]
    elif project and "vectors" in project:
        vectors = project["vectors"]
    else:
        lines = _prose_lines(text)
        # a cue on the line of a vector's declaration speaks of those vectors; others only
        # when there is no such cue ("a learned column vector" elsewhere says nothing of q_i)
        near = [
            x if _VECTOR_DECL.search(raw) else ""
            for x, raw in zip(lines, text.splitlines(), strict=False)
        ]
        setting = _settle(_first_lines(near, _ROW_WORDS, _COLUMN_WORDS), "prose", *_CUES)
        if setting is None:
            said = _settle(_first_lines(lines, _ROW_WORDS, _COLUMN_WORDS), "prose", *_CUES)
            uses = _first_lines(text.splitlines(), _ROW_USE, _COLUMN_USE)
            used = _settle(uses, "formulas", "q k^T", "q^T k")
            # what the prose says is the convention; the formulas under test never outvote it
            setting = said or used
        vectors = setting or Convention("", "not stated")
    return DocumentConventions(vectors, tuple(problems), matrices, unsettled)


#: `H \in \mathbb R^{n\times d}`: the chapter's head count declared as a matrix.
_H_MATRIX = re.compile(
    r"(?:\\(?:mathbf|boldsymbol|bm)\s*\{?\s*|(?<![\\A-Za-z]))H\}?\s*\\in\s*"
    r"\\mathbb\s*\{?R\}?\s*\^\s*\{[^{}]*\\times"
)
#: `\mathbf H`: a bold capital is a matrix (a size is never bold).
_H_BOLD = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*(?:\{\s*H\s*\}|H)(?![A-Za-z_])")
#: `H = 8`, `\times H`, `Hd_v`, `d/H`, `\frac{d}{H}`, `Z^{(H)}`, `1, \ldots, H`: H as a size.
_H_SIZE = re.compile(
    r"(?<![\\A-Za-z])H\s*=\s*\d|\\times\s*H(?![A-Za-z_])|(?<![\\A-Za-z])H\s*(?:\\cdot\s*)?d_"
    r"|/\s*H(?![A-Za-z_])|\\frac\s*\{[^{}]*\}\s*\{H\}|\(H\)|\\ldots\s*,\s*H(?![A-Za-z_])"
)


def _with_macros(text: str) -> tuple[str, list[int]]:
    r"""The text with its own macros (`\newcommand`, `\def`, front matter) expanded, and the
    offset in `text` of each character; the text as it is when it has none or they fail."""
    macros = Macros()
    for macro in front_matter_macros(text):
        macros.add(macro)
    body = macros.define_in(text)
    if macros:
        try:
            return macros.expand(body)
        except InputError:
            pass
    return text, list(range(len(text) + 1))


def _matrices(
    text: str, given: dict[str, str], written: dict[str, Convention]
) -> tuple[Convention, tuple[str, ...]]:
    """Which letters are matrices where the chapter has a size: the user's word, else `H`
    declared in R^{a × b} or written bold, and never used as a size (both: undecided)."""
    if "matrices" in given:
        return Convention(given["matrices"], "--conventions", True), ()
    if "matrices" in written:
        return written["matrices"], ()
    seen, origin = _with_macros(text)  # `\mat{H}` for `\bm{H}`: as the formulas read
    decl = _H_MATRIX.search(seen)
    how = "declared"
    if decl is None:
        decl, how = _H_BOLD.search(seen), "written bold"
    if decl is None:
        return Convention("", "not stated"), ()
    line = text.count("\n", 0, origin[decl.start()]) + 1
    size = _H_SIZE.search(seen)
    if size is None:
        return Convention("H", f"{how}, line {line}"), ()
    other = text.count("\n", 0, origin[size.start()]) + 1
    why = f"H is {how} as a matrix at line {line} and used as a size at line {other}"
    return Convention("", why), ("H",)


_CUES = ("row vectors", "column vectors")
#: `\\in\\mathbb R^{d}` with one size: a vector declared, whose orientation a cue may tell.
_VECTOR_DECL = re.compile(r"\\in\s*\\mathbb\s*\{?R\}?\s*\^\s*(?:\{(?:(?!\\times)[^{}])*\}|\\?\w+)")


def _explicit(text: str, problems: list[tuple[int, str]]) -> dict[str, Convention]:
    found: dict[str, Convention] = {}
    front = _FRONT.match(text)
    if front is not None:
        inside = False
        for k, line in enumerate(front.group(1).splitlines(), start=2):
            if re.match(r"symattn\s*:\s*$", line):
                inside = True
                continue
            if inside and line[:1] in (" ", "\t") and line.strip():
                try:
                    got = parse_settings(line.strip(), f"front matter, line {k}")
                except ConventionError as e:
                    problems.append((k, str(e)))
                    continue
                for key, value in got.items():
                    found[key] = Convention(value, f"front matter, line {k}", True)
            elif line.strip():
                inside = False
    for m in _TEX_COMMENT.finditer(text):
        k = text.count("\n", 0, m.start()) + 1
        try:
            got = parse_settings(m.group(1), f"line {k}")
        except ConventionError as e:
            problems.append((k, str(e)))
            continue
        for key, value in got.items():
            found[key] = Convention(value, f"comment, line {k}", True)
    return found


def _prose_lines(text: str) -> list[str]:
    """The lines with their math and LaTeX comments blanked (a cue is a word of the prose)."""
    text = re.sub(
        r"\$\$.*?\$\$|\$[^$]*\$", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.DOTALL
    )
    return [re.sub(r"(?<!\\)%.*$", "", line) for line in text.splitlines()]


def _first_lines(lines: list[str], row: re.Pattern[str], col: re.Pattern[str]) -> tuple[int, int]:
    first_row = next((k for k, x in enumerate(lines, start=1) if row.search(x)), 0)
    first_col = next((k for k, x in enumerate(lines, start=1) if col.search(x)), 0)
    return first_row, first_col


def _settle(found: tuple[int, int], where: str, row: str, col: str) -> Convention | None:
    r, c = found
    if r and c:
        return Convention("", f"{where} says {row} at line {r} and {col} at line {c}")
    if r:
        return Convention("row", f"{where}, line {r}")
    if c:
        return Convention("column", f"{where}, line {c}")
    return None
