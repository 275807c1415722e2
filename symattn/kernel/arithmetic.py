"""The arithmetic the one evaluator computes in: the interface `witness.field.ModP` and
`witness.numeric.Float64` implement, and the signals an arithmetic raises.

Imports only numpy, sympy and kernel.errors; must not import the evaluator or anything above it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import sympy

from symattn.kernel.errors import Signal

#: The walker that calls an arithmetic (`kernel.evaluate.Evaluator`, above this module).
Evaluator = Any

Range = tuple[sympy.Expr, sympy.Expr]
Draw = Callable[[tuple, tuple[int, int], np.random.Generator], np.ndarray]


class Unsupported(Signal):
    """A node or value this arithmetic cannot take; the caller tries another witness."""


class IllFormedHere(Unsupported):
    """The claim is ill-formed at these sizes: it reads an entry, row or block outside its
    matrix, or uses one name with two shapes."""


class Resample(Signal):
    """A denominator vanished at this random point: the point is drawn again."""


class Arithmetic:
    """How values are drawn and combined (`witness.field.ModP`, `witness.numeric.Float64`)."""

    name = "arithmetic"
    dtype: Any = np.float64
    probes = False  # compare matrices as L x = R x for a random x (exact arithmetics only)

    def draw(self, key: tuple, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def adopt(self, arr: np.ndarray) -> np.ndarray:
        """Values supplied from outside (a user's draw), brought into this arithmetic."""
        return np.asarray(arr, dtype=self.dtype)

    def constant(self, e: sympy.Basic, ev: Evaluator) -> Any:
        raise NotImplementedError

    def index(self, v: Any) -> Any:
        """An index value used as a number in a formula."""
        raise NotImplementedError

    def add(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def mul(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def inverse(self, a: Any) -> Any:
        raise NotImplementedError

    def power(self, a: Any, k: int) -> Any:
        raise NotImplementedError

    def exp(self, a: Any, ev: Evaluator) -> Any:
        raise NotImplementedError

    def trig(self, name: str, a: Any, ev: Evaluator) -> Any:
        """`cos` or `sin` of a value (rotary embeddings)."""
        raise Unsupported(f"cannot evaluate {name} in {self.name}")

    def real_power(self, base: Any, exponent: Any, e: sympy.Basic) -> Any:
        """`base ** exponent` for a non-integer exponent (`d_k^{-1/2}` at a size)."""
        raise Unsupported(f"cannot evaluate the power {e} in {self.name}")

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def total(self, a: np.ndarray, axis: int, keepdims: bool = False) -> Any:
        raise NotImplementedError

    def times(self, a: Any, count: int) -> Any:
        """`a` added `count` times."""
        raise NotImplementedError

    def softmax(self, s: np.ndarray, keep: np.ndarray | None, axis: int, ev: Evaluator) -> Any:
        raise NotImplementedError

    def equal(self, x: Any, y: Any) -> Any:
        """Elementwise: are the two values the same in this arithmetic?"""
        raise NotImplementedError
