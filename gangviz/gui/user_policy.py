"""A user's policy file in the window, reloaded whenever it is saved.

:class:`PolicyReloader` follows the policy file of whatever the window shows, however it was
opened (``open --policy file.py``, File → Load policy…, a session, a playlist entry):
File → Load policy… adds the file to the policy menu and opens the current source under it,
and every simulation the window shows under a policy file is followed (:meth:`follow`).
A :class:`QFileSystemWatcher` watches the file; when it changes (an editor's save may replace the
file, so the path is watched again) the policy is loaded afresh, with the parameters on screen,
and the run is replayed to the time shown. A file that no longer loads, or a run that now
breaks a rule, fails or overruns its decision limit before that time, is reported in the status
bar, and the previous policy keeps running.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer
from PySide6.QtWidgets import QStatusBar, QWidget

from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player
    from gangviz.sim.protocol import Simulation
    from gangviz.workloads.source import Source

#: Milliseconds to wait after a change before reloading (an editor writes in several steps).
SETTLE_MS = 150


class _PolicyMenu(Protocol):
    def set_policy(self, name: str, /) -> None: ...


class PolicyWindow(Protocol):
    """What the reloader reads of the main window (:class:`~gangviz.gui.window.MainWindow`): what
    it shows and how it was opened, how it builds and shows a simulation, its policy menu and
    status bar, and the window itself (``window()``: a top-level window is its own), which owns
    the reloader."""

    source_name: str | None
    source_args: dict[str, Any]
    source_params: dict[str, Any]
    player: Player | None

    @property
    def policy_panel(self) -> _PolicyMenu: ...
    def build_simulation(self, name: str, policy: str | None, params: dict[str, Any] | None,
                         watch: bool | None, **source_args: Any) -> tuple[Source, Simulation]: ...
    def show_source(self, source: Source, name: str, sim: Simulation,
                    params: dict[str, Any] | None, source_args: dict[str, Any] | None, /) -> None: ...
    def statusBar(self) -> QStatusBar: ...
    def window(self) -> QWidget: ...


class PolicyReloader(QObject):
    """Loads user policies into ``window`` (a :class:`~gangviz.gui.window.MainWindow`) and
    reloads the one shown when its file changes."""

    def __init__(self, window: PolicyWindow) -> None:
        super().__init__(window.window())
        self.window = window
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._changed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.reload)
        self.spec: str | None = None
        #: The last reload's outcome: ``"reloaded"``, or the error shown.
        self.last = ""

    def load(self, path: str) -> bool:
        """Add ``path`` to the policy menu, run the current source under it and watch the file.

        Returns whether it runs; on failure the status bar shows why and the current simulation
        stays.
        """
        from gangviz.userpolicy.loader import forget

        forget(path)
        w = self.window
        w.policy_panel.set_policy(path)
        if w.source_name is None:
            self.spec = path
            self._watch(path)
            return True
        try:
            source, sim = w.build_simulation(w.source_name, path, None, None, **w.source_args)
        except (ValueError, OSError) as exc:
            w.statusBar().showMessage(printable(f"Policy not loaded: {exc}"), 0)
            return False
        w.show_source(source, w.source_name, sim, None, w.source_args)
        w.statusBar().showMessage(printable(f"Policy {sim.policy_name} loaded from {path}; it reloads when "
                                            "you save the file"), 8000)
        self.spec = path
        self._watch(path)
        return True

    def follow(self, spec: str | None) -> None:
        """Watch the file of the policy ``spec`` the window now shows (a spec that names no
        file, or ``None``, stops the watching)."""
        from gangviz.inputs import policy_file

        found = policy_file(spec) if spec else None
        old = self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        self.spec = spec if found is not None else None
        if found is not None:
            self._watch(found[0])

    @property
    def path(self) -> str | None:
        """The file of the policy followed, or ``None``."""
        from gangviz.inputs import policy_file

        found = policy_file(self.spec) if self.spec else None
        return found[0] if found else None

    def _watch(self, path: str) -> None:
        if path not in self.watcher.files() and os.path.exists(path):
            self.watcher.addPath(path)

    def _changed(self, path: str) -> None:
        self._timer.start()
        if os.path.exists(path):
            self._watch(path)
        else:  # replaced by a rename: watch it again once it is back
            QTimer.singleShot(SETTLE_MS, lambda: self._watch(path) if path == self.path else None)

    def reload(self) -> bool:
        """Load the watched policy again and replay the run to the time shown; return success
        (an error goes to the status bar and the previous policy keeps running)."""
        from gangviz.gui.families.table import watch_of
        from gangviz.userpolicy.loader import forget

        w = self.window
        if self.spec is None or self.path is None or w.source_name is None or w.player is None:
            return False
        forget(self.path)
        old = w.player.sim
        at = old.time
        params = w.source_params or None
        try:
            source, sim = w.build_simulation(w.source_name, self.spec, params, watch_of(old), **w.source_args)
            sim.run(until=at)
        except (ValueError, OSError) as exc:
            self.last = printable(f"Policy not reloaded (the previous one keeps running): {exc}")
            w.statusBar().showMessage(self.last, 0)
            return False
        w.show_source(source, w.source_name, sim, params, w.source_args)
        self.last = "reloaded"
        w.statusBar().showMessage(printable(f"Policy {sim.policy_name} reloaded from {self.spec}; "
                                            f"replayed to t={sim.time:g}"), 8000)
        return True
