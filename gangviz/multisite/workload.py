"""The synthetic workload of the multi-site model: a seedable stream of gangs.

Source: Papazachos09 §2 (exponential inter-arrival times with mean 1/lambda,
exponential service with mean 1/mu, gang sizes bounded normal or uniform on [1..P]) and §3.1
(the grid dispatcher picks a site uniformly at random, without knowledge of the load).

Choices where the paper is silent:

* Bounded normal: a draw from N((1+P)/2, sigma) is rounded to the nearest integer and redrawn
  (rejection) when it falls outside [1..P]. The distribution stays symmetric, so its mean is
  exactly (1+P)/2 as the paper states.
* The site of each gang is drawn with the gang (the dispatcher's coin is part of the workload),
  so AFCFS and AFCFSwM runs with the same seed see the same gangs at the same sites (common
  random numbers, which sharpen the relative decreases D_*).
* Draws come in blocks of :data:`BLOCK` gangs, in a fixed order (inter-arrival, size, service,
  site), so gang i is the same whatever the run length and whichever simulator reads the stream.
"""

from __future__ import annotations

import numpy as np

from gangviz.multisite.config import MultiSiteConfig

BLOCK = 4096


def gang_sizes(rng: np.random.Generator, cfg: MultiSiteConfig, n: int) -> np.ndarray:
    """Return ``n`` gang sizes (int64 in [1..P]) drawn from ``cfg``'s size distribution."""
    p = cfg.procs
    if cfg.size_dist == "uniform":
        return rng.integers(1, p + 1, size=n)
    mean = (1 + p) / 2
    out = np.empty(0, dtype=np.int64)
    while out.size < n:
        draw = np.rint(rng.normal(mean, cfg.sigma, size=2 * n + 16)).astype(np.int64)
        out = np.concatenate([out, draw[(draw >= 1) & (draw <= p)]])
    return out[:n]


class GangStream:
    """Gang i's arrival time, size, service time and site, generated block by block.

    ``GangStream(cfg, seed)`` is deterministic in ``seed`` (an int or a
    :class:`numpy.random.SeedSequence`). Attributes ``arrival``, ``size``, ``service`` and
    ``site`` are plain Python lists that grow by :meth:`extend`; :meth:`ensure` makes gang ``i``
    available.
    """

    def __init__(self, cfg: MultiSiteConfig, seed: int | np.random.SeedSequence) -> None:
        self.cfg = cfg
        self.rng = np.random.default_rng(seed)
        self.arrival: list[float] = []
        self.size: list[int] = []
        self.service: list[float] = []
        self.site: list[int] = []
        self._last = 0.0

    def extend(self) -> None:
        """Draw the next block of :data:`BLOCK` gangs."""
        cfg, rng = self.cfg, self.rng
        gaps = rng.exponential(1.0 / cfg.arrival_rate, size=BLOCK)
        sizes = gang_sizes(rng, cfg, BLOCK)
        service = rng.exponential(cfg.mean_service, size=BLOCK)
        sites = rng.integers(0, cfg.sites, size=BLOCK)
        times = np.cumsum(gaps) + self._last
        self._last = float(times[-1])
        self.arrival.extend(times.tolist())
        self.size.extend(sizes.tolist())
        self.service.extend(service.tolist())
        self.site.extend(sites.tolist())

    def ensure(self, i: int) -> None:
        """Make sure gang ``i`` has been drawn."""
        while len(self.arrival) <= i:
            self.extend()
