"""Each module's docstring says what it must not import; this holds it to its word.

The kernel's own order is tests/test_layout.py's; here, the names of packages and front ends.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "symattn"
COMMANDS = ("derive", "prove", "rules", "shapes", "check")

#: a word of a "must not import ..." sentence -> the module prefixes it forbids
WORDS: dict[str, tuple[str, ...]] = {
    r"\bthe kernel\b(?!'s)": ("symattn.kernel",),
    r"\bthe kernel's evaluator\b": ("symattn.kernel.evaluate",),
    r"\bthe kernel's .*\bwitnesses\b": ("symattn.kernel.witness",),
    r"\bthe kernel's .*\bcanonical forms\b": ("symattn.kernel.canon",),
    r"\breader\b": ("symattn.reader",),
    r"\bcheck\b|\bthe checker\b": ("symattn.check",),
    r"\bcli\b|\bthe CLI\b": ("symattn.cli",),
    r"\blatex\b": ("symattn.latex",),
    r"\bthe resolver\b": ("symattn.reader.claims.resolve",),
    r"\b(a|any) front end\b": ("symattn.reader", "symattn.check", "symattn.cli"),
    r"\blark\b": ("lark",),
    r"\b(a|another) command('s)? module\b": tuple(f"symattn.cli.{c}" for c in COMMANDS),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module) -> set[str]:
    """Every module the file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def forbidden(sentence: str, module: str) -> set[str]:
    """The module prefixes a "must not import ..." clause forbids `module` (never itself)."""
    if re.search(r"\bthe rest of\b", sentence):  # "the rest of the kernel": too loose to check
        sentence = re.sub(r"\bthe rest of [\w ]+", "", sentence)
    out: set[str] = set()
    for pattern, prefixes in WORDS.items():
        if re.search(pattern, sentence):
            out |= {p for p in prefixes if not module.startswith(p) and not p.startswith(module)}
    return out


def _cases() -> list[tuple[str, str, set[str]]]:
    cases = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doc = " ".join((ast.get_docstring(tree) or "").split())
        match = re.search(r"must not import (.*?)(?:\.\s|\.$|;|$)", doc)
        if match:
            module = _module_name(path)
            cases.append((module, match.group(1), _imports(tree)))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("module", "sentence", "imports"), CASES, ids=[c[0] for c in CASES])
def test_a_module_imports_nothing_its_docstring_forbids(module, sentence, imports):
    banned = forbidden(sentence, module)
    wrong = sorted(i for i in imports if any(i == b or i.startswith(b + ".") for b in banned))
    assert not wrong, (
        f"{module}: the docstring says 'must not import {sentence}', but it imports {wrong}"
    )


def test_the_docstring_check_can_fail():
    assert forbidden("the reader, check or cli", "symattn.latex") == {
        "symattn.reader",
        "symattn.check",
        "symattn.cli",
    }
    assert forbidden("another command module", "symattn.cli.check") == {
        f"symattn.cli.{c}" for c in COMMANDS if c != "check"
    }
    assert forbidden("the rest of the kernel", "symattn.reader") == set()
    assert len(CASES) >= 40
