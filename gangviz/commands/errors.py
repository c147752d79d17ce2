"""Exit codes of the command line and the error a user can fix.

Every sub-command raises :class:`UserError` for a problem in what the user gave (a bad file, a
parameter out of range); :func:`gangviz.cli.main` prints it as one line on stderr and exits
with :data:`EXIT_BAD_INPUT`. The codes are listed in :mod:`gangviz.cli` and in the README.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_FINDING_FAILED = 3
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A problem the user can fix (bad file, bad parameter). Printed without a traceback."""


def check_screenshot(path: str | None, force: bool) -> None:
    """Raise :class:`UserError` unless ``path`` (``--screenshot``; ``None`` when not given) is a
    file gangviz may write: a known image format, not a FIFO or device, not an existing file
    without ``force`` (:func:`gangviz.outputs.check_output`)."""
    if not path:
        return
    from gangviz.outputs import check_output

    try:
        check_output(path, force=force)
    except ValueError as exc:
        raise UserError(str(exc)) from None
