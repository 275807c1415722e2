"""Capitals used as sizes in a scalar claim (`2BTD + 2BTD = 4BTD`, `2 \\cdot L \\cdot D^2`): read
as positive integers the text never declares. Imports the reader's AST, claims, scope, terms."""

from __future__ import annotations

import dataclasses
import itertools
import re

import sympy

from symattn.kernel.dims import n
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.infer import scalar_reading
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.claims.section_numbers import borrowed_numbers, note_section_numbers
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import CONVENTIONS
from symattn.reader.terms.numbers import number_evidence
from symattn.reader.terms.scope import Name, Scope
from symattn.reader.terms.translator import UNREAD, Terms, as_comparable, plain_name

__all__ = [
    "counted_capitals",
    "note_numbers",
    "number_claim",
    "size_claim",
    "size_letters",
    "stated_relations",
]

#: `a / 4BHK \\cdot (G+1)`: an inline division before a product; which factors divide is unclear.
_INLINE_DIVISION = re.compile(
    r"/\s*(?:\d+\s*)?(?:[A-Za-z]\s*){2,}|/\s*[^/=]*?(?:\\cdot|\*|\\times)"
)
#: `84TB`, `8 GiB`: a number and a unit of memory, not a product of sizes.
_UNIT = re.compile(r"\d\s*(?:[KMGTPE]i?B|B)(?![A-Za-z])")
#: `84TB`, `8 GiB`: a multiple of a byte; a lone `2B` is twice the batch size where the text
#: shows B to be a number
_BYTES = re.compile(r"\d\s*[KMGTPE]i?B(?![A-Za-z])")


def size_claim(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`left = right` whose capitals the text never declares, each used only as a factor of
    numbers and other sizes: decided with them read as positive integers. None when a capital
    is a matrix of the document's, carries a subscript or an index, or a side is then not a
    scalar; undecided when a capital is also one of the chapter's conventional matrices.

    Sound: a proof holds for every positive value, so for every size. A false is a certified
    point of positive integers, kept only when both sides use the same sizes, no relation
    between them was stated before (`F = 4D`), and no inline division or unit makes the
    reading doubtful; otherwise the claim is undecided."""
    symbols = _outer(left) + _outer(right)
    capitals = [x for x in symbols if x.name[:1].isupper()]
    if not capitals:
        return None
    scope = terms.scope
    if not isinstance(scope, Scope):
        return None
    contested = _contested(scope, span, capitals, start, end)
    if contested is not None:
        return contested
    plain = [x for x in capitals if _label(x) not in scope.numbers]
    if any(x.sub is not None or x.font is not None or len(x.name) != 1 for x in plain):
        return None  # `W_Q`, `\\mathbf{X}`, `L^{combined}`: a name of its own, not a size
    names = list(dict.fromkeys(_label(x) for x in capitals if _label(x) not in scope.dims))
    if not names or any(scope.document_matrix(x) for x in names):
        return None  # a matrix of the text's is never read as a number
    conventional = [x for x in names if x in CONVENTIONS and x not in scope.numbers]
    sizes = frozenset(names)
    claim = scalar_reading(terms, span, left, right, names, start, end, sizes=sizes)
    if claim is None:
        return None
    body = span.body[start:end]
    if conventional:
        claim = _also_as_conventional(terms, span, left, right, claim, conventional, names)
        if claim.status != "pending":
            return claim
    claim = _with_evidence(claim, scope, names)
    unvalued = claim
    claim = _with_values(claim, scope, names)
    defined = _definition(scope, span, left, right, claim, start, end)
    if defined is not None:
        return defined
    bare = [x for x in names if x not in scope.numbers and x not in conventional]
    if bare:
        claim = _also_as_matrices(terms, span, left, right, claim, bare, start, end)
        if claim.status != "pending":
            return claim
    sides = [_capital_names(left, scope.dims), _capital_names(right, scope.dims)]
    related = scope.size_relations & sizes
    uses_values = any(x in scope.number_values for x in names)  # a claim about definitions
    if sides[0] != sides[1] and not _cancels(sides) and not uses_values:
        scope.size_relations |= sizes  # `F = 4D`, `D = NH`: a relation the text states
    doubt = ""
    if related:
        doubt = f"the text relates {', '.join(sorted(related))} to other sizes"
    elif _INLINE_DIVISION.search(body):
        doubt = "a division is written inline before a product, so its denominator is unclear"
    elif _UNIT.search(body) and not (_BYTES.search(body) is None and "B" in scope.numbers):
        doubt = "a number is followed by what may be a unit of memory"
    doubt = doubt or borrowed_numbers(scope, names) or _holds_somewhere(claim, names)
    if not doubt and not related and _refutable(scope, left, names, claim.defines):
        claim = dataclasses.replace(claim, defines="")  # a count that fails is an error
    if doubt and not claim.defines:
        why = (
            f"{', '.join(names)} are sizes the text does not declare; read as independent "
            f"positive integers the claim fails, but {doubt}"
        )
        claim = dataclasses.replace(claim, defines=why)
    return _other_values(claim, unvalued, scope, names)


def _other_values(
    claim: ResolvedClaim, unvalued: ResolvedClaim, scope: Scope, names: list[str]
) -> ResolvedClaim:
    """A claim read with the value a name was given last (`D = 8192`) that fails there but
    holds with a value the text gave it before (`D = 4096`): the text may mean that one, so
    the claim is undecided; a claim that fails at every value the text gave stays for the
    kernel (an error of the text). `unvalued` is the claim before the values were put in."""
    earlier = {
        x: list(dict.fromkeys(v for v, _ in scope.number_history[x][:-1]))
        for x in names
        if len(scope.number_history.get(x, ())) > 1
    }
    if not earlier or claim.status != "pending" or claim.split:
        return claim
    numbers = [
        (a, b)
        for a, b in unvalued.pairs
        if isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)
        if not isinstance(a, MatExpr) and not isinstance(b, MatExpr)
    ]
    if not numbers or len(numbers) != len(unvalued.pairs):
        return claim
    last = {sympy.Symbol(x, positive=True): v for x, (v, _) in scope.number_values.items()}

    def holds(at: dict[sympy.Symbol, sympy.Expr]) -> bool | None:
        try:
            gaps = [sympy.simplify((a - b).subs(at)) for a, b in numbers]
        except (TypeError, ValueError, ZeroDivisionError):
            return None
        if any(g.free_symbols for g in gaps):
            return None
        return all(g == 0 for g in gaps)

    if holds(last) is not False:
        return claim
    for combo in itertools.islice(itertools.product(*earlier.values()), 64):
        at = dict(last)
        at.update({sympy.Symbol(x, positive=True): v for x, v in zip(earlier, combo, strict=True)})
        if holds(at):
            said = ", ".join(f"{x} = {v}" for x, v in zip(earlier, combo, strict=True))
            now = ", ".join(f"{x} = {scope.number_values[x][0]}" for x in earlier)
            msg = (
                f"not decided: the sides differ with {now}, the value the text gave last, and "
                f"agree with {said}, a value it gave before: which one it means here is not said"
            )
            return new_claim(claim.span, claim.start, claim.end, "unknown", msg)
    return claim


def _holds_somewhere(claim: ResolvedClaim, names: list[str]) -> str:
    """Why a failing equation in one size may be a condition, not an identity: it holds at a
    small size (`P^2 = P` at P = 1, said of a projection P); "" when it holds at none
    (`4D = 5D`), or for several sizes (`2LD^2 = 2L^2D` holds wherever L = D, and is wrong)."""
    numbers = [
        (a, b)
        for a, b in claim.pairs
        if isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr)
        if not isinstance(a, MatExpr) and not isinstance(b, MatExpr)
    ]
    if len(numbers) != 1 or len(names) != 1:
        return ""  # (of several sizes, a wrong count often holds where they are equal)
    lhs, rhs = numbers[0]
    gap = lhs - rhs
    symbols = [s for s in gap.free_symbols if isinstance(s, sympy.Symbol) and s.name in names]
    if not symbols or len(symbols) != len(gap.free_symbols):
        return ""
    for point in itertools.product(range(1, 5), repeat=len(symbols)):
        at = dict(zip(symbols, point, strict=True))
        try:
            zero = sympy.simplify(gap.subs(at)) == 0
        except (TypeError, ValueError, ZeroDivisionError):
            return ""
        if zero:
            where = ", ".join(f"{s} = {v}" for s, v in sorted(at.items(), key=lambda x: x[0].name))
            return f"the sides are equal at {where}: it may state a condition, not an identity"
    return ""


#: A shape error between a matrix and a scalar: what a count read with a matrix's letter gives.
_MATRIX_AND_SCALAR = re.compile(r"a (?:matrix (?:and|with) a scalar|scalar (?:and|with) a matrix)")


def counted_capitals(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
    message: str,
) -> ResolvedClaim | None:
    """`P = Vd + 2d`, `V` the vocabulary size in a text that also writes attention's V: a
    matrix added to a number, where the matrix is only a letter of the chapter's conventions
    (the text never declares it) used as a factor of sizes. Read as a size claim (undecided
    when the conventional reading is not ruled out, `size_claim`), not as the text's shape
    error. None when the error is another one, or the letter is the text's matrix."""
    if not _MATRIX_AND_SCALAR.search(message):
        return None
    scope = terms.scope
    if not isinstance(scope, Scope) or not (_counts(left, scope) or _counts(right, scope)):
        return None  # `d = X`: no count is made with the matrix's letter
    claim = size_claim(terms, span, left, right, start, end)
    return None if claim is None or claim.status == "shape_error" else claim


def _counts(node: ast.Node, scope: Scope) -> bool:
    """Whether `node` makes a count with a single capital: multiplies it by a number or a
    size (`Vd`, `2V`), or adds it to a number or a size (`V + n`)."""
    stack = [node]
    while stack:
        x = stack.pop()
        stack.extend(ast.children(x))
        parts = x.factors if isinstance(x, (ast.Product, ast.Mul)) else ()
        parts = x.terms if isinstance(x, ast.Add) else parts
        capital = [p for p in parts if _single_capital(p, scope)]
        counted = [p for p in parts if _sized(p, scope)]
        if capital and counted:
            return True
    return False


def _single_capital(node: ast.Node, scope: Scope) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and node.sub is None
        and node.font is None
        and len(node.name) == 1
        and node.name.isupper()
        and node.name not in scope.dims
    )


def _sized(node: ast.Node, scope: Scope) -> bool:
    """A number, a size, or a power or product of them (`2`, `d`, `d^2`, `2nd`)."""
    if isinstance(node, ast.Number):
        return True
    if isinstance(node, ast.Symbol):
        return node.font is None and plain_name(node) in scope.dims
    if isinstance(node, ast.Power):
        return _sized(node.base, scope) and isinstance(node.exponent, ast.Number)
    if isinstance(node, (ast.Product, ast.Mul)):
        return all(_sized(f, scope) for f in node.factors)
    return False


def number_claim(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`left = right` whose capitals are all numbers by the document's evidence (`T_\\text{math}
    = 4BDF/(NC)`, with N a denominator): read as a size claim before any other reading (a
    definition of a matrix T, a product of matrices). None when a capital has no such evidence
    or the text declares it."""
    scope = terms.scope
    if not isinstance(scope, Scope) or not (scope.numbers or scope.contested_numbers):
        return None
    if _new_name(terms, left, right):
        return None  # `\theta_i = C^{-2i/d}`: the text defines a name of its own by it
    labels = {_label(x) for x in _outer(left) + _outer(right) if x.name[:1].isupper()}
    evidenced = labels & (set(scope.numbers) | set(scope.contested_numbers))
    if not evidenced or not labels <= evidenced | set(scope.dims):
        return None
    own = [x for x in labels if scope.lookup(x) is not None]
    if any(getattr(scope.lookup(x), "origin", "") != "inferred" for x in own):
        return None  # a name the text declares keeps its declaration
    if own and not (set(own) & set(scope.contested_numbers)):
        return None
    return size_claim(terms, span, left, right, start, end)


def _new_name(terms: Terms, left: ast.Node, right: ast.Node) -> bool:
    """`left` is a lower-case or Greek letter (with an index or not) the text has not declared
    nor defined, absent from `right`: the equation defines it."""
    if not isinstance(left, ast.Symbol) or not left.name[:1].islower():
        return False
    label = _label(left)
    bare = _label(ast.Symbol(left.name, left.font, start=left.start, end=left.end))
    scope = terms.scope
    if scope.lookup(plain_name(left) or label) is not None or scope.lookup(left.name.upper()):
        return False  # `q_i`, `a_{ij}`: a row or an entry of a matrix in scope
    if label in terms.defs.table or bare in terms.defs.table:
        return False
    return all(x.name != left.name for x in ast.symbols(right))


def _refutable(scope: Scope, left: ast.Node, names: list[str], defines: str) -> bool:
    """A claim about numbers the text shows to be numbers (each one), that is no definition
    (its left side is not a lone name) and held back only because a name is on one side
    (`\\frac{4BST}{4BS} = S`): a point where it fails is an error of the text."""
    if not defines.endswith("the sizes the text means may be related"):
        return False
    if plain_name(left) is not None:
        return False  # `T = 4BD`: the text's definition of T
    return bool(names) and all(x in scope.numbers for x in names)


def _with_values(claim: ResolvedClaim, scope: Scope, names: list[str]) -> ResolvedClaim:
    """The names the text defined before (`F = 4D`, once in the document) read as defined."""
    used = [x for x in names if x in scope.number_values]
    if not used or claim.status != "pending":
        return claim
    table = {sympy.Symbol(x, positive=True): scope.number_values[x][0] for x in used}
    pairs = tuple((a.subs(table), b.subs(table)) for a, b in claim.pairs)
    shown = ", ".join(
        f"{x} = {scope.number_values[x][0]} (line {scope.number_values[x][1]})" for x in used
    )
    context = f"{claim.context}; with {shown} as the text defines" if claim.context else ""
    return dataclasses.replace(claim, pairs=pairs, context=context or f"with {shown}")


def _definition(
    scope: Scope,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    claim: ResolvedClaim,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """`F = 4D`, `T_\\text{math} = 4BDF/(NC)`: a name shown to be a number, given its only
    value in the document, not on the right side: defined (later claims read it so)."""
    name = plain_name(left)
    if name is None or name not in scope.numbers or name not in scope.defined_once:
        return None
    if name in {_label(x) for x in ast.symbols(right)}:
        return None
    before = scope.number_values.get(name)
    if before is not None and name not in scope.valued:
        return None  # `F = 4D` once: a later `F = ...` is a claim about it
    if claim.status != "pending" or len(claim.pairs) != 1 or claim.split:
        return None
    value = claim.pairs[0][1]
    if isinstance(value, MatExpr) or not isinstance(value, sympy.Expr):
        return None
    line = span.start.line + span.body[:start].count("\n")
    scope.number_values[name] = (value, line)
    scope.number_history.setdefault(name, []).append((value, line))
    msg = f"defines {name} = {value}, a number"
    if before is not None and before[0] == value:
        msg = f"gives {name} the value {value} again (as at line {before[1]})"
    elif before is not None:
        msg = f"gives {name} the value {value} from here on (it was {before[0]}, line {before[1]})"
    elif claim.context:
        msg += f" ({claim.context})"
    return new_claim(span, start, end, "declared", msg)


def _also_as_matrices(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    claim: ResolvedClaim,
    bare: list[str],
    start: int,
    end: int,
) -> ResolvedClaim:
    """Capitals the text never shows to be numbers may be matrices (`MN = NM`): the claim is
    also read with them as n × n matrices, and a verdict needs both readings to agree. Where
    the matrix reading cannot be formed, or the number reading is already read two ways, the
    claim is undecided."""
    scope = terms.scope
    assert isinstance(scope, Scope)
    shown = ", ".join(bare)
    why = (
        f"not decided: nothing in the text shows that {shown} "
        f"{'is a number' if len(bare) == 1 else 'are numbers'}, and read as matrices "
    )
    if claim.split:
        return new_claim(span, start, end, "unknown", why + "the claim is read two ways")
    table = scope.top().names
    saved = {x: table.get(x) for x in bare}
    numbers = {x: sympy.Symbol(x, positive=True) for x in scope.numbers}
    try:
        for x in bare:
            table[x] = Name((n, n), "declared", -1, 0)
        for x, (value, _) in scope.number_values.items():
            numbers[x] = value
        terms.scalars = dict(numbers)  # the names shown to be numbers stay numbers
        pair = as_comparable(terms.term(_juxtaposed(left)), terms.term(_juxtaposed(right)))
    except (*UNREAD, SymattnError) as e:
        return new_claim(span, start, end, "unknown", why + f"it is not read ({_first(e)})")
    finally:
        terms.scalars = {}
        for x, old in saved.items():
            if old is None:
                table.pop(x, None)
            else:
                table[x] = old
    if isinstance(pair[0], MatExpr) != isinstance(pair[1], MatExpr):
        return new_claim(span, start, end, "unknown", why + "its sides are not comparable")
    readings = f"{shown} as numbers, or as n × n matrices"
    return dataclasses.replace(
        claim, pairs=(*claim.pairs, pair), split=len(claim.pairs), readings=readings
    )


def _also_as_conventional(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    claim: ResolvedClaim,
    conventional: list[str],
    names: list[str],
) -> ResolvedClaim:
    """`\\frac{4BSN}{4BN} = S` with S a matrix only by the chapter's conventions and shown to
    be no number: also read with S as that matrix (the other names numbers), and a verdict
    needs both readings to agree; undecided where that reading cannot be formed."""
    shown = ", ".join(conventional)
    why = (
        f"not decided: {shown} {'is' if len(conventional) == 1 else 'are'} a matrix by the "
        "chapter's conventions and a size here (a factor of numbers and sizes); the text "
        "does not say which"
    )
    start, end = claim.start, claim.end
    if claim.split:
        return new_claim(span, start, end, "unknown", why)
    terms.scalars = {x: sympy.Symbol(x, positive=True) for x in names if x not in conventional}
    try:
        pair = as_comparable(terms.term(left), terms.term(right))
    except (*UNREAD, SymattnError) as e:
        return new_claim(
            span, start, end, "unknown", f"{why}, and as a matrix it is not read ({_first(e)})"
        )
    finally:
        terms.scalars = {}
    if not (isinstance(pair[0], MatExpr) and isinstance(pair[1], MatExpr)):
        return new_claim(span, start, end, "unknown", why)
    readings = f"{shown} as numbers, or as the chapter's matrices"
    note = (
        f"{shown} also read as the chapter's {'matrix' if len(conventional) == 1 else 'matrices'}"
    )
    context = f"{claim.context}; {note}" if claim.context else note
    return dataclasses.replace(
        claim,
        pairs=(*claim.pairs, pair),
        split=len(claim.pairs),
        readings=readings,
        context=context,
    )


def _juxtaposed(node: ast.Node) -> ast.Node:
    """The formula as a product of matrices: `a \\cdot b` and `a \\times b` as `ab`, `D^2` as
    `DD` (a matrix reading of a count's notation)."""
    if isinstance(node, ast.Mul) and all(op in ("cdot", "times") for op in node.ops):
        factors = tuple(_juxtaposed(f) for f in node.factors)
        return ast.Product(factors, start=node.start, end=node.end)  # type: ignore[arg-type]
    if (
        isinstance(node, ast.Power)
        and isinstance(node.base, ast.Symbol)
        and isinstance(node.exponent, ast.Number)
        and node.exponent.text in ("2", "3", "4")
    ):
        copies = (node.base,) * int(node.exponent.text)
        return ast.Product(copies, start=node.start, end=node.end)
    changes: dict[str, object] = {}
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            changes[f.name] = _juxtaposed(value)
        elif isinstance(value, tuple) and value and all(isinstance(x, ast.Node) for x in value):
            changes[f.name] = tuple(_juxtaposed(x) for x in value)
    return dataclasses.replace(node, **changes) if changes else node  # type: ignore[arg-type]


def _first(e: Exception) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def note_numbers(scope: Scope, items: list[object], text: str) -> None:
    """Give `scope` the capitals (`B`, `T_\\text{math}`) the document shows to be numbers, each
    with its evidence, and those it shows to be both a number and a matrix."""
    got = number_evidence(items, text)
    readable = {k: str(v) for k, v in got.readable(CONVENTIONS).items() if k[:1].isupper()}
    contested = {
        k: f"{a} and a matrix ({b})" for k, (a, b) in got.conflicts().items() if k[:1].isupper()
    }
    defined = got.defined()
    scope.note_numbers(readable, contested, defined)
    scope.valued = got.valued()
    note_section_numbers(scope, items, text, got)
    # a definition that introduces a name (`T = 4BD/N`, read as defined) relates no sizes,
    # nor does a claim about such a name (`T N = 4BD`): it is read with the definition
    kept = [x for x in items if not (got.uses.get(id(x), set()) & defined)]
    if len(kept) != len(items):
        scope.size_relations -= stated_relations(items, text)
        scope.size_relations |= stated_relations(kept, text)


def _label(x: ast.Symbol) -> str:
    return plain_name(x) or x.name


def _contested(
    scope: Scope, span: MathSpan, capitals: list[ast.Symbol], start: int, end: int
) -> ResolvedClaim | None:
    """Undecided when a capital of the claim is shown a number in one place, a matrix in
    another: which the claim means is not said."""
    both = [x for x in dict.fromkeys(map(_label, capitals)) if x in scope.contested_numbers]
    declared = [scope.lookup(x) for x in both]
    if not both or any(x is not None and x.origin != "inferred" for x in declared):
        return None
    where = "; ".join(f"{x}: {scope.contested_numbers[x]}" for x in both)
    msg = f"not decided: the text uses {', '.join(both)} as a number and as a matrix ({where})"
    return new_claim(span, start, end, "unknown", msg)


def _with_evidence(claim: ResolvedClaim, scope: Scope, names: list[str]) -> ResolvedClaim:
    """The verdict says what the reading rests on: `reading B, D as numbers (B: a denominator
    at line 12)`."""
    evidence = [f"{x}: {scope.numbers[x]}" for x in names if x in scope.numbers]
    if not evidence:
        return claim
    context = f"reading {', '.join(names)} as numbers ({'; '.join(evidence)})"
    if claim.context:
        context = f"{context}; {claim.context}"
    return dataclasses.replace(claim, context=context)


def _outer(node: ast.Node) -> list[ast.Symbol]:
    """The names of `node`, not those inside a name's subscript (`\\text{HBM comms}`)."""
    return sorted(ast.symbols(node, inside=False), key=lambda x: x.start)


def _capital_names(node: ast.Node, dims: dict[str, object]) -> frozenset[str]:
    return frozenset(
        _label(x) for x in ast.symbols(node) if x.name[:1].isupper() and _label(x) not in dims
    )


#: Where a formula relates its sides: what a size may be set equal or compared to.
_RELATION = re.compile(r"==|=|\\approx|\\ll|\\gg|\\le(?:q)?\b|\\ge(?:q)?\b|<|>|\\sim\b")
#: Words and units (`\\text{GiB}`), not letters of the formula.
_WORDS = re.compile(r"\\(?:text\w*|math(?:rm|sf|tt|it)|operatorname)\s*\{[^{}]*\}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_CAPITAL = re.compile(r"[A-Z]")
#: `L=64` in the prose: a size given a value.
_PROSE_VALUE = re.compile(r"(?<![\\A-Za-z])([A-Z])\s*=\s*\d[\d,.]*(?![\d.,]*[A-Za-z\\({])")


def stated_relations(items: list[object], text: str) -> set[str]:
    """The capitals a document relates to other sizes or gives a value, anywhere: each formula
    whose relation's sides use different capitals (`F = 4D`, `KH = NH = D`, `D=8192`), and
    `L=64` in the prose. A false read with independent sizes is no error of the text there."""
    out = set(_PROSE_VALUE.findall(text))
    for item in items:
        if not isinstance(item, MathSpan):
            continue
        pieces = [_COMMAND.sub(" ", _WORDS.sub(" ", p)) for p in _RELATION.split(item.body)]
        sets = [frozenset(_CAPITAL.findall(p)) for p in pieces]
        if len(set(sets)) > 1 and not _cancels(sets):
            out |= set().union(*sets)
    return out


def _cancels(sets: list[frozenset[str]]) -> bool:
    """`\\frac{4BSTD}{4BSD + 4BTD} = \\frac{ST}{S+T}`, `\\frac{2BDF}{2DF} = B`: each side's
    capitals among the other's, as when factors cancel; an identity to check, not a relation
    (a side with no capital gives a value: `D = 8192` is one)."""
    return all(sets) and all(a <= b or b <= a for a in sets for b in sets)


#: A size written before a division by a letter (`d/h`, `d_{model}/h`, `d_{\text{model}} / g`).
_DIVIDED = re.compile(
    r"(?:\b[A-Za-z](?:_\{?\\?(?:text|mathrm)?\{?[A-Za-z]+\}?\}?|_[A-Za-z])?)"
    r"\s*/\s*([a-z])(?![A-Za-z_{])"
)
#: `h/g`: two single letters in a ratio.
_RATIO = re.compile(r"(?<![A-Za-z\\_^])([a-z])\s*/\s*([a-z])(?![A-Za-z_{(])")
#: `12lh^2`, `24bsh^2`, `4 b s^2 h`: a count, a number times two or more letters.
_COUNT = re.compile(r"(?<![\w.^_{\\])\d+\s*((?:[a-z](?:\^\{?\d\}?)?\s*){2,})(?![A-Za-z_{(\\])")
#: The exponent of `\mathbb R^{...}`: what it holds are sizes.
_SHAPE = re.compile(r"\\mathbb\s*\{?R\}?\s*\^\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
#: `^{(h)}`, `_h` after a letter: the letter is an index there.
_INDEXED = r"\^\{?\(\s*{x}\s*\)\}?|_\{?{x}\}?(?![A-Za-z])"
#: `\ldots, \text{head}_h`, `..., head_h`: the last member of a list written with an ellipsis.
_LAST = r"(?:\\[lc]?dots|\.\.\.|…)\s*,\s*[^,$]{0,40}?_\{?{x}\}?(?![A-Za-z])"


def size_letters(items: list[object]) -> set[str]:
    """Lowercase letters the document uses as sizes: divisors of a size (`d/h`), letters of
    a shape's exponent (`\\mathbb R^{h d_v \\times d}`) or of a count (`12lh^2`), never used
    as an index (`^{(h)}`, `x_h`): `h = 8` then gives a worked example's number of heads."""
    found: set[str] = set()
    bodies = [item.body for item in items if isinstance(item, MathSpan)]
    for body in bodies:
        found |= set(_DIVIDED.findall(body))
        for a, b in _RATIO.findall(body):
            found |= {a, b}  # `h/g = 4`: a ratio of two letters
        for count in _COUNT.findall(body):
            found |= set(re.findall(r"[a-z]", re.sub(r"\^\{?\d\}?", "", count)))
        for exp in _SHAPE.findall(body):
            plain_exp = re.sub(r"_\{[^{}]*\}|_.", "", exp)
            found |= set(re.findall(r"(?<![A-Za-z\\])([a-z])(?![A-Za-z])", plain_exp))
    out = set()
    for x in found - {"i", "j", "k", "r", "s", "t", "u"}:
        pattern = re.compile(_INDEXED.replace("{x}", re.escape(x)))
        # `\text{head}_1, \ldots, \text{head}_h`: the last of a list counts, it indexes nothing
        last = re.compile(_LAST.replace("{x}", re.escape(x)))
        if not any(pattern.search(last.sub(" ", b)) for b in bodies):
            out.add(x)
    return out
