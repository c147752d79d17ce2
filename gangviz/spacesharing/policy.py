"""The space-sharing policies by name: ``fcfs``, ``easy`` and ``conservative``.

They run on their own event-driven simulator (:mod:`gangviz.spacesharing.backfill`), not on the
time-slot engine; their registry entries (:mod:`gangviz.core.registry`, family
``space-sharing``) tell the factory so. Parameters follow the ``name:key=value`` syntax:

* ``estimates``: ``requested`` (default: the trace's requested time, the model of
  Zhang01 §2.1) or ``exact`` (every job's run time);
* ``kill``: ``true`` (default, §2.1: a job is terminated when it reaches its estimate) or
  ``false``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gangviz.core.registry import REGISTRY, lookup

if TYPE_CHECKING:  # annotations only
    from gangviz.workloads.scenario import Scenario

__all__ = ["MODES", "ESTIMATES", "SpaceSharingPolicy", "FCFS", "EASY", "Conservative"]

#: The backfilling simulator's modes (:func:`gangviz.spacesharing.backfill.simulate_backfill`).
MODES = ("fcfs", "easy", "conservative")
ESTIMATES = ("requested", "exact")


#: the parameters' defaults, declared once in the registry
_DEFAULT = REGISTRY["easy"].defaults()


@dataclass(frozen=True)
class SpaceSharingPolicy:
    """A space-sharing policy with its parameters (see the module docstring).

    Raises ``ValueError`` for an unknown mode, estimates value or a non-boolean ``kill``.
    """

    mode: str
    estimates: str = _DEFAULT["estimates"]
    kill: bool = _DEFAULT["kill"]

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"space-sharing mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.estimates not in ESTIMATES:
            raise ValueError(f"{self.mode}: estimates must be one of {', '.join(ESTIMATES)}, "
                             f"got {self.estimates!r}")
        if not isinstance(self.kill, bool):
            raise ValueError(f"{self.mode}: kill must be true or false, got {self.kill!r}")

    @property
    def name(self) -> str:
        """Return the policy's name (``"easy"``, ...)."""
        return self.mode

    @property
    def paper(self) -> str:
        """Return the paper section the policy follows (its registry entry's)."""
        return lookup(self.mode)[0].paper

    def check_machine(self, processors: int, ring: bool) -> None:
        """Raise ``ValueError`` for fewer than one processor (any other machine will do)."""
        if processors < 1:
            raise ValueError(f"processors must be >= 1, got {processors}")

    def check_source(self, source: Scenario) -> None:
        """Raise ``ValueError`` for a source this family cannot run: a scenario that starts from
        a filled matrix or scripts events (space sharing has no matrix to start from)."""
        if source.matrix is not None or source.script:
            raise ValueError(f"{self.mode} is a space-sharing policy: it runs traces and models, "
                             f"not a scenario that starts from a matrix or scripts events")

    def label(self) -> str:
        """Return ``name`` with the parameters that differ from the defaults (``easy:estimates=exact``)."""
        extra = [f"estimates={self.estimates}"] if self.estimates != _DEFAULT["estimates"] else []
        extra += [f"kill={str(self.kill).lower()}"] if self.kill != _DEFAULT["kill"] else []
        return self.mode + (":" + ",".join(extra) if extra else "")


def FCFS(estimates: str = _DEFAULT["estimates"], kill: bool = _DEFAULT["kill"]) -> SpaceSharingPolicy:
    """Return FCFS without backfilling (estimates only shape the predicted start shown)."""
    return SpaceSharingPolicy("fcfs", estimates, kill)


def EASY(estimates: str = _DEFAULT["estimates"], kill: bool = _DEFAULT["kill"]) -> SpaceSharingPolicy:
    """Return EASY backfilling."""
    return SpaceSharingPolicy("easy", estimates, kill)


def Conservative(estimates: str = _DEFAULT["estimates"], kill: bool = _DEFAULT["kill"]) -> SpaceSharingPolicy:
    """Return conservative backfilling."""
    return SpaceSharingPolicy("conservative", estimates, kill)
