"""Fixtures for the LaTeX back end: a TeX engine that CI requires and developers may lack."""

from __future__ import annotations

import pytest

from symattn.testing import require_tex


@pytest.fixture
def tex() -> None:
    require_tex()
