"""`symattn check`: check the math of Markdown/LaTeX/notebook documents, files, folders or globs.

Imports check and the reader's conventions, dialects and macros; the work is in symattn.check;
must not import another command module.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

from symattn import __version__
from symattn.check.document import check_text, project_conventions, read_document
from symattn.check.formats import CI_FORMATS, format_github, format_junit, format_sarif
from symattn.check.report import format_json, format_text, summary_line
from symattn.check.results import ERRORS, PROBLEMS, SOFT, ClaimResult, FileError
from symattn.check.sites import MacroSource, SiteFinder, SiteMacros
from symattn.reader.syntax.dialects import detect
from symattn.reader.syntax.macros import MacroFileError, site_macros
from symattn.reader.terms.conventions import ConventionError, parse_settings, read_conventions
from symattn.settings import SettingsError, load, pyproject_for
from symattn.terminal import paint

DESCRIPTION = "Check every formula of Markdown/LaTeX documents and notebooks."
#: What a folder or a glob stands for: every document with one of these suffixes under it.
DOCUMENT_SUFFIXES = (".md", ".markdown", ".tex", ".ipynb")
_SKIPPED_DIRS = (".git", ".ipynb_checkpoints", "node_modules", "__pycache__", ".venv", "_site")
EPILOG = """\
examples:
  symattn check chapter6.md    # exit 1 if a claim is false
  symattn check docs/          # every .md, .markdown, .tex and .ipynb under docs/
  symattn check 'posts/*.md'
  symattn check chapter6.md --format json
  symattn check chapter6.md --format github   # annotations in a GitHub Actions run
  symattn check chapter6.md --format sarif > symattn.sarif   # for code scanning
  symattn check notes.md --conventions vectors=row   # its vectors are rows
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `symattn check`."""
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="Markdown, LaTeX or notebook files, folders (every document under them) or globs; "
        "none: the paths of [tool.symattn] in the nearest pyproject.toml",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", *CI_FORMATS),
        default="text",
        help="text (compiler-style), json (schema symattn-check/1), github (workflow "
        "annotations), sarif (SARIF 2.1.0), junit (JUnit XML)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="also fail (exit 1) when a formula is not understood or not decided",
    )
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    parser.add_argument(
        "--conventions",
        metavar="NAME=VALUE,...",
        default="",
        help="the documents' conventions, over what they say themselves: vectors=row|column",
    )
    parser.add_argument(
        "--macros",
        metavar="FILE",
        action="append",
        default=[],
        help="a file of the site's macros (KaTeX/MathJax: \\newcommand or \\gdef lines in a "
        ".tex/.md/.html file, or a JSON/YAML map); applied before each document's own, which "
        "win; may be repeated; [tool.symattn] macros = [...] in pyproject.toml adds its own",
    )
    parser.add_argument(
        "--no-site-macros",
        dest="site_macros",
        action="store_false",
        help="do not look for the macros of the document's site (its layouts, the KaTeX/MathJax "
        "options of its generator, a LaTeX file's local \\input and packages)",
    )


def run(args: argparse.Namespace, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Check the files; 0 all good, 1 a claim false or a shape wrong (or, with --strict, a
    formula not understood), 2 an input error such as a missing file, or a kernel error (a
    soundness alarm or an internal error) on some claim."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    color = _use_color(getattr(args, "color", "auto"), out)
    try:
        given = parse_settings(getattr(args, "conventions", "") or "")
    except ConventionError as e:
        print(f"{paint('error', '1;31', color)}: {e}", file=err)
        return 2
    per_file: dict[str, list[ClaimResult]] = {}
    conventions: dict[str, dict[str, dict[str, object]]] = {}
    dialects: dict[str, dict[str, object]] = {}
    errors: list[str] = []
    try:
        files, exclude = book_paths(args.files, Path.cwd())
    except (SettingsError, FileError) as e:
        print(f"{paint('error', '1;31', color)}: {e}", file=err)
        return 2
    try:
        site = site_macro_files(getattr(args, "macros", []) or [], Path.cwd())
    except (SettingsError, FileError, MacroFileError) as e:
        print(f"{paint('error', '1;31', color)}: {e}", file=err)
        return 2
    finder = SiteFinder() if getattr(args, "site_macros", True) else None
    macros_used: dict[str, dict[str, object]] = {}
    warned: set[str] = set()
    names, missing = documents(files, exclude)
    for problem in missing:
        errors.append(problem)
        if args.format == "text":
            print(f"{paint('error', '1;31', color)}: {problem}", file=err)
    for name in names:
        try:
            text = read_document(name)
            project = project_conventions(name)
        except FileError as e:
            errors.append(str(e))
            if args.format != "json":
                print(f"{paint('error', '1;31', color)}: {e}", file=err)
            continue
        used = site if finder is None else finder.find(name, text).then(site)
        for warning in used.warnings:
            # on stderr (the CI formats keep stdout), once for all the documents of a site
            if args.format != "json" and warning not in warned:
                warned.add(warning)
                print(f"{paint('warning', '1;33', color)}: {warning}", file=err)
        macros_used[name] = used.to_json()
        per_file[name] = check_text(text, name, given, project, used.macros)
        found = read_conventions(text, given, project)
        conventions[name] = found.to_json()
        dialect = detect(text, name)
        dialects[name] = {"name": dialect.name, "description": dialect.describe()}
        if args.format == "text":
            said = "" if dialect.default else dialect.describe()  # plain Markdown: not said
            lines = format_text(per_file[name], name, color, found.summary(), said)
            print(lines + (f"; {used.summary()}" if used.summary() else ""), file=out)
    strict = getattr(args, "strict", False)
    if args.format == "json":
        print(format_json(per_file, errors, conventions, dialects, macros_used), file=out)
    elif args.format == "github":
        annotations = format_github(per_file, strict)
        if annotations:
            print(annotations, file=out)
    elif args.format == "sarif":
        print(format_sarif(per_file, __version__, strict), file=out)
    elif args.format == "junit":
        print(format_junit(per_file, strict), file=out)
    elif len(per_file) > 1:
        total = [r for rs in per_file.values() for r in rs]
        print(summary_line(f"total ({len(per_file)} files)", total), file=out)
    return exit_code(per_file.values(), errors, strict=strict)


def book_paths(files: Sequence[str], cwd: Path) -> tuple[list[str], list[str]]:
    """The arguments, or with none the `paths` of `[tool.symattn]` in the nearest pyproject.toml
    (relative to its folder); and the `exclude` globs, also relative to that folder."""
    notation = load(cwd)
    path = pyproject_for(cwd)
    base = path.parent if path is not None else cwd
    exclude = [str(base / x) for x in notation.exclude]
    if files:
        return list(files), exclude
    if not notation.paths:
        where = f"{path}" if path is not None else "no pyproject.toml here or above"
        raise FileError(f"no FILE given and no paths in [tool.symattn] ({where})")
    return [os.path.relpath(base / p) for p in notation.paths], exclude


def site_macro_files(given: Sequence[str], cwd: Path) -> SiteMacros:
    """The macros of the files of `[tool.symattn] macros` (relative to the pyproject.toml's
    folder), then of the `--macros` files, later ones over earlier; `FileError` names a file
    that cannot be read, `MacroFileError` one that is not a file of macros."""
    path = pyproject_for(cwd)
    base = path.parent if path is not None else cwd
    names = [str(base / x) for x in load(cwd).macros] + list(given)
    out = SiteMacros()
    for name in names:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileError(f"{name}: macros file not found") from None
        except (OSError, UnicodeDecodeError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise FileError(f"{name}: cannot read the macros file ({reason})") from None
        got = site_macros(text, name)
        shown = os.path.relpath(name) if os.path.isabs(name) else name
        out = out.then(SiteMacros(None, tuple(got), (MacroSource(shown, len(got)),)))
    return out


def documents(args: Sequence[str], exclude: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The files the arguments name, in order and without repeats: a file as given, a folder as
    every document under it (DOCUMENT_SUFFIXES, hidden and build folders skipped, sorted), a glob
    as the files it matches; and a message for each folder or glob that names no document.
    What a folder or glob finds is left out when it matches an `exclude` glob (a file named
    itself is checked).

    A name that is neither is kept, so that reading it reports the problem."""
    out: list[str] = []
    problems: list[str] = []

    def kept(found: list[str]) -> list[str]:
        return [f for f in found if not any(_matches(f, x) for x in exclude)]

    for arg in args:
        if os.path.isdir(arg):
            found = kept(_under(arg))
            if not found:
                problems.append(f"{arg}: no documents ({', '.join(DOCUMENT_SUFFIXES)}) under it")
        elif not os.path.exists(arg) and glob.has_magic(arg):
            found = []
            for match in sorted(glob.glob(arg, recursive=True)):
                found.extend(_under(match) if os.path.isdir(match) else [match])
            found = kept(found)
            if not found:
                problems.append(f"{arg}: no file matches")
        else:
            found = [arg]
        out.extend(f for f in found if f not in out)
    return out, problems


def _matches(name: str, pattern: str) -> bool:
    """`name` (relative or absolute) matches the absolute glob `pattern` (`**` any folders)."""
    full = os.path.abspath(name)
    regex = re.escape(os.path.abspath(pattern)).replace(r"\*\*/", "(?:.*/)?")
    regex = regex.replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    return re.fullmatch(regex, full) is not None


def _under(folder: str) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        found.extend(
            os.path.join(root, f) for f in sorted(files) if f.lower().endswith(DOCUMENT_SUFFIXES)
        )
    return found


def exit_code(
    per_file: Iterable[Sequence[ClaimResult]], errors: Sequence[str] = (), strict: bool = False
) -> int:
    kinds = {r.kind for rs in per_file for r in rs}
    if errors or kinds & set(ERRORS):
        return 2
    if kinds & set(PROBLEMS):
        return 1
    if strict and kinds & set(SOFT):
        return 1
    return 0


def _use_color(mode: str, stream: IO[str]) -> bool:
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())
