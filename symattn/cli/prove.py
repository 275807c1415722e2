"""`symattn prove`: one identity in LaTeX, read and decided as `symattn check` would.

Imports check (check_formula, explain_formula), the reader's --assume parser, latex.explain
(--explain --format latex) and cli.options/output; must not import another command's module.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from symattn import __version__
from symattn.check import check_formula, explain_formula, format_diagnostic
from symattn.check.document import project_conventions
from symattn.check.formats import CI_FORMATS, format_github, format_junit, format_sarif
from symattn.check.results import FileError
from symattn.cli.options import assuming, color_option, dims_options
from symattn.cli.output import (
    FALSE,
    OK,
    USAGE,
    Progress,
    emit_json,
    use_colour,
)
from symattn.kernel.explain import Explanation
from symattn.latex.explain import explanation_document
from symattn.reader.claims.declarations import parse_assume
from symattn.reader.terms.conventions import ConventionError, parse_settings


def run(args: Any, out: TextIO | None = None) -> int:
    """`symattn prove`: 0 proved or checked, 1 false, a shape error or not proved, 2 unreadable."""
    out = out or sys.stdout
    progress = Progress(1, "proving")
    progress(1, args.formula[:60])
    try:
        equalities = parse_assume(args.assume)
        given = parse_settings(getattr(args, "conventions", "") or "")
        try:
            project = project_conventions(Path.cwd() / "formula.md")
        except FileError as exc:
            raise ConventionError(str(exc)) from None
        explain = getattr(args, "explain", False)
        if args.format == "latex" and not explain:
            sys.stderr.write("symattn prove: error: --format latex needs --explain\n")
            return USAGE
        with assuming(equalities):
            if explain:
                found = explain_formula(args.formula, args.dims, equalities, given, project)
                results = [r for r, _ in found]
                explained = [es for _, es in found]
            else:
                results = check_formula(args.formula, args.dims, equalities, given, project)
                explained = [[] for _ in results]
    finally:
        progress.done()
    claims = [r for r in results if r.kind not in ("declaration", "not-a-claim")]
    code = prove_exit_code([r.kind for r in claims])
    if args.format in CI_FORMATS:
        # `prove` is strict: a claim not proved fails, so every claim that is not verified shows
        per = {"<formula>": results}
        text = {
            "github": lambda: format_github(per, strict=True),
            "sarif": lambda: format_sarif(per, __version__, strict=True),
            "junit": lambda: format_junit(per, strict=True),
        }[args.format]()
        if text:
            out.write(text + "\n")
    elif args.format == "json":
        emit_json(
            {
                "formula": args.formula,
                "ok": code == OK,
                "exit_code": code,
                "results": [
                    _json(r, es, explain) for r, es in zip(results, explained, strict=True)
                ],
            },
            out,
        )
    elif args.format == "latex":
        pairs = [(r.source, e) for r, es in zip(results, explained, strict=True) for e in es]
        out.write(explanation_document(pairs, args.lang).render_standalone())
    else:
        colour = use_colour(out, args.color)
        for r, es in zip(results, explained, strict=True):
            out.write(format_diagnostic(r, colour) + "\n")
            for e in es:
                out.write(_indented(e) + "\n")
    if not claims:
        sys.stderr.write(f"symattn prove: error: no claim to prove in {args.formula!r}\n")
    elif code != OK and args.format == "text":
        sys.stderr.write(f"symattn prove: {_prove_outcome(claims)}\n")
    return code


def _json(r: Any, explanations: list[Explanation], explain: bool) -> dict[str, Any]:
    data = r.to_json()
    if explain:
        data["explanation"] = [e.to_json() for e in explanations]
    return data


def _indented(e: Explanation) -> str:
    """The derivation under its diagnostic (its first line repeats the verdict: left out)."""
    lines = str(e).splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("    ")), len(lines))
    return "\n".join("  " + line for line in lines[start:])


def prove_exit_code(kinds: list[str]) -> int:
    """0 when every claim is verified; 2 when one cannot be read, the kernel failed on one (a
    soundness alarm, an internal error) or there is none; else 1.

    `prove` is asked to prove, so a claim only agreed numerically or undecided fails (1).

    >>> prove_exit_code(["verified"]), prove_exit_code(["false"]), prove_exit_code([])
    (0, 1, 2)
    """
    if not kinds or {"not-understood", "error", "malformed"} & set(kinds):
        return USAGE
    return OK if all(k == "verified" for k in kinds) else FALSE


def _prove_outcome(claims: list[Any]) -> str:
    kinds = [r.kind for r in claims]
    for kind, words in (
        ("error", "the kernel failed on this claim (a soundness alarm or an internal error)"),
        ("not-understood", "the formula could not be read"),
        ("false", "the claim is false"),
        ("shape-error", "the shapes do not agree"),
        ("undecided", "the claim is not proved (undecided or numeric agreement only)"),
    ):
        if kind in kinds:
            return words
    return "not proved"


EPILOG = """\
examples:
  symattn prove '(QK^T)_{ij} = q_i\\cdot k_j' --dims 'Q,K: n x d_k'
  symattn prove '(QK^T)_{ij} = q_j\\cdot k_i' --dims 'Q,K: n x d_k'   # false: exit 1
  symattn prove '(AV)_{iu} = \\sum_{j=1}^{n} a_{ij}V_{ju}' --format json
  symattn prove 'q_i^\\top k_j = q_i\\cdot k_j' --conventions vectors=column
  symattn prove '(QK^T)_{ij} = q_i\\cdot k_j' --dims 'Q,K: n x d_k' --explain
  symattn prove '(QK^T)_{ij} = q_j\\cdot k_i' --explain --format latex --lang zh

A claim is ok (exit 0) when it is proved for all sizes or checked exactly at explicit sizes;
false, shape errors, numeric-only agreement and undecided give exit 1; a formula that cannot be
read, or holds no claim, gives exit 2.
"""

DESCRIPTION = "Prove one identity written in LaTeX."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("formula", help="the claim, e.g. '(QK^T)_{ij} = q_i\\cdot k_j'")
    color_option(p)
    dims_options(p)
    p.add_argument(
        "--format",
        choices=("text", "json", "github", "sarif", "junit", "latex"),
        default="text",
        help="output format (latex: a standalone XeLaTeX document of the --explain derivation)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="write out the derivation the kernel found, each step with its rule; for a false "
        "claim, how far the sides agree, where they part and the counterexample at each step",
    )
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of --format latex")
    p.add_argument(
        "--conventions",
        metavar="NAME=VALUE,...",
        default="",
        help="the formula's conventions, over the project's (pyproject.toml [tool.symattn]), "
        "as for check: vectors=row|column (default: rows)",
    )
