"""GUI test fixtures: offscreen Qt, isolated settings, and a guard against leaks.

Every GUI test runs under :func:`no_leaks`, which fails the test if it leaves a top-level widget
alive or a player's timer running (napari's fixtures do the same for widgets and timers).
"""

from __future__ import annotations

import os
import weakref

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from gangviz.gui.playback import player as player_mod

_players: list = []
_orig_init = player_mod.Player.__init__


def _tracking_init(self, *args, **kwargs):
    _orig_init(self, *args, **kwargs)
    _players.append(weakref.ref(self))


player_mod.Player.__init__ = _tracking_init


def _flush() -> None:
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()


@pytest.fixture(autouse=True)
def no_leaks(qapp):
    """Fail the test if it leaks a top-level widget or leaves a player's timer running."""
    before = {id(w) for w in QApplication.topLevelWidgets()}
    _players.clear()
    yield
    _flush()
    leaked = [w for w in QApplication.topLevelWidgets()
              if id(w) not in before and w.isVisible()]
    running = []
    for ref in _players:
        p = ref()
        if p is None:
            continue
        try:
            if p.timer.isActive():
                running.append(p)
        except RuntimeError:  # the C++ object is gone: fine
            pass
    for w in leaked:
        w.close()
        w.deleteLater()
    for p in running:
        p.stop()
    _flush()
    assert not leaked, f"test leaked top-level widgets: {[type(w).__name__ for w in leaked]}"
    assert not running, f"test left {len(running)} player timer(s) running"


@pytest.fixture
def settings(tmp_path):
    """A QSettings stored in a temporary INI file."""
    return QSettings(str(tmp_path / "gangviz.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, settings):
    """The main window on the Fig. 2 scenario, 1200 x 800, shown offscreen; closed afterwards."""
    from gangviz.gui.window import MainWindow

    win = MainWindow(settings=settings)
    win.resize(1200, 800)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


@pytest.fixture(scope="module")
def shared_window(qapp, tmp_path_factory):
    """One main window, shown offscreen, for a module's tests over every built-in scenario.

    Building and showing a window costs about a quarter second of CPU, paid once here instead of
    once a scenario. Each test that takes it opens its own source first and leaves presentation
    mode at its end, so none reads what the one before it showed.
    """
    from PySide6.QtTest import QTest

    from gangviz.gui.window import MainWindow

    ini = tmp_path_factory.mktemp("settings") / "gangviz.ini"
    win = MainWindow(settings=QSettings(str(ini), QSettings.Format.IniFormat))
    win.resize(1200, 800)
    win.show()
    assert QTest.qWaitForWindowExposed(win)
    yield win
    win.close()
    win.deleteLater()
    _flush()


@pytest.fixture
def message_boxes(monkeypatch):
    """Record QMessageBox.critical/warning calls instead of blocking on them."""
    calls: list[tuple[str, str, str]] = []

    def record(kind):
        def fn(parent, title, text, *args, **kwargs):
            calls.append((kind, title, text))
            return QMessageBox.StandardButton.Ok
        return fn

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(record("critical")))
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(record("warning")))
    return calls
