"""Every node class has its own handler in every walker, and its own `shape` and `entry`.

The node classes are found by walking the subclasses of `MatExpr` and `sympy.Basic` (after
importing every module of the package), never from a hand-written list, so a new node that one
walker forgot fails here instead of falling through to a parent's handler.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest
import sympy

import symattn
from symattn.kernel import evaluate, text
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.expr import MatExpr, MatSym
from symattn.kernel.witness import exact, field
from symattn.latex import printer
from symattn.soundness.truth import MATRIX as TRUTH_MATRIX
from symattn.soundness.truth import SCALAR as TRUTH_SCALAR

for _mod in pkgutil.walk_packages(symattn.__path__, "symattn."):
    if not _mod.name.endswith("__main__"):  # running a __main__ would start a command
        importlib.import_module(_mod.name)


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def _ours(classes: set[type]) -> list[type]:
    # abstract bases are private (`_SameShape`); every public class is a node a user can build
    found = [c for c in classes if c.__module__.startswith("symattn.")]
    return sorted((c for c in found if not c.__name__.startswith("_")), key=lambda c: c.__name__)


MATRIX_NODES = _ours(_subclasses(MatExpr))
SCALAR_NODES = _ours(_subclasses(sympy.Basic) - _subclasses(MatExpr) - {MatExpr})

# (walker, its table for matrix nodes, its table for scalar nodes)
WALKERS: list[tuple[str, Dispatcher, Dispatcher]] = [
    ("evaluate", evaluate.MATRIX, evaluate.SCALAR),
    ("degree bound", field.DEGREE, field.DEGREE),
    ("expansion cost", exact.TERMS, exact.TERMS),
    ("plain text", text.PLAIN, text.PLAIN),
    ("LaTeX printer", printer.LATEX, printer.LATEX),
    ("independent truth", TRUTH_MATRIX, TRUTH_SCALAR),
]


def _missing(table: Dispatcher, nodes: list[type]) -> list[str]:
    return [c.__name__ for c in nodes if not table.owns(c)]


def test_the_node_classes_are_found():
    names = {c.__name__ for c in MATRIX_NODES}
    assert {"MatSym", "MatMul", "Softmax", "Concat", "OnlineSoftmax", "FeatureMap"} <= names
    assert "_SameShape" not in names and len(MATRIX_NODES) >= 24
    assert {c.__name__ for c in SCALAR_NODES} == {"Entry", "Dot", "Partial"}


@pytest.mark.parametrize(("walker", "matrices", "scalars"), WALKERS, ids=[w[0] for w in WALKERS])
def test_every_walker_has_a_handler_of_its_own_for_every_node(walker, matrices, scalars):
    missing = _missing(matrices, MATRIX_NODES) + _missing(scalars, SCALAR_NODES)
    assert not missing, f"{walker} has no handler for {', '.join(missing)}"


@pytest.mark.parametrize("cls", MATRIX_NODES, ids=lambda c: c.__name__)
def test_every_matrix_node_defines_its_shape_and_entry(cls):
    assert cls.shape is not MatExpr.shape, f"{cls.__name__} has no shape"
    assert cls._entry is not MatExpr._entry, f"{cls.__name__} has no entry"


@pytest.mark.parametrize("cls", SCALAR_NODES, ids=lambda c: c.__name__)
def test_every_scalar_node_defines_its_expansion(cls):
    assert callable(getattr(cls, "expanded", None)), f"{cls.__name__} has no expanded()"


def test_the_check_fails_for_a_forgotten_node():
    # a table with a handler for every node but one
    first, *rest = MATRIX_NODES
    partial = Dispatcher("partial", {c: repr for c in rest})
    assert _missing(partial, MATRIX_NODES) == [first.__name__]


def test_an_inherited_handler_is_found_but_is_not_its_own():
    table = Dispatcher("demo", {MatExpr: lambda e: "any matrix"})
    node = MATRIX_NODES[0]
    assert table.find(node) is not None and not table.owns(node)


def test_a_handler_keyed_by_name_needs_the_node_module():
    table = Dispatcher("by name", {"MatSym": str}, modules=("symattn.kernel.leaves",))
    assert table.owns(MatSym)
    assert not Dispatcher("by name", {"MatSym": str}, modules=("elsewhere",)).owns(MatSym)
