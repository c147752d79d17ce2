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


#: The exit code of a window ended by a signal: 128 + the signal's number, as a shell reports it.
SIGNAL_EXIT = {"SIGINT": 130, "SIGTERM": 143}


def exec_until_signal(app: QApplication) -> int:
    """Run ``app``'s event loop until it quits, or until Ctrl-C (SIGINT) or SIGTERM from the
    terminal ends it at once with exit code 130 or 143; return the exit code.

    Qt's loop runs in C++, where Python's own signal handlers wait for the next Python code to
    run (so Ctrl-C did nothing while the window was idle, then raised ``KeyboardInterrupt``
    inside some event handler). Here a handler asks the loop to exit, and the signal wakes the
    loop through :func:`signal.set_wakeup_fd` and a ``QSocketNotifier``. While user code holds
    the loop (a policy's decision, up to its limit), the window ends as soon as it returns; a
    second signal ends the process at once. The previous handlers are put back afterwards.
    Outside the main thread the loop simply runs.
    """
    import signal
    import socket
    import threading

    from PySide6.QtCore import QSocketNotifier

    if threading.current_thread() is not threading.main_thread():
        return int(app.exec())
    received: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        code = SIGNAL_EXIT.get(signal.Signals(signum).name, 128 + signum)
        if received:  # the loop did not get back in time: the second signal ends the process
            os._exit(code)
        received.append(code)
        app.exit(code)

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)

    def drain() -> None:  # Python runs the handler before this slot's first line
        try:
            while reader.recv(64):
                pass
        except OSError:
            pass

    notifier.activated.connect(drain)
    names = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, handler) for s in names}
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    try:
        code = int(app.exec())
    finally:
        signal.set_wakeup_fd(old_fd)
        for s, h in previous.items():
            signal.signal(s, h)
        notifier.setEnabled(False)
        notifier.deleteLater()
        reader.close()
        writer.close()
    return received[0] if received else code
