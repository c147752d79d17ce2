"""Column geometry shared by the matrix, the workload vector and the tree, so they line up.

The matrix view and the vector/tree view are separate widgets of the same width placed one
above the other; both compute processor column ``c``'s x range with :func:`columns`, so a
processor's cells, its WLV entry and the tree nodes covering it share their left and right
edges exactly. When the matrix is zoomed, both widgets hold the same :class:`ColumnRange`
(the processors on show), so they keep sharing their edges at any zoom: column ``c`` is drawn
at ``x0 + c * cw`` with ``x0`` left of the gutter for a range that does not start at 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

GUTTER = 58   # left margin for the row labels (S1.., WLV, WLT levels)
RIGHT = 14    # right margin
#: the narrowest range a zoom shows (processors)
MIN_COUNT = 4.0


class ColumnRange:
    """The processors on show: ``count`` columns from ``first`` (both may be fractional).

    ``listeners`` are called with no argument after every change. :meth:`fit` shows the whole
    machine; :meth:`zoom` and :meth:`pan` keep the range inside ``[0, processors]``.
    """

    def __init__(self, processors: int = 1):
        self.processors = max(int(processors), 1)
        self.first = 0.0
        self.count = float(self.processors)
        self.listeners: list[Callable[[], object]] = []
        #: the left margin for row labels (wider when the labels are drawn larger)
        self.gutter = float(GUTTER)
        #: the link between the views: processors ``[lo, hi)`` of the WLV entry or tree node
        #: under the pointer, and the columns of the job under the pointer in the matrix
        self.hover_cols: tuple[int, int] | None = None
        self.hover_job_cols: list[int] = []
        self.hover_listeners: list[Callable[[], object]] = []

    def set_hover(self, cols: tuple[int, int] | None = None, job_cols: list[int] | None = None) -> None:
        """Set the linked hover (see the attributes) and tell ``hover_listeners``."""
        job_cols = list(job_cols or [])
        if cols != self.hover_cols or job_cols != self.hover_job_cols:
            self.hover_cols, self.hover_job_cols = cols, job_cols
            for fn in list(self.hover_listeners):
                fn()

    def _changed(self) -> None:
        for fn in list(self.listeners):
            fn()

    def _clamp(self) -> None:
        self.count = min(max(self.count, min(MIN_COUNT, self.processors)), float(self.processors))
        self.first = min(max(self.first, 0.0), self.processors - self.count)

    @property
    def fitted(self) -> bool:
        """Return whether the whole machine is on show."""
        return self.count >= self.processors - 1e-9

    def set_processors(self, processors: int) -> None:
        """Show a machine of ``processors`` columns, whole (a new machine resets the zoom)."""
        processors = max(int(processors), 1)
        if processors != self.processors:
            self.processors = processors
            self.first, self.count = 0.0, float(processors)
            self._changed()

    def fit(self) -> None:
        """Show the whole machine."""
        self.first, self.count = 0.0, float(self.processors)
        self._changed()

    def show(self, first: float, count: float) -> None:
        """Show ``count`` columns from ``first`` (clamped to the machine)."""
        self.first, self.count = float(first), float(count)
        self._clamp()
        self._changed()

    def zoom(self, factor: float, anchor: float | None = None) -> None:
        """Show ``factor`` times fewer columns (``factor`` < 1 zooms out), keeping column
        position ``anchor`` (default: the centre) at the same place on screen."""
        if anchor is None:
            anchor = self.first + self.count / 2
        frac = (anchor - self.first) / self.count if self.count else 0.5
        count = self.count / max(factor, 1e-9)
        self.show(anchor - frac * min(max(count, min(MIN_COUNT, self.processors)), self.processors), count)

    def pan(self, columns: float) -> None:
        """Move the range ``columns`` to the right (negative: to the left)."""
        self.show(self.first + columns, self.count)

    def visible(self) -> tuple[int, int]:
        """Return the ``[lo, hi)`` processor columns at least partly on show."""
        lo = int(max(0.0, self.first))
        hi = int(min(self.processors, -(-(self.first + self.count) // 1)))
        return lo, max(hi, lo)


def columns(width: int, processors: int, view: ColumnRange | None = None) -> tuple[float, float]:
    """Return ``(x0, cell_width)``: column ``c`` spans ``x0 + c * cell_width`` onwards.

    Without ``view`` (or with a view of another machine size) the whole machine fills the
    width between the gutter and the right margin; cells may be narrower than a pixel.
    """
    gutter = float(GUTTER) if view is None else view.gutter
    usable = max(width - gutter - RIGHT, 1)
    if view is None or view.processors != processors:
        return gutter, usable / max(processors, 1)
    cw = usable / max(view.count, 1e-9)
    return gutter - view.first * cw, cw


def column_runs(cols: Iterable[int]) -> list[tuple[int, int]]:
    """Return the ``[lo, hi)`` runs of consecutive columns in ``cols``, in the given order (a
    column one past the previous run's end extends it)."""
    runs: list[tuple[int, int]] = []
    for c in cols:
        if runs and runs[-1][1] == c:
            runs[-1] = (runs[-1][0], c + 1)
        else:
            runs.append((c, c + 1))
    return runs


def nice_stride(cell_width: float, label_width: float) -> int:
    """Return a round k (1, 2, 5, 10, 20, 50, ...) such that labelling every k-th column
    leaves room for a label ``label_width`` wide."""
    k, steps = 1, (2, 2.5, 2)
    i = 0
    while k * cell_width < label_width + 8 and k < 1 << 24:
        k = int(round(k * steps[i % 3]))
        i += 1
    return k
