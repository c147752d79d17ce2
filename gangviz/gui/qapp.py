"""The one ``QApplication`` of the process.

Every window, offscreen renderer and export gets it from :func:`application`. It lives apart
from :mod:`gangviz.gui.app`, which opens the main window, so that a widget that renders
offscreen (the sweep plot, the compare window) needs no import of the window that may contain
it.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication


def application(offscreen: bool = False) -> QApplication:
    """Return the running ``QApplication``, creating it (offscreen when asked) if needed."""
    if offscreen and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    # the instance is a QApplication: this function is the only place that creates one
    app = cast("QApplication | None", QApplication.instance())
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("gangviz")
        app.setOrganizationName("gangviz")
    return app
