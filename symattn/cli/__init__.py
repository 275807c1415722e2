"""The `symattn` command line: derive, check, prove, rules, shapes; exit codes 0 / 1 / 2.

Imports cli.output, kernel.errors and `__version__`; each command's module (COMMANDS) is imported
by name only when that command runs, so `symattn --help` is fast and works when a front end is
missing. Nothing in symattn imports this package except `symattn.__main__` and the soundness suite.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from symattn import __version__
from symattn.cli.output import MissingCommand, import_optional
from symattn.kernel.errors import ProofError, ShapeError, SymattnError

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

# name -> (module that implements it, one-line help); only the command run is imported
COMMANDS = {
    "derive": ("symattn.cli.derive", "build derivation scripts (or the chapter) to LaTeX/PDF"),
    "check": ("symattn.cli.check", "check the math of Markdown/LaTeX documents"),
    "prove": ("symattn.cli.prove", "prove one identity given in LaTeX"),
    "rules": ("symattn.cli.rules", "list and search the named identities"),
    "shapes": ("symattn.cli.shapes", "show the shape of each step of an expression"),
    "lsp": ("symattn.cli.lsp", "run the language server for editors (extra: symattn[lsp])"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only `command`'s module is imported, for its options."""
    parser = argparse.ArgumentParser(
        prog="symattn",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"symattn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, helptext) in COMMANDS.items():
        if name != command:
            sub.add_parser(name, help=helptext)
            continue
        module = import_optional(module_name, name)
        p = sub.add_parser(
            name,
            help=helptext,
            description=getattr(module, "DESCRIPTION", helptext),
            epilog=getattr(module, "EPILOG", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        try:
            module.add_arguments(p)
        except (AttributeError, argparse.ArgumentError) as exc:
            raise MissingCommand(f"'{name}' could not set up its options: {exc}") from None
    return parser


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
    command = _command_of(argv)
    try:
        parser = _parser(command)
    except SymattnError as exc:
        sys.stderr.write(f"symattn {command}: error: {exc}\n")
        return EXIT_USAGE
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        sys.stderr.write("symattn: error: a command is required (try 'symattn --help')\n")
        return EXIT_USAGE
    try:
        return _dispatch(args)
    except SymattnError as exc:
        code = exit_code(exc)
        label = "" if isinstance(exc, ProofError) else "error: "
        sys.stderr.write(f"symattn {args.command}: {label}{_message(exc)}\n")
        return code
    except OSError as exc:
        name = exc.filename if exc.filename is not None else ""
        sys.stderr.write(f"symattn {args.command}: error: {name}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    except Exception as exc:  # a bug of symattn's: one line that says so, never a traceback
        first = str(exc).splitlines()[0] if str(exc) else ""
        sys.stderr.write(
            f"symattn {args.command}: internal error (please report): "
            f"{type(exc).__name__}: {first}\n"
        )
        return EXIT_USAGE


def _parser(command: str | None) -> argparse.ArgumentParser:
    """`build_parser(command)`, built once a process: a parser holds no state between parses
    (repeated options are copied before they are appended to), and building one costs more than
    most commands' parsing (argparse looks up its message catalogues on disk every time)."""
    parser = _PARSERS.get(command)
    if parser is None:
        parser = _PARSERS[command] = build_parser(command)
    return parser


_PARSERS: dict[str | None, argparse.ArgumentParser] = {}


def exit_code(exc: SymattnError) -> int:
    """The exit code of an error that reaches the command line, by its branch of the tree.

    A step that fails or a shape that is wrong is 1, like a false claim; input errors, unknown
    names, exceeded limits, unsupported constructs and internal errors are 2.

    >>> from symattn.kernel.errors import InputError, ResourceError
    >>> exit_code(ShapeError("x")), exit_code(InputError("y")), exit_code(ResourceError("z"))
    (1, 2, 2)
    """
    if isinstance(exc, (ProofError, ShapeError)):
        return EXIT_FALSE
    return EXIT_USAGE


def _message(exc: BaseException) -> str:
    # The first line carries the message; indented hint lines, if any, stay for the reader.
    return str(exc).rstrip()


def _dispatch(args: argparse.Namespace) -> int:
    module = import_optional(COMMANDS[args.command][0], args.command)
    return int(module.run(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
