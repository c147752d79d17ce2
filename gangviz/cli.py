"""The ``gangviz`` command line.

``gangviz`` alone opens the window on the Fig. 2 re-packing scenario. Every other sub-command
lives in its own module under :mod:`gangviz.commands`; a module there provides
``register(subparsers)``, which adds its parser and sets ``func`` (taking the parsed args,
returning the exit code), and is listed in :data:`COMMANDS` with its one-line help. Only the
module of the command being run is imported (with its dependencies), so a headless run does not
pay for the window's or the other commands' imports; the others appear in ``gangviz --help``
from that table. Errors a user can cause are reported as one plain message on stderr; a user
never sees a traceback.

Exit codes (the README's "Exit codes" lists them too):

* 0 — the command did its work (a reproduction ran, whether or not every finding held);
* 1 — bad input: a file that does not load, a parameter out of range, a run that failed;
* 2 — usage error: an unknown option or a malformed value, reported by argparse with the usage;
* 3 — ``repro ... --strict`` only: a finding of the paper does not hold;
* 130 — interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from gangviz import __version__
from gangviz.commands.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UserError


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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


#: Every sub-command: name -> (module under :mod:`gangviz.commands`, the help line its
#: ``register`` gives). A test checks this table against the modules.
COMMANDS: dict[str, tuple[str, str]] = {
    "check-policy": ("check_policy", "check a policy file (or a folder of them) against the rules and compare it with the built-ins"),
    "compare": ("compare", "run several policies on one workload and compare their metrics"),
    "convert": ("convert", "convert Slurm sacct --parsable2 output to an SWF trace"),
    "export": ("export", "save a scenario's animation as a GIF, an MP4 or PNG frames"),
    "generate": ("generate", "write a synthetic workload as SWF"),
    "new-policy": ("new_policy", "write a commented template of your own policy"),
    "open": ("open", "open the window (default: the Fig. 2 re-packing scenario)"),
    "plot-sweep": ("plot_sweep", "plot a sweep's metric against load per policy with 95%% CI bands"),
    "policies": ("policies", "list the built-in and installed policies with their papers and parameters"),
    "repro": ("repro", "reproduce a paper's table and check its findings"),
    "run": ("run", "run a scenario or workload headless and print the result"),
    "scenarios": ("scenarios", "list the built-in scenarios (the papers' figures)"),
    "sweep": ("sweep", "run a parameter sweep file on local processes or a Dask cluster"),
    "validate": ("validate", "check SWF workload files and summarise them"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser of the command line.

    Without ``only`` every sub-command's module is imported and registers its full parser.
    With ``only`` (a name in :data:`COMMANDS`) just that module is imported; every other
    command gets an empty parser with its help line, enough for ``gangviz --help``. With an
    ``only`` that names no command, no command module is imported at all.
    """
    parser = Parser(
        prog="gangviz",
        description="Gang scheduling, live: the Ousterhout matrix with an exact simulator.",
        epilog="Without a COMMAND gangviz opens the window. 'gangviz COMMAND --help' describes "
               "one command. Exit codes: 0 done, 1 bad input, 2 usage error, 3 a finding does "
               "not hold (repro --strict).",
    )
    parser.add_argument("--version", action="version", version=f"gangviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_line) in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(f"gangviz.commands.{module_name}").register(sub)
        else:
            sub.add_parser(name, help=help_line)
    return parser


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM interrupts as Ctrl-C does, so the same clean-up runs (a file
    being written is removed, a sweep keeps its finished runs) instead of the process vanishing
    mid-write. A second Ctrl-C or SIGTERM ends the process at once (exit 130 or 143), whatever
    code caught the first (a user's policy run in this process with a bare ``except``). Only
    the main thread may set a handler; elsewhere the block runs as it is."""
    _SIGNALS.clear()
    try:
        previous = signal.signal(signal.SIGTERM, _interrupt)
        previous_int = signal.signal(signal.SIGINT, _interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


#: The signals received while a command runs (the first interrupts, the second ends).
_SIGNALS: list[int] = []


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    _SIGNALS.append(signum)
    if len(_SIGNALS) > 1:
        try:
            os.write(2, b"gangviz: interrupted\n")
        finally:
            os._exit(_exit_code())
    raise KeyboardInterrupt


def _exit_code() -> int:
    """130 after Ctrl-C, 143 after SIGTERM (128 + the signal, as a shell reports it)."""
    return 128 + int(signal.SIGTERM) if signal.SIGTERM in _SIGNALS else EXIT_INTERRUPTED


#: What the command line says when memory is refused (the text is made before it is needed).
OUT_OF_MEMORY = ("gangviz: out of memory: the system or this process's memory limit (ulimit -v, a "
                 "cluster job's) refused what the command needed; try a smaller input or a larger "
                 "limit")


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:  # Ctrl-C while the command's modules are imported, before it runs
        print("gangviz: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        # past the planned-memory check (GANGVIZ_MEMORY_BUDGET): the system, or a limit on this
        # process (ulimit -v, a cluster job's), refused memory the command or its modules needed
        print(OUT_OF_MEMORY, file=sys.stderr)
        return EXIT_BAD_INPUT
    if argv is None:
        # The process ends now (the command line's own run, not a caller's): spare the shutdown
        # the collector's walk over every object left (a large trace's jobs, the window's):
        # about 0.25 s of CPU after a screenshot of LANL-CM5's 122,060 jobs.
        gc.freeze()
    return code


def _main(argv: list[str]) -> int:
    if not argv:
        argv = ["open"]
    parser = build_parser(only=argv[0] if argv[0] in COMMANDS else "")
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        with _terminate_as_interrupt():
            return int(args.func(args) or 0)
    except BrokenPipeError:
        # the reader of our output went away (``gangviz run ... | head``): not an error of ours
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return EXIT_OK
    except (UserError, ValueError, OSError) as exc:
        from gangviz.inputs import shortened

        print(f"gangviz: {shortened(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("gangviz: interrupted", file=sys.stderr)
        return _exit_code()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
