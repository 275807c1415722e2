"""The CPU budget of one kernel call of the checker. Imports the kernel's limits only."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from symattn.kernel.errors import Signal
from symattn.kernel.limits import TimeBudgetExceeded, time_budget

__all__ = ["OutOfTime", "time_limit"]


class OutOfTime(Signal):
    """A kernel call of the checker ran past its CPU budget."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Stop a kernel call that runs past `seconds` of CPU time (`limits.time_budget`: the same
    claim gets the same verdict on a busy machine); 0 or less: no limit."""
    if seconds <= 0:
        yield
        return
    try:
        with time_budget(seconds):
            yield
    except TimeBudgetExceeded:
        raise OutOfTime from None
