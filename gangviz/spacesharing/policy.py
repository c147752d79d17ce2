"""The space-sharing policies by name: ``fcfs``, ``easy`` and ``conservative``.

They run on their own event-driven simulator (:mod:`gangviz.spacesharing.backfill`), not on the
time-slot engine, so :func:`gangviz.policies.make_policy` returns a :class:`SpaceSharingPolicy`
(``family == "space-sharing"``) and every place that builds a simulation from a policy asks
:func:`is_space_sharing` first. Parameters follow the ``name:key=value`` syntax:

* ``estimates``: ``requested`` (default: the trace's requested time, the model of
  Zhang01 §2.1) or ``exact`` (every job's run time);
* ``kill``: ``true`` (default, §2.1: a job is terminated when it reaches its estimate) or
  ``false``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MODES", "ESTIMATES", "SpaceSharingPolicy", "FCFS", "EASY", "Conservative", "is_space_sharing",
           "make_space_sharing", "FAMILY"]

FAMILY = "space-sharing"
MODES = ("fcfs", "easy", "conservative")
ESTIMATES = ("requested", "exact")

_PAPER = {
    "fcfs": "Zhang01 §1: first come, first served, no backfilling",
    "easy": "Zhang01 §1, §3: EASY backfilling (a reservation for the head only)",
    "conservative": "Zhang01 §1, §3: conservative backfilling (BF)",
}


@dataclass(frozen=True)
class SpaceSharingPolicy:
    """A space-sharing policy with its parameters (see the module docstring).

    Raises ``ValueError`` for an unknown mode, estimates value or a non-boolean ``kill``.
    """

    mode: str
    estimates: str = "requested"
    kill: bool = True

    family = FAMILY

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
        """Return the paper section the policy follows."""
        return _PAPER[self.mode]

    def check_machine(self, processors: int, ring: bool) -> None:
        """Raise ``ValueError`` for fewer than one processor (any other machine will do)."""
        if processors < 1:
            raise ValueError(f"processors must be >= 1, got {processors}")

    def check_source(self, source) -> None:
        """Raise ``ValueError`` for a source this family cannot run: a scenario that starts from
        a filled matrix or scripts events (space sharing has no matrix to start from)."""
        if getattr(source, "matrix", None) is not None or getattr(source, "script", None):
            raise ValueError(f"{self.mode} is a space-sharing policy: it runs traces and models, "
                             f"not a scenario that starts from a matrix or scripts events")

    def label(self) -> str:
        """Return ``name`` with the parameters that differ from the defaults (``easy:estimates=exact``)."""
        extra = [f"estimates={self.estimates}"] if self.estimates != "requested" else []
        extra += ["kill=false"] if not self.kill else []
        return self.mode + (":" + ",".join(extra) if extra else "")


def FCFS(estimates: str = "requested", kill: bool = True) -> SpaceSharingPolicy:
    """Return FCFS without backfilling (estimates only shape the predicted start shown)."""
    return SpaceSharingPolicy("fcfs", estimates, kill)


def EASY(estimates: str = "requested", kill: bool = True) -> SpaceSharingPolicy:
    """Return EASY backfilling."""
    return SpaceSharingPolicy("easy", estimates, kill)


def Conservative(estimates: str = "requested", kill: bool = True) -> SpaceSharingPolicy:
    """Return conservative backfilling."""
    return SpaceSharingPolicy("conservative", estimates, kill)


def make_space_sharing(name: str, **params) -> SpaceSharingPolicy:
    """Return the space-sharing policy called ``name`` (any case) built with ``params``, as
    :func:`gangviz.policies.make_policy` would, without importing the gang policies.

    Raises ``ValueError`` for a name that is not a space-sharing policy, a parameter the policy
    does not take, or a bad value.
    """
    factory = {"fcfs": FCFS, "easy": EASY, "conservative": Conservative}.get(name.strip().lower())
    if factory is None:
        raise ValueError(f"{name!r} is not a space-sharing policy; known: {', '.join(MODES)}")
    unknown = sorted(set(params) - {"estimates", "kill"})
    if unknown:
        raise ValueError(f"policy {name}: unknown parameter {unknown[0]!r} (it takes: estimates, kill)")
    try:
        return factory(**params)
    except TypeError as exc:
        raise ValueError(f"policy {name}: {exc}") from None


def is_space_sharing(policy) -> bool:
    """Return True for a :class:`SpaceSharingPolicy` or the name of one (any case, with or
    without ``:params``)."""
    if isinstance(policy, str):
        return policy.partition(":")[0].strip().lower() in MODES
    return getattr(policy, "family", None) == FAMILY
