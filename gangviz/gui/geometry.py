"""Column geometry shared by the matrix, the workload vector and the tree, so they line up.

The matrix view and the vector/tree view are separate widgets of the same width placed one
above the other; both compute processor column ``c``'s x range with :func:`columns`, so a
processor's cells, its WLV entry and the tree nodes covering it share their left and right
edges exactly.
"""

from __future__ import annotations

GUTTER = 58   # left margin for the row labels (S1.., WLV, WLT levels)
RIGHT = 14    # right margin


def columns(width: int, processors: int) -> tuple[float, float]:
    """Return ``(x0, cell_width)`` of the processor columns in a widget ``width`` wide."""
    usable = max(width - GUTTER - RIGHT, processors)
    return float(GUTTER), usable / max(processors, 1)


def label_stride(cell_width: float, label_width: float) -> int:
    """Return k such that labelling every k-th column leaves room (1, 2, 4, 8, ...)."""
    k = 1
    while k * cell_width < label_width + 4 and k < 4096:
        k *= 2
    return k
