"""One random point mod p for the exact witness: leaf entries, free scalars and atoms, drawn on use.

Imports only the standard library; must not import kernel.evaluate, whose fast walker the exact
witness checks, nor proof or anything above it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping


class Point:
    """One random point mod p: leaf entries, free scalars and atoms, drawn when first read."""

    def __init__(
        self,
        p: int,
        seed: int,
        shapes: Mapping[str, tuple[int, int]],
        leaf: Callable[[tuple], int] | None = None,
        atom: Callable[[tuple], int] | None = None,
    ):
        self.p, self.shapes = p, dict(shapes)
        self.rng = random.Random(seed)
        self.values: dict[tuple, int] = {}
        self.atoms: dict[tuple, int] = {}
        self._leaf, self._atom = leaf, atom

    def leaf(self, key: tuple) -> int:
        v = self.values.get(key)
        if v is None:
            v = self._leaf(key) % self.p if self._leaf else self.rng.randrange(self.p)
            self.values[key] = v
        return v

    def atom(self, key: tuple) -> int:
        v = self.atoms.get(key)
        if v is None:
            v = self._atom(key) % self.p if self._atom else self.rng.randrange(1, self.p)
            self.atoms[key] = v
        return v
