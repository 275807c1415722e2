"""Fixtures for the LaTeX back end: a TeX engine and CJK fonts that CI requires and developers
may lack."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from symattn.testing import require_tex


@pytest.fixture
def tex() -> None:
    require_tex()


@pytest.fixture
def noto_cjk() -> None:
    """Skip without Debian's fonts-noto-cjk files, except under SYMATTN_REQUIRE_TEX=1 (CI installs
    the fonts with TeX Live), where their absence fails the test, as a missing TeX engine does."""
    from symattn.latex.figures import CJK_FONT_FILES

    if any(Path(path).is_file() for path in CJK_FONT_FILES[:2]):
        return
    reason = "no Noto CJK font files (Debian/Ubuntu: apt-get install fonts-noto-cjk)"
    if os.environ.get("SYMATTN_REQUIRE_TEX") == "1":
        pytest.fail(f"SYMATTN_REQUIRE_TEX=1 but {reason}")
    pytest.skip(reason)
