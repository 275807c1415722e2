"""Budgets that keep bad or huge input from exhausting memory, time or Python's stack.

Imports only the standard library and kernel.errors, so the kernel (expr, canon) can consult it.

- **Nesting**: a matrix expression deeper than `MAX_DEPTH` levels is refused where it is built
  (`check_depth`); sympy walks trees recursively, so a deeper tree would end in a RecursionError.
- **Explicit size**: `explicit_terms` estimates how many terms writing a scalar out at explicit
  sizes would produce; `check_explicit` refuses more than `MAX_EXPLICIT_TERMS`, and
  `check_array` refuses numeric arrays of more than `MAX_ARRAY_ENTRIES` floats.
- **Time**: `time_budget(seconds)` sets a deadline for the block in CPU seconds of this process
  (`time.process_time`), not wall time, so the same claim gets the same verdict on a busy
  machine; the kernel's loops call `check_time()`, and in the main thread a CPU-time timer
  (`ITIMER_VIRTUAL`) interrupts long library calls too. Either way `TimeBudgetExceeded` ("gave
  up after N s of CPU") is raised; `prove_within` turns it into an `unknown` verdict.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import sympy

from symattn.kernel.errors import InputError, ResourceError

MAX_DEPTH = 200
MAX_EXPLICIT_TERMS = 200_000
MAX_ARRAY_ENTRIES = 50_000_000
DEFAULT_SECONDS = 60.0

ADVICE = (
    "keep the dims symbolic (n, d_k, d_v, H) for a proof for all sizes, or use the exact "
    "witness at random points, which never writes the sums out"
)


class TimeBudgetExceeded(ResourceError):
    """A check ran past its time budget; the message says 'gave up after N s'."""


# ---- nesting --------------------------------------------------------------------------------


def check_depth(depth: int) -> None:
    """Refuse a tree deeper than `MAX_DEPTH` before anything recurses on it.

    >>> check_depth(3)
    >>> check_depth(MAX_DEPTH + 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    symattn.kernel.errors.ResourceError: matrix expression nested 201 levels deep; ...
    """
    if depth > MAX_DEPTH:
        raise ResourceError(
            f"matrix expression nested {depth} levels deep; the limit is {MAX_DEPTH} "
            "(long products: name intermediate results, e.g. P = AB, and multiply those)"
        )


# ---- explicit sizes -------------------------------------------------------------------------


def explicit_terms(e: Any) -> float:
    """About how many terms `e` has once every sum with explicit bounds is written out.

    Sums with symbolic bounds count as one term (they are never written out). Walks the tree
    with an explicit stack, so any depth is fine.

    >>> import sympy
    >>> i, j = sympy.symbols("i j", integer=True)
    >>> explicit_terms(sympy.Sum(sympy.IndexedBase("x")[i, j], (i, 1, 100), (j, 1, 30)))
    3000.0
    """

    counts: dict[int, float] = {}
    stack: list[tuple[Any, bool]] = [(e, False)]
    while stack:
        x, done = stack.pop()
        if not done:
            stack.append((x, True))
            stack.extend((a, False) for a in x.args if isinstance(a, sympy.Basic))
            continue
        kids = [counts[id(a)] for a in x.args if isinstance(a, sympy.Basic) and id(a) in counts]
        counts[id(x)] = _combine(x, kids, sympy)
    return counts[id(e)]


def _combine(x: Any, kids: list[float], sympy: Any) -> float:
    if isinstance(x, sympy.Sum):
        body = kids[0] if kids else 1.0
        for _, lo, hi in x.limits:
            size = sympy.sympify(hi - lo + 1, strict=True)
            body *= float(size) if size.is_Integer and size > 0 else 1.0
        return body
    if isinstance(x, sympy.Mul):
        return math.prod(kids) if kids else 1.0
    if isinstance(x, sympy.Pow) and x.exp.is_Integer and x.exp > 0:
        return kids[0] ** min(int(x.exp), 64) if kids else 1.0
    if isinstance(x, sympy.Pow):  # a quotient writes its denominator out too
        return float(sum(kids)) if kids else 1.0
    if isinstance(x, (sympy.Add, sympy.Piecewise, sympy.Function)) and kids:
        return float(sum(kids))
    return 1.0


def check_explicit(e: Any, limit: int = MAX_EXPLICIT_TERMS) -> None:
    """Refuse to write `e` out at explicit sizes when it would have more than `limit` terms.

    >>> import sympy
    >>> i = sympy.Symbol("i", integer=True)
    >>> check_explicit(sympy.Sum(sympy.IndexedBase("x")[i], (i, 1, 10)))
    >>> check_explicit(sympy.Sum(sympy.IndexedBase("x")[i], (i, 1, 10**9)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    symattn.kernel.errors.ResourceError: writing this out at explicit sizes would produce ...
    """
    terms = explicit_terms(e)
    if terms > limit:
        raise ResourceError(
            f"writing this out at explicit sizes would produce about {terms:.3g} terms "
            f"(the limit is {limit:,}); {ADVICE}"
        )


def check_array(rows: int, cols: int, what: str = "a matrix") -> None:
    """Refuse a numeric array of more than `MAX_ARRAY_ENTRIES` floats.

    >>> check_array(5, 64)
    >>> check_array(10**6, 10**6, "QK^T")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    symattn.kernel.errors.ResourceError: QK^T at 1000000 × 1000000 would need 8e+12 bytes ...
    """
    if rows * cols > MAX_ARRAY_ENTRIES:
        raise ResourceError(
            f"{what} at {rows} × {cols} would need {8.0 * rows * cols:.3g} bytes of float64 "
            f"(the limit is {MAX_ARRAY_ENTRIES:,} entries); {ADVICE}"
        )


# ---- time -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Deadline:
    at: float  # a time.process_time() value
    seconds: float

    def message(self) -> str:
        return f"gave up after {self.seconds:g} s of CPU time (the time budget of this check)"


_DEADLINE: contextvars.ContextVar[_Deadline | None] = contextvars.ContextVar(
    "symattn_deadline", default=None
)


def check_time() -> None:
    """Raise `TimeBudgetExceeded` when the innermost `time_budget` has run out; cheap.

    >>> check_time()  # no budget in force: never raises
    """
    d = _DEADLINE.get()
    if d is not None and clock() > d.at:
        raise TimeBudgetExceeded(d.message())


def remaining() -> float | None:
    """CPU seconds left in the budget in force, or None when there is none."""
    d = _DEADLINE.get()
    return None if d is None else d.at - clock()


def clock() -> float:
    """The clock budgets are counted on: CPU seconds of this process (user + system)."""
    return time.process_time()


@contextlib.contextmanager
def time_budget(seconds: float | None = DEFAULT_SECONDS) -> Iterator[None]:
    """Run the block with a deadline of `seconds` of CPU time; `TimeBudgetExceeded` says so.

    Nested budgets keep the earlier deadline. In the main thread a repeating CPU-time timer
    (SIGVTALRM) also interrupts long calls inside sympy; elsewhere only the kernel's own checks
    stop it. Time spent waiting (sleep, input) does not count.

    >>> with time_budget(5):
    ...     remaining() is not None
    True
    """
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise InputError("a time budget must be positive")
    new = _Deadline(clock() + seconds, seconds)
    outer = _DEADLINE.get()
    if outer is not None and outer.at <= new.at:
        yield
        return
    token = _DEADLINE.set(new)
    use_alarm = _alarm_usable()
    previous = _arm(new) if use_alarm else None
    try:
        yield
    finally:
        if use_alarm:
            _disarm(previous, outer)
        _DEADLINE.reset(token)


_REPEAT = 1.0  # seconds between repeated alarms once a deadline has passed


def _alarm_usable() -> bool:
    return (
        hasattr(signal, "setitimer")
        and hasattr(signal, "SIGVTALRM")
        and threading.current_thread() is threading.main_thread()
    )


def _arm(d: _Deadline) -> Any:
    def on_alarm(signum: int, frame: Any) -> None:
        if clock() >= d.at - 1e-2:
            raise TimeBudgetExceeded(d.message())

    previous = signal.signal(signal.SIGVTALRM, on_alarm)
    # Repeat: library code that swallows one exception (`except Exception`) gets another. The
    # interval is long enough for an honest unwind to reach _disarm first; a short one fired
    # again inside finalizers run during the unwind ("exception ignored" warnings).
    # ITIMER_VIRTUAL counts user CPU time only, never more than process_time: when it fires,
    # the deadline has passed (a repeat catches the rare case of a system-time share).
    signal.setitimer(signal.ITIMER_VIRTUAL, max(d.at - clock(), 1e-3), _REPEAT)
    return previous


def _disarm(previous: Any, outer: _Deadline | None) -> None:
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    signal.signal(signal.SIGVTALRM, previous if previous is not None else signal.SIG_DFL)
    if outer is not None:
        signal.setitimer(signal.ITIMER_VIRTUAL, max(outer.at - clock(), 1e-3), _REPEAT)
