"""The ``gangviz`` command line.

``gangviz`` alone opens the window on the Fig. 2 re-packing scenario. Every other sub-command
lives in its own module under :mod:`gangviz.commands`; a module there provides
``register(subparsers)``, which adds its parser and sets ``func`` (taking the parsed args,
returning the exit code). Errors a user can cause are reported as one plain message on stderr
with exit code 2; a user never sees a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from gangviz import __version__


class UserError(Exception):
    """A problem the user can fix (bad file, bad parameter). Printed without a traceback."""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every sub-command of :mod:`gangviz.commands`."""
    import gangviz.commands as commands

    parser = argparse.ArgumentParser(
        prog="gangviz",
        description="Gang scheduling, live: the Ousterhout matrix with an exact simulator.",
    )
    parser.add_argument("--version", action="version", version=f"gangviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"gangviz.commands.{info.name}")
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
        return 2
    try:
        return int(args.func(args) or 0)
    except (UserError, ValueError, OSError) as exc:
        print(f"gangviz: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gangviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
