"""Argument types shared by the reproduction and sweep commands (argparse ``type=`` callables).

Each returns the parsed value or raises ``argparse.ArgumentTypeError`` saying what is allowed,
which argparse prints as a one-line usage error.
"""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """Parse a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def unit_fraction(text: str) -> float:
    """Parse a number in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {value}")
    return value


def int_list(text: str) -> list[int]:
    """Parse comma-separated whole numbers >= 1."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected integers >= 1, got {text!r}")
    return values
