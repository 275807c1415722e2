"""Shared output of the commands: colour only on a terminal, progress only on a terminal."""

from __future__ import annotations

import pytest


class _Tty:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    ("tty", "mode", "no_color", "expected"),
    [
        (True, "auto", "", True),
        (False, "auto", "", False),
        (True, "auto", "1", False),
        (False, "always", "1", True),
        (True, "never", "", False),
    ],
)
def test_colour_only_on_a_terminal(monkeypatch, tty, mode, no_color, expected):
    from symattn.cli.output import use_colour

    monkeypatch.setenv("NO_COLOR", no_color)
    assert use_colour(_Tty(tty), mode) is expected


@pytest.mark.parametrize("tty", [True, False])
def test_progress_goes_to_a_terminal_only(tty):
    from symattn.cli.output import Progress

    stream = _Tty(tty)
    p = Progress(3, "checking rule", stream)  # type: ignore[arg-type]
    p(2, "dot_def")
    p.done()
    assert ("checking rule 2/3: dot_def" in stream.text) is tty
