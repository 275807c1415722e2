"""A computed figure equal to a quantity in a multiple of a unit (`= 14\\text{ GB}`, `= 1.5
\\text{ TFLOPs}`, `= 3亿`): compared as that many units, with the unit's other readings (GB as
2^30 bytes, a count of 2-byte elements) for the checker. Imports sympy and the resolved claims."""

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
    r"\s*(?:\\(?:textbf|mathbf|boldsymbol|bm|textit|mathit|mathrm)\s*\{\s*)?"
    r"([0-9]+(?:\.([0-9]+))?)\s*(?:\\[,;:! ]|~|\s)*"
    r"(?:\\(?:text|mathrm|textrm|mbox|rm|mathsf)\s*\{\s*(?:\\,\s*)?([^{}]+?)\s*\}|([^\sA-Za-z0-9\\{}])"
    r"|([KMGTPk]i?B|[KMGTP]FLOPs?)\s*\})"
    r"(?=\s*(?:\\\\|&|[.,;]|\\end|\\quad|\\text\s*\{\s*[,.]|\Z))"
)
#: The decimal multiples of a byte that texts also write for binary ones (GB for GiB).
_BINARY = {f"{p}B": (f"{p}iB", _B ** (10 * k)) for k, p in enumerate("KMGTP", 1)}
_BINARY["kB"] = ("KiB", _B**10)
#: What the left side may count instead of the unit: each, and how many units one is.
_COUNTED: dict[str, tuple[tuple[str, sympy.Rational], ...]] = {
    "bytes": (
        ("bits", sympy.Rational(1, 8)),
        ("4-bit elements", sympy.Rational(1, 2)),
        ("2-byte elements", sympy.Integer(2)),
        ("4-byte elements", sympy.Integer(4)),
        ("8-byte elements", sympy.Integer(8)),
    ),
    "FLOPs": (
        ("multiply-adds (2 FLOPs each)", sympy.Integer(2)),
        ("FLOPs of which 2 make one", sympy.Rational(1, 2)),
    ),
    "ones": (),
}


def in_multiples(claim: ResolvedClaim, body: str) -> ResolvedClaim | None:
    r"""`2 \cdot 7 \cdot 10^9 = 14\text{ GB}`: a claim whose left side is a number the formula
    computes and whose right side is a number in a multiple of a unit, read with the multiple
    as its value (GB as 10^9 bytes, GiB as 2^30), to half the last digit written. The unit's
    other readings go with it (`units`: GB as 2^30 bytes, the left side as a count of bits or
    of 2-byte elements): where the stated one fails, the claim is false only if every other
    reading fails too (`check.unit_readings`). None for any other claim."""
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
    unit = (m.group(3) or m.group(4) or m.group(5) or "").strip()
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
    written = sympy.Rational(m.group(1))
    value = written * factor
    last = 1 / _K**decimals  # the last digit written
    share = claim.tolerance / last if approx and claim.tolerance is not None else _HALF
    step = share * last * factor  # `=`: half the last digit; `\approx`: as for a bare number
    within = "its last digit" if approx else "half its last digit"
    context = f"{m.group(1)} {unit} read as {value} {of}{_what(unit)}, within {step} ({within})"
    if claim.context and not (approx and claim.context.startswith("\\approx read as")):
        context = f"{claim.context}; {context}"  # (the bare number's tolerance is replaced)
    units = _other_readings(unit, written, share * last, words)
    # (`=`: the step is already half the last digit, which `rounded` tells the checker)
    return dataclasses.replace(
        claim,
        pairs=((lhs, value),),
        tolerance=step,
        rounded=not approx,
        context=context,
        units=units,
    )


_HALF = sympy.Rational(1, 2)


def _what(unit: str) -> str:
    """What the multiple is taken to be: ` (GB = 10^9 bytes)`."""
    factor, of = _FACTORS[unit]
    if of == "ones" or factor == 1:
        return ""
    power = f"2^{sympy.log(factor, 2)}" if "i" in unit else f"10^{sympy.log(factor, 10)}"
    return f" ({unit} = {power} {of})"


def _other_readings(
    unit: str, written: sympy.Rational, step: sympy.Rational, words: set[str]
) -> tuple[tuple[str, sympy.Expr, sympy.Rational], ...]:
    """The number written as the checker may also read it: the binary multiple a decimal one
    may stand for, the left side already in a multiple of the unit (`512 \\times 4 = 2
    \\text{ GB}`, in MB), and the left side counting other things than the unit (bits, 2-byte
    elements), when no word on it says what it counts."""
    factor, of = _FACTORS[unit]
    bases = [("", factor)]
    if unit in _BINARY:
        twin, power = _BINARY[unit]
        bases.append((f"{unit} read as {twin} ({power} {of})", power))
    counted = () if words else _COUNTED[of]
    out = []
    for base, size in bases:
        for scale, per_unit in _SCALES[of]:
            for what, per in (("", sympy.Integer(1)), *counted):
                side = f"the left side in {scale}" if scale else ""
                if what:
                    side = f"{side}, counting {what}" if side else f"the left side counting {what}"
                label = ", ".join(x for x in (base, side) if x)
                if label:  # (not the stated reading itself)
                    ratio = size / (per * per_unit)
                    out.append((label, written * ratio, step * ratio))
    return tuple(out)


def _scales(names: str, base: int) -> tuple[tuple[str, sympy.Integer], ...]:
    return tuple((x, sympy.Integer(base) ** k) for k, x in enumerate(names.split(), 1))


#: The multiples the left side may already be counted in, and their size.
_SCALES: dict[str, tuple[tuple[str, sympy.Integer], ...]] = {
    "bytes": (
        ("", sympy.Integer(1)),
        *_scales("KB MB GB TB", 1000),
        *_scales("KiB MiB GiB TiB", 1024),
    ),
    "FLOPs": (("", sympy.Integer(1)), *_scales("KFLOPs MFLOPs GFLOPs TFLOPs", 1000)),
    "ones": (
        ("", sympy.Integer(1)),
        *_scales("thousands millions billions trillions", 1000),
        ("万", sympy.Integer(10**4)),
        ("亿", sympy.Integer(10**8)),
    ),
}
