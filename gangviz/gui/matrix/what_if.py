"""The what-if dialogs a window opens for its matrix view.

The view's context menu asks (:class:`~gangviz.gui.matrix.interaction.MatrixInteraction`'s
``terminateRequested`` and ``submitRequested``); the window that shows the view answers with
:func:`offer_what_ifs`: it asks for a new job's size and work, runs the what-if through the
view's player and says why one is not possible, in dialogs of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from gangviz.core.matrix import OusterhoutMatrix
from gangviz.gui.matrix.interaction import MatrixInteraction

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player


class AskingView(Protocol):
    """What the dialogs read of the matrix view that asks."""

    player: Player | None
    interaction: MatrixInteraction

    def update(self) -> None:
        """Repaint the view."""


def offer_what_ifs(view: AskingView, window: QWidget) -> None:
    """Answer ``view``'s what-if requests with dialogs of ``window``."""
    view.interaction.terminateRequested.connect(lambda job: terminate(view, window, job))
    view.interaction.submitRequested.connect(lambda: ask_submit(view, window))


def terminate(view: AskingView, window: QWidget, job: int) -> None:
    """Terminate ``job`` now in ``view``'s simulation (what-if)."""
    p = view.player
    if p is not None:
        _what_if(view, window, lambda: p.terminate_now(job))


def ask_submit(view: AskingView, window: QWidget) -> None:
    """Ask for a size and work, then submit the job to ``view``'s simulation (what-if)."""
    p = view.player
    if p is None:
        return
    procs = cast(OusterhoutMatrix, p.sim.snapshot()).processors
    size, ok = QInputDialog.getInt(window, "Submit a job", f"Size (1..{procs} processors):", 4, 1, procs)
    if not ok:
        return
    work, ok = QInputDialog.getDouble(window, "Submit a job", "Work (slices):", 10.0, 0.1, 1e9, 1)
    if ok:
        _what_if(view, window, lambda: p.submit_now(size, work))


def _what_if(view: AskingView, window: QWidget, action: Callable[[], object]) -> None:
    """Run ``action``; a ``ValueError`` (not possible now) is shown in a warning."""
    try:
        action()
    except ValueError as exc:
        QMessageBox.warning(window, "Not possible", str(exc))
    view.update()
