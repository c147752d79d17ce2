"""Typed policy parameters: what a parameter may be, and reading one from text or a value.

A policy declares each parameter as a :class:`Param` (its type, default and allowed range);
:meth:`Param.parse` is the one reader of a value, whether it comes from a ``NAME:key=value``
spec on the command line (text), a sweep file or a scenario (TOML values), a saved session or
the Python API. :func:`split_spec` reads the spec itself. Every refusal is a
:class:`ParamError` (a ``ValueError``) naming the policy, the parameter, the allowed values and
the offending token (at most :data:`QUOTE_CHARS` characters of it).

Types: ``"int"`` (a whole number), ``"float"`` (a finite number), ``"bool"`` (only ``true``,
``false``, ``yes``, ``no``, ``1`` and ``0``, any case, from text), ``"choice"`` (one of the
declared words, any case) and ``"text"``. A parameter with a ``none`` word also takes that word
(or Python's ``None``) to mean "no value" (e.g. ``q=none``: unlimited migrations).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "QUOTE_CHARS", "Param", "ParamError", "quote", "split_spec", "key_value_items", "check_keys"]

KINDS = ("int", "float", "bool", "choice", "text")
#: The most characters of a bad token a message quotes.
QUOTE_CHARS = 80
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


class ParamError(ValueError):
    """A policy spec or parameter value that is refused; the message says what is allowed."""


def quote(token: object) -> str:
    """Return ``repr`` of ``token`` (as text), cut to :data:`QUOTE_CHARS` characters with '...'."""
    text = token if isinstance(token, str) else repr(token)
    if len(text) > QUOTE_CHARS:
        text = text[:QUOTE_CHARS - 3] + "..."
    return repr(text) if isinstance(token, str) else text


def _number_text(x: float) -> str:
    if isinstance(x, int) or (float(x).is_integer() and abs(x) < 1e16):
        return f"{int(x):,}"
    return f"{x:g}"


@dataclass(frozen=True)
class Param:
    """One parameter of a policy.

    ``kind`` is one of :data:`KINDS`; ``low``/``high`` bound an int or float (inclusive);
    ``choices`` are a choice's words; ``none`` is the word meaning "no value" (``None`` when the
    parameter always has one); ``unit`` names what a number counts (``"slices"``).
    """

    name: str
    kind: str
    default: Any = None
    doc: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    none: str | None = None
    unit: str = ""

    def allowed(self) -> str:
        """Return the allowed values in words (``"a whole number in 1..65,536"``)."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(self.choices)
        elif self.kind == "text":
            text = "text"
        else:
            what = "a whole number" if self.kind == "int" else "a finite number"
            lo = None if self.low is None else _number_text(self.low)
            hi = None if self.high is None else _number_text(self.high)
            if lo is not None and hi is not None:
                text = f"{what} in {lo}..{hi}"
            elif lo is not None:
                text = f"{what} >= {lo}"
            elif hi is not None:
                text = f"{what} <= {hi}"
            else:
                text = what
            if self.unit:
                text += f" {self.unit}"
        if self.none is not None:
            text += f", or {self.none}"
        return text

    def describe_default(self) -> str:
        """Return the default as a spec would write it (``none`` words, ``true``/``false``)."""
        if self.default is None:
            return self.none or "none"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        return str(self.default)

    def parse(self, value: object, policy: str) -> Any:
        """Return ``value`` (text from a spec, or a value from a file or the API) as this
        parameter's type, checked against its range.

        Raises :class:`ParamError` naming ``policy``, the parameter, what is allowed and the
        value otherwise.
        """
        if value is None or (self.none is not None and isinstance(value, str)
                             and value.strip().lower() == self.none.lower()):
            if self.none is not None:
                return None
            raise self._refuse(policy, value)
        if self.kind == "bool":
            return self._bool(value, policy)
        if self.kind == "choice":
            word = value.strip().lower() if isinstance(value, str) else None
            for choice in self.choices:
                if word == choice.lower():
                    return choice
            raise self._refuse(policy, value)
        if self.kind == "text":
            if isinstance(value, str):
                return value
            raise self._refuse(policy, value)
        return self._number(value, policy)

    def _bool(self, value: object, policy: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
        raise self._refuse(policy, value)

    def _number(self, value: object, policy: str) -> int | float:
        number: int | float
        if isinstance(value, str):
            text = value.strip()
            if not text.isascii():  # int() and float() read Arabic-Indic or full-width digits
                raise self._refuse(policy, value)
            try:
                number = int(text) if self.kind == "int" else float(text)
            except ValueError:
                try:
                    number = float(text)
                except ValueError:
                    raise self._refuse(policy, value) from None
        elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
            number = int(value)
        elif isinstance(value, numbers.Real) and not isinstance(value, bool):
            number = float(value)
        else:
            raise self._refuse(policy, value)
        if isinstance(number, float):
            if not math.isfinite(number) or (self.kind == "int" and not number.is_integer()):
                raise self._refuse(policy, value)
        try:
            number = int(number) if self.kind == "int" else float(number)
        except OverflowError:  # an int beyond any double
            raise self._refuse(policy, value) from None
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            raise self._refuse(policy, value)
        return number

    def _refuse(self, policy: str, value: object) -> ParamError:
        return ParamError(f"policy {policy}: parameter {self.name} must be {self.allowed()}, "
                          f"got {quote(value)}")


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Return ``(name, {key: text})`` of ``"NAME"`` or ``"NAME:key=value,key=value"``.

    The values stay text for :meth:`Param.parse`. Raises :class:`ParamError` for an empty name,
    an item that is not ``key=value`` or a key given twice, quoting the spec (at most
    :data:`QUOTE_CHARS` characters).
    """
    if not isinstance(spec, str):
        raise ParamError(f"a policy spec must be text such as repack or random:seed=3, got {quote(spec)}")
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise ParamError(f"policy {quote(spec)}: give a name, e.g. repack or random:seed=3")
    params: dict[str, str] = {}
    for item, key, value in key_value_items(rest):
        if value is None or not key:
            raise ParamError(f"policy {name}: parameter {quote(item)} is not key=value")
        if key in params:
            raise ParamError(f"policy {name}: parameter {key} is given twice (in {quote(spec)})")
        params[key] = value
    return name, params


def key_value_items(text: str) -> list[tuple[str, str, str | None]]:
    """Return ``(item, key, value)`` for each non-empty item of the comma-separated ``text``
    (``"key=value, key=value"``), each stripped; ``value`` is None for an item without ``=``.
    Raises nothing: the callers judge the keys and values."""
    out: list[tuple[str, str, str | None]] = []
    for item in (p.strip() for p in text.split(",")):
        if item:
            key, eq, value = item.partition("=")
            out.append((item, key.strip(), value.strip() if eq else None))
    return out


def check_keys(params: Mapping[str, object], declared: Mapping[str, Param], policy: str) -> None:
    """Raise :class:`ParamError` for a key of ``params`` that ``declared`` lacks, naming the
    parameters the policy takes."""
    for key in params:
        if key not in declared:
            if not declared:
                raise ParamError(f"policy {policy} takes no parameters, got {quote(key)}")
            raise ParamError(f"policy {policy}: unknown parameter {quote(key)} "
                             f"(it takes: {', '.join(declared)})")
