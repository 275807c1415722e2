"""The pytest plugin, run as a user would through pytester: one item per claim."""

from __future__ import annotations

import pytest

# pytester's in-process runs drop the modules they import; import the checker out here once so
# each run does not import sympy and build the parser again.
from symattn.check import check_text

check_text("$(QK^T)_{ij}=q_i\\cdot k_j$", "warm.md")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # --assert=plain: rewriting every plugin module again in each in-process run costs seconds
    return pytester.runpytest("--assert=plain", "-p", "no:hypothesispytest", *args)


DOC = (
    "# Scores\n\n"
    "$(QK^T)_{ij}=q_i\\cdot k_j$ and $A$ and $X\\in\\mathbb R^{n\\times d}$\n\n"
    "$$(QK^T)_{ij}=q_j\\cdot k_i$$\n\n"
    "$B=QM$\n"
)


@pytest.fixture
def doc(pytester: pytest.Pytester):
    return pytester.makefile(".md", chapter=DOC)


def test_each_claim_is_an_item_named_file_line_col(pytester, doc):
    result = run(pytester, "--symattn", str(doc), "--collect-only", "-q")
    out = result.stdout.str()
    assert f"{doc.name}:3:2" in out and f"{doc.name}:5:3" in out and f"{doc.name}:7:5" in out
    assert f"{doc.name}:3:29" not in out  # $A$ is a mention, not a claim
    assert "3 tests collected" in out or "3 items" in out or out.count("::") == 3


def test_outcomes_and_failure_report(pytester, doc):
    result = run(pytester, "--symattn", str(doc), "-rs")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    out = result.stdout.str()
    assert f"{doc.name}:5:3: false: " in out
    assert "counterexample: at sizes" in out
    assert "^~~~" in out
    assert "not-understood: unknown symbol M (declare its shape)" in out  # the skip reason


def test_strict_fails_what_is_not_understood(pytester, doc):
    result = run(pytester, "--symattn", str(doc), "--symattn-strict")
    result.assert_outcomes(passed=1, failed=2)


def test_ini_option(pytester, doc):
    pytester.makeini(f"[pytest]\nsymattn_paths = {doc.name}\n")
    result = run(
        pytester,
    )
    result.assert_outcomes(passed=1, failed=1, skipped=1)


def test_keyword_selection_sees_the_items(pytester, doc):
    result = run(pytester, "--symattn", str(doc), "-k", "3:2")
    result.assert_outcomes(passed=1)


def test_a_missing_document_is_a_usage_error(pytester):
    result = run(pytester, "--symattn", "nope.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--symattn" in result.stderr.str() and "no such file" in result.stderr.str()


def test_a_binary_document_is_a_collection_error(pytester):
    p = pytester.path / "bin.md"
    p.write_bytes(b"\x00\x01\x02")
    result = run(pytester, "--symattn", str(p))
    assert result.ret == pytest.ExitCode.INTERRUPTED or result.ret != 0
    assert "not a text file" in result.stdout.str()


def test_without_the_option_nothing_is_added(pytester, doc):
    pytester.makepyfile(test_one="def test_ok():\n    pass\n")
    result = run(
        pytester,
    )
    result.assert_outcomes(passed=1)


def test_collecting_does_not_run_the_kernel(pytester, doc, monkeypatch):
    import symattn.check.verdicts

    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("the kernel ran during collection")

    monkeypatch.setattr(symattn.check.verdicts, "_kernel", boom)
    result = run(pytester, "--symattn", str(doc), "--collect-only", "-q")
    assert result.ret == 0 and "3 tests collected" in result.stdout.str()


def test_a_kernel_error_fails_its_item_with_the_diagnostic(pytester, doc, monkeypatch):
    """A soundness alarm is never a pass or a skip: the item fails and says so."""
    import symattn.check.verdicts
    from symattn.kernel.errors import SoundnessAlarm

    def alarm(*args, **kwargs):
        raise SoundnessAlarm("planted: symbolic says equal, exact says different")

    monkeypatch.setattr(symattn.check.verdicts, "prove_equal", alarm)
    result = run(pytester, "--symattn", str(doc), "-rs")
    result.assert_outcomes(failed=2, skipped=1)
    out = result.stdout.str()
    assert f"{doc.name}:3:2: error: soundness alarm" in out
