"""Run a sweep file from the GUI: a progress dialog with runs done of total, an ETA and Cancel.

Sweeps: progress is visible in the GUI as a dialog with Cancel; the results computed
so far stay in the output file and ``--resume`` completes them.

Threading (widgets only on the GUI thread): :func:`gangviz.experiments.sweep.run_sweep`
runs in a ``QThread`` through a :class:`SweepWorker` that owns no widget and talks to the dialog
only through queued signals (``progressed(done, total)``, ``done(report)``, ``failed(message)``)
connected to ``@Slot`` methods of the dialog, which Qt runs on the dialog's (GUI) thread.
Cancel sets a ``threading.Event``; the worker's progress callback, called after each finished
run has been written to the CSV, sees it and raises
:class:`~gangviz.experiments.sweep.SweepCancelled`, so the runs in flight finish, nothing more
starts, and every finished run stays in the file. Closing the dialog while it runs cancels and
waits for the run in flight.

ETA: the mean wall time per run computed in this session (runs reused from the file by
``resume`` do not count) times the runs left; shown once one run has been computed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from gangviz.experiments.sweep import Existing, SweepReport
    from gangviz.experiments.sweepfile import Sweep
    from gangviz.gui.plots.sweep import SweepPlot


def format_eta(seconds: float) -> str:
    """Return ``seconds`` as ``m:ss`` (or ``h:mm:ss``), for the ETA label."""
    s = max(int(round(seconds)), 0)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class SweepWorker(QObject):
    """Runs one sweep off the GUI thread; reports through signals only."""

    progressed = Signal(int, int)
    done = Signal(object)
    failed = Signal(str)

    def __init__(self, sweep: Sweep, out: Path, options: dict[str, Any]) -> None:
        super().__init__()
        self.sweep, self.out, self.options = sweep, out, options
        self.cancel_event = threading.Event()

    def _progress(self, done: int, total: int) -> None:
        self.progressed.emit(done, total)
        if self.cancel_event.is_set():
            from gangviz.experiments.sweep import SweepCancelled

            raise SweepCancelled()

    @Slot()
    def run(self) -> None:
        """Run the sweep; emit ``done(report)`` or ``failed(message)``."""
        from gangviz.experiments.sweep import run_sweep

        try:
            report = run_sweep(self.sweep, self.out, progress=self._progress, **self.options)
        except (ValueError, OSError) as exc:
            self.failed.emit(str(exc))
            return
        except Exception as exc:  # shown in the dialog instead of lost in a thread
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        self.done.emit(report)


class SweepDialog(QDialog):
    """Progress of one sweep (see the module docstring).

    Args:
        sweep: a :class:`~gangviz.experiments.sweepfile.Sweep` or the path of a sweep file.
        out: the results CSV.
        workers, scheduler, existing, fn: passed to
            :func:`~gangviz.experiments.sweep.run_sweep` (``fn`` lets tests substitute the run).

    Signals: ``finished_sweep(report)`` when the sweep ends (cancelled or not),
    ``failed(message)`` when it could not run. Raises ``ValueError`` (file:line: key) for a bad
    sweep file, before any dialog is shown.
    """

    finished_sweep = Signal(object)
    failed = Signal(str)
    _progress_relay = Signal(int, int)
    _done_relay = Signal(object)
    _failed_relay = Signal(str)

    def __init__(self, sweep: Sweep | str | Path, out: str | Path, *, workers: int = 1,
                 scheduler: str | None = None, existing: Existing = "refuse",
                 fn: Callable[..., Any] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if isinstance(sweep, (str, Path)):
            from gangviz.experiments.sweepfile import load_sweep

            sweep = load_sweep(sweep)
        self.sweep = sweep
        self.out = Path(out)
        self.total = len(sweep.tasks())
        self.done_runs = 0
        self.report: SweepReport | None = None
        self.error: str | None = None
        self._first: int | None = None
        self._started = 0.0
        options: dict[str, Any] = {"workers": workers, "scheduler": scheduler, "existing": existing}
        if fn is not None:
            options["fn"] = fn
        self.setWindowTitle(f"Sweep: {sweep.title}")
        self.setModal(False)
        self.setMinimumWidth(460)
        lay = QVBoxLayout(self)
        head = QLabel(f"<b>{sweep.title}</b><br><span style='color:#6b665e'>{self.total} runs "
                      f"({len(sweep.cells())} cells × {sweep.replications} replications) → {self.out.name}</span>")
        lay.addWidget(head)
        self.bar = QProgressBar()
        self.bar.setRange(0, max(self.total, 1))
        self.bar.setValue(0)
        self.bar.setFormat("%v of %m runs")
        lay.addWidget(self.bar)
        row = QHBoxLayout()
        self.status = QLabel("Starting…")
        self.eta = QLabel("")
        self.eta.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.status, 1)
        row.addWidget(self.eta)
        lay.addLayout(row)
        self.buttons = QDialogButtonBox()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop after the runs in flight; finished runs stay in the file "
                                      "(gangviz sweep FILE --out CSV --resume completes it)")
        self.cancel_button.clicked.connect(self.cancel)
        self.plot_button = QPushButton("Plot…")
        self.plot_button.setEnabled(False)
        self.plot_button.clicked.connect(self.show_plot)
        self.close_button = QPushButton("Close")
        self.close_button.setEnabled(False)
        self.close_button.clicked.connect(self.close)
        for b in (self.plot_button, self.cancel_button, self.close_button):
            self.buttons.addButton(b, QDialogButtonBox.ButtonRole.ActionRole)
        lay.addWidget(self.buttons)
        self.plot_window: SweepPlot | None = None

        self.worker_thread = QThread(self)
        self.worker = SweepWorker(sweep, self.out, options)
        self.worker.moveToThread(self.worker_thread)
        self.worker_thread.started.connect(self.worker.run)
        # Signal-to-signal relays: Qt queues them to the dialog's (GUI) thread by the receiver
        # object. PySide6 would run a Python method it does not recognise as the receiver's
        # slot (a subclass override, say) in the emitting thread, even with QueuedConnection.
        self.worker.progressed.connect(self._progress_relay)
        self.worker.done.connect(self._done_relay)
        self.worker.failed.connect(self._failed_relay)
        self._progress_relay.connect(self._progressed)
        self._done_relay.connect(self._done)
        self._failed_relay.connect(self._failed)

    # ----------------------------------------------------------------- control
    @property
    def running(self) -> bool:
        """Return whether the sweep's thread is running."""
        return self.worker_thread.isRunning()

    def start(self) -> None:
        """Start the sweep in its thread (once)."""
        if self.running or self.report is not None or self.error is not None:
            return
        self._started = time.perf_counter()
        self.worker_thread.start()

    def cancel(self) -> None:
        """Ask the sweep to stop after the runs in flight (finished runs stay in the file)."""
        if self.running and not self.worker.cancel_event.is_set():
            self.worker.cancel_event.set()
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling after the runs in flight…")

    def show_plot(self) -> None:
        """Open the sweep plot of the results file."""
        from gangviz.gui.plots.sweep import SweepPlot

        try:
            self.plot_window = SweepPlot(self.out)
        except (ValueError, OSError) as exc:
            self.status.setText(str(exc))
            return
        self.plot_window.setWindowTitle(f"{self.sweep.title}: {self.out.name}")
        self.plot_window.resize(900, 560)
        self.plot_window.show()

    # ------------------------------------------------------------------- slots
    @Slot(int, int)
    def _progressed(self, done: int, total: int) -> None:
        if self._first is None:
            self._first = done  # runs reused from the file by --resume
            self._started = time.perf_counter()
        self.done_runs = done
        self.bar.setMaximum(max(total, 1))
        self.bar.setValue(done)
        if not self.worker.cancel_event.is_set():
            self.status.setText(f"{done} of {total} runs done")
        computed = done - self._first
        if computed > 0 and done < total:
            per_run = (time.perf_counter() - self._started) / computed
            self.eta.setText(f"about {format_eta(per_run * (total - done))} left")
        elif done >= total:
            self.eta.setText("")

    def _stopped(self) -> None:
        self.worker_thread.quit()
        self.worker_thread.wait()
        self.cancel_button.setEnabled(False)
        self.close_button.setEnabled(True)
        self.eta.setText("")

    @Slot(object)
    def _done(self, report: SweepReport) -> None:
        self.report = report
        self._stopped()
        failed = len(report.failures)
        if report.cancelled:
            self.status.setText(f"Cancelled after {self.done_runs} of {report.total} runs; they are in "
                                f"{self.out.name} (gangviz sweep … --resume completes it)")
        else:
            self.status.setText(f"Done: {report.computed} runs computed, {report.reused} reused"
                                + (f", {failed} failed (see the CSV)" if failed else ""))
        self.plot_button.setEnabled(True)
        self.finished_sweep.emit(report)

    @Slot(str)
    def _failed(self, message: str) -> None:
        self.error = message
        self._stopped()
        self.status.setText(message)
        self.status.setWordWrap(True)
        self.failed.emit(message)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.running:
            self.cancel()
            self.worker_thread.quit()
            self.worker_thread.wait()
        if self.plot_window is not None:
            self.plot_window.close()
        super().closeEvent(event)
