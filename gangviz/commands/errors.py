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
