"""Input limits and the memory budget: what a value from a file or an option may be.

Every number a user can write (in a trace, a scenario, a sweep file, on the command line, in a
window dialog or through the Python API) is checked here where it enters the model, so no
value can make the program allocate without bound, loop without end or lose precision
silently. The limits lie far beyond any real machine or trace but within what memory and
double-precision arithmetic bear:

* :data:`MAX_PROCESSORS` processors (2**22, about 4.2 million; the largest trace of the
  Parallel Workloads Archive has 163,840);
* :data:`MAX_JOBS` jobs in one workload;
* :data:`MAX_SLOTS` time slots (rows of the Ousterhout matrix);
* :data:`MAX_SLICES` slices for any time or amount of work (2**40, about 1.1e12): the engine's
  clock then stays below :data:`CLOCK_LIMIT` (2**44) where a double still resolves 1/256 of a
  slice, so finish times keep their fractional part; past the clock limit a run is refused;
* a slice length between :data:`MIN_SLICE_SECONDS` and :data:`MAX_SLICE_SECONDS`;
* a title of at most :data:`MAX_TITLE_CHARS` characters and a job's name of at most
  :data:`MAX_NAME_CHARS` (every header, legend and matrix cell prints them whole).

Memory is estimated before a simulation allocates (:func:`estimate_bytes`) and a run whose
estimate exceeds the budget (:func:`memory_budget`: half the machine's RAM unless the
environment variable ``GANGVIZ_MEMORY_BUDGET`` says otherwise, e.g. ``2G``) is refused with the
estimate. Every message names the value, the limit and the option or key that set the value.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from typing import TypeGuard

MAX_PROCESSORS = 1 << 22
MAX_JOBS = 10_000_000
MAX_SLOTS = 1 << 16
MAX_SLICES = float(1 << 40)
CLOCK_LIMIT = float(1 << 44)
MIN_SLICE_SECONDS = 1e-6
MAX_SLICE_SECONDS = 1e9
MAX_TITLE_CHARS = 200
MAX_NAME_CHARS = 64

#: Bytes one processor costs an empty matrix (workload vector, workload tree padded to a power
#: of two, its tournament trees; measured with tracemalloc: about 113 for a power of two).
BYTES_PER_PROCESSOR = 240
#: Bytes one matrix cell costs while a slot is inserted (the old and the new cell array).
BYTES_PER_CELL = 8
#: Bytes one job costs (spec, record, engine arrays, names; measured about 700).
BYTES_PER_JOB = 1024
#: Bytes one job costs a run on columns (``gangviz run`` of a model under a gang policy:
#: arrival, size, work, start and finish, about 32, and the loop's arrays of one stretch).
BYTES_PER_COLUMN_JOB = 64
#: Slots the estimate reserves; the matrix checks every further slot against the budget.
ESTIMATE_SLOTS = 8

ENV_BUDGET = "GANGVIZ_MEMORY_BUDGET"
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class LimitError(ValueError):
    """A value beyond a stated limit, or a run that would exceed the memory budget."""


def _is_number(value: object) -> TypeGuard[float]:
    # numbers.Real takes numpy's integers and floats too; a bool is not a count.
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_count(value: object, what: str, limit: int, option: str, *, low: int = 1) -> int:
    """Return ``value`` as an int when it is a whole number in ``low..limit``.

    Raises :class:`LimitError` naming ``what``, the value, the allowed range and ``option`` (the
    key or command-line option that set it) otherwise; a float that is whole is accepted.
    """
    if _is_number(value) and math.isfinite(value) and float(value).is_integer():
        n = int(value)
        if low <= n <= limit:
            return n
        if n > limit:
            raise LimitError(f"{what} {n} is over the limit of {limit:,} (set by {option})")
    raise LimitError(f"{what} must be a whole number in {low}..{limit:,}, got {value!r} (set by {option})")


def check_length(text: str, what: str, limit: int, option: str, *, low: int = 0) -> str:
    """Return ``text`` when its length is in ``low..limit`` characters; raise
    :class:`LimitError` naming ``what``, its length, the allowed range and ``option`` (the key
    that set it) otherwise."""
    if low <= len(text) <= limit:
        return text
    raise LimitError(f"{what} has {len(text):,} characters, allowed {low}..{limit:,} (set by {option})")


def check_processors(value: object, option: str = "processors") -> int:
    """Return the processor count ``value`` checked against 1..:data:`MAX_PROCESSORS`.

    Raises :class:`LimitError` (naming ``option``) for anything else.
    """
    return check_count(value, "processors", MAX_PROCESSORS, option)


def check_jobs(value: object, option: str = "jobs") -> int:
    """Return the job count ``value`` checked against 1..:data:`MAX_JOBS`; raises :class:`LimitError`."""
    return check_count(value, "jobs", MAX_JOBS, option)


def check_slices(value: object, what: str, option: str, *, positive: bool = False) -> float:
    """Return ``value`` (a time or an amount of work in slices) as a float.

    It must be a finite number >= 0 (> 0 with ``positive``) and at most :data:`MAX_SLICES`.
    Raises :class:`LimitError` naming ``what``, the value, the limit and ``option``.
    """
    if not _is_number(value) or not math.isfinite(value) or value < 0 or (positive and value == 0):
        sign = "> 0" if positive else ">= 0"
        raise LimitError(f"{what} must be a finite number {sign}, got {value!r} (set by {option})")
    if value > MAX_SLICES:
        raise LimitError(f"{what} {value:g} slices is over the limit of {MAX_SLICES:.4g} slices "
                         f"(2**40; set by {option})")
    return float(value)


def check_slice_seconds(value: object, option: str = "--slice") -> float:
    """Return the slice length ``value`` in seconds, checked against
    :data:`MIN_SLICE_SECONDS`..:data:`MAX_SLICE_SECONDS`; raises :class:`LimitError` otherwise."""
    if not _is_number(value) or not math.isfinite(value) or not (
            MIN_SLICE_SECONDS <= value <= MAX_SLICE_SECONDS):
        raise LimitError(f"slice length must be a number of seconds in {MIN_SLICE_SECONDS:g}.."
                         f"{MAX_SLICE_SECONDS:g}, got {value!r} (set by {option})")
    return float(value)


# ------------------------------------------------------------------------------------- memory


def parse_bytes(text: str) -> int:
    """Return the byte count of ``text`` such as ``"512M"``, ``"2G"``, ``"1.5g"`` or ``"1000000"``.

    Raises ``ValueError`` for anything else or a value below 1 MiB.
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if not m:
        raise LimitError(f"{ENV_BUDGET} must be a size such as 2G or 512M, got {text!r}")
    n = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if n < 1 << 20:
        raise LimitError(f"{ENV_BUDGET} must be at least 1M, got {text!r}")
    return n


def physical_memory() -> int | None:
    """Return the machine's RAM in bytes, or ``None`` when the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def memory_budget() -> int:
    """Return the bytes a simulation may plan to use: ``GANGVIZ_MEMORY_BUDGET`` when set, else
    half the machine's RAM (4 GiB when the RAM is unknown). Raises :class:`LimitError` for a
    malformed ``GANGVIZ_MEMORY_BUDGET``."""
    text = os.environ.get(ENV_BUDGET)
    if text:
        return parse_bytes(text)
    ram = physical_memory()
    return ram // 2 if ram else 4 << 30


def human_bytes(n: float) -> str:
    """Return ``n`` bytes as ``"8.00 GiB"``, ``"512 KiB"``..."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} B"


def estimate_bytes(processors: int, jobs: int, slots: int = ESTIMATE_SLOTS, *,
                   per_job: int = BYTES_PER_JOB) -> int:
    """Return the bytes a simulation of ``jobs`` jobs on ``processors`` processors needs to
    start, with ``slots`` slots in its matrix and ``per_job`` bytes a job (a rough upper
    estimate; see the constants)."""
    width = 1 << max(int(processors) - 1, 0).bit_length()  # the tree pads to a power of two
    return (BYTES_PER_PROCESSOR * width + BYTES_PER_CELL * processors * max(slots, 1)
            + per_job * jobs)


def check_memory(processors: int, jobs: int, slots: int = ESTIMATE_SLOTS, *,
                 what: str = "this run", per_job: int = BYTES_PER_JOB) -> int:
    """Return the estimate of :func:`estimate_bytes`; raise :class:`LimitError` with the
    estimate and the budget when it exceeds :func:`memory_budget`."""
    need = estimate_bytes(processors, jobs, slots, per_job=per_job)
    budget = memory_budget()
    if need > budget:
        raise LimitError(
            f"{what} would need about {human_bytes(need)} ({processors:,} processors, {jobs:,} jobs, "
            f"{slots:,} slots), over the memory budget of {human_bytes(budget)} (half the RAM "
            f"unless {ENV_BUDGET} is set)")
    return need


def check_slot_growth(processors: int, slots: int) -> None:
    """Raise :class:`LimitError` when a matrix of ``slots`` slots over ``processors`` processors
    is over :data:`MAX_SLOTS` or its cells would exceed the memory budget."""
    if slots > MAX_SLOTS:
        raise LimitError(f"the matrix would need {slots:,} slots, over the limit of {MAX_SLOTS:,}")
    cells = BYTES_PER_CELL * processors * slots
    if cells > 16 << 20:  # reading the budget costs a system call; small matrices skip it
        budget = memory_budget()
        if cells > budget:
            raise LimitError(
                f"the matrix would need {slots:,} slots of {processors:,} processors, about "
                f"{human_bytes(cells)}, over the memory budget of {human_bytes(budget)} "
                f"(half the RAM unless {ENV_BUDGET} is set)")
