"""The command line's declarations: `--dims 'Q,K: n x d_k; Z^{(h)}: n x d_v'` and `--assume`.

Imports the kernel's dims and errors and the chapter's conventional shapes; `check`, `prove` and
`shapes` all read them here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

from symattn.kernel import dims as D
from symattn.kernel.errors import ParseError, SymattnError
from symattn.reader.terms.conventions import CONVENTIONS, FAMILIES

__all__ = ["Declared", "conventional_sizes", "parse_assume", "parse_dim", "parse_dims"]


@dataclass(frozen=True)
class Declared:
    """A matrix named on the command line: `Q` (n × d_k), or a head family `Z^{(h)}`."""

    name: str
    rows: sympy.Expr
    cols: sympy.Expr
    family: bool = False

    @property
    def key(self) -> str:
        """`Q`, or `Z^{(h)}` for a family: the name `Resolver.declare` takes."""
        return self.name + "^{(h)}" if self.family else self.name

    @property
    def shape(self) -> tuple[sympy.Expr, sympy.Expr]:
        return (self.rows, self.cols)


_NAME = r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?"
_HEAD = re.compile(r"\^\{?\([a-z]\)\}?$")
_SEP = re.compile(r"\s+x\s+|\s*×\s*|\s*\\times\s*")
_DIM_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)|([*/()]))")


def _norm_name(name: str) -> str:
    return re.sub(r"_\{([A-Za-z0-9]+)\}", r"_\1", name.strip())


def parse_dims(spec: str | None) -> dict[str, Declared]:
    """Read `--dims 'Q,K: n x d_k; V: n x d_v; Z^{(h)}: n x d_v'` (`x`, `×` or `\\times`),
    keyed by `Declared.key`; a tiny parser, never an eval of the user's text.

    >>> m = parse_dims("Q,K: n x d_k; W_O: H*d_v x d; Z^(h): n × d_v")
    >>> m["K"].shape, m["W_O"].rows, m["Z^{(h)}"].family
    ((n, d_k), H*d_v, True)
    """
    out: dict[str, Declared] = {}
    for part in (spec or "").replace("\n", ";").split(";"):
        if not part.strip():
            continue
        names, colon, shape = part.partition(":")
        sides = _SEP.split(shape.strip())
        if not colon or len(sides) != 2 or not names.strip():
            raise ParseError(
                f"cannot read --dims entry {part.strip()!r}: write 'Q,K: n x d_k' "
                "(names, a colon, rows x cols; entries separated by ';')"
            )
        rows, cols = (parse_dim(s) for s in sides)
        for raw in names.split(","):
            name, family = _declared_name(raw, part)
            declared = Declared(name, rows, cols, family)
            old = out.get(declared.key)
            if old is not None and old.shape != declared.shape:
                raise ParseError(
                    f"--dims declares {declared.key} twice: {old.rows} x {old.cols} and "
                    f"{rows} x {cols}; keep one"
                )
            out[declared.key] = declared
    return out


def _declared_name(raw: str, part: str) -> tuple[str, bool]:
    text = raw.strip()
    base = _HEAD.sub("", text)
    if not re.fullmatch(_NAME, base):
        raise ParseError(
            f"cannot read the name {text!r} in --dims entry {part.strip()!r}: "
            "write a matrix name such as Q, W_Q or Z^{(h)}"
        )
    return _norm_name(base), base != text


def parse_dim(text: str) -> sympy.Expr:
    """A dim written `n`, `d_k`, `64`, `H*d_v`, `H d_v` or `d/H` (no eval of user text).

    >>> parse_dim("H d_v"), parse_dim("2*n")
    (H*d_v, 2*n)
    """
    tokens = _dim_tokens(text)
    value, rest = _dim_product(tokens, text)
    if rest:
        raise ParseError(f"cannot read the dim {text.strip()!r}: unexpected {rest[0]!r}")
    try:
        return D.as_dim(value)
    except SymattnError as exc:
        raise ParseError(f"cannot use the dim {text.strip()!r}: {exc}") from None


def _dim_tokens(text: str) -> list[str]:
    pos, out = 0, []
    while pos < len(text.rstrip()):
        m = _DIM_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ParseError(f"cannot read the dim {text.strip()!r} at {text[pos:].strip()!r}")
        out.append(m.group(0).strip())
        pos = m.end()
    if not out:
        raise ParseError("empty dim: write rows x cols, e.g. 'n x d_k'")
    return out


def _dim_product(tokens: list[str], text: str) -> tuple[sympy.Expr, list[str]]:
    value, tokens = _dim_atom(tokens, text)
    while tokens and tokens[0] != ")":
        op = tokens[0] if tokens[0] in "*/" else "*"
        if tokens[0] in "*/":
            tokens = tokens[1:]
        rhs, tokens = _dim_atom(tokens, text)
        value = value * rhs if op == "*" else value / rhs
    return value, tokens


def _dim_atom(tokens: list[str], text: str) -> tuple[sympy.Expr, list[str]]:
    if not tokens:
        raise ParseError(f"cannot read the dim {text.strip()!r}: it ends too early")
    tok, rest = tokens[0], tokens[1:]
    if tok == "(":
        value, rest = _dim_product(rest, text)
        if not rest or rest[0] != ")":
            raise ParseError(f"cannot read the dim {text.strip()!r}: unbalanced parentheses")
        return value, rest[1:]
    if tok.isdigit():
        return sympy.Integer(int(tok)), rest
    if tok in "*/)":
        raise ParseError(f"cannot read the dim {text.strip()!r}: unexpected {tok!r}")
    name = _norm_name(tok)
    return D.STANDARD_DIMS.get(name, D.dim(name)), rest


def parse_assume(items: list[str] | None) -> dict[str, sympy.Expr]:
    """Read `--assume d_k=d/H` (repeatable) into keyword arguments for `symattn.kernel.dims.assume`.

    >>> parse_assume(["d_k=d/H", "n = 5"])
    {'d_k': d/H, 'n': 5}
    """
    out: dict[str, sympy.Expr] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq or not re.fullmatch(_NAME, name.strip()):
            raise ParseError(f"cannot read --assume {item!r}: write NAME=DIM, e.g. d_k=d/H")
        key, dim_value = _norm_name(name), parse_dim(value)
        if key in out and sympy.simplify(out[key] - dim_value) != 0:
            both = f"{key}={out[key]} and {key}={dim_value}"
            if out[key].is_number and dim_value.is_number:
                raise ParseError(f"contradictory assumptions: --assume gives {both}")
            raise ParseError(
                f"--assume gives {key} two values ({both}): state each dim once "
                "(write the other as a relation between the remaining dims)"
            )
        out[key] = dim_value
    return out


def conventional_sizes(
    declared: dict[str, Declared], assume: dict[str, sympy.Expr] | None = None
) -> dict[str, sympy.Expr]:
    """The sizes that explicit numbers given to the chapter's names fix: `Q,K: 3 x 1` makes
    n = 3 and d_k = 1 (Q is n × d_k), so `\\sqrt{d_k}` is 1 beside that Q. A size is bound only
    when every number given for it agrees (`A: 2 x 3` binds no n) and `--assume` does not
    speak of it; a conventional dim that is not a single size (`W_O`'s H·d_v) binds nothing.

    >>> conventional_sizes(parse_dims("Q,K: 3 x 1"))
    {'n': 3, 'd_k': 1}
    >>> conventional_sizes(parse_dims("Q: 3 x 1; V: 4 x 2; A: 2 x 3"))
    {'d_k': 1, 'd_v': 2}
    """
    mentioned: set[str] = set()
    for key, value in (assume or {}).items():
        mentioned.add(key)
        mentioned |= {str(x) for x in sympy.sympify(value, strict=True).free_symbols}
    found: dict[str, set[sympy.Expr]] = {}
    for entry in declared.values():
        table = FAMILIES if entry.family else CONVENTIONS
        conventional = table.get(entry.name)
        if conventional is None:
            continue
        for size, given in zip(conventional, entry.shape, strict=True):
            if isinstance(size, sympy.Symbol) and isinstance(given, sympy.Integer):
                found.setdefault(size.name, set()).add(given)
    return {
        name: next(iter(values))
        for name, values in found.items()
        if len(values) == 1 and name not in mentioned
    }
