"""Fixtures for the LaTeX back end: a TeX engine that CI requires and developers may lack."""

from __future__ import annotations

import os
import shutil

import pytest

from symattn.latex import install_hint, tex_engine_available


def tex_tools_present() -> bool:
    return tex_engine_available() and shutil.which("pdftoppm") is not None


def require_tex_or_skip() -> None:
    """Skip without TeX, except under SYMATTN_REQUIRE_TEX=1 (CI), where a missing engine fails."""
    if tex_tools_present():
        return
    reason = f"no TeX engine (latexmk, xelatex, pdftoppm); {install_hint()}"
    if os.environ.get("SYMATTN_REQUIRE_TEX") == "1":
        pytest.fail(f"SYMATTN_REQUIRE_TEX=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def tex() -> None:
    require_tex_or_skip()
