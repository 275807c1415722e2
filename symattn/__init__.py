"""symattn: derive, check and typeset the mathematics of Transformer attention.

Imports no symattn module at import time: the public API is re-exported lazily through
`importlib`, so `import symattn` stays cheap; symattn.notebook only inside a running IPython.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    # dims
    "dim": "symattn.kernel.dims",
    "assume": "symattn.kernel.dims",
    "dims_equal": "symattn.kernel.dims",
    "n": "symattn.kernel.dims",
    "d": "symattn.kernel.dims",
    "d_k": "symattn.kernel.dims",
    "d_v": "symattn.kernel.dims",
    "H": "symattn.kernel.dims",
    # expressions
    "index": "symattn.kernel.expr",
    "MatExpr": "symattn.kernel.expr",
    "MatSym": "symattn.kernel.expr",
    "HeadSym": "symattn.kernel.expr",
    "Ones": "symattn.kernel.expr",
    "FromColumn": "symattn.kernel.expr",
    "MatMul": "symattn.kernel.expr",
    "MatAdd": "symattn.kernel.expr",
    "Hadamard": "symattn.kernel.expr",
    "Scale": "symattn.kernel.expr",
    "Transpose": "symattn.kernel.expr",
    "Softmax": "symattn.kernel.expr",
    "ColSoftmax": "symattn.kernel.expr",
    "CausalMask": "symattn.kernel.expr",
    "Row": "symattn.kernel.expr",
    "RowBlock": "symattn.kernel.expr",
    "Concat": "symattn.kernel.expr",
    "MatSum": "symattn.kernel.expr",
    "Entry": "symattn.kernel.expr",
    "Dot": "symattn.kernel.expr",
    "expand_entries": "symattn.kernel.expr",
    # canonical forms, proofs
    "normal_form": "symattn.kernel.canon",
    "prove_equal": "symattn.kernel.proof",
    "Verdict": "symattn.kernel.proof",
    "Derivation": "symattn.kernel.derivation",
    "Proof": "symattn.kernel.derivation",
    "prove_positive": "symattn.kernel.facts",
    # the chapter's objects
    "single_head": "symattn.kernel.attention",
    "multi_head": "symattn.kernel.attention",
    # gradients: the backward pass of attention
    "attention_backward": "symattn.kernel.backward",
    "directional": "symattn.kernel.backward",
    "prove_gradient": "symattn.kernel.backward",
    # numbers: any expression on the user's own arrays
    "evaluate": "symattn.kernel.arrays",
    # errors
    "SymattnError": "symattn.kernel.errors",
    "ShapeError": "symattn.kernel.errors",
    "ProofError": "symattn.kernel.errors",
    "ParseError": "symattn.kernel.errors",
    "DimError": "symattn.kernel.errors",
}

# Modules a user reaches as `symattn.numeric` or `from symattn import rules`.
_MODULES = {
    "numeric": "symattn.kernel.witness.numeric",
    "rules": "symattn.kernel.rules",
}

__all__ = sorted([*_EXPORTS, *_MODULES])


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        value: Any = importlib.import_module(_MODULES[name])
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'symattn' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


def load_ipython_extension(shell: Any) -> None:
    """`%load_ext symattn`: expressions as LaTeX, verdicts with badges (symattn.notebook)."""
    from symattn import notebook

    notebook.register(shell)


def _register_with_a_running_ipython() -> None:
    ipython = sys.modules.get("IPython")  # never imported here: only a shell already running
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        load_ipython_extension(shell)


_register_with_a_running_ipython()
