"""The checker's results in the formats CI systems read: GitHub annotations, SARIF 2.1.0, JUnit XML.

Imports only the standard library and check.results; must not import the kernel or the reader.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from xml.etree import ElementTree as ET

from symattn.check.results import ERRORS, PROBLEMS, SOFT, ClaimResult, one_line

#: The formats `symattn check --format` accepts besides text and json.
CI_FORMATS = ("github", "sarif", "junit")

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_URI = "https://pypi.org/project/symattn/"

#: One SARIF rule per verdict kind that can be reported; the level is the one the exit code
#: gives it (a problem fails the run, a soft kind only under --strict).
RULES = {
    "false": ("error", "A claim that is false: a counterexample shows the two sides differ."),
    "shape-error": ("error", "A formula whose shapes do not fit (or a definition that does not)."),
    "malformed": ("error", "Math that its renderer would reject (unbalanced, never closed)."),
    "error": ("error", "The checker failed on this claim (a soundness alarm or internal error)."),
    "undecided": ("warning", "A claim the checker read but could not decide."),
    "not-understood": ("warning", "A formula the checker could not read."),
}


def reported(r: ClaimResult, strict: bool) -> bool:
    """Whether a result is worth an annotation: problems and errors always, soft kinds under
    `--strict` (where they fail the run too)."""
    return r.kind in PROBLEMS or r.kind in ERRORS or (strict and r.kind in SOFT)


def _message(r: ClaimResult) -> str:
    text = r.message
    if r.counterexample:
        text += f"; counterexample: {r.counterexample}"
    if r.source:
        text += f"; formula: {one_line(r.source)}"
    return text


def _escape_data(text: str) -> str:
    # The workflow-command escapes of GitHub's toolkit (`escapeData`, `escapeProperty`).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(per_file: Mapping[str, Sequence[ClaimResult]], strict: bool = False) -> str:
    """One workflow command per reported result, e.g.
    `::error file=ch.md,line=3,col=2,endLine=3,endColumn=20,title=symattn false::...`.

    >>> r = ClaimResult("ch.md", 3, 2, 3, 20, "false", "false", "the two sides differ")
    >>> print(format_github({"ch.md": [r]}))
    ::error file=ch.md,line=3,col=2,endLine=3,endColumn=20,title=symattn false::the two sides differ
    """
    lines = []
    for rs in per_file.values():
        for r in rs:
            if not reported(r, strict):
                continue
            level = "error" if r.kind in PROBLEMS or r.kind in ERRORS else "warning"
            props = [] if r.file.startswith("<") else [f"file={_escape_property(r.file)}"]
            props += [
                f"line={r.line}",
                f"col={r.col}",
                f"endLine={r.end_line}",
                f"endColumn={r.end_col}",
                f"title={_escape_property('symattn ' + r.kind)}",
            ]
            lines.append(f"::{level} {','.join(props)}::{_escape_data(_message(r))}")
    return "\n".join(lines)


def format_sarif(
    per_file: Mapping[str, Sequence[ClaimResult]], version: str, strict: bool = False
) -> str:
    """A SARIF 2.1.0 log: one run, one rule per verdict kind, one result per reported claim with
    the formula's region (1-based lines and columns, the end column exclusive)."""
    rule_ids = list(RULES)
    results = []
    for rs in per_file.values():
        for r in rs:
            if not reported(r, strict) or r.kind not in RULES:
                continue
            results.append(
                {
                    "ruleId": r.kind,
                    "ruleIndex": rule_ids.index(r.kind),
                    "level": RULES[r.kind][0],
                    "message": {"text": _message(r)},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": _uri(r.file)},
                                "region": {
                                    "startLine": r.line,
                                    "startColumn": r.col,
                                    "endLine": r.end_line,
                                    "endColumn": max(r.end_col, 1),
                                },
                            }
                        }
                    ],
                    "properties": {"status": r.status, "witnesses": list(r.witnesses)},
                }
            )
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "symattn",
                        "version": version,
                        "informationUri": TOOL_URI,
                        "rules": [
                            {
                                "id": kind,
                                "shortDescription": {"text": text},
                                "defaultConfiguration": {"level": level},
                            }
                            for kind, (level, text) in RULES.items()
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, ensure_ascii=False, indent=2)


def _uri(path: str) -> str:
    """A relative path stays relative (as code scanning wants it); an absolute one is a file URI."""
    p = PurePath(path)
    return Path(path).as_uri() if p.is_absolute() else p.as_posix()


def format_junit(per_file: Mapping[str, Sequence[ClaimResult]], strict: bool = False) -> str:
    """JUnit XML: a test suite per file, a test case per claim (declarations and prose are not
    claims); a problem is a failure, a kernel error an error, a soft kind a skip (a failure under
    `--strict`)."""
    suites = ET.Element("testsuites", name="symattn check")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for name, rs in per_file.items():
        suite = ET.SubElement(suites, "testsuite", name=name)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for r in rs:
            if r.kind in ("declaration", "not-a-claim"):
                continue
            counts["tests"] += 1
            case = ET.SubElement(
                suite,
                "testcase",
                classname=name,
                name=f"{r.line}:{r.col} {one_line(r.source)[:80]}",
                file=r.file,
                line=str(r.line),
            )
            if r.kind in PROBLEMS or (strict and r.kind in SOFT):
                counts["failures"] += 1
                ET.SubElement(case, "failure", type=r.kind, message=r.message).text = _message(r)
            elif r.kind in ERRORS:
                counts["errors"] += 1
                ET.SubElement(case, "error", type=r.status, message=r.message).text = _message(r)
            elif r.kind in SOFT:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"{r.kind}: {r.message}")
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        suites.set(k, str(v))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")
