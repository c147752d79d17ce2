"""Argument types shared by the reproduction and sweep commands (argparse ``type=`` callables).

Each returns the parsed value or raises ``argparse.ArgumentTypeError`` saying what is allowed,
which argparse prints as a one-line usage error.
"""

from __future__ import annotations

import argparse


def _ascii(text: str, what: str) -> str:
    """Return ``text``, or raise naming it when it holds characters beyond ASCII (Python's int()
    and float() would read Arabic-Indic or full-width digits as numbers)."""
    if not text.isascii():
        raise argparse.ArgumentTypeError(f"expected {what} in ASCII digits, got {text!r:.80}")
    return text


def whole_number(text: str) -> int:
    """Parse a whole number (any sign) written in ASCII digits."""
    try:
        return int(_ascii(text, "an integer"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r:.80}") from None


def number(text: str) -> float:
    """Parse a number written in ASCII (its range is checked where it is used)."""
    try:
        return float(_ascii(text, "a number"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r:.80}") from None


def positive_seconds(text: str) -> float:
    """Parse a finite number of seconds > 0."""
    value = number(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r:.80}")
    return value


def _int_at_least(text: str, least: int) -> int:
    try:
        value = int(_ascii(text, "an integer"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected an integer >= {least}, got {value}")
    return value


def positive_int(text: str) -> int:
    """Parse a whole number >= 1."""
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """Parse a whole number >= 0."""
    return _int_at_least(text, 0)


def non_negative_seconds(text: str) -> float:
    """Parse a finite number of seconds >= 0."""
    try:
        value = float(_ascii(text, "a number"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0, got {value}")
    return value


def unit_fraction(text: str) -> float:
    """Parse a number in [0, 1)."""
    try:
        value = float(_ascii(text, "a number"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {value}")
    return value


def int_list(text: str) -> list[int]:
    """Parse comma-separated whole numbers >= 1."""
    try:
        values = [int(_ascii(v, "integers")) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected integers >= 1, got {text!r}")
    return values
