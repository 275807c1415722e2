"""Assertions for derivation scripts and test suites: proved, false, same shape.

Imports the kernel (dims, expr, proof, text) and latex.build; must not import the reader, check or
cli. A failed assertion says what the kernel found.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.expr import MatExpr
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.text import plain
from symattn.kernel.witness.counterexample import Counterexample
from symattn.latex.build import install_hint, tex_engine_available

__all__ = ["assert_false", "assert_proved", "assert_same_shape"]


def assert_proved(
    lhs: sympy.Basic, rhs: sympy.Basic, *, allow_checked: bool = False, **kw: Any
) -> Verdict:
    """Assert the kernel proves `lhs = rhs` for all sizes (or, with `allow_checked`, at explicit
    sizes); keyword arguments go to `prove_equal` (defs, ranges, assuming, witnesses).

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> assert_proved(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j))).status
    'proved'
    """

    v = prove_equal(lhs, rhs, **kw)
    ok = v.status == "proved" or (allow_checked and v.status == "checked")
    if not ok:
        raise AssertionError(f"not proved: {plain(lhs)} = {plain(rhs)}\n  {v.summary()}")
    return v


def assert_false(lhs: sympy.Basic, rhs: sympy.Basic, **kw: Any) -> Counterexample | None:
    """Assert the kernel refutes `lhs = rhs`; returns the counterexample.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> cex = assert_false(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)))
    >>> "i=" in str(cex)
    True
    """

    v = prove_equal(lhs, rhs, **kw)
    if v.status != "false":
        raise AssertionError(f"expected false: {plain(lhs)} = {plain(rhs)}\n  {v.summary()}")
    return v.counterexample


def assert_same_shape(a: MatExpr, b: MatExpr) -> None:
    """Assert two matrix expressions have provably equal shapes.

    >>> from symattn.kernel.attention import single_head
    >>> s = single_head()
    >>> assert_same_shape(s.scores, s.A)
    >>> assert_same_shape(s.Q, s.V)
    Traceback (most recent call last):
    AssertionError: shapes differ: Q is n × d_k, V is n × d_v (cols d_k and d_v differ)
    """
    for x in (a, b):
        if not isinstance(x, MatExpr):
            raise AssertionError(f"{plain(x)} is not a matrix expression")
    for k, what in ((0, "rows"), (1, "cols")):
        if not dims_equal(a.shape[k], b.shape[k]):
            raise AssertionError(
                f"shapes differ: {plain(a)} is {shape_str(a.shape)}, {plain(b)} is "
                f"{shape_str(b.shape)} ({what} {a.shape[k]} and {b.shape[k]} differ)"
            )


def require_tex() -> None:
    """Skip the calling test without a TeX engine, except under SYMATTN_REQUIRE_TEX=1 (as in CI),
    where a missing engine fails it: a build that must be tested is never silently skipped.
    """

    import pytest

    if tex_engine_available() and shutil.which("pdftoppm") is not None:
        return
    reason = f"no TeX engine (latexmk, xelatex, pdftoppm); {install_hint()}"
    if os.environ.get("SYMATTN_REQUIRE_TEX") == "1":
        pytest.fail(f"SYMATTN_REQUIRE_TEX=1 but {reason}")
    pytest.skip(reason)
