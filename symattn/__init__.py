"""symattn: derive, check and typeset the mathematics of Transformer attention.

The public API is re-exported lazily here so that `import symattn` stays cheap.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    # dims
    "dim": "symattn.dims",
    "assume": "symattn.dims",
    "dims_equal": "symattn.dims",
    "n": "symattn.dims",
    "d": "symattn.dims",
    "d_k": "symattn.dims",
    "d_v": "symattn.dims",
    "H": "symattn.dims",
    # expressions
    "index": "symattn.expr",
    "MatExpr": "symattn.expr",
    "MatSym": "symattn.expr",
    "HeadSym": "symattn.expr",
    "Ones": "symattn.expr",
    "FromColumn": "symattn.expr",
    "MatMul": "symattn.expr",
    "MatAdd": "symattn.expr",
    "Scale": "symattn.expr",
    "Transpose": "symattn.expr",
    "Softmax": "symattn.expr",
    "ColSoftmax": "symattn.expr",
    "CausalMask": "symattn.expr",
    "Row": "symattn.expr",
    "RowBlock": "symattn.expr",
    "Concat": "symattn.expr",
    "MatSum": "symattn.expr",
    "Entry": "symattn.expr",
    "Dot": "symattn.expr",
    "expand_entries": "symattn.expr",
    # canonical forms, proofs
    "normal_form": "symattn.canon",
    "prove_equal": "symattn.proof",
    "Verdict": "symattn.proof",
    "Derivation": "symattn.proof",
    "Proof": "symattn.proof",
    "prove_positive": "symattn.facts",
    # the chapter's objects
    "single_head": "symattn.attention",
    "multi_head": "symattn.attention",
    # errors
    "SymattnError": "symattn.errors",
    "ShapeError": "symattn.errors",
    "ProofError": "symattn.errors",
    "ParseError": "symattn.errors",
    "DimError": "symattn.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symattn' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
