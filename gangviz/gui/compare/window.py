"""The compare window: 2-4 policies on one workload, side by side, on one shared clock.

The user picks 2-4 policies for one workload (the
chooser on the left; fewer than two, more than four, an unknown policy or one the machine cannot
run gives a message and keeps the current comparison). Each policy gets a pane with its name
(and its pen) as a header: the Ousterhout matrix with its own WLV and workload tree
(Zhou99 Fig. 1, 5, 6), or its family's view (the multi-site queues, the epoch
rectangle) for a scenario of another model.

One timeline drives every pane in *simulated* time (:mod:`gangviz.gui.compare.clock`): moving the
shared clock to ``t`` advances each simulation with ``run(until=t)`` (or goes back through its
history), so each pane shows its state after its last step at or before ``t`` although the
policies reach their decision points at different times. Play advances the clock at a chosen
number of slices per second on a parented ``QTimer``; Step jumps to the next decision point of any
pane, Back to the previous one; the panes' players never run their own timers, and nothing is
animated change by change (the panes would drift apart).

Every run of a small workload (up to :data:`~gangviz.gui.compare.ahead.SCHEDULE_JOBS` jobs; a
scenario, a model, a trace's first jobs) is first simulated to its end when the comparison is built (cheap: whole 200-job runs
take well under a second), which gives the timeline its length, the whole metric curves and the
summary table. A bigger workload (a whole trace: LANL-CM5's 122k jobs) keeps no step-able
simulation: each policy runs once, headless, on the loop ``gangviz run`` uses, in a worker
process (:mod:`gangviz.gui.compare.runs`: as many at once as there are cores), and its pane (:mod:`gangviz.gui.compare.overview`) draws the state at the shared time from
the run's per-job start and finish columns (:mod:`gangviz.experiments.schedule`), and a gang or
buddy policy's matrix from its compiled loop's placement log. The window
shows its panes at once, every control working; until its run ends a pane shows how far it is
and that the time on the clock is not simulated yet; each fills when its run ends, and the curves and table then cover the
runs ended so far; Step and Back move to the next or previous arrival, start or finish of any run. The table is :func:`gangviz.experiments.compare.comparison_of_runs` of those
finished simulations, built by :func:`gangviz.factory.build`, so it
holds the numbers of ``gangviz compare``. It exists for the matrix family only (the final metrics
are Zhou et al.'s, Zhou00 §4.3); other families show the panes and curves.

Exports: the table as CSV (the text of ``gangviz compare --csv``), the figure (the whole window, or
the metric panels alone) as PNG or SVG. ``gangviz compare ... --window [--screenshot out.png]``
opens this window (:func:`screenshot` renders it offscreen).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QColor, QFont, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStyle,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gangviz.core.changes import MOVE_KINDS
from gangviz.gui.compare import clock as shared_clock
from gangviz.gui.compare.ahead import discard_waiting, uses_workers
from gangviz.gui.compare.overview import SchedulePane, pane_frame
from gangviz.gui.compare.plan import (
    MAX_POLICIES,
    MIN_POLICIES,
    Plan,
    Run,
    machines,
    refusal,
    run_tasks,
)
from gangviz.gui.compare.present import ComparePresentation
from gangviz.gui.compare.runs import ScheduleRunner
from gangviz.gui.compare.state_line import StateLine
from gangviz.gui.compare.table import SummaryTable
from gangviz.gui.compare.timeline import SharedTimeline
from gangviz.gui.families.table import (
    FamilyViewAdapter,
    FamilyWidget,
    applied_steps,
    family_view,
    matrix_of,
    paper_of,
    samples_of,
    waiting_of,
)
from gangviz.gui.kit.figure_export import export_widget
from gangviz.gui.kit.layouts import heading_label, splitter
from gangviz.gui.matrix.vector import VectorTreeView
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.matrix.what_if import offer_what_ifs
from gangviz.gui.playback import speeds
from gangviz.gui.playback.player import Player
from gangviz.gui.plots import axes as plot_axes
from gangviz.gui.plots.compare import OverlayPlots, shown_colours
from gangviz.timefmt import clock_text
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.experiments.compare import Comparison
    from gangviz.experiments.schedule import Schedule
    from gangviz.sim.protocol import Simulation
    from gangviz.sim.state import Sample
    from gangviz.workloads.source import Source

TICK_MS = 30
SCREENSHOT_SIZE = (1680, 1050)


def build_sims(source: Source, specs: list[str], padding: str | None = None,
               runs: dict[str, Run] | None = None) -> dict[str, Simulation]:
    """Return ``{label: simulation}`` (with history) for 2-4 runs ``specs`` on ``source``,
    each the policy and queue order ``runs`` gives its label (a label not there is a policy
    in arrival order).

    Every family goes through :func:`gangviz.factory.build` (as ``gangviz compare`` does;
    time-slot runs step whole slices, not slice by slice). Raises ``ValueError`` naming the
    policy for an unknown policy, bad parameters or a policy the machine cannot run, for a
    count outside 2-4, and for policies that would run on different machines
    (:func:`gangviz.experiments.compare.machine_sources`, with ``padding``).
    """
    from gangviz.factory import build

    chosen = {label: (runs or {}).get(label, (label, None)) for label in specs}
    sources = machines(source, chosen, padding)
    sims: dict[str, Simulation] = {}
    for label, (spec, order) in chosen.items():
        try:
            sims[label] = build(sources[label], spec, record=True, watch=False, order=order)
        except (ValueError, KeyError, TypeError) as exc:
            raise refusal(exc, spec, label) from None
    return sims


class PolicyChooser(QWidget):
    """Checkable list of policies plus a field for any spec (``random:seed=3``); ``chosen(list)``
    fires on Compare with the checked specs in list order."""

    chosen = Signal(list)

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        self._layout = lay
        lay.setContentsMargins(8, 8, 8, 8)
        head = QLabel("Policies (2–4)")
        f = QFont(head.font())
        f.setBold(True)
        head.setFont(f)
        lay.addWidget(head)
        self.list = QListWidget()
        self.list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        lay.addWidget(self.list, 1)
        for name in names:
            self._add(name, False)
        self.extra = QLineEdit()
        self.extra.setPlaceholderText("add: name:key=value")
        self.extra.setToolTip("Add a policy with parameters, e.g. random:seed=3, then tick it")
        self.extra.returnPressed.connect(self._add_typed)
        lay.addWidget(self.extra)
        self.options = QWidget()  # the comparison's options (add_options), above the button
        self.options_layout = QVBoxLayout(self.options)
        self.options_layout.setContentsMargins(0, 4, 0, 0)
        self.options_layout.setSpacing(2)
        lay.addWidget(self.options)
        #: the bounded slowdown's threshold Γ and, on a padded trace, the machine (add_options)
        self.gamma: QDoubleSpinBox | None = None
        self.machine: QComboBox | None = None
        self.button = QPushButton("Compare")
        self.button.setDefault(True)
        self.button.clicked.connect(lambda: self.chosen.emit(self.checked()))
        lay.addWidget(self.button)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #B3261E;")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.message)

    def add_options(self, gamma: float, clock: str, padded: int | None, padding: str | None) -> None:
        """Add the comparison's options: the bounded slowdown's threshold Γ (``gamma``, in
        ``clock``, ``"s"`` or ``"slices"``), and for a trace padded from ``padded`` processors
        the machine of every policy (:data:`gangviz.experiments.compare.PADDING`, as
        ``--padding``; ``padding`` chosen first)."""
        from gangviz.experiments.compare import PADDING

        lay = self.options_layout
        lay.addWidget(QLabel("Bounded slowdown Γ"))
        self.gamma = QDoubleSpinBox()
        self.gamma.setDecimals(2)
        self.gamma.setRange(0.001, 1e9)
        self.gamma.setValue(gamma)
        self.gamma.setSuffix(f" {clock}")
        self.gamma.setToolTip("The bounded slowdown's threshold: max(response, Γ) / max(run time, Γ) "
                              "(--bsld-threshold); applied on Compare")
        lay.addWidget(self.gamma)
        if padded is None:
            return
        lay.addWidget(QLabel("Machine"))
        self.machine = QComboBox()
        self.machine.addItem("choose one", None)
        words = {"used": "used: all processors", "absent": f"absent: the trace's {padded:,}"}
        for choice in PADDING:
            self.machine.addItem(words[choice], choice)
        self.machine.setCurrentIndex(max(0, self.machine.findData(padding)))
        self.machine.setToolTip("A buddy scheme leaves the processors added to the trace's machine "
                                "absent; the other policies would use them: one machine for every "
                                "policy (--padding used or absent)")
        lay.addWidget(self.machine)

    def _add(self, spec: str, checked: bool) -> QListWidgetItem:
        item = QListWidgetItem(printable(spec))  # a user policy's name may hold control characters
        item.setData(Qt.ItemDataRole.UserRole, spec)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.list.addItem(item)
        return item

    def _add_typed(self) -> None:
        spec = self.extra.text().strip()
        if spec:
            self.set_checked(self.checked() + [spec])
            self.extra.clear()

    def checked(self) -> list[str]:
        """Return the ticked specs, in list order."""
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]

    def set_checked(self, specs: list[str]) -> None:
        """Tick exactly ``specs`` (adding the ones not listed yet)."""
        present = {self.list.item(i).data(Qt.ItemDataRole.UserRole): self.list.item(i)
                   for i in range(self.list.count())}
        for spec in specs:
            if spec not in present:
                present[spec] = self._add(spec, True)
        for text, item in present.items():
            item.setCheckState(Qt.CheckState.Checked if text in specs else Qt.CheckState.Unchecked)

    def show_message(self, text: str) -> None:
        """Show ``text`` under the button (empty clears it), its control characters escaped."""
        self.message.setText(printable(text))


class ComparePane(QFrame):
    """One policy's pane: a header (pen swatch, name, state line) over its views."""

    def __init__(self, spec: str, sim: Simulation, index: int, parent: QWidget | None = None, *,
                 slice_seconds: float | None = None, colour: QColor | None = None) -> None:
        super().__init__(parent)
        self.spec, self.sim, self.index = spec, sim, index
        self.slice_seconds = slice_seconds  # a trace's clock, for the state line
        #: the shared time the pane shows (its state after every step at or before it)
        self.shown_at = 0.0
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.player = Player(sim, self)
        lay, head, self.title = pane_frame(self, spec, colour)
        paper = paper_of(sim)
        if paper:
            self.title.setToolTip(paper)
        head.addWidget(self.title)
        self.state = StateLine()
        self.state.setStyleSheet("color: #6b665e; border: none;")
        # a narrow pane (four side by side, large text) wraps the line rather than widening
        self.state.setWordWrap(True)
        self.state.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.state.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        head.setSpacing(12)
        head.addWidget(self.state, 1)
        lay.addLayout(head)
        self.matrix: MatrixWidget | None = None
        self.vector: VectorTreeView | None = None
        self.family: tuple[FamilyWidget, FamilyViewAdapter] | None = None
        drawn = family_view(sim)
        if drawn is None:
            self.matrix = MatrixWidget(self.player, self)
            self.matrix.slice_seconds = slice_seconds
            self.matrix.setMinimumSize(160, 120)
            self.matrix.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)  # what-ifs would desync
            self.vector = VectorTreeView(self.player, self)
            # the WLV's columns and label gutter follow the matrix's (also as presentation
            # widens the gutter), as on the main window's board
            self.vector.set_column_range(self.matrix.column_range)
            lay.addWidget(self.matrix, 1)
            lay.addWidget(self.vector)
        else:
            view = drawn.make(self, self.player)
            view.setMinimumSize(160, 120)
            if hasattr(view, "set_processors_across"):  # beside matrices: one orientation
                view.set_processors_across(True)
            lay.addWidget(view, 1)
            self.family = (view, FamilyViewAdapter(view, self.player, drawn.state))

    def refresh(self, t: float | None = None) -> None:
        """Tell the views the simulation moved, and update the state line at shared time ``t``.

        The line shows the shared clock (``t``), not the time of the pane's last step: a pane
        whose last decision was at 2 shows the same instant as the window at 8 (its state
        after every step at or before ``t``). ``None`` shows the simulation's own time.
        """
        sim = self.sim
        self.shown_at = float(sim.time if t is None else t)
        if self.family is not None and hasattr(self.family[0], "clock"):
            self.family[0].clock = self.shown_at  # a view that writes the time writes this one
        self.player.moved.emit()
        parts = [f"t = {clock_text(self.shown_at, self.slice_seconds)}"]
        m = matrix_of(sim)
        if m is not None:
            parts.append(f"{m.n_rows} slot{'s' if m.n_rows != 1 else ''}")
            parts.append(f"{len(m.jobs())} running")
        waiting = waiting_of(sim)
        if waiting is not None:
            parts.append(f"{len(waiting)} waiting")
        if sim.done and math.isinf(sim.peek()):
            parts.append("done")
        self.state.set_parts(parts)  # wrapped between its parts, never inside one

    def stop(self) -> None:
        """Stop the pane's player (it never runs its own timer, but be safe)."""
        self.player.stop()


class CompareWindow(QMainWindow):
    """Compare 2-4 policies on one workload; see the module docstring.

    Args:
        source: a :class:`~gangviz.workloads.source.Source`, or a name for
            :func:`~gangviz.workloads.source.load_source` (with ``source_args``).
        policies: the policy specs to compare (``"bc"``, ``"random:seed=3"``); when they are not
            2-4 runnable policies the chooser shows why and the panes stay empty.
        start: the shared time to show first (clamped to the runs' span).
        schedules: draw each run from its finished schedule (``True``) or step simulations
            (``False``); ``None`` decides by the workload's size (:meth:`uses_schedules`).
        padding: the machine of a padded trace for every policy (``--padding``).
        orders: queue orders as ``gangviz compare --order`` takes them (``FILE.py:function``
            for every policy, ``POLICY=FILE.py:function`` for one; two or more for one policy
            run it once under each, side by side, labelled by its order:
            :func:`gangviz.experiments.compare.labelled_runs`).
        bsld_threshold: the bounded slowdown's threshold Γ of the figures, in the source's
            clock (``--bsld-threshold``).

    Raises ``ValueError``/``OSError`` when ``source`` does not load (the command line turns it
    into a one-line message). ``error`` holds the message of the last rejected choice.
    """

    timeChanged = Signal(float)

    def __init__(self, source: Source | str | Path, policies: Sequence[str] = (), *,
                 source_args: dict[str, Any] | None = None, start: float = 0.0,
                 schedules: bool | None = None, padding: str | None = None,
                 orders: Sequence[str] = (), bsld_threshold: float = 10.0,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: each run's policy and queue order, as asked for (:class:`~gangviz.gui.compare.plan.Plan`)
        self.plan = Plan.of(policies, orders)
        #: the bounded slowdown's threshold Γ, in the source's clock
        self.bsld_threshold = float(bsld_threshold)
        self._schedules_asked = schedules
        #: the machine of a padded trace for every policy (``gangviz compare --padding``)
        self.padding = padding
        if isinstance(source, (str, Path)):
            from gangviz.workloads.source import load_source

            source = load_source(str(source), **(source_args or {}))
        self.source = source
        self.model = source.model
        self.sims: dict[str, Simulation] = {}
        #: the panes shown: stepping simulations, or finished runs on a trace (uses_schedules)
        self.panes: list[ComparePane | SchedulePane] = []
        self.samples: dict[str, list[Sample]] = {}
        self.schedules: dict[str, Schedule] = {}
        self.failures: dict[str, str] = {}
        self.runner: ScheduleRunner | None = None
        self._generation = 0
        self.comparison: Comparison | None = None
        self.error: str | None = None
        self.time = 0.0
        self.end = 0.0
        self._last_tick = 0.0
        self.setWindowTitle(f"gangviz: compare policies on {printable(source.title)}")
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self._table_colours: list[QColor] = []
        #: each policy's colour in this window (:func:`~gangviz.gui.plots.compare.shown_colours`)
        self.colours: dict[str, QColor] = {}
        self._build_toolbar()
        self._build_body()
        #: presentation mode (F11): full screen, the chooser and plots hidden, large text
        self.presentation = ComparePresentation(self)
        for key, slot in (("F11", self.toggle_presentation), ("Escape", self.leave_presentation)):
            a = QAction(self)
            a.setShortcut(QKeySequence(key))
            a.triggered.connect(slot)
            self.addAction(a)
        self.resize(1500, 950)
        if policies:
            labels = self.plan.labels
            self.chooser.set_checked(labels)
            self.set_policies(labels, start=start)
        discard_waiting()  # workers started for a comparison that did not start
        if not policies:
            self.chooser.show_message(f"Tick {MIN_POLICIES} to {MAX_POLICIES} policies, then Compare.")

    # ------------------------------------------------------------------ layout
    def _build_toolbar(self) -> None:
        tb = QToolBar("Shared clock")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(tb)
        SP = QStyle.StandardPixmap

        def act(text: str, key: str, slot: Callable[[], object], tip: str,
                icon: QStyle.StandardPixmap) -> QAction:
            a = QAction(self.style().standardIcon(icon), text, self)
            a.setShortcut(QKeySequence(key))
            a.setToolTip(f"{tip} ({key})")
            a.triggered.connect(slot)
            self.addAction(a)
            tb.addAction(a)
            return a

        self.act_reset = act("Start", "Home", lambda: self.set_time(0.0), "Back to time 0", SP.SP_MediaSkipBackward)
        self.act_back = act("Back", "Left", self.step_back, "Previous decision point of any pane",
                            SP.SP_MediaSeekBackward)
        self.act_play = act("Play", "Space", self.toggle, "Play / pause the shared clock", SP.SP_MediaPlay)
        self.act_step = act("Step", "Right", self.step_forward, "Next decision point of any pane",
                            SP.SP_MediaSeekForward)
        tb.addSeparator()
        tb.addWidget(QLabel(" Speed "))
        self.rate = QComboBox()
        per = self._slice_seconds()
        for r in speeds.rates(per):
            self.rate.addItem(speeds.rate_text(r, per), r)
        self.rate.setToolTip("Simulated time per second while playing" if per is not None
                             else "Simulated slices per second while playing")
        self.rate.currentIndexChanged.connect(self._rate_changed)
        tb.addWidget(self.rate)
        #: how long the whole run plays at the chosen speed
        self.rate_note = QLabel()
        self.rate_note.setStyleSheet("color: #6b665e;")
        self.rate_note.setContentsMargins(6, 0, 0, 0)
        tb.addWidget(self.rate_note)
        tb.addSeparator()
        self.clock_label = QLabel()
        self.clock_label.setMinimumWidth(200)
        self.clock_label.setContentsMargins(8, 0, 8, 0)
        f = QFont(self.clock_label.font())
        f.setBold(True)
        self.clock_label.setFont(f)
        tb.addWidget(self.clock_label)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        export = QToolButton()
        export.setText("Export")
        export.setIcon(self.style().standardIcon(SP.SP_DialogSaveButton))
        export.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        export.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        from PySide6.QtWidgets import QMenu

        menu = QMenu(export)
        menu.addAction("Summary table as CSV…", lambda: self._ask_export("table"))
        menu.addAction("Whole figure as PNG or SVG…", lambda: self._ask_export("window"))
        menu.addAction("Metric plots as PNG or SVG…", lambda: self._ask_export("plots"))
        export.setMenu(menu)
        tb.addWidget(export)
        self.toolbar = tb

    def _build_body(self) -> None:
        from gangviz.core.registry import menu

        names = menu(self.model)
        self.chooser = PolicyChooser(list(names))
        self.chooser.add_options(self.bsld_threshold, "s" if self._slice_seconds() is not None else "slices",
                                 self.source.absent_from, self.padding)
        self.chooser.chosen.connect(self._chosen)
        self.chooser.setFixedWidth(190)
        self.heading = heading_label()
        self.heading.setContentsMargins(6, 4, 6, 0)
        self.subheading = QLabel()
        self.subheading.setStyleSheet("color: #6b665e;")
        self.subheading.setContentsMargins(6, 0, 6, 2)
        self.pane_row = QWidget()
        self.pane_layout = QHBoxLayout(self.pane_row)
        self.pane_layout.setContentsMargins(0, 0, 0, 0)
        self.pane_layout.setSpacing(6)
        self.timeline = SharedTimeline()
        self.timeline.timeRequested.connect(self.set_time)
        board = QWidget()
        bl = QVBoxLayout(board)
        bl.setContentsMargins(4, 0, 4, 0)
        bl.setSpacing(2)
        from gangviz.gui.source_notes import WarningsBar

        #: the reader's warnings about the source, as the main window shows them
        self.warnings_bar = WarningsBar()
        self.warnings_bar.set_warnings(self.source.title, self.source.warnings)
        bl.addWidget(self.warnings_bar)
        bl.addWidget(self.heading)
        bl.addWidget(self.subheading)
        bl.addWidget(self.pane_row, 1)
        bl.addWidget(self.timeline)
        top = QWidget()
        tl = QHBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.chooser)
        tl.addWidget(board, 1)
        self.plots = OverlayPlots()
        per_slice = float(self.source.slice_seconds or 1.0) if self.source.kind == "swf" else None
        for w in self.plots.plots:
            plot_axes.set_time_unit(w, per_slice)
        self.table = SummaryTable()
        self.table_note = QLabel("Final metrics (★ best in its row; ↑ higher is better, ↓ lower)")
        self.table_note.setStyleSheet("color: #6b665e;")
        self.table_note.setWordWrap(True)
        #: the second block of rows when the projected table is reflowed beside itself
        #: (presentation mode only, :meth:`ComparePresentation.fit_table`)
        self.table_more = SummaryTable()
        self.table_more.setVisible(False)
        side = QWidget()
        sl = QVBoxLayout(side)
        sl.setContentsMargins(4, 0, 0, 0)
        sl.addWidget(self.table_note)
        blocks = QHBoxLayout()
        blocks.setContentsMargins(0, 0, 0, 0)
        blocks.addWidget(self.table, 1)
        blocks.addWidget(self.table_more, 1)
        sl.addLayout(blocks, 1)
        bottom = splitter(Qt.Orientation.Horizontal, [self.plots, side], [3, 2])
        bottom.setSizes([900, 520])
        main = splitter(Qt.Orientation.Vertical, [top, bottom], [3, 2])
        main.setSizes([560, 380])
        #: the split between the panes (above) and the plots and table (below)
        self.main_split = main
        self.setCentralWidget(main)
        self._update_clock()

    # ------------------------------------------------------------- policies
    def _chosen(self, specs: list[str]) -> None:
        """Compare: the ticked runs, under the options chosen beside them (Γ, the machine)."""
        if self.chooser.gamma is not None:
            self.bsld_threshold = float(self.chooser.gamma.value())
        if self.chooser.machine is not None:
            self.padding = self.chooser.machine.currentData()
        self.set_policies(list(specs), start=self.time)

    def _gamma_text(self) -> str:
        unit = "s" if self._slice_seconds() is not None else "slices"
        return f"bounded slowdown Γ = {self.bsld_threshold:g} {unit}"

    def uses_schedules(self) -> bool:
        """Return whether the panes draw finished schedules instead of stepping simulations:
        as asked (``schedules=``), else for a workload of the matrix model with more than
        :data:`~gangviz.gui.compare.ahead.SCHEDULE_JOBS` jobs (small ones keep the step-by-step
        panes and narration; :func:`~gangviz.gui.compare.ahead.uses_workers`)."""
        if self.model != "matrix":
            return False
        if self._schedules_asked is not None:
            return self._schedules_asked
        return uses_workers(self.source)

    def _tell(self, error: str | None) -> None:
        """Keep ``error`` in :attr:`error` and show it in the chooser (``None``: clear both); a
        choice of machine it asks for is offered beside the chooser."""
        self.error = error
        shown = error or ""
        if error and self.chooser.machine is not None and "--padding" in error:
            shown += " (here: the Machine choice above Compare)"
        self.chooser.show_message(shown)

    def set_policies(self, specs: list[str], *, start: float = 0.0) -> bool:
        """Compare ``specs``; return success. On failure the chooser shows the reason (also in
        :attr:`error`) and the current comparison stays."""
        if self.uses_schedules():
            return self._set_schedules(specs, start)
        try:
            sims = build_sims(self.source, specs, self.padding, self.plan.runs_of(specs))
        except ValueError as exc:
            self._tell(str(exc))
            return False
        self._tell(None)
        self.pause()
        self._finish_runs(sims)
        self._drop_panes()
        self.sims = sims
        self.colours = shown_colours(list(sims))
        self.panes = [ComparePane(spec, sim, i, self.pane_row, slice_seconds=self._slice_seconds(),
                                  colour=self.colours[spec])
                      for i, (spec, sim) in enumerate(sims.items())]
        for pane in self.panes:
            self.pane_layout.addWidget(pane, 1)
            if pane.matrix is not None:
                pane.matrix.jobSelected.connect(lambda job, src=pane: self._select_everywhere(job, src))
                offer_what_ifs(pane.matrix, self)
        colours = [self.colours[spec] for spec in sims]
        self.timeline.slice_seconds = self._slice_seconds()
        self.timeline.set_span(self.end, [(colours[i], self._moves[spec]) for i, spec in enumerate(sims)])
        self.plots.set_series(self.samples, self.end, self.colours)
        self._table_colours = colours
        if self.comparison is not None:
            self.table.set_comparison(self.comparison, colours)
            self.table.setEnabled(True)
            self.table_note.setText((self.comparison.note or "Final metrics, the numbers of gangviz compare "
                                     "(★ best in its row; ↑ higher is better, ↓ lower is better)")
                                    + f"; {self._gamma_text()}")
        else:
            self.table.clear()
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.table_note.setText("The final-metrics table covers the Ousterhout-matrix policies; "
                                    "this model's panes and curves are shown above.")
        s = self.source
        self.heading.setText(printable(s.title))
        jobs = f"  ·  {len(s.jobs)} jobs" if s.jobs else ""
        gamma = f"  ·  {self._gamma_text()}" if self.comparison is not None else ""
        self.subheading.setText(f"{s.processors} processors{jobs}  ·  {len(sims)} policies  ·  "
                                f"runs end at {clock_text(self.end, self._slice_seconds())}{gamma}")
        self._default_rate()
        self.presentation.apply()  # panes chosen while presenting are drawn large too
        self.set_time(start, force=True)
        return True

    def _drop_panes(self) -> None:
        """Stop and remove the panes shown (before new ones take their place)."""
        for pane in self.panes:
            pane.stop()
            self.pane_layout.removeWidget(pane)
            pane.deleteLater()

    def _set_schedules(self, specs: list[str], start: float) -> bool:
        """Start one headless run per spec (:class:`ScheduleRunner`) and show their panes at
        once, each filled when its run ends; checks the specs first (as :meth:`set_policies`)."""
        try:
            tasks = run_tasks(self.source, self.plan.runs_of(specs), self.padding, self.bsld_threshold)
        except ValueError as exc:
            self._tell(str(exc))
            return False
        self._tell(None)
        self.pause()
        self._drop_panes()
        self.sims, self.schedules, self.samples, self.comparison = {}, {}, {}, None
        self.failures = {}
        per = self._slice_seconds()
        self.colours = shown_colours(list(specs))
        self.panes = [SchedulePane(spec, i, self.pane_row, slice_seconds=per, colour=self.colours[spec])
                      for i, spec in enumerate(specs)]
        for pane in self.panes:
            self.pane_layout.addWidget(pane, 1)
        self.end = max((j.arrival for j in self.source.jobs), default=0.0)  # until the runs end
        self.timeline.slice_seconds = per
        self.timeline.set_span(self.end, [])
        self._default_rate()  # the span grows a little as runs end; the speed chosen stays
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.table_note.setText("The figures of every run appear here when it ends.")
        s = self.source
        self.heading.setText(printable(s.title))
        self.subheading.setText(f"{s.processors:,} processors  ·  {len(s.jobs):,} jobs  ·  "
                                f"{len(specs)} policies, each simulated once")
        if self.runner is None:
            self.runner = ScheduleRunner(self)
            self.runner.ready.connect(self._schedule_ready)
            self.runner.failed.connect(self._schedule_failed)
            self.runner.progress.connect(self._schedule_progress)
            self.runner.timer.timeout.connect(self._runs_tick)
        self._start_at = start
        self.presentation.apply()
        self._generation = self.runner.start(tasks)
        self.subheading.setText(self.subheading.text() + f" in {self.runner.workers} worker process"
                                + ("es" if self.runner.workers != 1 else "") + f"  ·  {self._gamma_text()}")
        self.set_time(start, force=True)
        return True

    def _schedule_ready(self, gen: int, spec: str, schedule: Schedule) -> None:
        if gen != self._generation:
            return
        self.schedules[spec] = schedule
        pane = next(p for p in self.panes if isinstance(p, SchedulePane) and p.spec == spec)
        pane.set_schedule(schedule)
        self._schedules_changed()

    def _schedule_progress(self, gen: int, spec: str, what: str, value: float) -> None:
        if gen != self._generation:
            return
        for p in self.panes:
            if isinstance(p, SchedulePane) and p.spec == spec:
                p.set_progress(what, value)

    def _runs_tick(self) -> None:
        """The runs go on: the waiting panes' elapsed seconds move."""
        for p in self.panes:
            if isinstance(p, SchedulePane):
                p.tick()

    def _schedule_failed(self, gen: int, spec: str, message: str) -> None:
        if gen != self._generation:
            return
        self.failures[spec] = message
        next(p for p in self.panes if isinstance(p, SchedulePane) and p.spec == spec).fail(message)
        self._schedules_changed()

    @property
    def pending(self) -> int:
        """Return how many runs of the current comparison have not ended yet."""
        if not self.uses_schedules():
            return 0
        return sum(1 for p in self.panes if p.spec not in self.schedules and p.spec not in self.failures)

    def _schedules_changed(self) -> None:
        """A run ended: span, curves and table cover the runs ended so far."""
        from gangviz.experiments.compare import comparison_from_figures
        done = {p.spec: self.schedules[p.spec] for p in self.panes if p.spec in self.schedules}
        self.end = max([self.end] + [s.end for s in done.values()])
        colours = [self.colours[spec] for spec in done]
        self.timeline.slice_seconds = self._slice_seconds()
        self.timeline.set_span(self.end, [(c, []) for c in colours])
        self.plots.set_curves({spec: s.curves() for spec, s in done.items()}, self.end, self.colours)
        if len(done) >= 2:
            self.comparison = comparison_from_figures(self.source.title, self.source.processors,
                                                      {spec: s.figures for spec, s in done.items()})
            self._table_colours = colours
            self.table.set_comparison(self.comparison, colours)
            self.refill_table()  # the rows presentation mode shows
            self.presentation.fit_table()
            self.table.setEnabled(True)
            wait = f"; {self.pending} still simulating" if self.pending else ""
            self.table_note.setText((self.comparison.note or "Final figures, the numbers of gangviz "
                                     "compare (★ best in its row among the policies that have it; "
                                     "↑ higher, ↓ lower is better)") + f"; {self._gamma_text()}" + wait)
        self._rate_changed()
        self.set_time(self.time, force=True)

    def _finish_runs(self, sims: dict[str, Simulation]) -> None:
        """Run every simulation to its end: span, move ticks, whole curves, final table."""
        from gangviz.experiments.compare import comparison_of_runs
        from gangviz.factory import measures_of, run_to_end

        self._moves, self.samples = {}, {}
        end = 0.0
        comparison = (comparison_of_runs(self.source, {spec: measures_of(sim).finish()
                                                       for spec, sim in sims.items()}, self.bsld_threshold)
                      if self.model == "matrix" else None)
        for spec, sim in sims.items():
            run_to_end(sim)
            end = max(end, float(sim.time))
            self._moves[spec] = [s.time for s in applied_steps(sim)
                                 if any(c.kind in MOVE_KINDS for c in s.changes)]
            self.samples[spec] = list(samples_of(sim))
        self.end = end
        self.comparison = comparison

    def _select_everywhere(self, job: int | None, src: ComparePane | SchedulePane) -> None:
        for pane in self.panes:
            if pane is not src and pane.matrix is not None and pane.matrix.selected != job:
                pane.matrix.blockSignals(True)
                pane.matrix.select(job)
                pane.matrix.blockSignals(False)

    # ---------------------------------------------------------- presentation
    def toggle_presentation(self) -> bool:
        """Enter or leave presentation mode (F11); return whether it is now on."""
        return self.presentation.toggle()

    def leave_presentation(self) -> None:
        """Leave presentation mode (Escape); nothing when not presenting."""
        self.presentation.leave()

    def refill_table(self) -> None:
        """Fill the table again from the comparison shown (after its font changed); in
        presentation mode only the headline rows show (:meth:`headline_rows`: the splits by job
        size and by work stay in the window, so that the projected table fits without
        scrolling), and the second block of a reflowed table is filled too."""
        if self.comparison is not None and self.table.comparison is not None:
            self.table.set_comparison(self.comparison, self._table_colours)
            self.table_more.set_comparison(self.comparison, self._table_colours)
        keys = self.table.comparison.keys if self.table.comparison is not None else ()
        headline = set(self.headline_rows())
        for i in range(len(keys)):
            self.table.setRowHidden(i, self.presentation.active and i not in headline)
        if not self.presentation.active:
            self.table_more.setVisible(False)

    def headline_rows(self) -> list[int]:
        """Return the rows of the table presentation mode shows: all but the splits by job size
        (``_small``, ``_large``) and by work (Zhou00 §4.3's small, medium and large classes)."""
        keys = self.table.comparison.keys if self.table.comparison is not None else ()
        return [i for i, key in enumerate(keys)
                if not key.endswith(("_small", "_large")) and key not in ("t_sa", "t_ma", "t_la")]

    # ----------------------------------------------------------- shared clock
    def set_time(self, t: float, *, force: bool = False) -> None:
        """Move every pane to simulated time ``t`` (clamped to [0, end]); emits ``timeChanged``."""
        t = min(max(float(t), 0.0), self.end)
        if t == self.time and not force:
            return
        self.time = t
        for pane in self.panes:
            if isinstance(pane, SchedulePane):
                pane.show_at(t)
                continue
            shared_clock.seek(pane.sim, t)
            pane.refresh(t)
        self.timeline.set_time(t)
        self.plots.set_time(t)
        self._update_clock()
        self.timeChanged.emit(t)

    def step_forward(self) -> None:
        """Move the clock to the next decision point of any pane (stops at the end)."""
        self.pause()
        if self.uses_schedules():
            nxt = min((s.next_event(self.time) for s in self.schedules.values()), default=math.inf)
            self.set_time(self.end if math.isinf(nxt) else nxt)
            return
        nxt = shared_clock.next_event([p.sim for p in self.panes if isinstance(p, ComparePane)], self.time)
        self.set_time(self.end if math.isinf(nxt) else nxt)

    def step_back(self) -> None:
        """Move the clock back to the previous decision point of any pane."""
        self.pause()
        if self.uses_schedules():
            self.set_time(max((s.previous_event(self.time) for s in self.schedules.values()), default=0.0))
            return
        self.set_time(shared_clock.previous_event([p.sim for p in self.panes if isinstance(p, ComparePane)],
                                                  self.time))

    @property
    def playing(self) -> bool:
        """Return whether the shared clock is running."""
        return self.timer.isActive()

    def play(self) -> None:
        """Run the shared clock at the chosen speed (from 0 again when at the end)."""
        if not self.panes or self.playing:
            return
        if self.time >= self.end:
            self.set_time(0.0)
        self._last_tick = time.perf_counter()
        self.timer.start()
        self._playing_changed()

    def pause(self) -> None:
        """Stop the shared clock."""
        if self.playing:
            self.timer.stop()
            self._playing_changed()

    def toggle(self) -> None:
        """Play when paused, pause when playing."""
        self.pause() if self.playing else self.play()

    def _tick(self) -> None:
        now = time.perf_counter()
        dt = min(now - self._last_tick, 0.1)
        self._last_tick = now
        self.set_time(self.time + dt * float(self.rate.currentData()))
        if self.time >= self.end:
            self.pause()

    def _default_rate(self) -> None:
        """Start at the slowest speed that plays the whole run in a few minutes (a trace,
        :data:`~gangviz.gui.playback.speeds.TRACE_PLAY_SECONDS`) or less than a minute (a model or a
        scenario, shown step by step)."""
        seconds = speeds.TRACE_PLAY_SECONDS if self._slice_seconds() is not None else speeds.PLAY_SECONDS
        offered = [float(self.rate.itemData(i)) for i in range(self.rate.count())]
        self.rate.setCurrentIndex(speeds.default_index(self.end, offered, seconds))
        self._rate_changed()

    def _rate_changed(self, *_: object) -> None:
        """Say how long the whole run plays at the chosen speed."""
        rate = self.rate.currentData()
        self.rate_note.setText(speeds.play_text(self.end, float(rate)) if rate else "")

    def _playing_changed(self) -> None:
        playing = self.playing
        self.act_play.setText("Pause" if playing else "Play")
        sp = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.act_play.setIcon(self.style().standardIcon(sp))

    def _slice_seconds(self) -> float | None:
        """Seconds per slice when the source has a clock (an SWF trace), else ``None``."""
        return self.source.slice_seconds if self.source.kind == "swf" else None

    def _update_clock(self) -> None:
        per = self._slice_seconds()
        self.clock_label.setText(f"{clock_text(self.time, per)}  of  {clock_text(self.end, per)}")

    # ----------------------------------------------------------------- export
    def export_table(self, path: str | Path) -> Path:
        """Write the summary table as CSV (``gangviz compare --csv``'s text); return the path.

        Raises ``ValueError`` when there is no table (no comparison, or another family).
        """
        return self.table.export_csv(path)

    def export_figure(self, path: str | Path, what: str = "window") -> Path:
        """Write the whole window (``what="window"``) or the metric plots (``"plots"``) as PNG
        or SVG by the extension of ``path``; return the path. Raises ``ValueError`` for another
        extension or ``what``."""
        widget = {"window": self, "plots": self.plots}.get(what)
        if widget is None:
            raise ValueError(f"export what={what!r}: choose 'window' or 'plots'")
        return export_widget(widget, path, title=self.windowTitle())

    def _ask_export(self, what: str) -> None:
        if what == "table":
            path, _ = QFileDialog.getSaveFileName(self, "Export the summary table", "compare.csv",
                                                  "CSV table (*.csv)")
        else:
            path, _ = QFileDialog.getSaveFileName(self, "Export the figure", f"compare-{what}.png",
                                                  "PNG image (*.png);;SVG drawing (*.svg)")
        if not path:
            return
        try:
            self.export_table(path) if what == "table" else self.export_figure(path, what)
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Export", str(exc))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.pause()
        self._generation = -1  # runs still going are no longer waited for: end them
        if self.runner is not None:
            self.runner.stop()
        for pane in self.panes:
            pane.stop()
        super().closeEvent(event)


def screenshot(source: Source | str | Path, policies: list[str], out: str | Path, *, at: float | None = None,
               size: tuple[int, int] = SCREENSHOT_SIZE, source_args: dict[str, Any] | None = None,
               presentation: bool = False, padding: str | None = None, orders: Sequence[str] = (),
               bsld_threshold: float = 10.0) -> Path:
    """Render the compare window offscreen at shared time ``at`` (default: half-way through the
    longest run), in presentation mode when ``presentation`` (at ``size``, not full screen),
    and save it to ``out`` (.png or .svg); return the path. ``padding``, ``orders`` and
    ``bsld_threshold`` as :class:`CompareWindow` takes them.

    Raises ``ValueError`` when the workload does not load or the policies are not 2-4 runnable
    ones, ``OSError`` when the picture cannot be written.
    """
    from gangviz.gui.kit.headless import dialogs_raise
    from gangviz.gui.kit.qapp import application

    app = application(offscreen=True)
    with dialogs_raise():  # offscreen, an error is raised and printed, never a dialog
        win = CompareWindow(source, policies, source_args=source_args, padding=padding, orders=orders,
                            bsld_threshold=bsld_threshold)
        try:
            if win.error is not None:
                raise ValueError(win.error)
            win.resize(*size)
            if presentation:
                win.presentation.full_screen = False  # the picture is ``size``, not the screen
                win.presentation.enter()
                win.presentation.rescale(size[1])
                win.resize(*size)
            win.show()
            app.processEvents()  # the first frame: panes of a trace say they are simulating
            if win.runner is not None:  # a trace's runs end in worker processes
                win.runner.wait()
            app.processEvents()
            win.set_time(win.end / 2 if at is None else at)
            app.processEvents()
            win.presentation.fit_table()  # the table's rows fit once the window has its size
            app.processEvents()
            return win.export_figure(out, "window")
        finally:
            win.close()
            win.deleteLater()
            app.processEvents()
