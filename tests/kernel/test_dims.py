"""The named sizes live in kernel.dims, once: each name one size, and no module makes its own.

A size made elsewhere with the same name and assumptions would be the same sympy symbol, so two
meanings written with one letter (key padding and rotary pairs were both `p`) would be one size.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sympy

import symattn
from symattn.kernel import dims, rules
from symattn.kernel.expr import dims_in
from symattn.soundness.identities import identities

PACKAGE = Path(symattn.__file__).parent
#: The one module that makes sizes, and the oracle that by design imports nothing of symattn.
MAKERS = {PACKAGE / "kernel" / "dims.py", *(PACKAGE / "soundness" / "oracle").glob("*.py")}
#: Other places that build a positive-integer symbol, and why that is not a second set of sizes.
ELSEWHERE = {
    "nodes.py": "index(): the indices i, j, r (positive integers too, by design)",
    "corpus_contexts.py": "a size named only by a verdict's text, built from that name",
}


def _named_dims() -> dict[str, sympy.Symbol]:
    return {
        k: v
        for k, v in vars(dims).items()
        if isinstance(v, sympy.Symbol) and v.is_integer and v.is_positive
    }


def test_each_named_size_has_its_own_letter():
    named = _named_dims()
    assert {"n", "d_k", "p", "P", "ell", "G"} <= set(named)
    assert len({s.name for s in named.values()}) == len(named)


def _sizes(*terms: sympy.Basic) -> set[sympy.Symbol]:
    return set().union(*(dims_in(x) | x.free_symbols for x in terms))


def test_padding_and_rotary_pairs_are_different_sizes():
    registry = rules.registry()
    pairs = _sizes(*registry["rope_pairs_apply"].sides())
    padding = _sizes(*registry["softmax_pad_rowsum"].sides())
    assert dims.P in pairs and dims.p not in pairs
    assert dims.p in padding and dims.P not in padding
    rope = [x for x in identities() if x.name == "rope_relative"]
    assert rope and all(dims.p not in _sizes(x.lhs, x.rhs) for x in rope)


def _makes_a_size(call: ast.Call) -> bool:
    """`Symbol(..., integer=True, positive=True)`, the recipe of a dimension."""
    name = getattr(call.func, "attr", getattr(call.func, "id", ""))
    words = {k.arg for k in call.keywords}
    return name in ("Symbol", "symbols") and {"integer", "positive"} <= words


def sizes_made_in(paths: list[Path]) -> list[str]:
    """`file:line` of every dimension made in these files."""
    out = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and _makes_a_size(node):
                out.append(f"{path.name}:{node.lineno}")
    return out


def test_no_module_makes_its_own_sizes():
    paths = [p for p in sorted(PACKAGE.rglob("*.py")) if p not in MAKERS]
    assert len(paths) > 100
    assert [s for s in sizes_made_in(paths) if s.split(":")[0] not in ELSEWHERE] == []


def test_the_size_check_can_fail(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text('import sympy\np = sympy.Symbol("p", integer=True, positive=True)\n')
    assert sizes_made_in([fake]) == ["fake.py:2"]
