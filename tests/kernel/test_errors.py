"""One tree of exceptions: every exception class symattn defines is a SymattnError or a Signal.

The package's modules are imported and every class they define is read, so a new exception class
with another base fails here; the checker itself is shown to fail on such a class.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import types
from pathlib import Path

import pytest

import symattn
from symattn.kernel import errors
from symattn.kernel.errors import InputError, Signal, SymattnError

#: Modules that, by design, import nothing from symattn (the soundness suite's independent
#: oracle, and the wider classes' own evaluator): their private exceptions cannot derive from
#: the kernel's classes.
INDEPENDENT = {"symattn.soundness.oracle", "symattn.soundness.wild"}


def _modules() -> list[types.ModuleType]:
    out = []
    for info in pkgutil.walk_packages(symattn.__path__, "symattn."):
        if info.name.endswith("__main__"):  # runs a command line when imported
            continue
        try:
            out.append(importlib.import_module(info.name))
        except ImportError as exc:  # an optional extra that is not installed (lsp, sphinx)
            if (exc.name or "").startswith("symattn"):
                raise
    return out


def _exception_classes(module: types.ModuleType) -> list[type[BaseException]]:
    return [
        o
        for o in vars(module).values()
        if inspect.isclass(o) and issubclass(o, BaseException) and o.__module__ == module.__name__
    ]


def strays(module: types.ModuleType) -> list[str]:
    """The exception classes of `module` outside the tree (warnings are not errors)."""
    if module.__name__.startswith(tuple(INDEPENDENT)):  # a module or the modules of a package
        return []
    return [
        f"{module.__name__}.{c.__qualname__}"
        for c in _exception_classes(module)
        if not issubclass(c, (SymattnError, Signal, Warning))
    ]


@pytest.fixture(scope="module")
def modules() -> list[types.ModuleType]:
    return _modules()


def test_every_exception_class_is_in_the_tree(modules):
    found = [c for m in modules for c in _exception_classes(m)]
    assert len(found) > 30  # the walk saw the package, not an empty list
    assert [s for m in modules for s in strays(m)] == []


def test_the_check_finds_a_class_outside_the_tree():
    fake = types.ModuleType("symattn.fake")
    exec("class Lost(Exception):\n    pass\n", fake.__dict__)
    fake.Lost.__module__ = "symattn.fake"
    assert strays(fake) == ["symattn.fake.Lost"]


def test_the_independent_oracle_imports_nothing_of_symattn():
    from symattn.soundness import oracle

    imported = []
    for path in Path(oracle.__file__).parent.glob("*.py"):  # the oracle's own modules
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported = [m for m in imported if not m.startswith("symattn.soundness.oracle.")]
    assert imported and not [m for m in imported if m.startswith("symattn")]


def test_a_signal_is_not_an_error():
    # an escaped Signal must surface as a bug, not be caught as a user's error
    assert not issubclass(Signal, SymattnError)


def test_the_branches():
    from symattn.check import FileError
    from symattn.derive.sources import SourceError
    from symattn.kernel.witness.numeric import ArrayError
    from symattn.reader.syntax.macros import MacroError
    from symattn.reader.syntax.notebook import NotebookError
    from symattn.reader.terms.conventions import ConventionError
    from symattn.settings import SettingsError

    for cls in (
        errors.ParseError,
        errors.DimError,
        FileError,
        ArrayError,
        MacroError,
        NotebookError,
        ConventionError,
        SettingsError,
        SourceError,
    ):
        assert issubclass(cls, InputError), cls
        assert issubclass(cls, ValueError), cls
    assert issubclass(errors.SoundnessAlarm, errors.InternalError)
    assert issubclass(errors.UnknownNameError, KeyError)
    from symattn.kernel.limits import TimeBudgetExceeded

    assert issubclass(TimeBudgetExceeded, errors.ResourceError)


def test_the_old_names_are_the_new_classes():
    from symattn import check, numeric

    assert check.InputError is check.FileError
    assert numeric.InputError is numeric.ArrayError


def test_input_errors_say_where():
    e = errors.ParseError("unexpected end of formula", errors.Position(1, 3))
    assert (str(e), e.where) == ("1:3: unexpected end of formula", "1:3")
    assert InputError("bad", where="--dims").where == "--dims"
    assert InputError("bad").where is None


@pytest.mark.parametrize(
    "name", ["ShapeError", "DimError", "ProofError", "ParseError", "UnknownNameError"]
)
def test_documented_classes_are_symattn_errors(name):
    assert issubclass(getattr(errors, name), SymattnError)
