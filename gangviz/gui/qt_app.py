"""The one ``QApplication`` of the process, made on first use.

Kept apart from :mod:`gangviz.gui.app` (which opens windows) so that any window or dialog can ask
for the application without importing the modules that import it.
"""

from __future__ import annotations

import os
import sys


def application(offscreen: bool = False):
    """Return the running ``QApplication``, creating it (offscreen when asked) if needed."""
    if offscreen and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("gangviz")
        app.setOrganizationName("gangviz")
    return app
