"""The values of the text's scalar definitions by index (`\\omega_j = ...`, `p_{i,2j} = ...`).
Imports sympy, the kernel and the reader's AST; never the translator, resolver or checker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import Entry, MatExpr, MatSym
from symattn.reader.syntax import ast

__all__ = [
    "Rule",
    "add_rule",
    "case_value",
    "defined_value",
    "entry_key",
    "in_example",
    "make_rule",
    "match_rule",
]


@dataclass(frozen=True)
class Rule:
    """`key` (a matrix's name, `P`, or a sequence's, `\\omega`) at the indices `pattern`
    (written in `letters`, `(i, 2j+1)`) is `body`; `text` is the left side as written."""

    key: str
    pattern: tuple[sympy.Expr, ...]
    letters: tuple[sympy.Symbol, ...]
    body: sympy.Expr
    line: int
    text: str
    #: the sizes a worked example gave values when the rule was read: the body holds those
    #: values, so the rule is used only where the same values are in force
    bound: tuple[tuple[str, int], ...] = ()

    def shown(self) -> str:
        return f"{self.text} as defined at line {self.line}"


def make_rule(
    key: str,
    pattern: Sequence[sympy.Expr],
    body: sympy.Basic,
    sizes: set[sympy.Symbol],
    line: int,
    text: str,
    constant: bool = False,
) -> Rule | None:
    """The rule `key_{pattern} = body`, or None when it is not one the checker may use at other
    indices: each index must be `a·l + c` in a letter of its own (a ≠ 0 and c integers) or an
    integer, the body a scalar that depends on the index letters and otherwise only on sizes
    (with `constant`, one case of a function by cases, it may depend on none of them)."""
    if isinstance(body, MatExpr) or not isinstance(body, sympy.Expr):
        return None
    if body.has(Entry) or body.atoms(MatSym):
        return None
    letters: list[sympy.Symbol] = []
    for p in pattern:
        free = p.free_symbols
        if not free:
            if not (p.is_Integer):
                return None
            continue
        if len(free) != 1:
            return None
        (letter,) = free
        if not isinstance(letter, sympy.Symbol) or letter in letters or letter in sizes:
            return None
        poly = sympy.Poly(p, letter)
        if poly.degree() != 1 or not all(c.is_Integer for c in poly.all_coeffs()):
            return None
        if letter.is_integer is not True and p != letter:
            return None  # `2i` is a parity case of an integer i; a real `pos` stands alone
        letters.append(letter)
    if not letters:
        return None
    free = body.free_symbols
    if not (free & set(letters) or constant) or not free <= set(letters) | sizes:
        return None
    return Rule(key, tuple(pattern), tuple(letters), body, line, text)


def match_rule(rules: Sequence[Rule], used: Sequence[sympy.Expr]) -> tuple[sympy.Expr, Rule] | None:
    """The body of the one rule whose pattern the written indices `used` fit, with its letters
    replaced by what they stand for there: `(i+\\delta, 2j)` fits `(i, 2j)` with i -> i+\\delta,
    never `(i, 2j+1)`, and `(i, k)` fits neither (k's parity is not known)."""
    found: list[tuple[sympy.Expr, Rule]] = []
    for rule in rules:
        if len(rule.pattern) != len(used):
            continue
        table: dict[sympy.Symbol, sympy.Expr] = {}
        ok = True
        for p, u in zip(rule.pattern, used, strict=True):
            letter = next(iter(p.free_symbols), None)
            if letter is None:
                ok = sympy.simplify(p - u) == 0
            else:
                a, c = sympy.Poly(p, letter).all_coeffs()
                value = sympy.expand((u - c) / a)
                ok = abs(a) == 1 or _integral(value)  # `2j` fits `2j`, never `k` or `2j+1`
                table[letter] = value
            if not ok:
                break
        if ok:
            found.append((rule.body.xreplace(table), rule))
    return found[0] if len(found) == 1 else None


def _integral(e: sympy.Expr) -> bool:
    """A polynomial with integer coefficients in its names: an index the pattern's letter can
    take whatever the names are (`(2j)/2 = j`, never `k/2` or `(2j+1)/2`)."""
    free = sorted(e.free_symbols, key=str)
    if not free:
        return bool(e.is_Integer)
    try:
        poly = sympy.Poly(e, *free)
    except sympy.PolynomialError:
        return False
    return all(c.is_Integer for c in poly.coeffs())


def entry_key(value: sympy.Basic) -> str | None:
    """The matrix name of an entry of a named matrix (`Entry(P, i, 2j)` -> "P")."""
    if isinstance(value, Entry) and isinstance(value.matrix, MatSym):
        return str(value.matrix.name)
    return None


def defined_value(terms: Any, node: ast.Symbol, value: sympy.Basic) -> sympy.Basic:
    """`value` as the translator read `node` (an entry `Entry(P, i, 2j)`, an opaque term of a
    sequence the text defined), replaced by the body of the rule its indices fit; unchanged
    when none fits (then it stays an entry, or an opaque term, as before)."""
    defs = terms.defs
    key = entry_key(value)
    used: list[sympy.Expr] | None = None
    text = ""
    if key is not None:
        assert isinstance(value, Entry)
        used = [value.args[1], value.args[2]]
    elif isinstance(value, sympy.Symbol) and str(value.name) in defs.meaning:
        text = str(value.name)
        d = defs.meaning[text]
        key = d.name
        if key not in defs.rules or node.sub is None:
            return value
        try:
            used = list(terms.indices(node.sub))
        except (SymattnError, RecursionError):
            return value
    if key is None or used is None or key not in defs.rules:
        return value
    rules = defs.rules[key]
    if text == "":  # an entry: only rules made under the declaration of the matrix in force
        entry = terms.scope.lookup(key)
        since = getattr(entry, "line", 0) or 0
        rules = [r for r in rules if r.line >= since]
    section = defs.shadowed.get((key, tuple(used)))
    if section is not None and section == getattr(terms.scope, "section", -1):
        return value  # a value the text gave that member here (`claims.local_values`)
    found = _applied(terms, rules, used)
    if found is None:
        return value
    if text and text in defs.used:
        del defs.used[len(defs.used) - 1 - defs.used[::-1].index(text)]
    return found


def case_value(terms: Any, key: str, used: Sequence[sympy.Basic]) -> sympy.Expr | None:
    """`PE(p, 2k+1)` of a function the text defined by cases of an index's parity: the body of
    the one case its arguments fit (`2k+1` fits `2i+1` with i -> k), None when none does or an
    argument is not a number (`PE(p, k)`: k's parity is not known)."""
    rules = terms.defs.rules.get(key)
    if not rules or not all(isinstance(u, sympy.Expr) and not isinstance(u, MatExpr) for u in used):
        return None
    for rule in rules:
        if len(rule.pattern) != len(used):
            return None
        for p, u in zip(rule.pattern, used, strict=True):
            if any(x.is_integer for x in p.free_symbols) and u.is_integer is not True:
                return None  # `PE(p, 2t)` with t a real number: no case says what it is
    return _applied(terms, rules, [cast(sympy.Expr, u) for u in used])


def _applied(terms: Any, rules: Sequence[Rule], used: Sequence[sympy.Expr]) -> sympy.Expr | None:
    """The body of the rule `used` fits, noted as applied; None when none fits."""
    defs = terms.defs
    here = _bound(terms)
    rules = [r for r in rules if r.bound == here or not r.bound]
    found = match_rule(rules, used)
    if found is None:
        return None
    body, rule = found
    if rule.shown() not in defs.applied:
        defs.applied.append(rule.shown())
    defs.brought |= {str(x) for x in rule.body.free_symbols - set(rule.letters)}
    # the sizes a worked example in force gives values (`d = 128`) are those values here, as
    # in every other term the translator reads; the rule was made with the sizes as symbols
    bound: sympy.Expr = terms.scope.bind(body)
    return bound


def add_rule(defs: Any, rule: Rule) -> bool:
    """Record `rule` (False when a rule of the same name already covers one of its indices:
    then the equation is a claim about that name, not its definition). Reading the same
    equation again (the same line and pattern) replaces it."""
    rules: list[Rule] = defs.rules.setdefault(rule.key, [])
    keep = [r for r in rules if not (r.line == rule.line and r.pattern == rule.pattern)]
    for old in keep:
        if match_rule([old], rule.pattern) is not None or match_rule([rule], old.pattern):
            return False
    keep.append(rule)
    defs.rules[rule.key] = keep
    return True


def sizes_of(terms: Any) -> set[sympy.Symbol]:
    """The sizes in force, as the translator reads them (a size a worked example bound is a
    number, no symbol)."""
    out: set[sympy.Symbol] = set()
    for d in terms.scope.dims.values():
        v = terms.scope.bind(d)
        out |= {x for x in v.free_symbols if isinstance(x, sympy.Symbol)}
    return out


def record_sequence(
    terms: Any, key: str, left: ast.Node, body: sympy.Basic, line: int, text: str
) -> None:
    """`\\omega_j = 1/10000^{2j/d}`, just defined as the sequence `key`: its value at the indices
    a later claim writes is this body (when it is a rule `make_rule` accepts)."""
    if not isinstance(left, ast.Symbol) or left.sub is None:
        return
    try:
        pattern = list(terms.indices(left.sub))
    except (SymattnError, RecursionError):
        return
    if in_example(terms):
        return  # a worked example's sizes are numbers here: the body would keep them
    rule = make_rule(key, pattern, body, sizes_of(terms), line, text)
    if rule is not None:
        add_rule(terms.defs, replace(rule, bound=_bound(terms)))


def _bound(terms: Any) -> tuple[tuple[str, int], ...]:
    """The sizes with a value where the translator reads now (a worked example's), by name."""
    bindings = getattr(terms.scope, "bindings", {}) or {}
    return tuple(sorted((str(k), int(v)) for k, v in bindings.items()))


def in_example(terms: Any) -> bool:
    """Whether a worked example binds a size to a number here."""
    return any(terms.scope.bind(d) != d for d in terms.scope.dims.values())
