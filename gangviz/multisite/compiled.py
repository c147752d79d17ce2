"""The headless path of the multi-site model on the compiled loop.

Source: Papazachos09 §2-§4. :func:`run_compiled` returns the metrics of
:func:`gangviz.multisite.fast.run_fast` (the reference loop in plain Python) bit for bit, on
:func:`gangviz.multisite.kernel.run_loop`; a property test compares the two over random
configurations. The workload is the same :class:`~gangviz.multisite.workload.GangStream`, drawn
ahead in blocks: when the loop runs out of gangs it is run again on twice as many (a run is
deterministic, so the rerun takes the same decisions).
"""

from __future__ import annotations

import numpy as np

from gangviz.metrics.multisite import Metrics, from_sums
from gangviz.multisite.config import MultiSiteConfig
from gangviz.multisite.workload import BLOCK, GangStream


def run_compiled(cfg: MultiSiteConfig, seed: int | np.random.SeedSequence, n_gangs: int) -> Metrics:
    """Simulate until ``n_gangs`` gangs have completed; return their RT, WRT, SLD, WSLD.

    ``seed`` seeds the workload stream (int or numpy SeedSequence). Raises ValueError when
    ``n_gangs`` is not a positive integer.
    """
    from gangviz.multisite.kernel import NEED_MORE, run_loop

    if isinstance(n_gangs, bool) or not isinstance(n_gangs, int) or n_gangs < 1:
        raise ValueError(f"n_gangs must be a positive integer, got {n_gangs!r}")
    stream = GangStream(cfg, seed)
    # a stable system has few gangs waiting when the last one counted completes
    want = n_gangs + n_gangs // 8 + BLOCK
    while True:
        while len(stream.arrival) < want:
            stream.extend()
        status, done, sr, spr, ss, sps, sp = run_loop(
            np.asarray(stream.arrival, np.float64), np.asarray(stream.size, np.int64),
            np.asarray(stream.service, np.float64), np.asarray(stream.site, np.int64),
            cfg.sites, cfg.procs, cfg.migrate, cfg.aging_k, float(cfg.local_overhead),
            float(cfg.grid_overhead), cfg.afcfs_overtake, n_gangs)
        if status != NEED_MORE:
            return from_sums(done, sr, spr, ss, sps, sp)
        want = 2 * len(stream.arrival)


def warm_up() -> None:
    """Compile (or load from numba's cache) the loop in this process."""
    for migrate in (False, True):
        run_compiled(MultiSiteConfig(sites=2, procs=4, migrate=migrate), 0, 20)
