"""Fuzzing the reader (and the checker): formulas grown from the dialect, then mangled."""

from __future__ import annotations

import random
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symattn.kernel.errors import ParseError, SymattnError
from symattn.reader import parse_formula
from symattn.soundness import TOKENS, UNICODE, fuzz, fuzz_one, mangle, random_formula

_FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _reader_behaves(text: str) -> None:
    start = time.monotonic()
    try:
        parse_formula(text)
    except ParseError as exc:
        assert exc.position is not None, text
        assert exc.position.line >= 1 and exc.position.column >= 1, text
        assert 0 <= exc.position.offset <= len(text), text
        assert str(exc).startswith(f"{exc.position.line}:{exc.position.column}: ")
    assert time.monotonic() - start < 2.0, text


@_FAST
@given(st.lists(st.sampled_from(TOKENS + UNICODE), max_size=40))
def test_token_soup_never_crashes_the_reader(tokens):
    _reader_behaves("".join(tokens))


@_FAST
@given(st.integers(0, 2**32), st.integers(0, 3))
def test_grown_then_mangled_formulas_never_crash_the_reader(seed, damage):
    rng = random.Random(seed)
    text = random_formula(rng)
    for _ in range(damage):
        text = mangle(text, rng)
    _reader_behaves(text)


@_FAST
@given(st.text(max_size=60))
def test_arbitrary_text_never_crashes_the_reader(text):
    _reader_behaves(text)


def test_grown_formulas_are_mostly_valid():
    # The generator must exercise the parser past its first token, not only its error paths.
    rng = random.Random(7)
    ok = 0
    for _ in range(200):
        try:
            parse_formula(random_formula(rng))
            ok += 1
        except ParseError:
            pass
    assert ok >= 100


def test_fuzz_one_reports_a_crash_and_a_missing_position(monkeypatch):
    import symattn.reader

    def boom(text):
        raise KeyError(text)

    monkeypatch.setattr(symattn.soundness.fuzzing, "parse_formula", boom)
    problem = fuzz_one("QK^T")
    assert problem is not None and problem.problem.startswith("uncaught KeyError")

    def no_position(text):
        raise ParseError("bad")

    monkeypatch.setattr(symattn.soundness.fuzzing, "parse_formula", no_position)
    problem = fuzz_one("QK^T")
    assert problem is not None and "without a valid position" in problem.problem


def test_fuzz_command_core_finds_no_problem():
    assert fuzz(300, seed=3) == []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(0, 2))
def test_checker_on_fuzzed_formulas_gives_diagnostics_not_tracebacks(seed, damage):
    rng = random.Random(seed)
    text = random_formula(rng, depth=2)
    for _ in range(damage):
        text = mangle(text, rng)
    problem = fuzz_one(text, checker=True, seconds=20.0)
    assert problem is None, problem


def test_symattn_errors_are_the_only_diagnostics():
    assert issubclass(ParseError, SymattnError)
