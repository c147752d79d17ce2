"""The gangviz main window.

Layout, top to bottom: a tool bar (open,
playback, speed), the board (the live Ousterhout matrix, the workload vector and buddy tree
aligned with its columns, the timeline scrubber) beside a side panel (the scenario's
explanation, the policy panel, the selected job), and under them the narration log beside the
metric panels.

Keyboard (window-wide shortcuts): Space play/pause, Right step, Left step back, N next re-pack /
migration / slot deletion, Home reset, +/- speed, Ctrl+O open; and for lectures ( listed
in Help -> Keys, :data:`gangviz.gui.lecture.presentation.KEYS`): F11 presentation mode (Escape leaves it),
Page Down / Page Up the next / previous built-in scenario, G the guided exercise, Return reveals
the held move, E the explanation above the matrix, Ctrl+E export the animation.

Every built-in scenario opens, whatever its model: simulations are built by
:func:`gangviz.factory.build` and a scenario of the multi-site or epoch
family gets its family view. The Scenarios menu lists the built-ins by title; the scenario's
title and explanation are shown above the matrix and in the side panel. A caption under the
board tells the current step in words (:mod:`gangviz.gui.lecture.caption`).

Opening a file that does not load shows a message box with the reader's error and keeps the
current simulation (the new one is built completely before anything is replaced). The window
keeps its geometry, speed, orientation and recent files in ``QSettings``.

Other simulation families (the multi-site queues, the epoch rectangle, the space-sharing Gantt
strip) are drawn by the view :func:`gangviz.gui.families.table.family_view` gives for ``sim.family``;
the view then receives the player's steps through ``show_step(step)`` and its state through
``set_state`` after a jump. The window reads a simulation only through
:class:`gangviz.sim.protocol.Simulation`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGroupBox,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSlider,
    QStyle,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from gangviz.core import registry
from gangviz.gui.board import Board
from gangviz.gui.families.table import family_view, matrix_of, waiting_of, watch_of
from gangviz.gui.kit.layouts import splitter
from gangviz.gui.lecture.narration import NarrationView
from gangviz.gui.matrix.what_if import offer_what_ifs
from gangviz.gui.panels import JobPanel, ModelDialog, PolicyPanel
from gangviz.gui.playback import speeds
from gangviz.gui.playback.player import DEFAULT_SPEED_LEVEL, SPEEDS, Player
from gangviz.gui.playback.timeline import RunLength
from gangviz.gui.plots.metrics import MetricsPanel
from gangviz.timefmt import clock_text
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from PySide6.QtCore import QTemporaryDir
    from PySide6.QtWidgets import QMenu

    from gangviz.gui.compare.window import CompareWindow
    from gangviz.gui.editor.dialog import ScenarioEditor
    from gangviz.gui.lecture.presentation import KeysDialog
    from gangviz.gui.plots.sweep_dialog import SweepDialog
    from gangviz.gui.user_policy import PolicyReloader
    from gangviz.sim.protocol import Simulation
    from gangviz.workloads.playlist import Playlist
    from gangviz.workloads.source import Source

DEFAULT_SOURCE = "fig2-repacking"
MAX_RECENT = 8


def builtin_scenarios() -> list[tuple[str, str]]:
    """Return ``(name, title)`` of every built-in scenario that loads, in file-name order."""
    from gangviz.resources import list_scenarios
    from gangviz.workloads.scenario import load_scenario

    out = []
    for path in list_scenarios():
        try:
            out.append((path.stem, load_scenario(path).title))
        except (ValueError, OSError):
            continue  # ``gangviz scenarios`` reports broken files; the menu leaves them out
    return out


def speed_text(level: int) -> str:
    """Return the label of speed level ``level`` ("1x", "max")."""
    s = SPEEDS[level]
    return "max" if s == float("inf") else (f"{s:g}x")


class MainWindow(QMainWindow):
    """The application window; see the module docstring.

    Args:
        settings: where to keep recent files and window state (default: the user's
            ``QSettings("gangviz", "gangviz")``).
        source: what to open first (default :data:`DEFAULT_SOURCE`; ``""`` opens nothing).
        policy: the policy for ``source`` (default: the scenario's, else ``repack``).
    """

    #: File -> Open session, Save session and Recent sessions, added by
    #: :func:`gangviz.gui.session.add_session_actions`
    act_open_session: QAction
    act_save_session: QAction
    recent_sessions_menu: QMenu

    def __init__(self, source: str | None = DEFAULT_SOURCE, policy: str | None = None, *,
                 settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from gangviz.core.registry import MATRIX, menu

        self.settings = settings if settings is not None else QSettings("gangviz", "gangviz")
        self.player: Player | None = None
        self.source: Source | None = None
        self._children: list[CompareWindow | SweepDialog] = []  # compare windows and sweep dialogs opened from here
        self.source_name: str | None = None
        self.source_args: dict[str, Any] = {}
        self.playlist: Playlist | None = None  # a lecture playlist being shown, and the index of its entry
        self.playlist_index = 0
        self.source_params: dict[str, Any] = {}  # the policy parameters the source was opened with
        self.sim_factory: Callable[[], Simulation] | None = None  # () -> a fresh simulation of what is shown (for the export)
        self.editor_tmp: QTemporaryDir | None = None  # the folder of the editor's unsaved scenarios (a QTemporaryDir)
        self.reloader: PolicyReloader | None = None  # the user's policy file being watched (gui.user_policy)
        self._user_spec: str | None = None  # the spec of the user's policy last built
        self._given_spec: str | None = None  # the spec of the policy last built, as given
        #: what the steps of a long run are counted from in a worker process (RunLength)
        self._count_args: tuple[Any, ...] | None = None
        self._counting = -1
        self._count_factory: Any = None
        self.run_length = RunLength(self)
        self.run_length.counted.connect(self._run_counted)
        self.setWindowTitle("gangviz")
        self._build_actions()
        self.board = Board()
        from gangviz.gui.lecture.presentation import Presentation

        self.presentation = Presentation(self)
        self.policy_panel = PolicyPanel(menu(MATRIX))
        self.policy_panel.applied.connect(self._apply_policy)
        self.job_panel = JobPanel()
        self.explain = QLabel()
        self.explain.setWordWrap(True)
        self.explain.setTextFormat(Qt.TextFormat.PlainText)
        self.explain.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.narration = NarrationView()
        self.narration.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        from gangviz.gui.lecture.coach import GuidedCoach

        self.coach = GuidedCoach(self)
        from gangviz.gui.lecture.presenter import PresenterView

        self.presenter = PresenterView(self)
        self.narration.setMinimumWidth(380)
        self.metrics = MetricsPanel()
        self.board.matrix.jobSelected.connect(self._job_selected)
        offer_what_ifs(self.board.matrix, self)  # the view asks, the window opens the dialogs
        self._layout_widgets()
        self._restore_settings()
        if source:
            if not self.open_source(source, policy=policy, remember=False):
                if source != DEFAULT_SOURCE:
                    self.open_source(DEFAULT_SOURCE, remember=False)

    # ------------------------------------------------------------------ layout
    def _build_actions(self) -> None:
        tb = QToolBar("Playback")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(tb)
        self.toolbar = tb

        style = self.style()
        SP = QStyle.StandardPixmap

        def act(text: str, key: str | None, slot: Callable[[], object], tip: str,
                icon: QStyle.StandardPixmap | None = None) -> QAction:
            a = QAction(text, self)
            if icon is not None:
                a.setIcon(style.standardIcon(icon))
            if key:
                a.setShortcut(QKeySequence(key))
                a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            a.setToolTip(f"{tip} ({QKeySequence(key).toString()})" if key else tip)
            a.triggered.connect(slot)
            self.addAction(a)
            return a

        self.act_open = act("Open…", "Ctrl+O", self.ask_open, "Open a scenario or an SWF trace")
        self.act_model = act("Synthetic…", "Ctrl+M", self.ask_model, "Generate a synthetic workload")
        self.act_new_scenario = act("New scenario…", "Ctrl+N", self.new_scenario,
                                    "Paint a matrix, script events and save it as a scenario")
        self.act_edit_scenario = act("Edit this scenario…", "Ctrl+Shift+N", self.edit_scenario,
                                     "Open the current scenario in the scenario editor")
        self.act_reset = act("Reset", "Home", lambda: self.player.reset() if self.player else None, "Back to the start",
                             SP.SP_MediaSkipBackward)
        self.act_back = act("Back", "Left", self.step_left, "Back one move (a whole step when stepping by step)",
                            SP.SP_MediaSeekBackward)
        self.act_play = act("Play", "Space", lambda: self.player.toggle() if self.player else None, "Play / pause",
                            SP.SP_MediaPlay)
        self.act_step = act("Step", "Right", self.step_right,
                            "Forward one move (a whole step when stepping by step)", SP.SP_MediaSeekForward)
        self.act_step_decision = act("Next step", "Shift+Right", lambda: self.player and self.player.step_forward(),
                                     "Forward one whole scheduling step, all its moves at once")
        self.act_back_decision = act("Previous step", "Shift+Left", lambda: self.player and self.player.step_back(),
                                     "Back one whole scheduling step")
        self.act_by_move = act("Step by move", "M", lambda: None,
                               "Right and Left stop on every move of a step (on) or take whole steps (off)")
        self.act_by_move.setCheckable(True)
        self.act_by_move.setChecked(True)
        self.act_next = act("Next move", "N", lambda: self.player and self.player.next_move(),
                            "Jump to the next re-pack, migration or slot deletion", SP.SP_MediaSkipForward)
        self.act_faster = act("Faster", "+", lambda: self._nudge_speed(1), "Faster")
        self.act_slower = act("Slower", "-", lambda: self._nudge_speed(-1), "Slower")
        self.act_present = act("Presentation mode", "F11", self.toggle_presentation,
                               "Full screen with large fonts and captions")
        self.act_present.setCheckable(True)
        self.act_leave = act("Leave presentation mode", "Escape", self.leave_presentation,
                             "Back to the normal window")
        self.act_guided = act("Guided exercise", "G", self._guided_toggled,
                              "Pause before each re-pack, show the legal cuts, reveal on Return")
        self.act_guided.setCheckable(True)
        self.act_reveal = act("Reveal the move", "Return", lambda: self.player and self.player.reveal(),
                              "Play the move the guided exercise holds")
        self.act_explain = act("Explanation", "E", lambda: self.presentation.toggle_explanation(),
                               "Show or hide the explanation above the matrix (presentation mode)")
        self.act_presenter = act("Presenter view", "Ctrl+L", self.toggle_presenter,
                                 "A second window for the lecturer: notes, explanation, the step in full")
        self.act_presenter.setCheckable(True)
        self.act_next_sc = act("Next scenario", "PgDown", lambda: self.cycle_scenario(1),
                               "Open the next built-in scenario")
        self.act_prev_sc = act("Previous scenario", "PgUp", lambda: self.cycle_scenario(-1),
                               "Open the previous built-in scenario")
        self.act_export = act("Export animation…", "Ctrl+E", self.ask_export,
                              "Save the scenario's animation as a GIF, an MP4 or PNG frames")
        self.act_compare = act("Compare policies…", "Ctrl+K", self.open_compare,
                               "Run 2-4 policies on this workload side by side on one timeline")
        self.act_sweep = act("Run a sweep…", None, self.ask_sweep,
                             "Run a sweep file (policies x parameter grid x replications) with progress")
        self.act_keys = act("Keys", None, self.show_keys, "The keyboard reference")
        self.act_flip = act("S1 at the bottom", None, self._flip, "Draw slot S1 at the bottom, as in the papers")
        self.act_flip.setCheckable(True)
        self.act_flip.setChecked(True)
        for a in (self.act_open, self.act_model):
            tb.addAction(a)
        tb.addSeparator()
        for a in (self.act_reset, self.act_back, self.act_play, self.act_step, self.act_next):
            tb.addAction(a)
        tb.addSeparator()
        tb.addWidget(QLabel(" Speed "))
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(0, len(SPEEDS) - 1)
        self.speed.setFixedWidth(150)
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed.valueChanged.connect(self._speed_changed)
        tb.addWidget(self.speed)
        self.speed_label = QLabel()
        self.speed_label.setMinimumWidth(44)
        tb.addWidget(self.speed_label)
        #: on a trace the speed is simulated time per second (:mod:`gangviz.gui.playback.speeds`), and
        #: this says how long the trace plays; ``None``: the lecture pace's levels
        self.time_rates: list[float] | None = None
        self._lecture_level = DEFAULT_SPEED_LEVEL  # the last lecture-pace level chosen
        self.play_note = QLabel()
        self.play_note.setStyleSheet("color: #6b665e;")
        tb.addWidget(self.play_note)
        for w in tb.findChildren(QWidget):
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.act_open)
        menu.addAction(self.act_new_scenario)
        menu.addAction(self.act_edit_scenario)
        menu.addAction(self.act_model)
        menu.addAction("Load &policy…", self.ask_policy)
        models = menu.addMenu("Other &models")
        a = models.addAction("Multi-site queues (Papazachos && Karatza)")
        a.triggered.connect(self.open_multisite)
        a = models.addAction("Memory-constrained epochs (McCann && Zahorjan)")
        a.triggered.connect(self.open_epoch)
        self.recent_menu = menu.addMenu("Open &recent")
        from gangviz.gui.session import add_session_actions

        add_session_actions(self, menu)
        menu.addSeparator()
        menu.addAction(self.act_compare)
        menu.addAction(self.act_sweep)
        menu.addAction(self.act_export)
        menu.addSeparator()
        quit_act = menu.addAction("&Quit")
        quit_act.setShortcut(QKeySequence.StandardKey.Quit)
        quit_act.triggered.connect(self.close)
        play = self.menuBar().addMenu("&Playback")
        for a in (self.act_play, self.act_step, self.act_back, self.act_step_decision, self.act_back_decision,
                  self.act_by_move, self.act_next, self.act_reset, self.act_faster, self.act_slower):
            play.addAction(a)
        play.addSeparator()
        play.addAction(self.act_guided)
        play.addAction(self.act_reveal)
        self.scenarios_menu = self.menuBar().addMenu("&Scenarios")
        self.scenario_actions: dict[str, QAction] = {}
        for name, title in builtin_scenarios():
            a = self.scenarios_menu.addAction(title)
            a.setData(name)
            a.setToolTip(name)
            a.triggered.connect(lambda checked=False, n=name: self.open_source(n, remember=False))
            self.scenario_actions[name] = a
        self.scenarios_menu.addSeparator()
        self.scenarios_menu.addAction(self.act_next_sc)
        self.scenarios_menu.addAction(self.act_prev_sc)
        view = self.menuBar().addMenu("&View")
        view.addAction(self.act_present)
        view.addAction(self.act_explain)
        view.addAction(self.act_presenter)
        view.addAction(self.act_flip)
        helpm = self.menuBar().addMenu("&Help")
        helpm.addAction(self.act_keys)
        self.status = QLabel()
        self.statusBar().addPermanentWidget(self.status, 1)
        # the running figures give way to a message (a policy stopped, a reload) while it shows:
        # with them stretched over the bar, the message had no room at all
        self.statusBar().messageChanged.connect(lambda text: self.status.setVisible(not text))

    def _layout_widgets(self) -> None:
        side = QWidget()
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(6, 6, 6, 6)
        for title, widget in (("Scenario", self.explain), ("Policy", self.policy_panel),
                              ("Selected job", self.job_panel)):
            box = QGroupBox(title)
            lay = QVBoxLayout(box)
            lay.addWidget(widget)
            side_lay.addWidget(box)
        side_lay.addStretch(1)
        # the side panel scrolls: a long scenario text is never cut
        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(250)
        scroll.setMaximumWidth(340)
        self.side_panel = scroll
        top = splitter(Qt.Orientation.Horizontal, [self.board, scroll], [4, 1])
        bottom = splitter(Qt.Orientation.Horizontal, [self.narration, self.metrics], [2, 3])
        main = splitter(Qt.Orientation.Vertical, [top, bottom], [3, 2])
        top.setSizes([1080, 320])
        bottom.setSizes([560, 840])
        main.setSizes([520, 330])
        self.splitters = {"top": top, "bottom": bottom, "main": main}
        from gangviz.gui.source_notes import WarningsBar

        self.warnings_bar = WarningsBar()
        central = QWidget()
        central_lay = QVBoxLayout(central)
        central_lay.setContentsMargins(0, 0, 0, 0)
        central_lay.setSpacing(0)
        central_lay.addWidget(self.warnings_bar)
        central_lay.addWidget(main, 1)
        self.setCentralWidget(central)
        self.resize(1400, 900)

    # --------------------------------------------------------------- opening
    def build_simulation(self, name: str, policy: str | None = None, params: dict[str, Any] | None = None,
                         watch: bool | None = None, **source_args: Any) -> tuple[Source, Simulation]:
        """Return ``(source, simulation)`` for ``name``; raises ``ValueError``/``OSError``."""
        from gangviz.factory import build
        from gangviz.workloads.source import load_source

        source = load_source(name, **source_args)
        family = source.model
        if not registry.family(family).matrix and policy is not None and policy.lower() in self._policy_names():
            policy = None  # a matrix policy picked in the panel does not apply to this family
        sim = build(source, policy or None, params=params or None, watch=watch)
        from gangviz.userpolicy.loader import is_user_spec

        # a user's policy is named by the spec that loads it again (its file), not its name
        self._user_spec = policy if policy and is_user_spec(policy) else None
        self._given_spec = policy or None  # as given, with its parameters ("gs:mpl=2")
        return source, sim

    def open_source(self, name: str, policy: str | None = None, params: dict[str, Any] | None = None, *,
                    watch: bool | None = None, remember: bool = True, **source_args: Any) -> bool:
        """Open ``name`` (scenario, SWF trace or model) under ``policy``; return success.

        On failure (a malformed file, a value over a limit, too little memory) a message box shows
        the error and the current simulation stays. A trace that gives no machine size opens a
        dialog asking for processors and slice length. The source's warnings replace those of
        the previous source in the warnings bar. A lecture playlist opens its first scenario
        (:meth:`open_playlist`).
        """
        from gangviz.workloads.playlist import playlist_path
        from gangviz.workloads.source import NeedsProcessors

        if playlist_path(str(name)) is not None:
            return self.open_playlist(str(name))
        try:
            source, sim = self.build_simulation(name, policy, params, watch, **source_args)
        except NeedsProcessors as exc:
            from gangviz.gui.source_notes import ask_source_options

            options = ask_source_options(self, str(name), str(exc).replace("; pass --procs", ""), source_args)
            if options is None:
                return False
            return self.open_source(name, policy, params, watch=watch, remember=remember,
                                    **{**source_args, **options})
        except MemoryError:
            QMessageBox.critical(self, "Cannot open", f"{name}:\nnot enough memory to open it "
                                 "(the current simulation stays)")
            return False
        except (ValueError, OSError, KeyError) as exc:
            QMessageBox.critical(self, "Cannot open", f"{name}:\n{exc}" if str(name) not in str(exc) else str(exc))
            return False
        self.show_source(source, name, sim, params, source_args)
        if remember and source.kind != "model":
            self._add_recent(str(name))
        self.statusBar().clearMessage()  # the previous source's messages no longer apply
        self.warnings_bar.set_warnings(source.title, source.warnings)
        return True

    def show_source(self, source: Source, name: str, sim: Simulation, params: dict[str, Any] | None = None,
                    source_args: dict[str, Any] | None = None) -> None:
        """Show ``sim`` (built from ``source``, loaded from ``name``) with its titles and panels."""
        self.source, self.source_name, self.source_args = source, name, dict(source_args or {})
        self.source_params = dict(params or {})
        pname = self._user_spec or self.policy_of(source, sim)
        watch = watch_of(sim)
        self.sim_factory = lambda: self.build_simulation(name, pname, params, watch, **(source_args or {}))[1]
        # a long run under a built-in is counted in a worker process (see _count_ahead)
        self._count_args = ((source.origin, source.ring, source.processors, source.absent_from),
                            self._given_spec, dict(params or {}), watch) \
            if source.kind != "scenario" and source.origin is not None and self._built_in_given() else None
        self._count_factory = self.sim_factory  # the counted run is this factory's
        self.set_simulation(sim)
        self._follow_policy_file(self._user_spec)
        # the spec's own parameters ("mine.py:decision_limit=2", "gs:mpl=2") go to their fields,
        # so the panel shows what runs and Apply restarts the same
        base, given = spec_and_params(pname)
        if self._given_spec and not given:  # a built-in's name comes without its parameters
            named, its = spec_and_params(self._given_spec)
            given = its if named.lower() == base.lower() else {}
        self.policy_panel.set_policy(base.lower() if base.lower() in self._policy_names() else base)
        self.policy_panel.show_params({**given, **(params or {})})
        self.policy_panel.watch.setChecked(bool(watch))
        self.board.title.setText(printable(source.title))
        self.board.subtitle.setText(printable(self._subtitle(source, sim, pname)))
        self._set_explanation(source.explanation or self._describe_source(source), printable(source.title))
        if source.scenario is not None and source.scenario.guided and not self.act_guided.isChecked():
            self.act_guided.setChecked(True)
        if self.player is not None:
            self.player.set_guided(self.act_guided.isChecked())
        self.coach.sync_visible()
        self.presenter.refresh()
        for n, a in self.scenario_actions.items():
            a.setCheckable(True)
            a.setChecked(n == name)

    @staticmethod
    def policy_of(source: Source, sim: Simulation) -> str:
        """Return the name of the policy ``sim`` runs."""
        return sim.policy_name

    @staticmethod
    def _subtitle(source: Source, sim: Simulation, pname: str) -> str:
        view = family_view(sim)
        if view is not None and view.machine is not None:  # a model names its own machine
            return f"{view.machine(source)}  ·  policy {pname}"
        real = source.absent_from
        procs = f"{real} processors (padded to {source.processors})" if real else f"{source.processors} processors"
        return (f"{procs}  ·  {len(source.jobs)} jobs  ·  policy {pname}"
                + ("  ·  ring" if (m := matrix_of(sim)) is not None and m.ring else ""))

    def _set_explanation(self, text: str, title: str) -> None:
        self.explain.setText(text)
        self.board.explain.setText(text)
        if self.presentation.active:  # hidden until the lecturer shows it (E)
            self.board.explain.setVisible(False)
        self.board.caption.set_start_text(f"{title}. Press Space to play, Right for one move.")

    def _built_in_given(self) -> bool:
        """Whether the policy last built is a built-in (the registry names it), not a user's
        policy (a file, a module or an installed package's)."""
        from gangviz.core.registry import names

        if self._user_spec is not None:
            return False
        given = (self._given_spec or "").partition(":")[0].strip().lower()
        return not given or given in {n.lower() for n in names()}

    @staticmethod
    def _policy_names() -> list[str]:
        from gangviz.core.registry import MATRIX, menu

        return menu(MATRIX)

    @staticmethod
    def _describe_source(source: Source) -> str:
        return f"{len(source.jobs)} jobs on {source.processors} processors ({source.kind})."

    def set_simulation(self, sim: Simulation) -> Player:
        """Show ``sim`` with a new player (the old player is stopped and dropped)."""
        old = self.player
        if old is not None:
            old.stop()
        level = self._lecture_level
        player = Player(sim, self, speed_level=level)
        player.set_guided(self.act_guided.isChecked())
        self.player = player
        self.board.set_player(player)
        self.coach.set_player(player)
        self.presenter.set_player(player)
        player.gateChanged.connect(self._update_status)
        self.run_length.stop()
        self.board.timeline.total = self._count_ahead(sim)
        if not self.board.timeline.total and self._count_args is not None and sim.position == 0 \
                and self._count_factory is self.sim_factory:
            self._counting = self.run_length.start(*self._count_args)
        self.narration.set_time_unit(self.slice_seconds())
        self.job_panel.slice_seconds = self.board.matrix.slice_seconds = self.slice_seconds()
        self.narration.set_player(player)
        self.metrics.set_player(player)
        self.metrics.set_time_unit(self.slice_seconds())
        self.job_panel.show_job(None, None)
        player.playingChanged.connect(self._playing_changed)
        player.moved.connect(self._update_status)
        player.stepped.connect(self._update_status)
        player.speedChanged.connect(self._player_speed)
        player.failed.connect(self._step_failed)
        self._set_speed_scale(player, level)
        self._playing_changed(False)
        self._update_status()
        if old is not None:
            old.deleteLater()
        return player

    def open_multisite(self, migrate: bool = True, gangs: int = 400, seed: int = 1) -> bool:
        """Open the two-site model of Papazachos09 (AFCFS with migration by
        default) in the queue view; returns success."""
        return self._open_family(lambda: self._multisite(migrate, gangs, seed),
                                 "Multi-site gang scheduling (Papazachos & Karatza)",
                                 "Two sites of 16 processors, one FIFO queue per processor; gangs "
                                 "are dispatched at random to a site and their tasks join the "
                                 "shortest queues (AFCFS" + (" with migration)." if migrate else ")."))

    def open_epoch(self, policy: str = "OPT-EPOCH(1)", nodes: int = 32, jobs: int = 6) -> bool:
        """Open the closed system of McCann94 §5.2 in the epoch view; returns
        success."""
        from gangviz.factory import epoch_model

        return self._open_family(lambda: epoch_model(nodes, jobs, policy, departures=200),
                                 f"Memory-constrained epochs: {policy} (McCann & Zahorjan)",
                                 f"{nodes} nodes, {jobs} jobs in a closed system; each quantum "
                                 "is an N x 1 rectangle shared by the jobs' minimum partitions.")

    @staticmethod
    def _multisite(migrate: bool, gangs: int, seed: int) -> Simulation:
        from gangviz.factory import multisite_model

        sim: Simulation = multisite_model(migrate=migrate, seed=seed, gangs=gangs)
        return sim

    def _open_family(self, build: Callable[[], Simulation], title: str, explanation: str) -> bool:
        try:
            sim = build()
        except (ValueError, ImportError) as exc:
            QMessageBox.critical(self, "Cannot open", str(exc))
            return False
        self.source, self.source_name, self.source_args = None, None, {}
        self.sim_factory = build
        self.set_simulation(sim)
        self.board.title.setText(printable(title))
        self.board.subtitle.setText("")
        self._set_explanation(explanation, title)
        return True

    def ask_open(self) -> None:
        """Ask for a file and open it."""
        start = str(self.settings.value("last_dir", str(Path.home())))
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a scenario or trace", start,
            "Scenarios and traces (*.toml *.swf *.swf.gz);;Scenarios (*.toml);;SWF traces (*.swf *.swf.gz);;All files (*)")
        if path:
            self.settings.setValue("last_dir", str(Path(path).parent))
            self.open_source(path, self.policy_panel.policy() if not path.endswith(".toml") else None)

    def new_scenario(self) -> ScenarioEditor:
        """Open the scenario editor on an empty matrix; return the editor."""
        from gangviz.gui.editor.dialog import open_editor

        self.editor = open_editor(self)
        return self.editor

    def edit_scenario(self) -> ScenarioEditor:
        """Open the scenario editor on the current scenario (an empty matrix when the window
        shows a trace or a model); return the editor. Saving asks for a file name, so a
        built-in scenario is never overwritten."""
        from gangviz.gui.editor.dialog import open_editor

        self.editor = open_editor(self, self.source.scenario if self.source is not None else None)
        return self.editor

    def ask_model(self) -> None:
        """Ask for a synthetic model's parameters and open it."""
        from gangviz.workloads.source import MODELS

        dlg = ModelDialog(MODELS, self)
        if dlg.exec():
            v = dlg.values()
            name = v.pop("name")
            self.open_source(name, self.policy_panel.policy(), **v)

    def _step_failed(self, message: str) -> None:
        """The policy refused a step: stop there and say why (status bar and explanation)."""
        message = printable(message)  # a user policy's message may hold control characters
        self.statusBar().showMessage(f"Stopped: {message}", 0)
        self._set_explanation(f"Stopped: {message}", self.board.title.text())

    def ask_policy(self) -> None:
        """Ask for a policy file (File → Load policy…) and run the current source under it."""
        path, _ = QFileDialog.getOpenFileName(self, "Load a policy", "", "Python policy (*.py)")
        if path:
            self.load_policy(path)

    def load_policy(self, path: str) -> bool:
        """Add the user's policy in ``path`` to the policy menu and run it, reloading it when the
        file is saved (:mod:`gangviz.gui.user_policy`); return whether it runs."""
        if self.reloader is None:
            from gangviz.gui.user_policy import PolicyReloader

            self.reloader = PolicyReloader(self)
        return self.reloader.load(path)

    def _follow_policy_file(self, spec: str | None) -> None:
        """Reload the policy shown whenever its file is saved, however it was opened (the
        command line, File → Load policy…, a session, a playlist); stop following a file the
        window no longer shows."""
        from gangviz.inputs import policy_file

        if spec is not None and policy_file(spec) is not None and self.reloader is None:
            from gangviz.gui.user_policy import PolicyReloader

            self.reloader = PolicyReloader(self)
        if self.reloader is not None:
            self.reloader.follow(spec)

    def _apply_policy(self) -> None:
        if self.source_name is None:
            return
        try:
            params = self.policy_panel.chosen_params()
        except ValueError as exc:
            QMessageBox.warning(self, "Policy parameters", str(exc))
            return
        self.open_source(self.source_name, self.policy_panel.policy(), params,
                         watch=self.policy_panel.watch.isChecked(), remember=False, **self.source_args)

    # ------------------------------------------------------------- lectures
    @property
    def by_move(self) -> bool:
        """Return whether Right and Left stop on every move (the matrix family, the guided
        exercise off); else they take whole steps."""
        p = self.player
        return (self.act_by_move.isChecked() and p is not None and p.has_matrix and not p.guided)

    def step_right(self) -> None:
        """Right: the next move when stepping by move, else the next step."""
        if self.player is not None:
            (self.player.step_move if self.by_move else self.player.step_forward)()

    def step_left(self) -> None:
        """Left: the move before when stepping by move, else one step back."""
        if self.player is not None:
            (self.player.back_move if self.by_move else self.player.step_back)()

    def toggle_presentation(self) -> bool:
        """Enter or leave presentation mode (F11); return whether it is now on."""
        on = self.presentation.toggle()
        self.act_present.setChecked(on)
        return on

    def leave_presentation(self) -> None:
        """Leave presentation mode (Escape); does nothing in the normal window."""
        self.presentation.leave()
        self.act_present.setChecked(False)

    def toggle_presenter(self) -> bool:
        """Open or close the presenter view (Ctrl+L); return whether it is now open."""
        on = not self.presenter.isVisible()
        self.presenter.setVisible(on)
        self.presenter.refresh()
        self.act_presenter.setChecked(on)
        return on

    def set_guided(self, on: bool) -> None:
        """Turn the guided exercise on or off for this and every later simulation."""
        self.act_guided.setChecked(bool(on))
        if self.player is not None:
            self.player.set_guided(bool(on))
        self.coach.sync_visible()
        self.statusBar().showMessage(
            "Guided exercise: playback stops before each re-pack; Return reveals the move" if on
            else "Guided exercise off", 5000)

    def _guided_toggled(self) -> None:
        self.set_guided(self.act_guided.isChecked())

    def open_playlist(self, name: str, index: int = 0) -> bool:
        """Open the lecture playlist ``name`` at entry ``index``; return success (a playlist
        that does not load is shown in a message box and the current simulation stays)."""
        from gangviz.workloads.playlist import load_playlist

        try:
            playlist = load_playlist(name)
        except (ValueError, OSError) as exc:
            QMessageBox.critical(self, "Cannot open", str(exc))
            return False
        old = self.playlist, self.playlist_index
        self.playlist = playlist
        if not self.show_playlist_entry(index):
            self.playlist, self.playlist_index = old
            return False
        self._add_recent(str(name))
        return True

    def show_playlist_entry(self, index: int) -> bool:
        """Open entry ``index`` (wrapping around) of the current playlist with its note; return
        success."""
        if self.playlist is None:
            return False
        items = self.playlist.items
        index %= len(items)
        item = items[index]
        if not self.open_source(item.source, item.policy, remember=False):
            return False
        self.playlist_index = index
        self.label_playlist_entry()
        return True

    def label_playlist_entry(self) -> None:
        """Show where the lecture is (title, entry i of n); the entry's note goes to the
        presenter view only (it may tell the room what is about to happen)."""
        if self.playlist is None:
            return
        items = self.playlist.items
        where = f"{self.playlist.title}  ·  {self.playlist_index + 1} of {len(items)}"
        self.board.subtitle.setText(f"{where}  ·  {self.board.subtitle.text()}")
        self.presenter.refresh()
        self.statusBar().showMessage(f"{where}: Page Down for the next, Page Up for the previous; "
                                     "Ctrl+L shows the note in the presenter view", 8000)

    def in_playlist(self) -> bool:
        """Whether the scenario on screen is the current entry of a playlist."""
        if self.playlist is None:
            return False
        return self.source_name == self.playlist.items[self.playlist_index].source

    def cycle_scenario(self, delta: int) -> bool:
        """Open the scenario ``delta`` places after the current one: in the playlist when one is
        on screen, else in the Scenarios menu (wrapping around; the first one when a
        non-built-in is shown); return success."""
        if self.in_playlist():
            return self.show_playlist_entry(self.playlist_index + delta)
        names = list(self.scenario_actions)
        if not names:
            return False
        if self.source_name in names:
            i = (names.index(self.source_name) + delta) % len(names)
        else:
            i = 0 if delta > 0 else len(names) - 1
        return self.open_source(names[i], remember=False)

    def show_keys(self) -> KeysDialog:
        """Open Help -> Keys (non-blocking); return the dialog."""
        from gangviz.gui.lecture.presentation import KeysDialog

        dlg = KeysDialog(self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def ask_export(self) -> None:
        """File -> Export animation: ask for the format, size and frame rate, then a file name,
        and export with a cancellable progress dialog."""
        from gangviz.gui.export.dialog import run_export_dialog

        run_export_dialog(self)

    def open_compare(self, policies: list[str] | None = None) -> CompareWindow | None:
        """File -> Compare policies: open the compare window on the current workload, with the
        current policy ticked (plus ``policies``); return it, or ``None`` with a message."""
        from gangviz.gui.compare.window import CompareWindow

        if self.source is None:
            QMessageBox.information(self, "Compare policies", "Open a scenario or a workload first.")
            return None
        chosen = list(policies) if policies else [self.policy_panel.policy()]
        try:
            win = CompareWindow(self.source, chosen if len(chosen) >= 2 else (), source_args=self.source_args)
        except (ValueError, OSError) as exc:
            QMessageBox.critical(self, "Compare policies", str(exc))
            return None
        if len(chosen) < 2:
            win.chooser.set_checked(chosen)
        win.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._children.append(win)
        win.destroyed.connect(lambda *_: self._children.remove(win) if win in self._children else None)
        win.show()
        return win

    def ask_sweep(self) -> SweepDialog | None:
        """File -> Run a sweep: ask for a sweep file and an output CSV, then run it with a
        progress dialog (Cancel keeps what is done); return the dialog or ``None``."""
        start = str(self.settings.value("last_dir", str(Path.home())))
        path, _ = QFileDialog.getOpenFileName(self, "Run a sweep file", start, "Sweep files (*.toml);;All files (*)")
        if not path:
            return None
        out, _ = QFileDialog.getSaveFileName(self, "Save the results as", str(Path(path).with_suffix(".csv")),
                                             "CSV files (*.csv)")
        if not out:
            return None
        return self.run_sweep(path, out)

    def run_sweep(self, path: str, out: str, **options: Any) -> SweepDialog | None:
        """Run sweep file ``path`` into ``out`` with a progress dialog; return the dialog, or
        ``None`` after showing the reader's message for a malformed file."""
        from gangviz.gui.plots.sweep_dialog import SweepDialog

        try:
            dlg = SweepDialog(path, out, existing="overwrite", parent=self, **options)
        except (ValueError, OSError) as exc:
            QMessageBox.critical(self, "Run a sweep", str(exc))
            return None
        self._children.append(dlg)
        dlg.show()
        dlg.start()
        return dlg

    # ----------------------------------------------------------- recent files
    def recent_files(self) -> list[str]:
        """Return the recent files, newest first."""
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _add_recent(self, name: str) -> None:
        if os.path.exists(name):
            name = str(Path(name).resolve())
        items = [name] + [r for r in self.recent_files() if r != name]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for name in self.recent_files():
            a = self.recent_menu.addAction(name)
            a.triggered.connect(lambda checked=False, n=name: self.open_source(n))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    # --------------------------------------------------------------- settings
    def _restore_settings(self) -> None:
        geo = self.settings.value("geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        try:
            raw = self.settings.value("speed", 2)
            level = int(raw) if isinstance(raw, (int, float, str)) else 2
        except (TypeError, ValueError):
            level = 2
        self.speed.setValue(max(0, min(level, len(SPEEDS) - 1)))
        bottom_up = str(self.settings.value("bottom_up", "true")).lower() != "false"
        self.act_flip.setChecked(bottom_up)
        self.board.matrix.set_bottom_up(bottom_up)
        for key, sp in self.splitters.items():
            state = self.settings.value(f"splitter/{key}")
            if state is not None:
                sp.restoreState(state)
        self._fill_recent()

    def save_settings(self) -> None:
        """Write the window state to the settings."""
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("speed", self._lecture_level)
        self.settings.setValue("bottom_up", self.act_flip.isChecked())
        for key, sp in self.splitters.items():
            self.settings.setValue(f"splitter/{key}", sp.saveState())
        self.settings.sync()

    def _run_counted(self, generation: int, steps: int) -> None:
        """The worker counted the run shown: the timeline spans it from now on."""
        if generation == self._counting and self.player is not None:
            self.board.timeline.total = steps
            self.board.timeline.update()
            self._update_status()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.run_length.stop()
        for child in list(self._children):
            child.close()
        self.presenter.close()
        if self.presentation.active:
            self.presentation.leave()
        if self.player is not None:
            self.player.stop()
        self.metrics._pending.stop()
        self.narration._pending.stop()
        self.save_settings()
        super().closeEvent(event)

    # ----------------------------------------------------------------- slots
    def _flip(self) -> None:
        self.board.matrix.set_bottom_up(self.act_flip.isChecked())

    def _nudge_speed(self, delta: int) -> None:
        self.speed.setValue(self.speed.value() + delta)

    def _set_speed_scale(self, player: Player, level: int) -> None:
        """Give the speed control its scale for what is open: on a trace, simulated time per
        second, starting at the slowest speed that plays the trace's arrivals in a few minutes
        (:data:`~gangviz.gui.playback.speeds.TRACE_PLAY_SECONDS`); else the lecture pace's levels."""
        per = self.slice_seconds()
        self.time_rates = speeds.rates(per) if per is not None else None
        self.speed.blockSignals(True)
        if self.time_rates is None:
            self.speed.setRange(0, len(SPEEDS) - 1)
            self.speed.setToolTip("Speed: multiples of the lecture pace (+ / -)")
        else:
            self.speed.setRange(0, len(self.time_rates) - 1)
            self.speed.setToolTip("Speed: simulated time per second (+ / -)")
            level = speeds.default_index(self._trace_span(), self.time_rates, speeds.TRACE_PLAY_SECONDS)
        self.speed.setValue(level)
        self.speed.blockSignals(False)
        player.set_time_rate(None)
        self._speed_changed(self.speed.value())

    def _trace_span(self) -> float:
        """Return the last arrival of the open workload, in slices (0 when none)."""
        jobs = self.source.jobs if self.source is not None else []
        return max((j.arrival for j in jobs), default=0.0)

    def _player_speed(self, level: int) -> None:
        if self.time_rates is None:
            self.speed.setValue(level)

    def _speed_changed(self, level: int) -> None:
        if self.time_rates is not None:
            rate = self.time_rates[max(0, min(level, len(self.time_rates) - 1))]
            self.speed_label.setText(speeds.rate_text(rate, self.slice_seconds()))
            self.play_note.setText(speeds.play_text(self._trace_span(), rate).replace("whole run", "whole trace"))
            if self.player is not None:
                self.player.set_time_rate(rate)
            return
        self._lecture_level = level
        self.speed_label.setText(speed_text(level))
        self.play_note.setText("")
        if self.player is not None:
            self.player.set_time_rate(None)
            self.player.set_speed_level(level)

    def _playing_changed(self, playing: bool) -> None:
        self.act_play.setText("Pause" if playing else "Play")
        sp = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.act_play.setIcon(self.style().standardIcon(sp))

    def _job_selected(self, job: int | None) -> None:
        self.job_panel.show_job(self.player.sim if self.player else None, job)

    def slice_seconds(self) -> float | None:
        """Return the seconds one slice stands for when an SWF trace is open, else ``None``
        (scenarios and models count in slices)."""
        src = self.source
        if src is None or src.kind != "swf":
            return None
        return float(src.slice_seconds or self.source_args.get("slice_seconds") or 1.0)

    #: the steps counted ahead when a scenario opens, so the timeline spans the whole run
    COUNT_AHEAD = 2000

    def _count_ahead(self, sim: Simulation) -> int:
        """Return how many steps the whole run takes: as the simulation knows it (a run whose
        decisions are made up front, e.g. a space-sharing run of a trace), else counted ahead
        for a scenario or a workload of at most :data:`COUNT_AHEAD` / 2 jobs under a built-in
        policy (a small trace or model a lecture steps through); 0 for a larger workload, a
        user's policy on a workload, or a run longer than
        :data:`COUNT_AHEAD` steps (the timeline then grows as the run goes: counting a long run
        ahead would delay its first frame)."""
        known = sim.steps_known()
        if known is not None:
            return known
        src = self.source
        if src is None:
            return 0
        if src.kind != "scenario":
            # a user's policy is not run ahead of the lecture: its decisions may be slow, print
            # or fail, and the window shows each one as it comes
            if not self._built_in_given() or len(src.jobs) > self.COUNT_AHEAD // 2:
                return 0
        from gangviz.gui.export.render import count_ahead

        n = count_ahead(sim, self.COUNT_AHEAD)
        return 0 if n is None or n >= self.COUNT_AHEAD else sim.position + n

    def _update_status(self, *args: object) -> None:
        p = self.player
        if p is None:
            return
        sim = p.sim
        per_slice = self.slice_seconds()
        # the total is known once the simulation has run to its end, or counted ahead
        known = max(p.furthest, p.position, self.board.timeline.total)
        total = f" of {known:,}" if sim.done or self.board.timeline.total else ""
        stop = p.move_stop
        move = f"move {stop.number} of {stop.count}" if stop is not None and stop.count > 1 else ""
        where = [f"t = {clock_text(sim.time, per_slice)}", f"step {p.position:,}{total}"] + ([move] if move else [])
        self.board.set_stamp("  ·  ".join(where))
        parts = where[:1] + [where[1] + (" (end)" if sim.done and p.position >= p.furthest else "")] + where[2:]
        m = matrix_of(sim)
        # While the guided exercise holds a move, or stepping by move stops within a step, count
        # what is drawn (the matrix before the held move, the picture of the stop).
        gate = p.gate
        drawn = gate.state if gate is not None else (p.display_state if m is not None else None)
        if m is not None and drawn is not None:
            parts.append(f"{drawn.n_rows} slot{'s' if drawn.n_rows != 1 else ''}")
            parts.append(f"{len(drawn.jobs())} running")
        waiting = waiting_of(sim)
        if waiting is not None:
            held = sum(c.kind == "job_placed" for c in p.transition_changes()) if gate is not None else 0
            parts.append(f"{len(waiting) + held} waiting")
        parts.append(f"policy {printable(sim.policy_name)}")
        self.status.setText("   ·   ".join(parts))
        if self.job_panel.job is not None:
            self.job_panel.show_job(sim, self.job_panel.job)


def spec_and_params(spec: str) -> tuple[str, dict[str, str]]:
    """Return a policy spec without its parameters and those parameters as text
    (``"mine.py:Cls:decision_limit=2"`` -> ``("mine.py:Cls", {"decision_limit": "2"})``,
    ``"gs:mpl=2"`` -> ``("gs", {"mpl": "2"})``); the spec whole and ``{}`` when its parameters
    do not read (the panel then shows it as given, and Apply reports the error)."""
    from gangviz.core.params import ParamError, split_spec
    from gangviz.userpolicy.loader import split_user_spec

    parts = split_user_spec(spec)
    if parts is not None:
        target, cls, text = parts
        base = f"{target}:{cls}" if cls else target
    else:
        base, _, text = spec.partition(":")
    if not text.strip():
        return (base if parts is not None or not text else spec), {}
    try:
        return base, split_spec(f"policy:{text}")[1]
    except ParamError:
        return spec, {}
