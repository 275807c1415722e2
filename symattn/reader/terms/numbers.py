"""Names a text never declares that its formulas or prose show to be numbers, with the place of
that evidence, and the names shown to be matrices. Imports the reader's AST, scanner and names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.inference import parsed
from symattn.reader.terms.name_evidence import _items
from symattn.reader.terms.translator import plain_name

__all__ = ["Evidence", "Numbers", "number_evidence"]

_BOLD = ("mathbf", "boldsymbol", "bm", "vec")
#: Operators written as a letter before a name (`\\partial B`): never a matrix or a number.
_OPERATORS = ("partial", "nabla")
#: Functions whose arguments are matrices (or vectors), never counts.
_MATRIX_CALLS = ("softmax", "attention")
#: Words that name a count or a size, just before a lone name (`the batch size $B$`).
_SIZE_WORD = (
    r"(?:batch\s+size|sequence\s+length|context\s+length|length|size|width|dimension|"
    r"dimensionality|number\s+of\s+[A-Za-z-]+|count|批大小|批量大小|维度|长度|个数|数量|大小|头数|层数)"
)
_BEFORE = re.compile(_SIZE_WORD + r"\s*(?:is|be|=|,|:|：|，|为|是)?\s*\Z", re.I)
_AFTER = re.compile(
    r"\A\s*(?:\$\$|\$|\\\)|\\\\\))?"
    r"(?:\s*(?:,|and|与|和|、)\s*(?:\$\$[^$]{1,30}\$\$|\$[^$]{1,30}\$|\\\([^()]{1,30}\\\)))*"
    r"\s*(?:\(|（)?\s*(?:is|are|denotes|denote|for|为|是|表示)?\s*(?:the\s+|a\s+|an\s+)?"
    + _SIZE_WORD,
    re.I,
)


@dataclass(frozen=True)
class Evidence:
    """What a text's use of a name shows, and where: `a denominator at line 12`."""

    why: str
    line: int
    #: the formula (its `id`) the evidence is in; 0 for the prose
    where: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return f"{self.why} at line {self.line}"


@dataclass
class Numbers:
    """For each undeclared name, the first place that shows it is a number, and the first that
    shows it is a matrix. A name with both is contested: read as neither."""

    numbers: dict[str, Evidence] = field(default_factory=dict)
    matrices: dict[str, Evidence] = field(default_factory=dict)
    #: how many formulas give each name a value (`F = 4D`)
    definitions: dict[str, int] = field(default_factory=dict)
    #: names first used in the formula that gives them their value (`T_\\text{math} = ...`)
    introduced: set[str] = field(default_factory=set)
    #: how many of those formulas give a name a number written out (`T = 1024`, `D = 1{,}600`)
    literal_values: dict[str, int] = field(default_factory=dict)

    #: formulas (by `id`) that only introduce names by their definitions, and those names
    definition_spans: dict[int, list[str]] = field(default_factory=dict)
    #: the names each formula (by `id`) uses
    uses: dict[int, set[str]] = field(default_factory=dict)
    #: every formula's evidence that a name is a number (`numbers` keeps the first)
    places: dict[str, list[Evidence]] = field(default_factory=dict)
    #: the names of each side of each claim of each formula (by `id`)
    sides: dict[int, list[set[str]]] = field(default_factory=dict)

    def defined(self) -> set[str]:
        """The names a definition introduces: given a value once, by their first formula; and
        the names every definition of which writes out a number (`T = 1024`, later `T = 2048`:
        a value in force from each formula to the next)."""
        once = {k for k in self.introduced if self.definitions.get(k) == 1}
        return once | self.valued()

    def valued(self) -> set[str]:
        """The names each formula that gives them a value gives a number written out."""
        return {k for k, v in self.literal_values.items() if v == self.definitions.get(k)}

    def readable(self, conventional: Iterable[str] = ()) -> dict[str, Evidence]:
        """The names read as numbers: number evidence and no matrix evidence. A `conventional`
        name (a matrix by the chapter's conventions: `V`) needs the prose's word, or a formula
        whose every capital is a number (`\\frac{ST}{S+T}` beside `B`, `D`): `\\frac{Q}{V}` is
        Q over the matrix V, an error, not Q over a number."""
        known = set(conventional)
        out = {}
        for k, v in self.numbers.items():
            if k in self.matrices:
                continue
            if k in known and v.where and not self._counting(v.where, k):
                # a later formula may show it among numbers only (`D/(BS)` beside B and D)
                later = [p for p in self.places.get(k, ()) if self._counting(p.where, k)]
                if not later:
                    continue
                v = later[0]
            out[k] = v
        return out

    def _counting(self, where: int, name: str) -> bool:
        """Whether every other capital of the formula is a number, and two or more of them by
        evidence of their own (not by being equal to a number there: in `M = N/K`, M is a
        number only if K is one, and N alone does not make a count of it); or so of one side
        of one of its claims that holds the name (`\\frac{D}{2 + D/(BS)}` after `AI =`)."""
        if self._all_numbers(self.uses.get(where, set()), name, where):
            return True
        return any(
            name in side and self._all_numbers(side, name, where)
            for side in self.sides.get(where, ())
        )

    def _all_numbers(self, names: set[str], name: str, where: int) -> bool:
        capitals = {x for x in names if x[:1].isupper()} - {name}
        direct = 0
        for x in capitals:
            got = self.numbers.get(x)
            if got is None or x in self.matrices:
                return False
            if not (got.why == "equal to a number" and got.where == where):
                direct += 1
        return direct >= 2

    def conflicts(self) -> dict[str, tuple[Evidence, Evidence]]:
        return {k: (v, self.matrices[k]) for k, v in self.numbers.items() if k in self.matrices}


def number_evidence(
    spans: Sequence[object], text: str = "", declared: Iterable[str] = ()
) -> Numbers:
    """Evidence across a document that names it never declares are numbers: a denominator, a
    radicand, an exponent, a bound of a sum, a dim of a space (`\\mathbb R^{B\\times D}`),
    equality with a product of numbers (`F = 4D` once D is one), or the prose naming it as a
    count or size just before or after it (`the batch size $B$`, `$H$ 为头数`). Matrix evidence:
    a bold font, a transpose, an argument of softmax or attention, an entry index (`M_{ij}`), a
    space of two dims (`\\in\\mathbb R^{n\\times d}`), a product with one of those.

    >>> from symattn.reader.syntax.scanner import scan
    >>> got = number_evidence(scan("$T = 4BD/(NC)$ and $F = 4D$ and $X^T Y$", kind="md"))
    >>> sorted(got.readable()), str(got.numbers["N"]), sorted(got.matrices)
    (['C', 'N'], 'a denominator at line 1', ['X', 'Y'])
    """
    taken = set(declared)
    out = Numbers()
    seen: set[str] = set()
    formulas: list[tuple[MathSpan, list[ast.Claim]]] = []
    for span in spans:
        if not isinstance(span, MathSpan):
            continue
        try:
            formula = parsed(blank_notes(span.body), span.env)  # read once, also for shapes
        except (ParseError, RecursionError):
            continue
        claims = [x for x in _items(formula.items) if isinstance(x, ast.Claim)]
        formulas.append((span, claims))
        for c in claims:
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                _walk(span, node, out)
            _declared_matrix(span, c, out)
            subject = plain_name(c.subjects[0]) if len(c.subjects) == 1 else None
            if subject is not None and c.steps and c.steps[0].rel in ("=", "gets"):
                out.definitions[subject] = out.definitions.get(subject, 0) + 1
                if len(c.steps) == 1 and isinstance(c.steps[0].rhs, ast.Number):
                    out.literal_values[subject] = out.literal_values.get(subject, 0) + 1
                if subject not in seen:
                    out.introduced.add(subject)
            if not c.steps:
                continue  # `the width $D$`: a name shown, not used
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                seen |= {x for x in map(plain_name, _all_names(node)) if x is not None}
        out.sides[id(span)] = [
            {x for x in map(plain_name, _all_names(node)) if x is not None}
            for c in claims
            for node in (*c.subjects, *(s.rhs for s in c.steps))
        ]
        out.uses[id(span)] = {
            x
            for c in claims
            for node in (*c.subjects, *(s.rhs for s in c.steps))
            for x in map(plain_name, _all_names(node))
            if x is not None
        }
        subjects = [plain_name(c.subjects[0]) if len(c.subjects) == 1 else None for c in claims]
        if claims and all(x is not None and x in out.introduced for x in subjects):
            out.definition_spans[id(span)] = [x for x in subjects if x is not None]
        if text:
            _prose(span, claims, text, out)
            _counted(span, claims, text, out)
    _products(formulas, out)
    _equalities(formulas, out)
    for name in taken:
        out.numbers.pop(name, None)
    return out


def _line(span: MathSpan, node: ast.Node) -> int:
    return span.start.line + span.body[: node.start].count("\n")


def _names(node: ast.Node) -> Iterable[ast.Symbol | ast.Labeled]:
    """The names in `node`, not descending into a name's or an operator's own subscript, nor
    into a head's index."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol | ast.Labeled):
            yield x
            continue
        if isinstance(x, ast.Call):  # `\operatorname{repeat}_R(K)`: R is the operator's
            stack.extend(x.args)  # parameter, not a name of the value
            continue
        if isinstance(x, ast.HeadSup):  # `K^{(\lceil h/R\rceil)}`: the head is an index
            stack.append(x.operand)
            continue
        stack.extend(ast.children(x))


def _all_names(node: ast.Node) -> Iterable[ast.Symbol | ast.Labeled]:
    """Every name in `node`, the names inside subscripts too."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol | ast.Labeled):
            yield x
        stack.extend(ast.children(x))


def _note(
    book: dict[str, Evidence],
    node: ast.Node,
    why: str,
    span: MathSpan,
    places: dict[str, list[Evidence]] | None = None,
) -> None:
    for sym in _names(node):
        name = plain_name(sym)
        if name is not None and name[:1].isalpha():
            seen = Evidence(why, _line(span, sym), id(span))
            book.setdefault(name, seen)
            if places is not None:
                places.setdefault(name, []).append(seen)


def _walk(span: MathSpan, node: ast.Node, out: Numbers) -> None:
    stack = [node]
    while stack:
        x = stack.pop()
        stack.extend(ast.children(x))
        if isinstance(x, ast.Frac) and not _derivative(x):
            _note(out.numbers, x.den, "a denominator", span, out.places)
        elif isinstance(x, ast.Mul):
            for op, f in zip(x.ops, x.factors[1:], strict=False):
                if op == "/":
                    _note(out.numbers, f, "a denominator", span, out.places)
        elif isinstance(x, ast.Sqrt):
            _note(out.numbers, x.radicand, "under a square root", span, out.places)
        elif isinstance(x, ast.Power):
            _note(out.numbers, x.exponent, "an exponent", span, out.places)
        elif isinstance(x, ast.Sum):
            for bound in (x.lower, x.upper):
                if bound is not None:
                    _note(out.numbers, bound, "a bound of a sum", span, out.places)
        elif isinstance(x, ast.Reals):
            for d in x.shape:
                _note(out.numbers, d, "a dim of a space", span, out.places)
        elif isinstance(x, ast.Transpose):
            _note(out.matrices, x.operand, "transposed", span)
        elif isinstance(x, ast.Call) and x.name.lower() in _MATRIX_CALLS:
            for arg in x.args:
                if plain_name(arg) is not None:
                    _note(out.matrices, arg, f"an argument of {x.name}", span)
        elif isinstance(x, ast.Symbol):
            name = plain_name(x)
            if x.sub is not None and x.name[:1].isupper() and _entry_index(x.sub):
                entry = Evidence("written with an entry index", _line(span, x), id(span))
                out.matrices.setdefault(x.name, entry)
            if name is None:
                continue
            if x.font in _BOLD:
                out.matrices.setdefault(name, Evidence("in bold", _line(span, x)))


def _derivative(frac: ast.Frac) -> bool:
    """`\\frac{\\partial C}{\\partial B}`, `\\frac{dC}{dB}`: a derivative, whose denominator
    names no number."""

    def first(node: ast.Node) -> str:
        x = node.factors[0] if isinstance(node, ast.Product) and node.factors else node
        return x.name if isinstance(x, ast.Symbol) else ""

    if first(frac.den) in ("partial", "nabla"):
        return True
    return first(frac.den) == "d" == first(frac.num)


def _entry_index(sub: ast.Node) -> bool:
    """`M_{ij}`, `M_{i,j}`: two single-letter indices."""
    if isinstance(sub, ast.Seq):
        return len(sub.items) == 2
    if isinstance(sub, ast.Product):
        return len(sub.factors) == 2 and all(
            isinstance(f, ast.Symbol) and len(f.name) == 1 and f.name.islower() for f in sub.factors
        )
    return False


def _declared_matrix(span: MathSpan, c: ast.Claim, out: Numbers) -> None:
    """`M \\in \\mathbb R^{n\\times d}`: each subject is a matrix (unless a dim is 1)."""
    for step in c.steps:
        if step.rel != "in" or not isinstance(step.rhs, ast.Reals) or len(step.rhs.shape) != 2:
            continue
        if any(isinstance(d, ast.Number) and d.text == "1" for d in step.rhs.shape):
            continue
        for subject in c.subjects:
            name = plain_name(subject)
            if name is not None:
                out.matrices.setdefault(name, Evidence("declared a matrix", _line(span, subject)))


def _products(formulas: list[tuple[MathSpan, list[ast.Claim]]], out: Numbers) -> None:
    """A name multiplied by a matrix, side by side (`M N` with M a matrix and never shown to be
    a number), is a matrix."""
    grown = True
    while grown:
        grown = False
        for span, claims in formulas:
            for c in claims:
                for root in (*c.subjects, *(s.rhs for s in c.steps)):
                    stack: list[ast.Node] = [root]
                    while stack:
                        x = stack.pop()
                        stack.extend(ast.children(x))
                        fs = x.factors if isinstance(x, ast.Product) else ()
                        for a, b in zip(fs, fs[1:], strict=False):
                            for one, other in ((a, b), (b, a)):
                                name, near = plain_name(one), _matrix_name(other, out)
                                if name is None or name in out.matrices or near is None:
                                    continue
                                if name in _OPERATORS:
                                    continue  # `\\partial B`: a derivative, no product
                                why = f"multiplied by the matrix {near}"
                                out.matrices[name] = Evidence(why, _line(span, one))
                                grown = True


def _matrix_name(node: ast.Node, out: Numbers) -> str | None:
    if isinstance(node, ast.Transpose):
        node = node.operand
    name = plain_name(node)
    if name is None or name not in out.matrices or name in out.numbers:
        return None  # a name also shown to be a number makes no other name a matrix
    return name


def _scalar(node: ast.Node, out: Numbers) -> bool:
    """A product, sum or quotient of numbers and names shown to be numbers."""
    if isinstance(node, ast.Number):
        return True
    if isinstance(node, ast.Symbol | ast.Labeled):
        name = plain_name(node)
        return name is not None and name in out.numbers and name not in out.matrices
    if isinstance(node, ast.Product | ast.Mul):
        return all(_scalar(f, out) for f in node.factors)
    if isinstance(node, ast.Add):
        return all(_scalar(t, out) for t in node.terms)
    if isinstance(node, ast.Frac):
        return _scalar(node.num, out) and _scalar(node.den, out)
    if isinstance(node, ast.Group) and len(node.items) == 1:
        return _scalar(node.items[0], out)
    if isinstance(node, ast.Neg | ast.Sqrt):
        return _scalar(node.operand if isinstance(node, ast.Neg) else node.radicand, out)
    if isinstance(node, ast.Power):
        return _scalar(node.base, out) and _scalar(node.exponent, out)
    return False


def _equalities(formulas: list[tuple[MathSpan, list[ast.Claim]]], out: Numbers) -> None:
    """`F = 4D` with D a number: F is one (a name equal to a product of numbers)."""
    grown = True
    while grown:
        grown = False
        for span, claims in formulas:
            for c in claims:
                if len(c.subjects) != 1 or any(s.rel != "=" for s in c.steps):
                    continue
                sides = [c.subjects[0], *(s.rhs for s in c.steps)]
                if not any(_scalar(x, out) for x in sides):
                    continue
                for x in sides:
                    name = plain_name(x)
                    if name is None or name in out.numbers or name in out.matrices:
                        continue
                    out.numbers[name] = Evidence("equal to a number", _line(span, x), id(span))
                    grown = True


def _prose(span: MathSpan, claims: list[ast.Claim], text: str, out: Numbers) -> None:
    """`the batch size $B$`, `$H$ (number of heads)`: a lone name the prose calls a size."""
    if len(claims) != 1 or claims[0].steps or len(claims[0].subjects) != 1:
        return
    subject = claims[0].subjects[0]
    name = plain_name(subject)
    if name is None or not name[:1].isalpha():
        return
    begin = span.start.offset - len(span.delimiter)
    before = text[max(0, begin - 40) : begin]
    after = text[span.end : span.end + 40]
    if _BEFORE.search(before) or _AFTER.match(after):
        out.numbers.setdefault(name, Evidence("called a size by the text", span.start.line))


#: What a count counts, written after it: `$2NPM$ FLOPs`, `$4BD$ bytes`, `$6BT$ 次浮点运算`.
_COUNT_WORD = re.compile(
    r"\A\s*(?:\$\$|\$|\\\)|\\\\\))?\s*(?:total\s+|in\s+total\s+)?"
    r"(?:FLOPs?\b|flops\b|params\b|parameters\b|bytes\b|tokens\b|multiply-adds\b|"
    r"次(?:浮点)?(?:运算|乘法|乘加)|个参数|字节)",
)


def _counted(span: MathSpan, claims: list[ast.Claim], text: str, out: Numbers) -> None:
    """`$2NPM$ FLOPs`, `$4BD$ bytes`: a product of a numeral and plain capitals that the prose
    says counts FLOPs, parameters, bytes or tokens; each capital is a factor of a count."""
    if len(claims) != 1 or claims[0].steps or len(claims[0].subjects) != 1:
        return
    subject = claims[0].subjects[0]
    factors = subject.factors if isinstance(subject, ast.Product | ast.Mul) else (subject,)
    if isinstance(subject, ast.Mul) and any(op not in ("cdot", "times") for op in subject.ops):
        return
    names: list[ast.Symbol] = []
    for f in factors:
        if isinstance(f, ast.Power) and isinstance(f.exponent, ast.Number):
            f = f.base
        if isinstance(f, ast.Number):
            continue
        if not (isinstance(f, ast.Symbol) and f.sub is None and f.font is None):
            return
        if len(f.name) != 1 or not f.name.isupper():
            return
        names.append(f)
    match = _COUNT_WORD.match(text[span.end : span.end + 40])
    if not names or match is None:
        return
    word = match.group(0).strip(" $\\)").split()[-1]
    for sym in names:
        why = f"a factor of a count of {word}"
        out.numbers.setdefault(sym.name, Evidence(why, _line(span, sym)))
