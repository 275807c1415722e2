"""`exp` of a written-out entry built without sympy's evaluation where it provably changes nothing.

Imports only sympy; must not import anything of symattn (the kernel builds entries with it).

`sympy.exp(x)` asks `x` for its zeroness and each factor of a product for comparability before
it gives up and returns `exp(x)` unchanged; for the polynomials in matrix entries that a claim
written out at explicit sizes gives, those questions cost more than the rest of building the
entry. `exp_of(x)` returns the very expression `sympy.exp(x)` returns (the same tree), and
skips the questions only where their answers are known from the form of `x`:

- `x` has no logarithm, no `pi` and no imaginary unit, no infinity or `nan`, no float and no
  nested `exp`, so no rule of `exp.eval` (`exp(log y) = y`, `exp(i pi k)`, the limits, a float
  to evaluate) applies to it or to a term of it;
- `x` is a product (then `exp.eval` returns nothing unless a factor is a logarithm), a sum with
  a term that holds an entry of a matrix (an `Indexed` with no assumption: a term whose
  zeroness and realness sympy cannot know, so the sum is not known to be zero), or a `Sum` of a
  product of nonzero numbers and entries over a range that is not empty (not known to be zero
  either).

Everything else goes to `sympy.exp`.
"""

from __future__ import annotations

import sympy

_NEVER = (sympy.log, sympy.Float, sympy.AccumBounds)  # a rule of exp.eval, or evalf
_IN_SUMS = (sympy.exp, sympy.Piecewise, sympy.Sum)  # a sum is also asked whether it is zero
_CONSTANTS = (
    sympy.pi,
    sympy.I,
    sympy.oo,
    -sympy.oo,
    sympy.zoo,
    sympy.nan,
    sympy.E,
)


def exp_of(x: sympy.Expr) -> sympy.Expr:
    """`sympy.exp(x)`, the same expression, sooner for a product or sum of entries.

    >>> Q = sympy.IndexedBase("Q")
    >>> x = 2 * Q[1, 1] * Q[2, 1] + Q[1, 2] / 3
    >>> exp_of(x) == sympy.exp(x), exp_of(sympy.log(Q[1, 1])) == Q[1, 1]
    (True, True)
    """
    if _unchanged_by_exp(x):
        return sympy.exp(x, evaluate=False)
    return sympy.exp(x)


def _unchanged_by_exp(x: sympy.Basic) -> bool:
    if not x.is_commutative or not isinstance(x, (sympy.Mul, sympy.Add, sympy.Sum)):
        return False
    if x.has(*_CONSTANTS) or x.atoms(*_NEVER):
        return False
    if isinstance(x, sympy.Mul):
        return True  # exp.eval of a product returns nothing unless a factor is a logarithm
    if isinstance(x, sympy.Sum):
        return _opaque_sum(x)
    return not x.atoms(*_IN_SUMS) and any(_opaque_entry_term(t) for t in x.args)


def _opaque_sum(x: sympy.Sum) -> bool:
    """A sum over a range that is not empty of a product of nonzero numbers and entries:
    sympy cannot know it is zero (its summand is not known to be, its range is not empty)."""
    f = x.function
    factors = f.args if isinstance(f, sympy.Mul) else (f,)
    if not any(isinstance(y, sympy.Indexed) for y in factors):
        return False
    for y in factors:
        if _nonzero_number(y):
            continue
        base = y.base if isinstance(y, sympy.Pow) and y.exp.is_Integer and y.exp > 0 else y
        if not (isinstance(base, sympy.Indexed) and _no_assumption(base)):
            return False
    return x.has_empty_sequence is False


def _nonzero_number(y: sympy.Basic) -> bool:
    """A nonzero rational, or a positive rational to a rational power (`sqrt(2)/2`)."""
    if isinstance(y, sympy.Rational):
        return y != 0
    return (
        isinstance(y, sympy.Pow)
        and isinstance(y.base, sympy.Rational)
        and y.base > 0
        and isinstance(y.exp, sympy.Rational)
    )


def _opaque_entry_term(t: sympy.Basic) -> bool:
    """A term that is an entry, or a product with an entry as a factor, every entry of it with
    no assumption (sympy knows nothing of its sign, realness or zeroness)."""
    factors = t.args if t.is_Mul else (t,)
    entries = [f for f in factors if isinstance(f, sympy.Indexed)]
    return bool(entries) and all(_no_assumption(e) for e in t.atoms(sympy.Indexed))


def _no_assumption(e: sympy.Indexed) -> bool:
    label = e.base.label
    if not isinstance(label, sympy.Symbol):
        return False
    plain = {"commutative"}  # what every entry is (a scalar), nothing about its value
    return set(label.assumptions0) | set(e.assumptions0) <= plain
