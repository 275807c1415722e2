"""The textbook printer's style: its options, the names of symbols and entries, the factor order.

A back end's helper: reads kernel objects (kernel.expr) only; must not import proof, rules or any
front end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy

from symattn.kernel import expr as E

# The printer's conventions (see docs/derive.md):
#
# - indices are printed as stored, and the kernel stores them 1-based (`\sum_{r=1}^{d_k}`);
# - bound indices keep the names they were given (`r`, `j`, `u`, `h`); `r1` prints as `r'`;
# - in a product of entries the factors follow ``order`` (by default the written order of the
#   expression a derivation started from, then a fixed textbook order: X, Q, K, S, A, Z, W_Q,
#   W_K, W_V, V, W_O); numbers first, then dims, entries, functions, and a sum last;
# - entries of ``A`` print as ``a_{ij}``; entries of a matrix with a subscripted name as
#   ``(W_O)_{cj}``; a per-head entry as ``Z^{(h)}_{iu}``;
# - the causal mask prints as ``S + M`` with ``M`` the mask matrix (0 on and below the diagonal,
#   ``-\infty`` above it).


#: Fallback order of matrices in a product of entries, after the written order.
TEXTBOOK_ORDER: tuple[str, ...] = (
    "X",
    "Q",
    "K",
    "S",
    "A",
    "Z",
    "W_Q",
    "W_K",
    "W_V",
    "V",
    "W_O",
)


#: Matrices whose entries are written with the lower-case letter (`a_{ij}`).
LOWER_ENTRIES: tuple[str, ...] = ("A",)


def written_order(*exprs: sympy.Basic) -> tuple[str, ...]:
    """Names of the matrices in the order they are written (for ``order=``).

    >>> from symattn.kernel.attention import single_head
    >>> written_order(single_head().output)
    ('Q', 'K', 'V')
    """
    seen: list[str] = []
    for e in exprs:
        for x in E.walk(e):
            name = _matrix_name(x)
            if name is not None and name not in seen:
                seen.append(name)
    return tuple(seen)


def _matrix_name(x: sympy.Basic) -> str | None:
    if isinstance(x, (E.MatSym, E.HeadSym)):
        return x.name
    if isinstance(x, sympy.Indexed):
        return _base_name(x)[0]
    return None


def _base_name(x: sympy.Indexed) -> tuple[str, bool]:
    """The matrix name of an entry and whether it is a per-head family (`Z^()`)."""
    label = str(x.base.label)
    if label.endswith("^()"):
        return label[:-3], True
    return label, False


def symbol_latex(name: str) -> str:
    """A symbol name as LaTeX: ``d_k``, ``W_{QK}``; ``r1`` (a second ``r``) as ``r'``.

    >>> symbol_latex("W_Q"), symbol_latex("r1"), symbol_latex("W_QK")
    ('W_Q', "r'", 'W_{QK}')
    """
    base, sep, sub = name.partition("_")
    if not sep:
        head = base.rstrip("0123456789")
        if head and head != base and len(head) == 1:
            return head + "'" * int(base[len(head) :])
        return name if len(name) == 1 else _multi_letter(name)
    return f"{base}_{sub}" if len(sub) == 1 else f"{base}_{{{sub}}}"


def _multi_letter(name: str) -> str:
    return f"\\{name}" if name in _LETTERS else rf"\mathit{{{name}}}"


#: Names of sizes and scalars that TeX has a letter for (`ell` is the script ℓ of a length).
_LETTERS = {
    *("alpha", "beta", "gamma", "delta", "epsilon", "eta", "theta", "kappa", "lambda", "mu"),
    *("nu", "xi", "pi", "rho", "sigma", "tau", "phi", "chi", "psi", "omega", "ell"),
}


# Dims in a product: n, d, then H directly before the per-head width (n, d, Hd_v).
_DIM_ORDER = {"n": 0, "d": 1, "H": 2, "d_k": 3, "d_v": 4}


def _dim_name(f: sympy.Basic) -> str | None:
    """The symbol of a dim-like factor (`n`, `n**2`), else None."""
    if isinstance(f, sympy.Pow) and isinstance(f.base, sympy.Symbol) and f.exp.is_positive:
        f = f.base
    return f.name if isinstance(f, sympy.Symbol) else None


def _glue(prev: sympy.Basic, cur: sympy.Basic, text: str) -> str:
    r"""What goes between two factors: `\cdot` between numbers, a thin space between dims."""
    if prev.is_number and text[0].isdigit():
        return r"\cdot "
    if isinstance(prev, sympy.Symbol) and prev.name != "H" and _dim_name(cur) is not None:
        return r"\,"
    return ""


def _factor_name(f: sympy.Basic) -> str:
    if isinstance(f, sympy.Indexed):
        return _base_name(f)[0]
    if isinstance(f, E.Entry):
        # an entry of a compound ranks by the first matrix written in it: (QK^T/√d_k)_{ij} as Q
        names = written_order(f.matrix)
        return names[0] if names else ""
    return ""


def _index_key(f: sympy.Basic) -> tuple[tuple[int, int, str], ...]:
    idx = f.indices if isinstance(f, sympy.Indexed) else f.args[1:]
    out = []
    for x in idx:
        if isinstance(x, sympy.Integer):
            out.append((0, int(x), ""))
        else:
            out.append((1, 0, str(x)))
    return tuple(out)


def _ends_with_sum(factors: Sequence[sympy.Expr]) -> bool:
    return any(isinstance(f, sympy.Sum) for f in factors)


def _block_form(e: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr] | None:
    """`h*d_v - d_v + u` as `(h, d_v, u)`, i.e. `(h-1)d_v+u`, when the form shows it."""
    e = sympy.expand(e)
    for s in sorted(e.free_symbols, key=str):
        m = e.coeff(s)
        if m == 0 or m.is_number:
            continue
        rest = sympy.expand(e - (s - 1) * m)
        if isinstance(rest, sympy.Symbol) or (rest.is_Integer and rest > 0):
            return s, m, rest
    return None


@dataclass(frozen=True)
class Style:
    """How to print: transpose mark, bold vectors, renames, factor order, language of text."""

    transpose: str = r"\mathsf T"
    bold: bool = False
    names: Mapping[object, str] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    lang: str = "en"
    mask: str = "M"
    operators: Mapping[str, str] = field(default_factory=dict)

    def op(self, name: str, default: str) -> str:
        return self.operators.get(name, default)

    def rank(self, name: str) -> tuple[int, str]:
        full = (*self.order, *TEXTBOOK_ORDER)
        return (full.index(name), "") if name in full else (len(full), name)


#: "otherwise" in a definition by cases, per language
_OTHERWISE = {"en": r"\text{otherwise}", "zh": r"\text{其他}"}
#: the recurrences' operators; a bug variant prints under its own name
_RECURRENCE_OPS = {
    "flash_forward": r"\operatorname{online}",
    "split_kv_merge": r"\operatorname{merge}",
    "linear_state": r"\operatorname{linrec}",
    "kv_cache_every_step": r"\operatorname{cache}",
}
