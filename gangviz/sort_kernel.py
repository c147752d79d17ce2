"""A compiled in-place sort of a short prefix of an array, shared by the compiled loops.

A shared module in the sense of :mod:`gangviz.jitcache`: plain ``njit(cache=True)``, calling
no jitted code outside this file; a module whose compiled functions call it names it in its
:func:`~gangviz.jitcache.cached_with`.
"""

from __future__ import annotations

from numba import njit

__all__ = ["insertion_sort"]


@njit(cache=True)
def insertion_sort(a, n):
    """Sort ``a[:n]`` ascending in place by insertion: nothing is allocated, the fastest way
    for the short lists the loops sort (a job's rows or processors, a queue's candidates)."""
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v
