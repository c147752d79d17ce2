"""Run a source to its end headless, on the fastest engine that gives the same result.

:func:`run` builds the simulation as :func:`gangviz.factory.build` does and runs it, except
that a run that records no step goes to a compiled loop
(:func:`gangviz.factory.compiled.compiled_runner`) whenever one covers it (asked for a per-job
table, the loop keeps where every job ran); a space-sharing
policy runs on the backfilling simulator. The result, a :class:`FinishedRun`, has the same
metrics whichever engine ran.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from gangviz.core import registry
from gangviz.factory.build import as_source, build_resolved
from gangviz.factory.checks import check_source
from gangviz.factory.compiled import compiled_runner
from gangviz.factory.finished import FinishedRun
from gangviz.factory.policy import PolicyChoice, family_of_source, make, resolve, typed_params

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.workloads.source import Source

__all__ = ["ENGINES", "FinishedRun", "run"]

#: ``auto``: a compiled loop when one covers the run; ``reference``: always the step-able
#: simulation; ``compiled``: a compiled loop or ``ValueError``.
ENGINES = ("auto", "reference", "compiled")


def run(source: Any, policy: str | None = None, *, params: Mapping[str, Any] | None = None,
        defaults: Mapping[str, Any] | None = None, ring: bool | None = None, record: bool = False,
        jobs: bool = False, engine: str = "auto",
        finish: Callable[[Any], None] | None = None, order: str | None = None,
        tick: Callable[[Any], None] | None = None, placement: bool = False,
        progress: Any = None) -> FinishedRun:
    """Run ``policy`` on ``source`` to the end and return the :class:`FinishedRun`.

    Arguments as :func:`gangviz.factory.build`; ``record`` keeps every step (the step-able
    simulation then runs); ``jobs`` asks for a run that can give a per-job table: a compiled
    loop then keeps what each job's row needs
    (:func:`gangviz.results.compiled_jobs.jobs_of_compiled`). ``engine`` is one of
    :data:`ENGINES`. ``finish`` runs the step-able simulation of a multi-site or epoch run to its end (default: until it has no step
    left); a time-slot run on the reference engine is run by
    :func:`gangviz.metrics.ibm.run_with_capacity`, which counts its lost capacity and calls
    ``tick(sim)`` every thousand steps (e.g. a progress bar). ``order`` (a queue order,
    :func:`gangviz.factory.build`) runs on the reference engine. ``placement`` asks a compiled
    loop to keep where each job ran (``result.raw.placement``); ``progress``, a one-element
    float64 array, gets a compiled loop's simulated time after every decision (the loop runs in
    one call holding no GIL: another thread reads it to show how far the run is). Raises ``ValueError`` as
    :func:`gangviz.factory.build` does, for an unknown
    engine, and for ``engine="compiled"`` when no compiled loop covers the run.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    source = as_source(source)
    check_source(source)
    choice = resolve(source, policy, params=params, defaults=defaults)
    family = family_of_source(source)
    pol = make(family, choice)
    kind = choice.entry.kind if choice.entry is not None else registry.family(family)
    if not record and kind.headless:
        done: FinishedRun | None = kind.load("headless")(
            source, choice, pol, engine=engine, order=order, ring=ring, placement=placement,
            jobs=jobs, progress=progress)
        if done is not None:
            done.parameters = dict(choice.params)
            return done
    if engine == "compiled":
        raise ValueError(f"no compiled loop covers {choice.spec} on {source.title}"
                         + (" while recording steps" if record else ""))
    sim = build_resolved(source, choice, pol, record=record, watch=False, ring=ring, order=order)
    ended: FinishedRun = registry.family(sim.family).load("finisher")(
        sim, source, choice.spec, tick=tick, until=finish, policy=pol)
    ended.parameters = dict(choice.params)
    return ended


def backfill_run(source: Source, choice: PolicyChoice, policy: Any, *, order: str | None,
                 **_: Any) -> FinishedRun:
    """Run a space-sharing ``policy`` to its end without steps, on the backfilling simulator (a
    user's on its own loop): the headless run of the space-sharing family."""
    if choice.entry is not None and "user" in choice.entry.traits:
        policy.check_source(source)
        result = policy.simulate(source.jobs, source.processors)
        return FinishedRun(source, choice.spec, policy, "backfill", result=result,
                           capacity=result.capacity)
    return _backfill(source, choice.spec, policy, order)


def compiled_run(source: Source, choice: PolicyChoice, policy: Any, *, engine: str, order: str | None,
                 ring: bool | None, placement: bool, jobs: bool, progress: Any) -> FinishedRun | None:
    """Run a time-slot ``policy`` to its end on a compiled loop when one covers the run and
    ``engine`` allows it (``None``: none does; the reference engine runs it): the headless run
    of the time-slot family."""
    entry = choice.entry
    if engine == "reference" or order is not None or entry is None or "compiled" not in entry.loops:
        return None
    on_ring = source.ring if ring is None else ring
    params = typed_params(choice)
    runner = compiled_runner(source, entry.name, params, bool(on_ring))
    if runner is None:
        return None
    # with jobs, the table comes from the loop (results.compiled_jobs)
    result = runner.run(source, entry.name, params, placement=placement, jobs=jobs, progress=progress)
    return FinishedRun(source, choice.spec, policy, f"compiled:{runner.name}", result=result,
                       capacity=result.capacity())


def _backfill(source: Source, label: str, policy: Any, order: str | None = None) -> FinishedRun:
    """Run a space-sharing ``policy`` on the backfilling simulator without recording steps."""
    from gangviz.spacesharing.backfill import simulate_backfill

    policy.check_source(source)
    key = None
    if order is not None:
        from gangviz.userpolicy.loader import order_key

        key = order_key(order)
    jobs = source.jobs if isinstance(source.jobs, list) else list(source.jobs)  # a model's columns
    res = simulate_backfill(jobs, source.processors, mode=policy.mode, order=key,
                            estimates=policy.estimates, kill_at_estimate=policy.kill)
    return FinishedRun(source, label, policy, "backfill", result=res, capacity=res.capacity)
