"""The options several commands share: --color, --format, --dims and --assume.

Imports only the standard library, sympy and kernel.dims; must not import a command module.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import sympy

from symattn.kernel import dims as D


def color_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the verdicts (auto: only on a terminal, and not when NO_COLOR is set)",
    )


def format_option(p: argparse.ArgumentParser, ci: bool = False) -> None:
    """`--format`: text or json; with `ci`, also github, sarif and junit (check and prove)."""
    formats = ("text", "json", "github", "sarif", "junit") if ci else ("text", "json")
    p.add_argument("--format", choices=formats, default="text", help="output format")


def dims_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dims",
        metavar="SPEC",
        help="shapes of the matrices, e.g. 'Q,K: n x d_k; V: n x d_v' (';' between entries)",
    )
    p.add_argument(
        "--assume",
        action="append",
        metavar="NAME=DIM",
        help="declare a dim equality, e.g. d_k=d/H (repeatable)",
    )


def assuming(equalities: Mapping[str, sympy.Expr]) -> AbstractContextManager[Any]:
    """The `--assume` equalities in force for a block (nothing when there are none)."""
    return D.assume(**equalities) if equalities else nullcontext()
