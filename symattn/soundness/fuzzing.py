"""Fuzzing the reader and the checker: random and mangled formulas must be read or refused cleanly.

Imports the reader, check and the kernel's errors and limits; must not import cli.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from symattn.check import check_formula
from symattn.kernel.errors import ParseError, SymattnError
from symattn.kernel.limits import TimeBudgetExceeded, time_budget
from symattn.reader import parse_formula

# Words of the dialect (docs/reader.md), used to grow formulas and to mangle them.
ATOMS = (
    "Q",
    "K",
    "V",
    "X",
    "A",
    "Z",
    "W_Q",
    "W_K",
    "W_V",
    "W_O",
    "q_i",
    "k_j",
    "v_j",
    "z_i",
    "a_{ij}",
    "Q_{ir}",
    "K_{jr}",
    "V_{ju}",
    "Z^{(h)}",
    "W_O^{(h)}",
    "d_k",
    "d_v",
    "n",
    "H",
    "\\mathbf q_i",
    "\\alpha",
    "2",
    "64",
    "0.5",
    "i",
    "j",
    "r",
)


TOKENS = ATOMS + (
    "=",
    "\\in",
    ",",
    ".",
    ";",
    "\\cdot",
    "\\times",
    "+",
    "-",
    "/",
    "^T",
    "^{\\top}",
    "^{(h)}",
    "_{ij}",
    "_i",
    "(",
    ")",
    "\\left(",
    "\\right)",
    "[",
    "]",
    "{",
    "}",
    "\\frac{",
    "}{",
    "\\sqrt{",
    "\\sum_{r=1}^{d_k}",
    "\\sum_j",
    "\\operatorname{softmax}",
    "\\mathrm{softmax}",
    "\\exp",
    "\\mathbb R^{",
    "\\times",
    "\\begin{bmatrix}",
    "\\end{bmatrix}",
    "&",
    "\\\\",
    "\\ldots",
    "\\text{ for all }",
    "\\quad",
    "\\le",
    "\\neq",
    "\\boxed{",
    "\\,",
    " ",
)


UNICODE = (
    "患者",
    "é",
    "\u0301",
    "\u200b",
    "\u202e",
    "\ufeff",
    "\x00",
    "\ud800",
    "😀",
    "∑",
    "√",
    "ℝ",
    "\u2028",
    "\t",
    "\r\n",
    "$",
    "%",
    "#",
    "~",
    "'",
    "!",
    "`",
    "\\",
    "\\foo",
)


def random_formula(rng: random.Random, depth: int = 3) -> str:
    """A formula grown from the dialect's grammar (usually valid, never huge).

    >>> random_formula(random.Random(1)) == random_formula(random.Random(1))
    True
    """
    kind = rng.randrange(4)
    if kind == 0:
        names = ",".join(rng.sample(["Q", "K", "V", "X", "W_O"], rng.randint(1, 3)))
        a, b = (
            rng.choice(["n", "d", "d_k", "d_v", "Hd_v", "5", "64"]),
            rng.choice(["d_k", "d_v", "d", "n"]),
        )
        return f"{names}\\in\\mathbb R^{{{a}\\times {b}}}"
    lhs, rhs = _expr(rng, depth), _expr(rng, depth)
    if kind == 1:
        return f"{lhs}={rhs}"
    if kind == 2:
        return f"{lhs}={rhs}={_expr(rng, depth - 1)}"
    return f"\\left({lhs}\\right)_{{ij}}={rhs}"


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    forms = (
        f"{a}{b}",
        f"{a}+{b}",
        f"{a}\\cdot {b}",
        f"\\frac{{{a}}}{{{b}}}",
        f"({a})",
        f"{a}^T",
        f"\\sqrt{{{a}}}",
        f"\\sum_{{r=1}}^{{d_k}}{a}",
        f"\\operatorname{{softmax}}\\left({a}\\right)",
        f"\\begin{{bmatrix}}{a}&{b}\\\\{b}&{a}\\end{{bmatrix}}",
        f"{a}^{{(h)}}",
        f"({a})_{{ij}}",
    )
    return rng.choice(forms)


def mangle(text: str, rng: random.Random) -> str:
    """One random damage: delete, duplicate or swap a piece, unbalance a bracket, insert unicode.

    >>> mangle("QK^T", random.Random(0)) != "QK^T" or True
    True
    """
    if not text:
        return rng.choice(TOKENS)
    a = rng.randrange(len(text) + 1)
    b = min(len(text), a + rng.randint(1, 6))
    op = rng.randrange(7)
    if op == 0:
        return text[:a] + text[b:]
    if op == 1:
        return text[:b] + text[a:b] + text[b:]
    if op == 2:
        c = rng.randrange(len(text) + 1)
        x, y = sorted((a, c))
        return text[:x] + text[y:] + text[x:y]
    if op == 3:
        return text[:a] + rng.choice("{}()[]") + text[a:]
    if op == 4:
        return text[:a] + rng.choice(UNICODE) + text[a:]
    if op == 5:
        return text[:a] + rng.choice(TOKENS) + text[a:]
    return text[:a]


@dataclass(frozen=True)
class FuzzProblem:
    """A formula the reader (or checker) mishandled: crash, diagnostic without position, slow."""

    text: str
    stage: str
    problem: str


def fuzz_one(text: str, *, checker: bool = False, seconds: float = 2.0) -> FuzzProblem | None:
    """Feed one formula to the reader (and the checker); None when it behaved.

    >>> fuzz_one("QK^T=") is None
    True
    """

    start = time.monotonic()
    try:
        parse_formula(text)
    except ParseError as exc:
        pos = exc.position
        if pos is None or pos.line < 1 or pos.column < 1 or not 0 <= pos.offset <= len(text):
            return FuzzProblem(text, "reader", f"ParseError without a valid position: {exc}")
    except Exception as exc:
        return FuzzProblem(text, "reader", f"uncaught {type(exc).__name__}: {exc}")
    if time.monotonic() - start > seconds:
        return FuzzProblem(text, "reader", f"took {time.monotonic() - start:.1f} s")
    if checker:
        return _fuzz_checker(text, seconds)
    return None


def _fuzz_checker(text: str, seconds: float) -> FuzzProblem | None:

    try:
        with time_budget(seconds):
            results = check_formula(text, "Q,K: n x d_k; V: n x d_v")
    except TimeBudgetExceeded:
        return FuzzProblem(text, "checker", f"gave up after {seconds:g} s")
    except SymattnError:
        return None
    except Exception as exc:
        return FuzzProblem(text, "checker", f"uncaught {type(exc).__name__}: {exc}")
    if not isinstance(results, list):
        return FuzzProblem(text, "checker", f"returned {type(results).__name__}")
    return None


def fuzz(
    examples: int, seed: int = 0, *, checker: bool = False, seconds: float = 2.0
) -> list[FuzzProblem]:
    """`examples` formulas (half valid, half mangled one to three times); every problem found."""
    rng = random.Random(seed)
    problems = []
    for k in range(examples):
        text = random_formula(rng)
        for _ in range(0 if k % 2 == 0 else rng.randint(1, 3)):
            text = mangle(text, rng)
        found = fuzz_one(text, checker=checker, seconds=seconds)
        if found is not None:
            problems.append(found)
    return problems


def fuzz_main(argv: Sequence[str]) -> int:
    """`python -m symattn.soundness fuzz --examples N [--seed S] [--checker]`."""
    ap = argparse.ArgumentParser(prog="python -m symattn.soundness fuzz")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checker", action="store_true", help="also run symattn.check on each")
    ap.add_argument("--seconds", type=float, default=2.0, help="time bound per formula")
    opts = ap.parse_args(list(argv))
    start = time.monotonic()
    problems = fuzz(opts.examples, opts.seed, checker=opts.checker, seconds=opts.seconds)
    for prob in problems:
        print(f"[{prob.stage}] {prob.problem}\n    formula: {prob.text!r}")
    mode = "on" if opts.checker else "off"
    took = time.monotonic() - start
    print(f"fuzz: {opts.examples} formulas (seed {opts.seed}, checker {mode}) in {took:.1f} s: ")
    print(f"  {len(problems)} problems")
    return 1 if problems else 0
