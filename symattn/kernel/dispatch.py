"""Handlers found by a node's class, as sympy's printers find theirs: one table per walker.

Imports only the standard library; must not import any other module of symattn (every walker,
the kernel's nodes' own plain text included, builds its table with it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

H = TypeVar("H", bound=Callable[..., Any])
Key = type | str


class Dispatcher(Generic[H]):
    """A walker's handlers keyed by node class; a node's handler is the first one registered
    along its class's MRO, so a subclass without a handler of its own takes its parent's.

    A walker that may not import the nodes (the plain text the nodes print themselves with)
    keys its handlers by class name instead, for classes defined in `modules`, as sympy's
    printers find `_print_Transpose` by name.

    >>> table = Dispatcher("demo", {int: lambda x: "int", object: lambda x: "other"})
    >>> table.find(bool)(True), table.find(str)("s"), table.owns(bool)
    ('int', 'other', False)
    """

    def __init__(
        self, walker: str, handlers: Mapping[Any, H] | None = None, *, modules: Iterable[str] = ()
    ) -> None:
        self.walker = walker
        self._table: dict[Key, H] = dict(handlers or {})
        self._modules = frozenset(modules)
        self._found: dict[type, H | None] = {}

    def register(self, *keys: Key) -> Callable[[H], H]:
        """A decorator registering the function for every class (or class name) in `keys`."""

        def add(f: H) -> H:
            for key in keys:
                self[key] = f
            return f

        return add

    def __setitem__(self, key: Key, handler: H) -> None:
        self._table[key] = handler
        self._found.clear()

    def __delitem__(self, key: Key) -> None:
        del self._table[key]
        self._found.clear()

    def own(self, cls: type) -> H | None:
        """The handler registered for `cls` itself (by the class or its name), not inherited."""
        h = self._table.get(cls)
        if h is None and cls.__module__ in self._modules:
            h = self._table.get(cls.__name__)
        return h

    def owns(self, cls: type) -> bool:
        """Whether `cls` has a handler of its own in this walker."""
        return self.own(cls) is not None

    def find(self, cls: type) -> H | None:
        """The handler of the nearest class along `cls`'s MRO that has one, else None."""
        try:
            return self._found[cls]
        except KeyError:
            pass
        h = next((x for x in map(self.own, cls.__mro__) if x is not None), None)
        self._found[cls] = h
        return h

    def __repr__(self) -> str:
        return f"Dispatcher({self.walker!r}, {len(self._table)} handlers)"
