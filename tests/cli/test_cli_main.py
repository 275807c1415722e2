"""The top level of `symattn`: help, version, usage errors and their exit codes."""

from __future__ import annotations

import pytest
from cli_helpers import cli, run_cli

from symattn import __version__


def test_help_lists_commands_examples_and_exit_codes():
    r = run_cli("--help")
    assert r.returncode == 0
    for word in ("derive", "check", "prove", "rules", "shapes", "examples:", "exit codes"):
        assert word in r.stdout
    assert r.stderr == ""


@pytest.mark.parametrize("command", ["prove", "rules", "shapes", "derive", "check"])
def test_each_command_has_help(command):
    r = cli(command, "--help")
    assert r.returncode == 0, r.stderr  # every front end is installed here: none may be missing
    assert f"usage: symattn {command}" in r.stdout
    assert "example" in r.stdout


def test_version():
    r = run_cli("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == f"symattn {__version__}"


def test_no_command_is_a_usage_error():
    r = run_cli()
    assert r.returncode == 2
    assert "a command is required" in r.stderr


def test_unknown_command_is_a_usage_error():
    r = run_cli("frobnicate")
    assert r.returncode == 2
    assert "invalid choice: 'frobnicate'" in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_option_is_a_usage_error():
    r = cli("rules", "--frob")
    assert r.returncode == 2
    assert "unrecognized arguments: --frob" in r.stderr


def test_help_does_not_import_the_front_ends():
    """`symattn --help` must stay fast: no sympy, no checker, no derivations imported."""
    import importlib.util
    import subprocess
    import sys

    heavy = ("sympy", "lark", "symattn.check", "symattn.cli.derive", "numpy")
    # a name that no longer exists could never be imported, so the check would pass vacuously
    assert all(importlib.util.find_spec(m) is not None for m in heavy), heavy
    code = (
        "import sys\n"
        "from symattn.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"bad = [m for m in {heavy!r} if m in sys.modules]\n"
        "print('IMPORTED:' + ','.join(bad))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "IMPORTED:"


def test_derive_usage_error_exits_2(tmp_path):
    r = cli("derive", "--lang", "fr", "--out", str(tmp_path))
    assert r.returncode == 2
    assert "not available" not in r.stderr, r.stderr  # the derive front end is installed here
    assert "invalid choice: 'fr'" in r.stderr and "Traceback" not in r.stderr


def test_a_missing_front_end_is_reported_not_raised(monkeypatch):
    """If a command's module cannot be imported, the command says so and exits 2."""
    import sys

    for name in ("symattn.check", "symattn.cli.check", "symattn.cli.prove"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    for args in (["check", "x.md"], ["prove", "a = b"]):
        r = cli(*args)
        assert r.returncode == 2
        assert f"symattn {args[0]}: error: " in r.stderr
        assert f"is not available in this installation (symattn.cli.{args[0]}" in r.stderr
