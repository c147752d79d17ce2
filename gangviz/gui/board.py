"""The board: the picture the window, the export and a lecture show of one simulation.

Top to bottom: the title, the subtitle with where the run stands at its right (the time, the
step and, stepping by move, the move: :meth:`Board.set_stamp`), the scenario's explanation (presentation mode), then
either the Ousterhout matrix with its vector/tree under it (the matrix family) or the view
:func:`gangviz.gui.families.table.family_view` gives for ``sim.family``, then the timeline
scrubber and the caption. The matrix, vector and tree share one column geometry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from gangviz.gui import palette
from gangviz.gui.families.table import FamilyViewAdapter, FamilyWidget, family_view
from gangviz.gui.kit.layouts import heading_label
from gangviz.gui.lecture.caption import Caption
from gangviz.gui.matrix.vector import VectorTreeView
from gangviz.gui.matrix.view import MatrixWidget
from gangviz.gui.playback.timeline import Timeline

if TYPE_CHECKING:
    from gangviz.gui.playback.player import Player


class Board(QWidget):
    """The matrix with its vector/tree and the timeline, sharing one column geometry."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: title, matrix (or family view), vector/tree, timeline and caption, top to bottom
        self.column_layout = lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        self.title = heading_label()
        self.title.setContentsMargins(14, 6, 8, 2)
        self.subtitle = QLabel()
        self.subtitle.setContentsMargins(14, 0, 8, 4)
        self.subtitle.setStyleSheet(f"color: {palette.MUTED_TEXT_HEX};")
        #: where the run stands, right of the subtitle: the time, the step and the move shown
        self.stamp = QLabel()
        self.stamp.setContentsMargins(8, 0, 14, 4)
        self.stamp.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.stamp.setStyleSheet(f"color: {palette.TEXT_HEX};")
        self.subtitle_row = QWidget()
        row = QHBoxLayout(self.subtitle_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.subtitle, 1)
        row.addWidget(self.stamp, 0)
        self.matrix = MatrixWidget(parent=self)
        self.matrix.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        from gangviz.gui.matrix.cues import MoveCues

        self.cues = MoveCues(self.matrix)  # ghost and trail of a moving job, above the matrix
        self.vector = VectorTreeView(parent=self)
        self.vector.set_column_range(self.matrix.column_range)  # zoom and pan together
        self.explain = QLabel()
        self.explain.setWordWrap(True)
        self.explain.setTextFormat(Qt.TextFormat.PlainText)
        self.explain.setContentsMargins(14, 2, 14, 6)
        self.explain.setStyleSheet("color: #3d3a35;")
        self.explain.setVisible(False)  # shown in presentation mode (the side panel is hidden)
        self.timeline = Timeline(parent=self)
        self.caption = Caption(self)
        #: the family view shown and the adapter feeding it (``None``: the matrix views)
        self.family: tuple[FamilyWidget, FamilyViewAdapter] | None = None
        self.family_scale = 1.0
        self._family_scales = False  # the family view shown has set_scale
        for w in (self.title, self.subtitle_row, self.explain, self.matrix, self.vector, self.timeline,
                  self.caption):
            lay.addWidget(w)

    def set_stamp(self, text: str) -> None:
        """Show ``text`` (the time, the step and the move) right of the subtitle."""
        if self.stamp.text() != text:
            self.stamp.setText(text)

    def set_family_scale(self, scale: float) -> None:
        """Draw the family view (this one and the next ones) at ``scale`` times its size; the
        views that have no scale (the Gantt strip) keep theirs."""
        self.family_scale = scale
        if self.family is not None and self._family_scales:
            self.family[0].set_scale(scale)

    def set_player(self, player: Player) -> None:
        """Show ``player``'s simulation (matrix views, or the family view for other models)."""
        if self.family is not None:
            self.column_layout.removeWidget(self.family[0])
            # hidden at once: it is deleted only when the event loop next runs, and a picture
            # taken before then (a screenshot, a test) would draw it over the new view
            self.family[0].hide()
            self.family[0].deleteLater()
            self.family = None
        drawn = family_view(player.sim)
        self.matrix.setVisible(drawn is None)
        self.vector.setVisible(drawn is None)
        if drawn is None:
            self.matrix.set_player(player)
            self.vector.set_player(player)
            self.cues.set_player(player)
        else:
            view = drawn.make(self, player)
            self.column_layout.insertWidget(self.column_layout.indexOf(self.matrix), view, 1)
            self.family = (view, FamilyViewAdapter(view, player, drawn.state))
            self._family_scales = drawn.scales
            self.set_family_scale(self.family_scale)  # larger while presenting
        self.timeline.set_player(player)
        self.caption.set_player(player)
