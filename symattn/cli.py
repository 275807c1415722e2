"""The `symattn` command line: derive, check, prove, rules, shapes; exit codes 0 / 1 / 2.

Imports only the standard library at start-up; every subcommand imports its own modules lazily,
so `symattn --help` is fast and works even when a front end is missing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_OK, EXIT_FALSE, EXIT_USAGE = 0, 1, 2

_DESCRIPTION = """\
Derive, check and typeset the mathematics of Transformer attention.

exit codes:
  0  everything asked for holds (claims proved or checked, shapes agree)
  1  a claim is false, not established, or a shape is wrong
  2  usage or input error (bad option, unreadable formula or --dims, missing file)
"""

_EPILOG = """\
examples:
  symattn prove '(QK^T)_{ij} = q_i\\cdot k_j' --dims 'Q,K: n x d_k'
  symattn shapes 'softmax(QK^T/sqrt(d_k))V'
  symattn rules softmax
  symattn check chapter6.md
  symattn derive --out build --lang all

`symattn COMMAND --help` shows the options of one command. Colour is used only on a terminal
and never when NO_COLOR is set.
"""

# name -> (module that implements it, one-line help, epilog with examples)
_DELEGATED = {
    "derive": (
        "symattn.derive",
        "build the derivations of the chapter to LaTeX/PDF",
        "example:\n  symattn derive --out build --lang all\n",
    ),
    "check": (
        "symattn.check",
        "check the math of Markdown/LaTeX documents",
        "example:\n  symattn check chapter6.md    # exit 1 if a claim is false\n",
    ),
}

_PROVE_EPILOG = """\
examples:
  symattn prove '(QK^T)_{ij} = q_i\\cdot k_j' --dims 'Q,K: n x d_k'
  symattn prove '(QK^T)_{ij} = q_j\\cdot k_i' --dims 'Q,K: n x d_k'   # false: exit 1
  symattn prove '(AV)_{iu} = \\sum_{j=1}^{n} a_{ij}V_{ju}' --format json

A claim is ok (exit 0) when it is proved for all sizes or checked exactly at explicit sizes;
false, shape errors, numeric-only agreement and undecided give exit 1; a formula that cannot be
read, or holds no claim, gives exit 2.
"""

_RULES_EPILOG = """\
examples:
  symattn rules                  # every named identity, its statement and verdict
  symattn rules softmax mask     # rules whose name or description has both words
  symattn rules --format json --no-check
"""

_SHAPES_EPILOG = """\
examples:
  symattn shapes 'softmax(QK^T/sqrt(d_k))V'
  symattn shapes '\\frac{QK^T}{\\sqrt{d_k}}' --dims 'Q,K: 5 x 64'
  symattn shapes 'X + Concat(Z^{(1)},\\ldots,Z^{(H)})W_O'
  symattn shapes 'X + AV' --assume d_v=d      # without --assume: exit 1, cols d and d_v

Names known without --dims (the chapter's, as in check and prove): X n x d, W_Q W_K d x d_k,
W_V d x d_v, Q K n x d_k, V n x d_v, A n x n, Z n x d_v, W_O H*d_v x d, O n x d; the families
Z^{(h)}, Q^{(h)}, K^{(h)}, V^{(h)}, A^{(h)}, W_Q^{(h)}, ... have the same shapes, and W_O^{(h)}
is the h-th block of d_v rows of W_O.
--dims 'NAMES: ROWS x COLS; ...' declares or overrides them (x, × or \\times; dims like n, d_k,
64, H*d_v or 'H d_v'; 'Z^{(h)}: n x d_v' declares a head family). Plain words softmax(, sqrt(,
mask(, Concat( are read as the LaTeX operators. Exit 1 at the first shape error.
"""


def _version() -> str:
    from symattn import __version__

    return f"symattn {__version__}"


def _common() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the verdicts (auto: only on a terminal, and not when NO_COLOR is set)",
    )
    return parent


def _format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def _dims_options(p: argparse.ArgumentParser) -> None:
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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only `command` (if delegated) gets its module imported for options."""
    parser = argparse.ArgumentParser(
        prog="symattn",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common()
    raw = argparse.RawDescriptionHelpFormatter

    for name, (_module, helptext, epilog) in _DELEGATED.items():
        # no common parent: the front end declares its own options (--color, --format)
        p = sub.add_parser(
            name, help=helptext, description=helptext, epilog=epilog, formatter_class=raw
        )
        if name == command:
            _add_delegated(p, name)

    p = sub.add_parser(
        "prove",
        help="prove one identity given in LaTeX",
        parents=[common],
        description="Prove one identity written in LaTeX.",
        epilog=_PROVE_EPILOG,
        formatter_class=raw,
    )
    p.add_argument("formula", help="the claim, e.g. '(QK^T)_{ij} = q_i\\cdot k_j'")
    _dims_options(p)
    _format(p)

    p = sub.add_parser(
        "rules",
        help="list and search the named identities",
        parents=[common],
        description="List the named identities with their statements and "
        "the kernel's verdict on each.",
        epilog=_RULES_EPILOG,
        formatter_class=raw,
    )
    p.add_argument("words", nargs="*", help="only rules whose name or description has all words")
    p.add_argument("--no-check", action="store_true", help="do not run the kernel on each rule")
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of descriptions")
    _format(p)

    p = sub.add_parser(
        "shapes",
        help="show the shape of each step of an expression",
        parents=[common],
        description="Show the shape of every subexpression, "
        "bottom up, and stop at the first shape error.",
        epilog=_SHAPES_EPILOG,
        formatter_class=raw,
    )
    p.add_argument("expression", help="e.g. 'softmax(QK^T/sqrt(d_k))V' (LaTeX also accepted)")
    _dims_options(p)
    _format(p)
    return parser


def _add_delegated(p: argparse.ArgumentParser, name: str) -> None:
    from symattn.commands import MissingCommand, import_optional

    module = import_optional(_DELEGATED[name][0], name)
    try:
        module.add_arguments(p)
    except (AttributeError, argparse.ArgumentError) as exc:
        raise MissingCommand(f"'{name}' could not set up its options: {exc}") from None


def _command_of(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 false claim or shape, 2 usage)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(args_list)
    except KeyboardInterrupt:
        sys.stderr.write("symattn: interrupted\n")
        return 130
    except BrokenPipeError:  # `symattn rules | head`
        return EXIT_OK


def _main(argv: list[str]) -> int:
    from_errors = _errors()
    command = _command_of(argv)
    try:
        parser = build_parser(command)
    except from_errors.SymattnError as exc:
        sys.stderr.write(f"symattn {command}: error: {exc}\n")
        return EXIT_USAGE
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write("symattn: error: a command is required (try 'symattn --help')\n")
        return EXIT_USAGE
    try:
        return _dispatch(args)
    except from_errors.ProofError as exc:
        sys.stderr.write(f"symattn {args.command}: {_message(exc)}\n")
        return EXIT_FALSE
    except from_errors.SymattnError as exc:
        sys.stderr.write(f"symattn {args.command}: error: {_message(exc)}\n")
        return EXIT_USAGE
    except OSError as exc:
        name = exc.filename if exc.filename is not None else ""
        sys.stderr.write(f"symattn {args.command}: error: {name}: {exc.strerror or exc}\n")
        return EXIT_USAGE


def _errors():  # type: ignore[no-untyped-def]
    from symattn.kernel import errors

    return errors


def _message(exc: BaseException) -> str:
    # The first line carries the message; indented hint lines, if any, stay for the reader.
    return str(exc).rstrip()


def _dispatch(args: argparse.Namespace) -> int:
    if args.command in _DELEGATED:
        from symattn.commands import import_optional

        module = import_optional(_DELEGATED[args.command][0], args.command)
        return int(module.run(args))
    from symattn import commands

    runner = {
        "prove": commands.run_prove,
        "rules": commands.run_rules,
        "shapes": commands.run_shapes,
    }[args.command]
    return runner(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
