"""A computed figure equal to a quantity in a multiple of a unit (`= 14\\text{ GB}`, `= 1.5
\\text{ TFLOPs}`, `= 3亿`): compared as that many units. Imports sympy and the resolved claims."""

from __future__ import annotations

import dataclasses
import re

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["in_multiples"]

_K, _B = sympy.Integer(10), sympy.Integer(2)
#: Each multiple, its value in units, and what it is a multiple of.
_FACTORS: dict[str, tuple[sympy.Integer, str]] = {
    **{f"{p}B": (_K ** (3 * k), "bytes") for k, p in enumerate("KMGTP", 1)},
    "kB": (_K**3, "bytes"),
    **{f"{p}iB": (_B ** (10 * k), "bytes") for k, p in enumerate("KMGTP", 1)},
    **{f"{p}FLOPs": (_K ** (3 * k), "FLOPs") for k, p in enumerate("KMGTP", 1)},
    **{f"{p}FLOP": (_K ** (3 * k), "FLOPs") for k, p in enumerate("KMGTP", 1)},
    "kFLOPs": (_K**3, "FLOPs"),
    "thousand": (_K**3, "ones"),
    "million": (_K**6, "ones"),
    "billion": (_K**9, "ones"),
    "trillion": (_K**12, "ones"),
    "千": (_K**3, "ones"),
    "万": (_K**4, "ones"),
    "亿": (_K**8, "ones"),
}
#: The relation of the claim: `=`, or `\approx` between numbers.
_RELATION = re.compile(r"\\approx(?![A-Za-z])|(?<![<>!\\])=")
#: The words the left side may carry: the unit the multiple is of.
_BASE = {"bytes": {"bytes", "byte", "b"}, "FLOPs": {"flops", "flop"}, "ones": set()}
_WORDS = re.compile(r"\\(?:text|mathrm|textrm|mbox|rm|mathsf)\s*\{([^{}]*)\}")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: The right side: one number and a multiple (`14 \text{ GB}`, `6.7\,\mathrm{GiB}`, `3亿`).
_SIDE = re.compile(
    r"\s*([0-9]+(?:\.([0-9]+))?)\s*(?:\\[,;:! ]|~|\s)*"
    r"(?:\\(?:text|mathrm|textrm|mbox|rm|mathsf)\s*\{\s*(?:\\,\s*)?([^{}]+?)\s*\}|([^\sA-Za-z0-9\\{}]))"
    r"(?=\s*(?:\\\\|&|[.,;]|\\end|\\quad|\\text\s*\{\s*[,.]|\Z))"
)


def in_multiples(claim: ResolvedClaim, body: str) -> ResolvedClaim | None:
    r"""`2 \cdot 7 \cdot 10^9 = 14\text{ GB}`: a claim whose left side is a number the formula
    computes and whose right side is a number in a multiple of a unit, read with the multiple
    as its value (GB as 10^9 bytes, GiB as 2^30), to half the last digit written. It is
    verified when it holds so; it is never false, as the left side may be in other units (bits,
    or GiB written GB). None for any other claim."""
    if claim.status != "pending" or len(claim.pairs) != 1 or claim.split or claim.negated:
        return None
    source = body[claim.start : claim.end]
    rel = _RELATION.search(source)
    if rel is None or len(_RELATION.findall(source)) != 1:
        return None
    approx = rel.group() != "="
    if approx and claim.tolerance is None:
        return None  # `\approx` between numbers only (`approximate.approx_claim`)
    m = _SIDE.match(body, claim.start + rel.end())
    if m is None:
        return None
    unit = (m.group(3) or m.group(4) or "").strip()
    if unit not in _FACTORS:
        return None
    left = source[: rel.start()]
    words = {w.strip().lower() for w in _WORDS.findall(left)}
    if not words <= _BASE[_FACTORS[unit][1]] or _CJK.search(left):
        return None  # `2 \times 10^9 \text{ bits} = 2 \text{ GB}`: units of another kind
    lhs = claim.pairs[0][0]
    if isinstance(lhs, MatExpr) or not isinstance(lhs, sympy.Expr) or lhs.free_symbols:
        return None
    factor, of = _FACTORS[unit]
    decimals = len(m.group(2) or "")
    value = sympy.Rational(m.group(1)) * factor
    step = factor / _K**decimals / 2  # half the last digit: what rounding leaves
    if approx and claim.tolerance is not None:
        step = claim.tolerance * factor  # `\approx`: as it reads a bare number, in units
    why = f"the left side may count other units than {of} (or mean another multiple than {unit})"
    within = "its last digit" if approx else "half its last digit"
    context = f"{m.group(1)} {unit} read as {value} {of}, within {step} ({within})"
    if claim.context and not (approx and claim.context.startswith("\\approx read as")):
        context = f"{claim.context}; {context}"  # (the bare number's tolerance is replaced)
    return dataclasses.replace(
        claim, pairs=((lhs, value),), tolerance=step, context=context, defines=why, free=why
    )
