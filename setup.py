"""The optional C parts: the loops of EASY/FCFS and conservative backfilling, the bulk
reader of SWF job lines and the writer of per-job rows; every other setting is in
pyproject.toml.

``optional=True``: without a working C compiler the install still succeeds;
:mod:`gangviz.spacesharing.backfill` then runs its Python loop (EASY/FCFS) or its numba loop
(conservative), which give the same schedule, and :mod:`gangviz.workloads.swf` reads with
``numpy.loadtxt``, which gives the same numbers, and :mod:`gangviz.results.jobs` builds the
rows' text with numpy, byte for byte the same.
"""

import sys

from setuptools import Extension, setup

# no fused multiply-add: the C code must round exactly as the Python code does
FLAGS = [] if sys.platform == "win32" else ["-ffp-contract=off"]

setup(ext_modules=[
    Extension("gangviz.spacesharing._easyloop", ["gangviz/spacesharing/_easyloop.c"],
              extra_compile_args=FLAGS, optional=True),
    Extension("gangviz.workloads._swfscan", ["gangviz/workloads/_swfscan.c"],
              extra_compile_args=FLAGS, optional=True),
    Extension("gangviz.results._rowtext", ["gangviz/results/_rowtext.c"],
              extra_compile_args=FLAGS, optional=True),
])
