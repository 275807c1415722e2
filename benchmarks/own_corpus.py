"""The project's own corpus of third-party attention texts: its manifest, and reach and planted
figures on a folder that holds copies of them. Imports the checker through reach and planted only.

The manifest (`benchmarks/corpus.toml`) names each document by repository, commit and path; the
text itself is never part of the project. A copy of document `path` of `owner/name` is expected at
`FOLDER/owner+name/path` (for example `git show COMMIT:PATH` in a clone of the repository).

    python benchmarks/own_corpus.py list                  # the manifest, one document a line
    python benchmarks/own_corpus.py list FOLDER           # ... and which copies FOLDER lacks
    python benchmarks/own_corpus.py reach FOLDER [--json out.json]
    python benchmarks/own_corpus.py planted FOLDER [--json out.json]
    python benchmarks/own_corpus.py reach FOLDER --manifest benchmarks/heldout.toml
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).with_name("corpus.toml")
FIELDS = ("repo", "commit", "path", "licence", "dialect", "language")

#: Repositories kept for a measurement made apart from the project (of the files shared with it,
#: only those are used, as test data): no manifest here may name them.
RESERVED = frozenset(
    (
        "labmlai/annotated_deep_learning_paper_implementations",
        "huggingface/blog",
        "wdndev/llm_interview_note",
        "datawhalechina/happy-llm",
        "sustcsonglin/sustcsonglin.github.io",
        "kipply/blog",
        "rasbt/LLMs-from-scratch",
        "harvardnlp/annotated-transformer",
        "phlippe/uvadlc_notebooks",
        "d2l-ai/d2l-zh",
    )
)


@dataclass(frozen=True)
class Document:
    """One entry of the manifest."""

    repo: str
    commit: str
    path: str
    licence: str
    dialect: str
    language: str
    site: tuple[str, ...] = ()  # the site's files its macros come from, copied beside it

    def local(self, folder: Path) -> Path:
        """Where the copy of this document lives under `folder`."""
        return folder / self.repo.replace("/", "+") / self.path


def load(manifest: Path = MANIFEST) -> list[Document]:
    """The manifest's documents, in its order; a clear error for an entry that lacks a field.

    >>> docs = load()
    >>> len(docs) >= 25 and len({d.repo for d in docs}) >= 15
    True
    """
    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    out = []
    for n, entry in enumerate(data.get("document", []), 1):
        missing = [f for f in FIELDS if not isinstance(entry.get(f), str)]
        if missing:
            raise ValueError(f"{manifest.name}: document {n} has no {', '.join(missing)}")
        site = entry.get("site", [])
        if not isinstance(site, list) or not all(isinstance(x, str) for x in site):
            raise ValueError(f"{manifest.name}: document {n}: site must be a list of paths")
        out.append(Document(**{f: entry[f] for f in FIELDS}, site=tuple(site)))
    return out


def present(docs: list[Document], folder: Path) -> tuple[list[str], list[Document]]:
    """The copies found under `folder`, and the documents whose copy is missing."""
    found = [str(d.local(folder)) for d in docs if d.local(folder).is_file()]
    missing = [d for d in docs if not d.local(folder).is_file()]
    return found, missing


def _list(docs: list[Document], folder: Path | None) -> int:
    for d in docs:
        mark = ""
        if folder is not None and not d.local(folder).is_file():
            mark = "  [missing]"
        elif folder is not None:
            root = folder / d.repo.replace("/", "+")
            lacking = [x for x in d.site if not (root / x).is_file()]
            mark = f"  [site files missing: {', '.join(lacking)}]" if lacking else ""
        print(f"{d.repo}@{d.commit[:8]}:{d.path}  ({d.dialect}, {d.language}; {d.licence}){mark}")
    repos = len({d.repo for d in docs})
    print(f"{len(docs)} documents from {repos} repositories")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/own_corpus.py")
    ap.add_argument("action", choices=("list", "reach", "planted"))
    ap.add_argument("folder", nargs="?", default=None, help="the folder holding the copies")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument(
        "--manifest", default=str(MANIFEST), help="the manifest (default: benchmarks/corpus.toml)"
    )
    opts = ap.parse_args(argv)
    manifest = Path(opts.manifest)
    if not manifest.is_file():
        print(f"error: {manifest}: no such manifest", file=sys.stderr)
        return 2
    try:
        docs = load(manifest)
    except (ValueError, tomllib.TOMLDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    folder = Path(opts.folder) if opts.folder else None
    if folder is not None and not folder.is_dir():
        print(
            f"error: {folder}: no such folder; it should hold the copies of the documents "
            f"of {manifest.name} as <owner>+<name>/<path>",
            file=sys.stderr,
        )
        return 2
    if opts.action == "list":
        return _list(docs, folder)
    if folder is None:
        print(f"error: {opts.action} needs the folder holding the copies", file=sys.stderr)
        return 2
    files, missing = present(docs, folder)
    for d in missing:
        print(f"warning: {d.local(folder)}: missing ({d.repo}@{d.commit[:8]})", file=sys.stderr)
    if not files:
        print(f"error: {folder}: holds none of the {len(docs)} documents", file=sys.stderr)
        return 2
    here = Path(__file__).resolve().parent
    # this tree's own code first: run from a worktree, it measures that worktree's checker
    sys.path[:0] = [str(here.parent), str(here)]
    extra = ["--json", opts.json] if opts.json else []
    if opts.action == "reach":
        import reach

        return int(reach.main([*files, *extra]))
    import planted

    return int(planted.main([*files, *extra]))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
