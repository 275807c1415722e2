"""The house's stairs run one way: every import in the package, read with `ast`, goes down a layer.

A kernel module imports only the kernel, and only modules below it in KERNEL_ORDER; the reader, the
LaTeX back end, the checker and the CLI import only the layers below them. An import inside a
function is allowed only where LAZY lists it with its reason (an optional dependency, or start-up
time); every other import is at the top of its module, where a reader of the module sees it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "symattn"

# The kernel's own order: a module may import only those before it.
KERNEL_ORDER = (
    "lemmas",
    "dispatch",
    "errors",
    "limits",
    "dims",
    "semantics",
    "text",
    "exp_built",
    "nodes",
    "leaves",
    "softmax",
    "tree",
    "expr",
    "modern",
    "masked",
    "ranges",
    "canon",
    "arithmetic",
    "evaluate",
    "compare",
    "witness",
    "witness.evidence",
    "witness.sizes",
    "witness.points",
    "witness.symbolic",
    "witness.field",
    "witness.draw",
    "witness.values",
    "witness.degree_bound",
    "witness.definitions",
    "witness.degrees",
    "witness.coincidence",
    "witness.numeric",
    "witness.screen",
    "witness.certify",
    "witness.enclosed",
    "arrays",
    "witness.reals",
    "witness.arrays",
    "witness.counterexample",
    "witness.coincidence",
    "witness.exact",
    "partial",
    "proof",
    "maxima",
    "recurrent",
    "unroll",
    "induction",
    "unfold",
    "recurrences",
    "online_written",
    "match",
    "rules",
    "derivation",
    "explain",
    "orders",
    "facts",
    "attention",
    "generic_softmax",
    "backward",
    "jacobian",
    "backward_heads",
)

# Each layer and the layers it may import (besides itself and the standard library).
LAYERS: dict[str, set[str]] = {
    "kernel": set(),
    "reader": {"kernel"},
    "latex": {"kernel"},
    # settings: a project's vectors convention
    "check": {"kernel", "reader", "settings", "terminal"},
    "notebook": {"kernel", "latex"},
    "settings": {"kernel"},
    "terminal": set(),
    "derive": {"kernel", "latex", "settings"},
    "testing": {"kernel", "latex"},
    "pytest_plugin": {"kernel", "check"},
    "cli": {
        "kernel",
        "reader",
        "check",
        "latex",
        "derive",
        "settings",
        "lsp",
        "terminal",
        "",
    },  # "": __version__
    "lsp": {"kernel", "reader", "check", "settings", ""},  # "": __version__
    "sphinxext": {"kernel", "check", ""},  # "": __version__
    "soundness": {"kernel", "reader", "check", "latex", "derive", "cli"},
    "__main__": {"cli"},
    "": {"notebook"},  # symattn/__init__.py: lazy re-exports through importlib, and notebook
}

# The reader's parts and the parts each may import (besides itself): text -> AST, AST -> terms,
# terms -> claims. The reader's own __init__ may import any of them.
READER_PARTS: dict[str, set[str]] = {
    "syntax": set(),
    "terms": {"syntax"},
    "claims": {"syntax", "terms"},
}

# (importing module, imported module) -> why the import waits until a function runs.
# Third-party modules are named by their top-level package.
LAZY: dict[tuple[str, str], str] = {
    ("", "symattn.notebook"): "only inside a running IPython: `import symattn` stays cheap",
    ("latex.build", "matplotlib"): "optional (the figures extra): png_is_blank says how to get it",
    ("latex.figures", "matplotlib"): "optional (the figures extra): a clear error names it",
    ("pytest_plugin", "symattn.check"): "pytest loads the plugin in every run; check if used",
    ("reader.syntax.parse", "lark"): "the grammar is built on first use: the reader loads fast",
    ("testing", "pytest"): "symattn.testing's assertions work without pytest installed",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> tuple[tuple[str, int, bool], ...]:
    """(imported module relative to symattn or a top-level name, line, inside a function?)."""
    return _imports_of(name, path, path.read_text("utf-8"))


@functools.cache
def _imports_of(name: str, path: Path, text: str) -> tuple[tuple[str, int, bool], ...]:
    return tuple(_scan(name, path, text))


def _scan(name: str, path: Path, text: str):
    is_pkg = path.name == "__init__.py"
    package = name.split(".") if is_pkg else name.split(".")[:-1]

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                for a in child.names:
                    yield _named(a.name), child.lineno, inner
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[: len(package) - (child.level - 1)]
                    mod = ".".join(["symattn", *base, *([child.module] if child.module else [])])
                else:
                    mod = child.module or ""
                targets = [_named(mod)]
                if mod.startswith("symattn"):
                    # `from symattn.kernel import expr` imports the module symattn.kernel.expr
                    sub = [f"{mod}.{a.name}" for a in child.names]
                    targets = [s for s in sub if s.removeprefix("symattn.") in MODULES] or [mod]
                for t in targets:
                    yield t, child.lineno, inner
            else:
                yield from visit(child, inner)

    yield from visit(ast.parse(text), False)


def _named(module: str) -> str:
    """symattn modules by their full name, anything else by its top-level package."""
    return module if module.startswith("symattn") else module.split(".")[0]


def _layer(module: str) -> str:
    return module.split(".")[0] if module else ""


def _part(module: str) -> str:
    """The reader's part of a reader module ("" for the reader's own __init__)."""
    return module.split(".")[1] if module.count(".") >= 1 else ""


def _own(imported: str) -> str | None:
    if imported == "symattn":
        return ""
    return imported.removeprefix("symattn.") if imported.startswith("symattn.") else None


def _violations():
    for name, path in MODULES.items():
        here = _layer(name)
        for imported, line, inner in _imports(name, path):
            own = _own(imported)
            shown = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE) else path
            where = f"{shown.as_posix()}:{line}"
            if inner and (name, imported) not in LAZY and imported.split(".")[0] != "__future__":
                yield f"{where}: imports {imported} inside a function (not listed in LAZY)"
            if own is None:
                continue
            there = _layer(own)
            if there != here and there not in LAYERS[here]:
                yield f"{where}: {here or 'symattn'} imports {imported} ({there or 'symattn'})"
            if here == there == "reader":
                a, b = _part(name), _part(own)
                if a and b and a != b and b not in READER_PARTS[a]:
                    yield f"{where}: reader.{a} imports {imported} (reader.{b})"
            if here == there == "kernel":
                a, b = name.removeprefix("kernel."), own.removeprefix("kernel.")
                if b == "kernel" or b == a:
                    continue
                if KERNEL_ORDER.index(b) >= KERNEL_ORDER.index(a):
                    yield f"{where}: kernel.{a} imports kernel.{b}, which is not below it"


def test_every_module_is_in_a_layer():
    for name in MODULES:
        assert _layer(name) in LAYERS, f"symattn.{name} is in no layer"
        if _layer(name) == "kernel" and name != "kernel":
            assert name.removeprefix("kernel.") in KERNEL_ORDER, f"symattn.{name} not ordered"
        if _layer(name) == "reader" and name != "reader":
            assert _part(name) in READER_PARTS, f"symattn.{name} is in no part of the reader"


def test_imports_run_one_way():
    found = list(_violations())
    assert not found, "\n".join(found)


def test_lazy_imports_are_few_and_still_exist():
    assert len(LAZY) <= 8
    present = {
        (name, imp)
        for name, path in MODULES.items()
        for imp, _, inner in _imports(name, path)
        if inner
    }
    assert set(LAZY) <= present, f"LAZY lists imports that are gone: {set(LAZY) - present}"


@pytest.mark.parametrize(
    "bad",
    [
        "kernel.expr -> reader",
        "kernel.expr -> kernel.proof",
        "reader.syntax.parse -> reader.terms.scope",
        "reader.terms.scope -> reader.claims.resolve",
    ],
)
def test_the_layout_check_can_fail(bad, tmp_path, monkeypatch):
    a, b = bad.split(" -> ")
    fake = tmp_path / "mod.py"
    fake.write_text(f"import symattn.{b}\n")
    monkeypatch.setitem(MODULES, a, fake)
    mine = [v for v in _violations() if v.startswith(f"{fake}:")]
    assert len(mine) == 1, mine
    assert f"imports symattn.{b}" in mine[0] or "which is not below it" in mine[0]


def test_a_moved_module_keeps_its_old_path():
    from symattn.kernel import arrays
    from symattn.kernel.witness import arrays as old

    assert old.evaluate is arrays.evaluate and old.to_float64 is arrays.to_float64
