"""Building matrices the way the papers draw them, for the core tests."""

from __future__ import annotations

from gangviz.core.matrix import IDLE, OusterhoutMatrix


def draw(*rows_top_first: str, ring: bool = False) -> OusterhoutMatrix:
    """Return a matrix from text rows, top slot first, "." idle; names become job labels."""
    tokens = [r.split() for r in rows_top_first]
    ids: dict[str, int] = {}
    for row in reversed(tokens):
        for t in row:
            if t != "." and t not in ids:
                ids[t] = len(ids)
    bottom_up = [[IDLE if t == "." else ids[t] for t in row] for row in reversed(tokens)]
    m = OusterhoutMatrix.from_rows(bottom_up, len(tokens[0]), ring=ring)
    m.names.update({v: k for k, v in ids.items()})
    return m


def ids(m: OusterhoutMatrix) -> dict[str, int]:
    """Map job labels to ids."""
    return {v: k for k, v in m.names.items()}
