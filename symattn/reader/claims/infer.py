"""What a text leaves implicit: names it never declares read as real numbers in a scalar claim
(`3hk\\frac{k}{h} = 3k^2`), and equations that give their left side its meaning (`o_t = ...`
with O never given a value, an `Attention(Q,K,V)` of the text's own).
Imports sympy and the reader's AST, claims, scope and translator; never the resolver or check."""

from __future__ import annotations

import dataclasses
import re

import sympy

from symattn.kernel.dims import shape_str
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr, index
from symattn.kernel.witness.reals import is_real_claim
from symattn.reader.claims.imaginary import UNIT, unit_context
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.claims.written_matrices import pending
from symattn.reader.claims.written_numbers import has_written, written_pairs
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import head_of
from symattn.reader.terms.names import bold_letter
from symattn.reader.terms.scalars import greedy_reading
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import Terms, label_of, plain_name

__all__ = ["conventional_attention", "defines_left", "scalar_reading"]

#: A name that may stand for a number: a letter or Greek letter, with at most a plain subscript.
#: A letter with an index, and perhaps a label (`x^{(1)}_{m}`: the first feature of x_m).
_NUMBER_NAME = re.compile(
    r"\\?[A-Za-z]+(?:_(?:[A-Za-z0-9]|\{[A-Za-z0-9]+(?: [A-Za-z0-9]+)*\}))?"
    r"(?:\^\{\([A-Za-z0-9]+\)\})?\Z"
    # a word of the text's (`\text{seq\_len}`, `\text{Batch Size}`): a count or a quantity
    r"|\\text\{(?:[A-Za-z][A-Za-z0-9]*(?:(?:\\_| )[A-Za-z0-9]+)*|[\u4e00-\u9fff]+)\}\Z"
)
_GREEK_OR_LETTER = re.compile(r"(?:[a-z]|\\[a-z]+)\Z")
_EULER = re.compile(r"(?<![\\A-Za-z])e(?![A-Za-z_])")
_EULER_POWER = re.compile(r"(?<![\\A-Za-z])e\s*\^")


def scalar_reading(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    names: list[str],
    start: int,
    end: int,
    sizes: frozenset[str] = frozenset(),
) -> ResolvedClaim | None:
    """`_reading`; where it reads nothing, once more with the rows of matrices only the
    chapter's convention names read as numbers too (`(a_1 + b_1 i) + (a_2 + b_2 i)`: a_1 is
    no row of the attention weights there). A false then rests on that guess: undecided."""
    claim = _reading(terms, span, left, right, names, start, end, sizes)
    if claim is not None:
        return claim
    rows = _conventional_rows(terms, (left, right))
    if not rows:
        return None
    scope = terms.scope
    assert isinstance(scope, Scope)
    consulted = set(scope.consulted)
    scope.consulted.clear()  # read as numbers, the rows' orientation is not consulted
    claim = _reading(terms, span, left, right, names, start, end, sizes, rows)
    if claim is None:
        scope.consulted |= consulted
    if claim is None or claim.defines:
        return claim
    shown = ", ".join(rows)
    why = (
        f"{shown} read as numbers, though the chapter's convention makes "
        f"{'it a row' if len(rows) == 1 else 'them rows'} of a matrix the text never declares"
    )
    return dataclasses.replace(claim, defines=why)


def _conventional_rows(terms: Terms, nodes: tuple[ast.Node, ...]) -> list[str]:
    """`a_1`, `q_0`: lower-case letters with a subscript that read as rows of a matrix only
    the chapter's convention gives (the text never declares, defines or orients it)."""
    scope = terms.scope
    if not isinstance(scope, Scope):
        return []
    out: list[str] = []
    stack = list(nodes)
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            bare = x.font is None and len(x.name) == 1 and x.name.islower()
            if bare and x.sub is not None and scope._conventional(x.name.upper()):
                out.append(label_of(x))
            continue
        stack.extend(ast.children(x))
    return list(dict.fromkeys(out))


def _reading(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    names: list[str],
    start: int,
    end: int,
    sizes: frozenset[str] = frozenset(),
    rows: list[str] | None = None,
) -> ResolvedClaim | None:
    """`left = right` with names the text never declares, all of them letters (`h`, `k`,
    `\\omega_i`, `u_1`) and the functions sin, cos, tan, tanh: both sides read with those
    names as real numbers (`e` as Euler's number where it is only ever raised to a power).
    None when a side is not a scalar then, or a name is of another kind (`f(·)`, a capital).

    Sound: holding for every real value of independent names, the claim holds for the values
    the text means; a false is kept only for plain letters in a rational claim (a polynomial
    identity false for reals is false for integers too), else it is undecided. Capitals in
    `sizes` are read as positive numbers (sizes the text never declares, `claims.sizes`)."""
    if not names or any(x.endswith("(·)") and x[:-3] not in names for x in names):
        return None  # `g(m-n)`: a function of the text's, not g times m - n
    # `\\omega_i(p+k)` beside `\\omega_i p`: the text's number times p + k
    loose = _loose_letters(left) | _loose_letters(right)
    if _spells_word(left, sizes, loose) or _spells_word(right, sizes, loose):
        return None  # `value = 0.6 * 10 + ...`: a word, not the product v·a·l·u·e
    written = has_written(left) or has_written(right)
    if _vector_marks(left, written) or _vector_marks(right, written):
        return None  # `p_m^T p_n`, `\|q\|`, `\langle p, q\rangle`: vectors, not numbers
    if _bold_letters(left) or _bold_letters(right):
        return None  # `\mathbf g_i \mathbf g_j`: bold lower-case letters are vectors
    numbers = _undeclared_letters(terms, (left, right), _conventional(terms, sizes), rows)
    if not numbers or not all(
        _NUMBER_NAME.match(x) and (not x[:1].isupper() or x in sizes) for x in numbers
    ):
        return None
    if any(
        x.startswith("\\") and x.split("_")[0][1:] in _NOT_NUMBERS for x in numbers if x != "\\pi"
    ):
        return None
    body = span.body[start:end]
    table: dict[str, sympy.Expr] = {}
    positions = _subscript_letters(left) | _subscript_letters(right)
    positions |= _parity_letters(terms, left) | _parity_letters(terms, right)
    for x in numbers:
        if x == "e" and len(_EULER.findall(body)) == len(_EULER_POWER.findall(body)):
            table[x] = sympy.E
        elif x == "\\pi":
            table[x] = sympy.pi  # the constant, unless the text declares a \\pi of its own
        elif x in sizes:
            table[x] = sympy.Symbol(x, positive=True)  # a size: positive, so real
        elif x in positions:
            table[x] = index(x)  # `\sin(i\omega_j) = p_{i,2j}`: i is the index of p
        else:
            table[x] = sympy.Symbol(f"{x}", real=True)
    scope = terms.scope
    if not isinstance(scope, Scope):
        return None
    # `e^{i\varphi} = \cos\varphi + i\sin\varphi`: a bare i that is no index is the
    # imaginary unit where the text works with complex numbers, else it reads both ways
    bare_i = "i" in table and "i" not in positions and "i" not in sizes
    bare_i = bare_i and isinstance(table["i"], sympy.Symbol)
    cue = scope.complex_cue if bare_i else ""
    if cue:
        table["i"] = UNIT
    first = _read_as_numbers(terms, table, left, right)
    if cue and not _complex_claim(first):
        # a sum, a value of the text's: no kernel decides them with i the unit
        table["i"], cue = sympy.Symbol("i", real=True), ""
        first = _read_as_numbers(terms, table, left, right)
    if not first:
        return None
    pairs = first
    (left_b, right_b), changed = _greedy(left, right)
    if changed:
        second = _read_as_numbers(terms, table, left_b, right_b)
        if not second or len(second) != len(first):
            return None
        if second != first:
            pairs = first + second
    unit_pairs: tuple[tuple[sympy.Expr, sympy.Expr], ...] = ()
    if bare_i and not cue and len(pairs) == len(first):
        unit_pairs = _read_as_numbers(terms, {**table, "i": UNIT}, left, right)
        if len(unit_pairs) != len(first) or unit_pairs == first:
            unit_pairs = ()
        unit_pairs = unit_pairs if _complex_claim(unit_pairs) else ()
    claim = pending(scope, span, start, end, pairs)
    constants = (sympy.E, sympy.pi, UNIT)
    shown = ", ".join(x for x in numbers if table[x] not in constants)
    reals = [x for x in numbers if table[x] not in constants and x not in positions]
    counts = [x for x in numbers if x in positions]
    held = [x for x in reals if x in sizes]
    reals = [x for x in reals if x not in sizes]
    parts = [f"{', '.join(reals)} read as real numbers"] if reals else []
    if held:
        order: dict[str, int] = {}
        for sym in sorted(ast.symbols(left) + ast.symbols(right), key=lambda y: y.start):
            order.setdefault(label_of(sym), sym.start)
        held.sort(key=lambda h: order.get(h, 0))
        parts.append(f"{', '.join(held)} read as {'sizes' if len(held) > 1 else 'a size'}")
    if counts:
        parts.append(f"{', '.join(counts)} as positive integers (an index of the claim)")
    context = ", ".join(parts) + " (not declared by the text)" if parts else ""
    if any(_partial(a - b) for a, b in pairs):
        context += ", where both sides are defined" if context else "where both sides are defined"
    if "e" in table and table["e"] is sympy.E:
        context += "; e as Euler's number" if context else "e as Euler's number"
    if "\\pi" in table:
        context += "; \\pi as the constant" if context else "\\pi as the constant"
    if cue:
        context += f"; {unit_context(cue)}" if context else unit_context(cue)
    if unit_pairs:
        note = "either way: i as a real number and as the imaginary unit"
        context += f"; {note}" if context else note
    claim = dataclasses.replace(claim, context=context)
    if unit_pairs and len(claim.pairs) == len(first):
        readings = (
            "i as a real number, or as the imaginary unit; the text never says it works "
            "with complex numbers"
        )
        claim = dataclasses.replace(
            claim, pairs=claim.pairs + unit_pairs, split=len(claim.pairs), readings=readings
        )
    if len(pairs) > len(first):
        calls = ", ".join(f"\\{c}" for c in dict.fromkeys(changed))
        readings = (
            f"{calls} followed by parentheses and more factors reads as the function of the "
            "parentheses times the factors, or as the function of the whole product"
        )
        claim = dataclasses.replace(claim, split=len(first), readings=readings)
    symbols = [v for v in table.values() if isinstance(v, sympy.Symbol)]
    plain = all(
        _GREEK_OR_LETTER.match(x) or x in sizes
        for x in numbers
        if isinstance(table[x], sympy.Symbol)
    )
    rational = plain and all(_rational(a - b, symbols) for a, b in pairs)
    # a point where the claim fails is an error of the text only if the claim is about the
    # names read as numbers alone: no index, size or value the text defined, which may relate
    # them (`p_{i,2j}` and `\omega_j` are both functions of j)
    alone = all(is_real_claim(a, b) and _alone(a - b, symbols) for a, b in pairs)
    transcendental = not all(_rational(a - b, symbols) for a, b in pairs)
    letters = [x for x in numbers if table[x] not in constants]
    # a name on one side only is an unknown the text solves for or a condition on it
    # (`2x + 3 = 7`, `\cos\theta = 1`), never an identity that fails
    sides = set(_undeclared_labels(left)) & set(_undeclared_labels(right))
    sides |= terms.defs.brought  # `d` of a definition's `10000^{2j/d}`: no unknown of the claim
    both = all({x.name for x in (a - b).free_symbols} <= sides for a, b in pairs)
    identity = transcendental and alone and _identity_form(left, right, letters)
    if not (both and (rational or identity)):
        why = (
            f"{shown} are not declared by the text; read as independent real numbers the "
            "claim fails, but the values the text means may be related or integers"
        )
        if not shown:  # only constants (`\\pi`) beside values of the text's own
            opaque = ", ".join(dict.fromkeys(terms.defs.used)) or "a value"
            why = f"it reads {opaque} of the text's own, whose value the checker does not read"
        if sizes and all(x in sizes for x in letters):
            why = (
                f"{shown} are sizes the text does not declare; read as independent positive "
                "integers the claim fails, but the sizes the text means may be related"
            )
        claim = dataclasses.replace(claim, defines=why)
    imaginary = [x for x in reals if x in ("i", "j")]
    if imaginary and not claim.defines:
        # `e^{ix} = \cos x + i\sin x`: a bare i or j that is no index may be the imaginary
        # unit; read as a real number, a claim that fails says nothing about the text
        why = (
            f"{', '.join(imaginary)} may be the imaginary unit (the text does not declare it); "
            "read as a real number the claim fails"
        )
        claim = dataclasses.replace(claim, defines=why)
    return claim


def _complex_claim(pairs: tuple[tuple[sympy.Expr, sympy.Expr], ...]) -> bool:
    """Pairs the kernel decides with i the imaginary unit: claims between real numbers."""
    return bool(pairs) and all(
        is_real_claim(a, b) or not (a.free_symbols | b.free_symbols) for a, b in pairs
    )


def _subscript_letters(node: ast.Node) -> set[str]:
    """The single letters inside the subscripts of names (`p_{i,2j}`, `\\omega_j`): indices."""
    out: set[str] = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol) and x.sub is not None:
            out |= {
                y.name
                for y in ast.symbols(x.sub)
                if y.sub is None and len(y.name) == 1 and y.name.isalpha()
            }
        stack.extend(ast.children(x))
    return out


def _parity_letters(terms: Terms, node: ast.Node) -> set[str]:
    """The letters of the arguments a function the text defined by cases of an index's parity
    takes at that index (`k` of `PE(p, 2k+1)`): integers, as the index was."""
    rules = terms.defs.rules
    out: set[str] = set()
    for x in ast.walk(node):
        if isinstance(x, ast.Call) and x.parens:
            name, args = x.name, x.args
        elif head_of(x) is not None:
            f, group = head_of(x)  # type: ignore[misc]
            name, args = f.name, group.items  # `u(2k)`: a letter before parentheses
        else:
            continue
        for rule in rules.get(f"{name}(·)", ()):
            if len(rule.pattern) != len(args):
                continue
            for p, arg in zip(rule.pattern, args, strict=True):
                if any(getattr(s, "is_integer", False) for s in p.free_symbols):
                    out |= {y.name for y in ast.symbols(arg) if y.sub is None and len(y.name) == 1}
    return out


def _spells_word(
    node: ast.Node, sizes: frozenset[str] = frozenset(), loose: frozenset[str] = frozenset()
) -> bool:
    """Three or more bare letters side by side (`value`, `pos`): a word of the text's; sizes
    side by side (`BTD`) are a product, unless a lower-case letter runs on (`FLOPs`). Letters
    that each stand apart elsewhere in the claim (`loose`) are a product too: `bdi` beside
    `(c + di)` and `b`."""
    if isinstance(node, ast.Product):
        for run in _letter_runs(node):
            if len(run) < 3 or all(x in loose for x in run):
                continue
            # `BTDNH`, H a size too: capitals side by side are sizes, not a word
            if any(not (sizes and x.isupper()) for x in run):
                return True
    if isinstance(node, ast.Symbol):
        return False  # `n_{layers}`: a word in a subscript names the letter, it is no product
    return any(_spells_word(k, sizes, loose) for k in ast.children(node))


def _letter_runs(node: ast.Product) -> list[list[str]]:
    """The runs of bare one-letter names side by side among a product's factors."""
    runs: list[list[str]] = [[]]
    for f in node.factors:
        if isinstance(f, ast.Symbol) and f.sub is None and f.font is None and len(f.name) == 1:
            runs[-1].append(f.name)
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def _loose_letters(node: ast.Node) -> frozenset[str]:
    """The bare one-letter names that stand alone or beside one other letter somewhere in
    `node` (`b` in `a + b`, `c` and `d` in `cd`), never only inside a longer run."""
    out: set[str] = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            if x.sub is None and x.font is None and len(x.name) == 1:
                out.add(x.name)
            continue
        if isinstance(x, ast.Product):
            for run in _letter_runs(x):
                if len(run) <= 2:
                    out.update(run)
            others = [f for f in x.factors if not (isinstance(f, ast.Symbol) and len(f.name) == 1)]
            stack.extend(others)
            continue
        stack.extend(ast.children(x))
    return frozenset(out)


def _read_as_numbers(
    terms: Terms, table: dict[str, sympy.Expr], left: ast.Node, right: ast.Node
) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
    """Both sides with the names of `table` read as those numbers, one pair, or one pair per
    entry of matrices written out; none when a side is then not a scalar, or cannot be read."""
    terms.scalars = table
    try:
        if has_written(left) or has_written(right):
            return written_pairs(terms, left, right) or ()
        lhs, rhs = terms.term(left), terms.term(right)
    except (SymattnError, RecursionError):
        # another kind of name (`f(x)`, an operator of the text's own), or a clash that only
        # this reading makes (a number added to a row): the claim stays undecided
        return ()
    finally:
        terms.scalars = {}
    if isinstance(lhs, MatExpr) or isinstance(rhs, MatExpr):
        return ()
    if not (isinstance(lhs, sympy.Expr) and isinstance(rhs, sympy.Expr)):
        return ()
    return ((lhs, rhs),)


def _greedy(left: ast.Node, right: ast.Node) -> tuple[tuple[ast.Node, ast.Node], list[str]]:
    new_left, a = greedy_reading(left)
    new_right, b = greedy_reading(right)
    return (new_left, new_right), a + b


def _identity_form(left: ast.Node, right: ast.Node, numbers: list[str]) -> bool:
    """Whether the claim reads as an identity between functions of its names, so that a
    certified point where it fails is an error of the text: no two of its names are members
    of one family (`\\omega_i`, `\\omega_j` may be equal)."""
    bases = [x.split("_")[0] for x in numbers if "_" in x]
    return len(bases) == len(set(bases))


def _alone(difference: sympy.Expr, symbols: list[sympy.Symbol]) -> bool:
    """Whether the difference depends only on the names read as numbers and on positive
    integers (sizes, positions): no value of the text's own (an opaque defined term)."""
    extra = difference.free_symbols - set(symbols)
    return all(x.is_integer is True and x.is_positive is True for x in extra)


def _undeclared_labels(node: ast.Node) -> list[str]:
    out: list[str] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            out.append(label_of(x))
        stack.extend(ast.children(x))
    return out


def _partial(e: sympy.Expr) -> bool:
    """A logarithm, a root, a tangent or a division: a side may be undefined somewhere."""
    if e.has(sympy.log, sympy.tan):
        return True
    return any(not p.exp.is_Integer or p.exp.is_negative for p in e.atoms(sympy.Pow))


#: Greek letters that name constants or operators, never a number of the text's own.
_NOT_NUMBERS = frozenset(("pi", "infty", "partial", "nabla"))


def _conventional(terms: Terms, sizes: frozenset[str]) -> frozenset[str]:
    """The sizes of a claim that are also matrices by the chapter's conventions only (`S`),
    which the caller reads as numbers and, apart, as those matrices (`claims.sizes`)."""
    scope = terms.scope
    return frozenset(x for x in sizes if getattr(scope.lookup(x), "origin", "") == "convention")


def _undeclared_letters(
    terms: Terms,
    nodes: tuple[ast.Node, ...],
    also: frozenset[str] = frozenset(),
    rows: list[str] | None = None,
) -> list[str]:
    """The labels of the names in `nodes` that the scope gives no meaning (no size, no
    matrix, no definition of the text's, no bound index), those of `also` and `rows`."""
    out: list[str] = []
    stack = list(nodes)
    while stack:
        x = stack.pop()
        if isinstance(x, ast.HeadSup) and isinstance(x.operand, ast.Symbol):
            label = label_of(x)  # `x^{(1)}_m`: the first feature of x_m, a name of its own
            name = plain_name(x)
            known = name is not None and (name in terms.scope.dims or terms.scope.lookup(name))
            if not known and label not in terms.defs.table and _NUMBER_NAME.match(label):
                out.append(label)
                continue
        if isinstance(x, ast.Symbol):
            label = label_of(x)
            name = plain_name(x)
            known = name is not None and (name in terms.scope.dims or terms.scope.lookup(name))
            known = known and label not in also
            if known or label in terms.defs.table or (x.sub is None and x.name in terms.bound):
                continue
            row = x.sub is not None and terms.scope.lookup(x.name.upper()) is not None
            if row and label not in (rows or ()):
                continue  # `q_i`, a row of a matrix in scope
            if x.sub is not None and not row and _has_value(terms, x):
                continue  # `\\omega_j`, `p_{i,2j}`: a sequence the text defined
            out.append(label)
            continue
        stack.extend(ast.children(x))
    return list(dict.fromkeys(out))


def _has_value(terms: Terms, x: ast.Symbol) -> bool:
    """Whether the translator reads `x` as a value (a sequence of the text's at an index)."""
    try:
        value = terms.term(x)
    except (SymattnError, RecursionError):
        return False
    return isinstance(value, sympy.Expr) and not isinstance(value, MatExpr)


def _vector_marks(node: ast.Node, written: bool = False) -> bool:
    """A transpose, a norm, an inner product, a written matrix (unless `written`: matrices
    of numbers are read entry by entry) or a group applied like a function anywhere in
    `node`: what only vectors, matrices or functions carry."""
    if isinstance(node, ast.Transpose | ast.Norm | ast.Inner | ast.IndexedGroup):
        return True
    if isinstance(node, ast.Matrix) and not written:
        return True
    return any(_vector_marks(k, written) for k in ast.children(node))


def _bold_letters(node: ast.Node) -> bool:
    """A bold or arrowed lower-case letter anywhere in `node` (`\\mathbf q`, `\\vec a_i`)."""
    return any(bold_letter(x) for x in ast.walk(node))


def _rational(e: sympy.Expr, symbols: list[sympy.Symbol]) -> bool:
    try:
        return bool(e.is_rational_function(*symbols)) if symbols else True
    except (TypeError, ValueError):
        return False


#: The scaled dot-product attention the checker knows; a text may call another form attention.
_KNOWN = "softmax(QK^T/\\sqrt{d_k})V"


def defines_left(scope: Scope, left: ast.Node, right: ast.Node) -> str:
    """Why `left = right` may be the text's definition of `left` rather than a claim about a
    value the checker knows ("" when it is a claim). Only a `false` verdict is softened by it:

    - `left` names a matrix, a row or an entry of one, that the text declares (or the
      chapter's convention names) without a value the checker read, and `right` is an
      expression (`a_{ij} = 0` and `\\mathbf k_i = \\mathbf v_i` assert);
    - `left` is a name, row or entry of a matrix whose value is only the chapter's convention
      (`a_{ij} = \\mathbf q_i\\mathbf k_j^\\top` where the text never says A is the softmax);
    - `left` is attention applied to plain names and `right` an unscaled form (no square root),
      or the names are ones the text never declares, whose sizes (`\\sqrt{n}`) are its own;
      not where the scale is `\\sqrt{d_v}` in a text that writes the key width d_k apart
      from the value width d_v (`distinct_widths`), or never says what d_v is
      (`free_value_width`): that scale is the value width's, V's columns by the names'
      convention, not the keys' width."""
    if isinstance(left, ast.Call) and left.name.lower() == "attention":
        names = [plain_name(a) for a in left.args]
        if not left.args or None in names:
            return ""
        if not _has_sqrt(right):
            return (
                "the text defines its own attention here, without the scale of the scaled "
                f"dot-product attention {_KNOWN} the checker knows"
            )
        if (
            all(scope._conventional(x) for x in names if x is not None)
            and not (scope.distinct_widths and _scale(right) == "d_v")
            and not (_scale(right) == "d_v" and scope.free_value_width)
        ):
            shown = ", ".join(x for x in names if x is not None)
            return (
                f"the text never declares {shown}, so the sizes it scales by are its own "
                f"names, not necessarily those of {_KNOWN}"
            )
        return ""
    if isinstance(left, ast.HeadSup) and not isinstance(right, ast.Symbol | ast.Number):
        return _defines_member(scope, left)
    if not isinstance(left, ast.Symbol | ast.Labeled) or isinstance(right, ast.Symbol | ast.Number):
        return ""  # `\\mathbf k_i = \\mathbf v_i` asserts, it does not define
    name = plain_name(left)
    if isinstance(left, ast.Labeled):  # `W^{A} = ...`, `h^{QK} = ...`: a name with its label
        if name is None:
            return ""
        matrix, what = name, name
    elif name is not None and left.sub is None:
        matrix, what = name, name
    elif len(left.name) == 1 and left.name.islower() and left.sub is not None:
        part = "rows" if isinstance(left.sub, ast.Symbol) else "entries"
        matrix, what = left.name.upper(), f"the {part} of {left.name.upper()}"
    else:
        return ""
    entry = scope.lookup(matrix)
    if entry is None or entry.origin == "defined":
        return ""
    if entry.origin == "convention" and entry.definition is not None:
        return (
            f"{matrix} has a value only by the chapter's convention, which the text never "
            f"states; this equation may be the text's own definition of {matrix}"
        )
    if entry.definition is not None:
        return ""
    if entry.origin == "declared":
        where = f"declared at line {entry.line}" if entry.line else "declared"
    else:
        where = "named only by the chapter's convention"
    return (
        f"{matrix} is {where} with no value the checker read, so this equation reads as the "
        f"text's definition of {what}, not a claim about a known value"
    )


def _defines_member(scope: Scope, left: ast.HeadSup) -> str:
    """`q^{(s)}_i = x_i W_q^{(s)}`, `Q^{(s)} = ...`: a row or the whole of a head's member of a
    family with no value the checker read (the chapter's convention, or declared only)."""
    op = left.operand
    if not isinstance(op, ast.Symbol) or len(op.name) != 1:
        return ""
    row = op.name.islower() and op.sub is not None
    if not (row or (op.name.isupper() and op.sub is None)):
        return ""
    family = op.name.upper()
    entry = scope.lookup(family, True)
    if entry is not None and (entry.definition is not None or entry.origin == "defined"):
        return ""
    what = f"the rows of {family}^{{(h)}}" if row else f"{family}^{{(h)}}"
    where = (
        "named only by the chapter's convention"
        if entry is None or (entry.origin == "convention")
        else "declared"
    )
    return (
        f"the head family {family}^{{(h)}} is {where} with no value the checker read, so this "
        f"equation reads as the text's definition of {what}, not a claim about a known value"
    )


def _has_sqrt(node: ast.Node) -> bool:
    if isinstance(node, ast.Sqrt):
        return True
    return any(_has_sqrt(k) for k in ast.children(node))


#: The key width and the value width as a text writes them: `d_k`, `d_{k}`; `d_v`, `d_{v}`.
_KEY = r"d_\{?k\}?(?![A-Za-z])"
_VALUE = r"d_\{?v\}?(?![A-Za-z])"


def _related(width: str, body: str) -> bool:
    """`d_v` on a side of an equation of its own (`d_v = d/h`, `d_k = d_v = 64`)."""
    return re.search(rf"{width}\s*=|=\s*{width}\s*(?:$|[=,;.]|\\(?:quad|text))", body) is not None


def distinct_widths(items: list[object]) -> bool:
    """Whether a document writes both the key width d_k and the value width d_v, and never
    says what either is (no `d_k = ...`, `d_v = d/h`, `d_k = d_v`): they are then two sizes,
    and a scale by `\\sqrt{d_v}` in `\\mathrm{Attention}(Q, K, V)` is not the key width's.

    >>> from symattn.reader.syntax.scanner import scan
    >>> distinct_widths(scan("keys of $d_k$ entries and values of $d_v$"))
    True
    >>> distinct_widths(scan("$d_k$ and $d_v$, with $d_k = d_v = 64$"))
    False
    """
    keys, values, said = _widths(items)
    return keys and values and not said


def conventional_attention(scope: Scope, left: ast.Node) -> str:
    """What a claim `\\mathrm{Attention}(Q, K, V) = ...` about names the text never declares
    rests on: their shapes by the chapter's convention ("" when the text declares any)."""
    if not (isinstance(left, ast.Call) and left.name.lower() == "attention" and left.args):
        return ""
    names = [plain_name(a) for a in left.args]
    if any(x is None or not scope._conventional(x) for x in names):
        return ""
    parts = []
    for x in names:
        entry = scope.lookup(x) if x is not None else None
        if entry is None:
            return ""
        parts.append(f"{x}: {shape_str(entry.shape)}")
    shapes = ", ".join(parts)
    return f"with the chapter's shapes {shapes}, names the text never declares"


def free_value_width(items: list[object]) -> bool:
    """Whether a document writes the value width d_v and never says what it is, nor what the
    key width is (no `d_v = d/h`, no `d_k = d_v = 64`): d_v is then the width of the values,
    by the convention of the names, and no other size.

    >>> from symattn.reader.syntax.scanner import scan
    >>> free_value_width(scan("$\\sqrt{d_v}$")), free_value_width(scan("$d_v = 64$"))
    (True, False)
    """
    _, values, said = _widths(items)
    return values and not said


def _widths(items: list[object]) -> tuple[bool, bool, bool]:
    """Whether the document writes the key width d_k, the value width d_v, and says what
    either is (`d_k = 64`, `d_v = d/h`)."""
    bodies = [x.body for x in items if isinstance(x, MathSpan)]
    keys = any(re.search(_KEY, b) for b in bodies)
    values = any(re.search(_VALUE, b) for b in bodies)
    said = any(_related(_KEY, b) or _related(_VALUE, b) for b in bodies)
    return keys, values, said


def _scale(node: ast.Node) -> str | None:
    """The plain name under the one square root of `node` (`d_v` of `\\sqrt{d_v}`)."""
    roots = [x for x in ast.walk(node) if isinstance(x, ast.Sqrt)]
    return plain_name(roots[0].radicand) if len(roots) == 1 else None
