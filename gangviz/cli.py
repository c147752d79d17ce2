"""The ``gangviz`` command line.

``gangviz`` alone opens the window on the Fig. 2 re-packing scenario. Every other sub-command
lives in its own module under :mod:`gangviz.commands`; a module there provides
``register(subparsers)``, which adds its parser and sets ``func`` (taking the parsed args,
returning the exit code). Errors a user can cause are reported as one plain message on stderr;
a user never sees a traceback.

Exit codes (the README's "Exit codes" lists them too):

* 0 — the command did its work (a reproduction ran, whether or not every finding held);
* 1 — bad input: a file that does not load, a parameter out of range, a run that failed;
* 2 — usage error: an unknown option or a malformed value, reported by argparse with the usage;
* 3 — ``repro ... --strict`` only: a finding of the paper does not hold;
* 130 — interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from gangviz import __version__


EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_FINDING_FAILED = 3
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A problem the user can fix (bad file, bad parameter). Printed without a traceback."""


class HelpFormatter(argparse.HelpFormatter):
    """Argparse's formatter, adding "(default: X)" to an option whose help does not name its
    default already, so every default shows in ``--help``."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "default" in text.lower() or default is None or default is False or default == []:
            return text
        if isinstance(default, str) and default == argparse.SUPPRESS:
            return text
        if not action.option_strings or isinstance(action, argparse._StoreConstAction):
            return text
        return text + " (default %(default)s)"


class Parser(argparse.ArgumentParser):
    """The argument parser of every gangviz (sub-)command: :class:`HelpFormatter` by default;
    nested sub-parsers inherit the class, hence the formatter."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every sub-command of :mod:`gangviz.commands`."""
    import gangviz.commands as commands

    parser = Parser(
        prog="gangviz",
        description="Gang scheduling, live: the Ousterhout matrix with an exact simulator.",
        epilog="Without a COMMAND gangviz opens the window. 'gangviz COMMAND --help' describes "
               "one command. Exit codes: 0 done, 1 bad input, 2 usage error, 3 a finding does "
               "not hold (repro --strict).",
    )
    parser.add_argument("--version", action="version", version=f"gangviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gangviz.commands.{info.name}")
        if hasattr(module, "register"):  # helpers such as commands.options register nothing
            module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        argv = ["open"]
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # the reader of our output went away (``gangviz run ... | head``): not an error of ours
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return EXIT_OK
    except (UserError, ValueError, OSError) as exc:
        print(f"gangviz: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("gangviz: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
