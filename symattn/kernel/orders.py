"""Orders between scalars in positive names (`1/\\sqrt{d_k} \\le 1`, `d/2 < d`): proved where the
difference keeps its sign for every value, refuted at a point where it fails for every value.

Imports sympy and the kernel's proof and evidence; nothing above the kernel.
"""

from __future__ import annotations

import math

import sympy

from symattn.kernel.proof import Verdict
from symattn.kernel.witness.evidence import Counterexample

__all__ = ["prove_order"]

#: more terms than this after clearing denominators: not decided (a bound on the work)
_TERMS = 400


def prove_order(diff: sympy.Expr, *, strict: bool) -> Verdict:
    """`diff > 0` (`diff >= 0` when not `strict`) for every value of its names: each a size (a
    positive integer) or a positive number. `proved` when the sign of every term shows it,
    `false` with a point when the order fails at every value, `unknown` otherwise.

    Sound: a size `s` is written `(1 + t)^L` with `t >= 0` real (a positive number `t^L`, `t >
    0`), `L` clearing the roots of `s`; a polynomial in such `t` whose coefficients are all of
    one sign keeps that sign for every `t` (for every real value, so for every size).

    >>> from symattn.kernel.dims import dim
    >>> d = dim("d_k")
    >>> prove_order(1 - 1 / sympy.sqrt(d), strict=False).status
    'proved'
    >>> prove_order(1 - 1 / sympy.sqrt(d), strict=True).status
    'unknown'
    >>> v = prove_order(d / 2 - d, strict=False)
    >>> v.status, str(v.counterexample)
    ('false', 'at sizes d_k=1: left side = -1/2, right side = 0 (evaluated exactly)')
    """
    diff = sympy.sympify(diff, strict=True)
    want = "positive" if strict else "non-negative"
    unknown = Verdict(
        "unknown",
        reason=f"an order between values: the difference of the sides is not shown {want} "
        f"for every value of {_names(diff)}, nor to fail for every one",
    )
    sign = _sign(diff)
    if sign is None:
        return unknown
    low, high = sign  # the difference is >= low (> when strict) ...: see `_sign`
    if (strict and low == "pos") or (not strict and low in ("pos", "nonneg")):
        reason = f"the difference is {want} for every value of {_names(diff)}"
        return Verdict("proved", witnesses=("symbolic",), reason=reason)
    if high in ("neg", "nonpos") and (high == "neg" or strict):
        return _refuted(diff, strict)
    return unknown


def _names(diff: sympy.Expr) -> str:
    return ", ".join(sorted(str(s) for s in diff.free_symbols)) or "its numbers"


def _refuted(diff: sympy.Expr, strict: bool) -> Verdict:
    """The point where every name is 1, where the order (failing everywhere) fails."""
    point = {s: sympy.Integer(1) for s in diff.free_symbols}
    value = sympy.nsimplify(diff.subs(point)) if diff.free_symbols else diff
    fails = value.is_negative or (strict and value.is_zero)
    if not fails:
        return Verdict("unknown", reason="the order fails for every value, but not shown at one")
    cex = Counterexample(
        sizes=tuple((str(s), 1) for s in sorted(point, key=str)),
        indices=(),
        entries=(),
        lhs=str(value),
        rhs="0",
        exact=True,
    )
    reason = f"the difference of the sides is {'not positive' if strict else 'negative'}"
    reason += f" for every value of {_names(diff)}" if diff.free_symbols else ""
    return Verdict("false", witnesses=("symbolic",), reason=reason, counterexample=cex)


def _sign(diff: sympy.Expr) -> tuple[str, str] | None:
    """(what the difference is at least, what it is at most) over every value: `pos`,
    `nonneg`, or '' for the first; `neg`, `nonpos` or '' for the second. None when the
    difference is not a quotient of polynomials in the names once their roots are cleared."""
    names = sorted(diff.free_symbols, key=str)
    if not names:
        if diff.is_positive:
            return "pos", ""
        if diff.is_negative:
            return "", "neg"
        return ("nonneg", "nonpos") if diff.is_zero else None
    if any(not s.is_positive for s in names):
        return None
    table: dict[sympy.Symbol, sympy.Expr] = {}
    fresh: list[tuple[sympy.Symbol, bool]] = []  # (t, t may be 0)
    for k, s in enumerate(names):
        roots = _roots(diff, s)
        if roots is None:
            return None
        t = sympy.Symbol(f"_t{k}", positive=True)
        table[s] = (1 + t) ** roots if s.is_integer else t**roots
        fresh.append((t, bool(s.is_integer)))
    try:
        num, den = sympy.fraction(sympy.together(sympy.expand(diff.subs(table))))
        polys = [sympy.Poly(sympy.expand(x), *[t for t, _ in fresh]) for x in (num, den)]
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, TypeError, ValueError):
        return None
    if any(len(p.terms()) > _TERMS for p in polys):
        return None
    signs = [_poly_sign(p, [zero for _, zero in fresh]) for p in polys]
    if signs[0] is None or signs[1] is None:
        return None
    n_sign, d_sign = signs
    assert n_sign is not None and d_sign is not None
    (n_low, n_high), (d_low, d_high) = n_sign, d_sign
    if d_high == "neg":  # a negative denominator: the numerator's sign flips
        n_low, n_high = _flip(n_low, n_high)
    elif d_low != "pos":
        return None
    return n_low, n_high


def _flip(low: str, high: str) -> tuple[str, str]:
    down = {"pos": "neg", "nonneg": "nonpos", "": ""}
    up = {"neg": "pos", "nonpos": "nonneg", "": ""}
    return up[high], down[low]


def _roots(diff: sympy.Expr, s: sympy.Symbol) -> int | None:
    """The least common denominator of the powers `s` is raised to; None where `s` is inside
    anything but sums, products and rational powers (a logarithm, a function)."""
    out = 1
    for node in sympy.preorder_traversal(diff):
        if not node.has(s) or node == s:
            continue
        if isinstance(node, sympy.Pow):
            if not node.exp.is_Rational or node.exp.has(s):
                return None
            if node.base == s:
                out = math.lcm(out, int(node.exp.q))
            continue
        if not isinstance(node, sympy.Add | sympy.Mul):
            return None
    return out


def _poly_sign(p: sympy.Poly, may_be_zero: list[bool]) -> tuple[str, str] | None:
    """The sign a polynomial keeps for every value of its variables (each >= 0 where
    `may_be_zero`, else > 0), from the signs of its coefficients."""
    terms = p.terms()
    if not terms:
        return "nonneg", "nonpos"  # the zero polynomial
    signs = []
    for monom, coeff in terms:
        if coeff.free_symbols:
            return None  # a power the roots did not clear (`\\sqrt{n + 1}`)
        if coeff.is_positive:
            sign = 1
        elif coeff.is_negative:
            sign = -1
        else:
            return None  # a coefficient of unknown sign
        always = not any(e and zero for e, zero in zip(monom, may_be_zero, strict=True))
        signs.append((sign, always))
    if all(s > 0 for s, _ in signs):
        return ("pos" if any(a for _, a in signs) else "nonneg"), ""
    if all(s < 0 for s, _ in signs):
        return "", ("neg" if any(a for _, a in signs) else "nonpos")
    return "", ""
