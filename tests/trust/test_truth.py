"""The mutation corpus's truth shares no code with the kernel's evaluator: its imports, read with
`ast` and loaded in a fresh interpreter, reach only the kernel's node classes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import symattn

# the truth, its numpy route and the papers' loops; each may import the others, and the kernel's
# node classes only
SOUNDNESS = Path(symattn.__file__).parent / "soundness"
TRUTH_FILES = tuple(SOUNDNESS / f"{m}.py" for m in ("truth", "numpy_route", "numpy_loops"))
OWN = {"symattn.soundness.truth", "symattn.soundness.numpy_route", "symattn.soundness.numpy_loops"}
ALLOWED = {
    "symattn.kernel.expr",
    "symattn.kernel.modern",
    "symattn.kernel.dims",
    "symattn.kernel.dispatch",
    "symattn.kernel.errors",
}
# what the kernel decides claims with: none of it may stand behind the truth
FORBIDDEN = (
    "symattn.kernel.evaluate",
    "symattn.kernel.witness",
    "symattn.kernel.canon",
    "symattn.kernel.ranges",
    "symattn.kernel.proof",
)


def _imports(path: Path) -> set[str]:
    mods: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            mods |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "symattn.kernel":  # from symattn.kernel import expr as E
                mods |= {f"{node.module}.{a.name}" for a in node.names}
            else:
                mods.add(node.module)
    return mods


@pytest.mark.parametrize("path", TRUTH_FILES, ids=lambda p: p.name)
def test_truth_imports_only_the_kernel_nodes(path):
    ours = {m for m in _imports(path) if m.split(".")[0] == "symattn"} - OWN
    assert ours <= ALLOWED, sorted(ours - ALLOWED)
    others = {m.split(".")[0] for m in _imports(path) - ours - OWN}
    assert others <= {
        "__future__", "itertools", "math", "operator", "random", "zlib", "collections",
        "typing", "numpy", "sympy",
    }, others  # fmt: skip


def test_the_modules_truth_imports_load_no_evaluator():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in sorted(ALLOWED))
        + f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_import_check_can_fail(tmp_path):
    fake = tmp_path / "truth.py"
    fake.write_text(
        "from symattn.kernel.witness import numeric\nfrom symattn.kernel import canon\n"
    )
    assert {"symattn.kernel.witness", "symattn.kernel.canon"} <= _imports(fake) - ALLOWED
