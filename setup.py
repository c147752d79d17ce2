"""The optional C loops of EASY/FCFS and conservative backfilling; every other setting is in
pyproject.toml.

``optional=True``: without a working C compiler the install still succeeds and
:mod:`gangviz.spacesharing.backfill` runs its Python loop (EASY/FCFS) or its numba loop
(conservative), which give the same schedule.
"""

import sys

from setuptools import Extension, setup

# no fused multiply-add: the C loop must round exactly as the Python loop does
FLAGS = [] if sys.platform == "win32" else ["-ffp-contract=off"]

setup(ext_modules=[Extension("gangviz.spacesharing._easyloop",
                             ["gangviz/spacesharing/_easyloop.c"],
                             extra_compile_args=FLAGS, optional=True)])
