"""`symattn rules`: the named identities, their statements and the kernel's verdict on each.

Imports the kernel (rules, text) and cli.options/output; must not import the reader or check.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from symattn.cli.options import color_option, format_option
from symattn.cli.output import (
    FALSE,
    OK,
    Progress,
    emit_json,
    paint,
    use_colour,
)
from symattn.kernel import lemmas, rules
from symattn.kernel.rules import describe
from symattn.kernel.text import text


def rule_rows(words: str = "", *, check: bool = True, lang: str = "en") -> list[dict[str, Any]]:
    """One record per named rule matching `words` (all rules when empty), with its verdict, then
    one per fact the proofs by induction rest on (`kernel.lemmas`), with its kind.

    >>> row = rule_rows("mul_transpose_apply_dot")[0]
    >>> row["statement"], row["status"], row["witnesses"]
    ('(QK^T)_{ij} = q_i·k_j', 'proved', ['symbolic', 'exact', 'numeric'])
    """

    found = rules.search(words) if words.strip() else list(rules.registry().values())
    progress = Progress(len(found), "checking rule")
    rows = []
    for k, rule in enumerate(found, start=1):
        progress(k, rule.name)
        rows.append(_rule_row(rule, check, lang))
    progress.done()
    found_lemmas = lemmas.search(words) if words.strip() else list(lemmas.LEMMAS)
    return rows + [_lemma_row(x, lang) for x in found_lemmas]


def _lemma_row(x: lemmas.Lemma, lang: str) -> dict[str, Any]:
    """A fact a proof by induction rests on: its kind ("rewrite" or "assumed") instead of a
    verdict, since no witness decides it as a claim of its own."""
    return {
        "name": x.name,
        "statement": x.statement,
        "assuming": [],
        "description": x.zh if lang == "zh" else x.en,
        "kind": x.kind,
    }


def _rule_row(rule: Any, check: bool, lang: str) -> dict[str, Any]:

    lhs, rhs = rule.sides()
    conditions = [text(c) for c in rule.assuming()]
    row: dict[str, Any] = {
        "name": rule.name,
        "statement": f"{text(lhs)} = {text(rhs)}",
        "lhs": text(lhs),
        "rhs": text(rhs),
        "assuming": conditions,
        "description": describe(rule.name, lang),
    }
    if check:
        verdict = rule.check()
        row.update(_verdict_record(verdict))
    return row


def _verdict_record(v: Any) -> dict[str, Any]:
    """A verdict as JSON-ready data."""
    return {
        "status": v.status,
        "witnesses": list(v.witnesses),
        "summary": v.summary(),
        "counterexample": str(v.counterexample) if v.counterexample is not None else None,
    }


def _print_rules(rows: list[dict[str, Any]], out: TextIO, colour: bool) -> None:
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        head = r["name"].ljust(width)
        if "status" in r:
            badge = paint(r["status"], r["status"], colour)
            head += f"  {badge} [{'+'.join(r['witnesses']) or 'none'}]"
        elif "kind" in r:
            head += f"  {r['kind']} (a fact the proofs by induction rest on)"
        out.write(head + "\n")
        cond = f"    (when {', '.join(r['assuming'])})" if r["assuming"] else ""
        out.write(f"    {r['statement']}{cond}\n    {r['description']}\n")


def run(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    rows = rule_rows(" ".join(args.words), check=not args.no_check, lang=args.lang)
    if not rows:
        sys.stderr.write(f"symattn rules: no rule matches {' '.join(args.words)!r}\n")
    if args.format == "json":
        emit_json(rows, out)
    else:
        _print_rules(rows, out, use_colour(out, args.color))
    bad = [r for r in rows if "status" in r and r["status"] not in ("proved", "checked")]
    return FALSE if bad else OK


EPILOG = """\
examples:
  symattn rules                  # every named identity, its statement and verdict
  symattn rules softmax mask     # rules whose name or description has both words
  symattn rules --format json --no-check
"""

DESCRIPTION = "List the named identities with their statements and the kernel's verdict on each."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="*", help="only rules whose name or description has all words")
    p.add_argument("--no-check", action="store_true", help="do not run the kernel on each rule")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of descriptions")
    color_option(p)
    format_option(p)
