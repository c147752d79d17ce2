"""Compare policies on one workload: the numbers of ``gangviz compare`` and the compare window.

:func:`run_policies` runs every policy on the same jobs exactly as ``gangviz run`` does (one
loop per run, chosen by :func:`gangviz.factory.run`, ``workers`` runs at a time) and
:func:`comparison_from_figures` makes their :class:`Comparison`: every figure of
:mod:`gangviz.results.figures` (the core of the IBM study for every family, then each family's
own) and, per figure, which policies are best; :func:`compare` does both. The compare window
runs its simulations step by step, finishes each (its
:meth:`~gangviz.sim.protocol.Measures.finish`) and calls :func:`comparison_of_runs` on them,
as :func:`comparison_of_simulations` does, so both show the same numbers. Nothing here imports Qt.

Which value is best (each figure's goal in :data:`gangviz.metrics.table.TABLE`): higher utilisation, throughput and
processor active ratio ``r_a``; lower for the others (Zhang01 §2.3, Zhou00 §4.3 read them that
way); counts have none. A figure is ranked only among the policies that have it, so a family
never wins a figure it lacks (:attr:`Comparison.lacks`). Ties are all marked best; an undefined
value (``nan``, e.g. ``t_la`` when no large job ran) is never best, and a row where fewer than
two policies have a value marks none.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gangviz.experiments.numbers import number
from gangviz.metrics.table import goals as figure_goals
from gangviz.results.provenance import leaves_padding, policy_record, run_machine

if TYPE_CHECKING:  # pragma: no cover  (annotations only: loaded when a comparison runs)
    from gangviz.results.figures import Figures
    from gangviz.workloads.source import Source
from gangviz.experiments.tasks import METRICS

#: "max" when a higher value is better, "min" when lower is better: the table's
#: (:func:`gangviz.metrics.table.goals`)
GOALS: dict[str, str] = figure_goals()


@dataclass(frozen=True)
class Comparison:
    """Final metrics per policy: ``metrics[label][metric]``; ``best[metric]`` = best labels.

    ``keys`` are the metrics in table order (:data:`METRICS`, or the IBM figures when a
    space-sharing policy takes part) and ``goals`` says which way each is better.
    """

    title: str
    processors: int
    labels: tuple[str, ...]
    metrics: dict[str, dict[str, float]]
    best: dict[str, tuple[str, ...]]
    keys: tuple[str, ...] = METRICS
    goals: dict[str, str] = field(default_factory=lambda: {m: g for m, g in GOALS.items() if m in METRICS})
    units: dict[str, str] = field(default_factory=dict)
    lacks: dict[str, list[str]] = field(default_factory=dict)
    #: why no value is marked best (:func:`served_note`); ``""``: the best are marked
    note: str = ""
    #: the bounded slowdown's threshold Γ of the figures, in their clock (``None``: no
    #: bounded slowdown among them)
    gamma: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (``nan`` becomes ``None``)."""
        clean = {lab: {m: (None if math.isnan(v) else v) for m, v in ms.items()}
                 for lab, ms in self.metrics.items()}
        return {"workload": self.title, "processors": self.processors, "policies": list(self.labels),
                "metrics": clean, "best": {m: list(b) for m, b in self.best.items()},
                "goals": dict(self.goals), "note": self.note, "bsld_threshold": self.gamma}

    def to_json(self) -> str:
        """Return :meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=1)

    def to_csv(self) -> str:
        """Return the table as CSV: ``metric, <one column per policy>, best`` (best: labels joined by
        ``;``); where the table has a bounded slowdown, a last row ``bsld_threshold`` states its
        threshold Γ for every policy (in the run's clock), so the file says what it measured."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["metric", *self.labels, "best"])
        for m in self.keys:
            vals = [self.metrics[lab][m] for lab in self.labels]
            w.writerow([m, *("" if math.isnan(v) else repr(v) for v in vals), ";".join(self.best.get(m, ()))])
        if self.gamma is not None:
            w.writerow(["bsld_threshold", *(repr(float(self.gamma)) for _ in self.labels), ""])
        return buf.getvalue()

    def to_text(self) -> str:
        """Return an aligned text table with the best value of each row marked ``*``."""
        head = ["metric", *(lab + "  " for lab in self.labels)] + (["unit"] if self.units else [])
        rows = [head]
        for m in self.keys:
            row = [m]
            for lab in self.labels:
                v = self.metrics[lab][m]
                lacking = m in self.lacks.get(lab, ())
                text = "(none)" if lacking else number(v)
                row.append(text + (" *" if lab in self.best.get(m, ()) else "  "))
            if self.units:
                row.append(self.units.get(m, ""))
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        last = len(head) - 1 if self.units else -1
        lines = ["  ".join(c.ljust(w) if i in (0, last) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                 for r in rows]
        higher = [m for m in self.keys if self.goals.get(m) == "max"]
        if self.note:
            lines.append(self.note)
        else:
            lines.append(f"* best in its row ({', '.join(higher)}: higher is better; the others: "
                         "lower is better)")
        if any(self.lacks.values()):
            lines.append("(none): a figure the policy's family does not have: "
                         + "; ".join(f"{lab}: {', '.join(keys)}" for lab, keys in self.lacks.items() if keys))
        return "\n".join(lines)


def best_labels(values: Mapping[str, float], goal: str) -> tuple[str, ...]:
    """Return the labels whose value is best under ``goal`` ("max" or "min"), ties all included.

    ``nan`` values are ignored; fewer than two defined values give ``()``. Raises
    ``ValueError`` for another goal.
    """
    if goal not in ("max", "min"):
        raise ValueError(f"goal must be 'max' or 'min', got {goal!r}")
    defined = {k: v for k, v in values.items() if not math.isnan(v)}
    if len(defined) < 2:
        return ()
    target = max(defined.values()) if goal == "max" else min(defined.values())
    return tuple(k for k, v in defined.items() if v == target)


def comparison_from_figures(title: str, processors: int,
                            figures: Mapping[str, Figures]) -> Comparison:
    """Return the :class:`Comparison` of finished runs' figures (label ->
    :class:`~gangviz.results.figures.Figures`): every figure any of them has, in the order of
    the first that has it (the core first); a figure a policy's family lacks is undefined in its
    column and listed in :attr:`Comparison.lacks`. The best of a row is chosen among the
    policies that have the figure, which means the same thing for all of them (the core's
    definitions are the IBM study's for every family; the own figures are one paper's)."""
    keys: list[str] = []
    for figs in figures.values():
        keys += [k for k in figs.values if k not in keys]
    labels = tuple(figures)
    table = {lab: {m: _num(figures[lab].values.get(m)) for m in keys} for lab in labels}
    goals = {m: GOALS[m] for m in keys if m in GOALS}
    note = served_note(figures)
    best = {} if note else {m: best_labels({lab: table[lab][m] for lab in labels}, goals[m])
                            for m in goals}
    units: dict[str, str] = {}
    for figs in figures.values():
        units.update(figs.units)
    lacks = {lab: [m for m in keys if m not in figures[lab].values] for lab in labels}
    gamma = next((float(f.gamma) for f in figures.values() if "bounded_slowdown" in f.values), None)
    return Comparison(title, processors, labels, table, best, tuple(keys), goals, units, lacks, note, gamma)


def served_note(figures: Mapping[str, Figures]) -> str:
    """Return one line saying that the runs of ``figures`` (label -> figures) served different
    work, and how to compare them like for like; ``""`` when they served the same.

    Runs serve different work when their ``work_unserved`` differ: a space-sharing policy
    that stops jobs at their estimate (``kill``, the default) beside one that runs every job to
    its end (a time-slot policy, or ``estimates=exact``). Their figures measure different
    schedules of different work, so no value is marked best across them. Policies that kill
    the same jobs (EASY and conservative with the same estimates) serve the same work.
    """
    unserved = {lab: f.values.get("work_unserved") for lab, f in figures.items()}
    known = {lab: float(v) for lab, v in unserved.items() if v is not None and not math.isnan(v)}
    if len(known) < 2 or all(math.isclose(v, next(iter(known.values())), rel_tol=1e-9, abs_tol=1e-9)
                             for v in known.values()):
        return ""
    killed = {lab: int(figures[lab].values.get("jobs_killed") or 0) for lab in known}
    kills = [f"{lab} stops {k:,} jobs at their estimate" for lab, k in killed.items() if k]
    whole = [lab for lab, k in killed.items() if not k]
    # a label of a policy run under one of its orders (order_label) names the policy first
    killing = dict.fromkeys(lab.split(" · ")[0] for lab, k in killed.items() if k)
    exact = ", ".join(f"--policy {spec}{',' if ':' in spec else ':'}estimates=exact" for spec in killing)
    return (f"no ★: the policies serve different work ({'; '.join(kills)}"
            + (f"; {', '.join(whole)} run{'s' if len(whole) == 1 else ''} every job to its end"
               if whole else "")
            + f"): compare like for like with {exact} (or kill=false, EASY and FCFS only)")


def _num(v: float | None) -> float:
    return math.nan if v is None else float(v)


def policy_key(spec: str) -> tuple[Any, ...]:
    """Return what makes ``spec`` one policy: its name in lower case (names are case-insensitive)
    and its parameters, both as :func:`~gangviz.factory.policy.parse_policy_spec` reads them, so
    ``bc``, ``BC``, ``'bc '`` and ``bc\\t`` are one policy, and ``random:seed=3`` and
    ``random: seed=3.0`` another. Raises ``ValueError`` for a malformed spec."""
    from gangviz.core.params import split_spec
    from gangviz.factory.policy import parse_policy_spec
    from gangviz.userpolicy.loader import is_user_spec, user_entry

    if is_user_spec(spec):  # a policy file or module: the class it names, and its parameters
        found = user_entry(spec)
        if found is not None:
            entry, text = found
            params = entry.coerce(split_spec(f"{entry.title}:{text}")[1])
            return "user", entry.origin, entry.name, tuple(sorted(params.items()))
    name, params = parse_policy_spec(spec)
    return name.lower(), tuple(sorted(params.items()))


def check_distinct(specs: Sequence[str], option: str = "--policy") -> None:
    """Raise ``ValueError`` naming the two specs when two of ``specs`` are the same policy
    (:func:`policy_key`): the run would be repeated and its per-job files would collide."""
    seen: dict[tuple[Any, ...], str] = {}
    for spec in specs:
        if not isinstance(spec, str):
            raise TypeError(f"{option}: a policy is a name such as 'bc', not {type(spec).__name__}")
        key = policy_key(spec)
        if key in seen:
            raise ValueError(f"{option} {spec!r} is the same policy as {seen[key]!r} "
                             "(names ignore case and spaces); give each policy once")
        seen[key] = spec


def build_simulations(source: Any, specs: Sequence[str], *, ring: bool | None = None,
                      record: bool = False, params: Mapping[str, Any] | None = None,
                      padding: str | None = None) -> dict[str, Any]:
    """Return ``{label: simulation}``, one fresh simulation per policy spec on ``source``'s jobs
    (each by :func:`gangviz.factory.build`).

    The label is the spec as given (``"random:seed=3"``); a scenario's own ``[params.NAME]``
    apply unless the spec overrides them, and ``params`` (given to every policy) override both.
    Raises ``ValueError`` for an unknown policy, bad parameters, a policy that cannot run on the
    machine, a spec given twice, or policies that would run on different machines
    (:func:`machine_sources`, with ``padding``).
    """
    from gangviz.factory import build

    check_distinct(specs)
    sources = machine_sources(source, specs, padding)
    return {spec: build(sources[spec], spec, params=params, record=record, watch=False, ring=ring)
            for spec in specs}


def compare(source: Source, specs: Sequence[str], *, ring: bool | None = None,
            padding: str | None = None) -> Comparison:
    """Run every policy spec on ``source`` (a :class:`~gangviz.workloads.source.Source`) to the end,
    each as ``gangviz run`` runs it (:func:`run_policies`), and return the :class:`Comparison`
    of their figures: ``gangviz compare``'s table. Raises ``ValueError`` as
    :func:`run_policies` does."""
    runs = run_policies(source, specs, ring=ring, padding=padding)
    return comparison_of_policy_runs(source.title, runs)


@dataclass(frozen=True)
class PolicyRun:
    """One policy run to its end for a comparison: its ``label`` (the spec as given), policy
    ``name``, ``family``, ``engine``, resolved ``parameters``,
    :class:`~gangviz.results.figures.Figures` (the same as ``gangviz run`` prints for it),
    ``machine`` (:func:`run_machine`) and ``record``, what ran
    (:func:`gangviz.results.provenance.policy_record`)."""

    label: str
    name: str
    family: str
    engine: str
    parameters: dict[str, Any]
    figures: Figures
    machine: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


#: sources already loaded, by the options that load them: the parent fills it, and a worker
#: process forked from it finds the source there instead of reading the file again
_SOURCES: dict[tuple[Any, ...], Any] = {}


def _source_for(load: tuple[Any, ...]) -> Any:
    if load not in _SOURCES:
        from gangviz.workloads.source import load_source

        name, procs, slice_seconds, jobs, load_, seed = load
        _SOURCES.clear()
        _SOURCES[load] = load_source(name, procs=procs, slice_seconds=slice_seconds, jobs=jobs,
                                     load=load_, seed=seed)
    return _SOURCES[load]


def run_policy(task: tuple[tuple[Any, ...], str, bool | None, str | None, str | None, str | None,
                           float]) -> PolicyRun:
    """Run one policy of a comparison: ``task`` is ``(load, spec, ring, jobs_out, order,
    padding, gamma)`` (``gamma``: the bounded slowdown's threshold in the run's clock), ``load`` the key of the source in the cache of loaded sources (or the options
    that load it), ``jobs_out`` a per-job file to write or ``None``, ``order`` a queue order
    (``file.py:function``) or ``None``, ``padding`` the machine chosen for a padded trace
    (:func:`machine_sources`). Picklable, for worker processes. Raises ``ValueError`` as
    :func:`gangviz.factory.run` does."""
    from gangviz.factory import run
    from gangviz.results.figures import run_figures

    load, spec, ring, jobs_out, order, padding, gamma = task
    source = machine_sources(_source_for(load), [spec], padding)[spec] if padding else _source_for(load)
    done = run(source, spec, ring=ring, jobs=bool(jobs_out), order=order)
    if jobs_out:
        from gangviz.results.run_jobs import save_run_jobs

        save_run_jobs(done, source, jobs_out, label=spec, order=order, tau=gamma)
    name = done.policy.label() if done.kind.labelled else done.policy.name
    return PolicyRun(spec, name, done.family, done.engine, dict(done.parameters), run_figures(done, gamma),
                     run_machine(source, spec),
                     policy_record(source, spec, done.family, dict(done.parameters), done.engine, order))


def run_policies(source: Any, specs: Sequence[str], *, load: tuple[Any, ...] | None = None,
                 ring: bool | None = None, workers: int = 1,
                 jobs_out: Mapping[str, str] | None = None,
                 orders: Mapping[str, str | None] | None = None,
                 padding: str | None = None, gamma: float = 10.0,
                 runs: Mapping[str, tuple[str, str | None]] | None = None) -> dict[str, PolicyRun]:
    """Run every policy spec on ``source`` with :func:`gangviz.factory.run` (the same loop as
    ``gangviz run`` for each: compiled, backfilling or reference), ``workers`` at a time in
    worker processes; return ``{label: PolicyRun}`` in the order given.

    ``runs`` (``{label: (spec, order)}``, :func:`labelled_runs`), when given, are the runs
    instead of ``specs`` and ``orders``: one policy may then run under several queue orders,
    each under its own label (``jobs_out`` maps those labels).

    ``load`` is the tuple of options that loads ``source`` again (name, procs, slice, jobs, load,
    seed), for worker processes that do not share this one's memory; ``jobs_out`` maps labels to
    per-job files, ``orders`` labels to queue orders (:func:`assign_orders`), ``padding`` the
    machine of a padded trace (:func:`machine_sources`), ``gamma`` the bounded slowdown's
    threshold in the source's clock (seconds on a trace). Raises ``ValueError`` for a spec given
    twice, for policies that would run on different machines, and as :func:`run_policy` does.
    """
    from dataclasses import replace

    from gangviz.experiments.runner import RunError, map_runs

    if runs is None:
        check_distinct(specs)
        runs = {spec: (spec, (orders or {}).get(spec)) for spec in specs}
    labels = list(runs)
    specs = [spec for spec, _ in runs.values()]
    machine_sources(source, specs, padding)  # one machine for all, or the reason it cannot be
    key = load if load is not None else ("<loaded>", id(source))
    _SOURCES.clear()
    _SOURCES[key] = source
    if load is None:
        workers = 1  # a source that cannot be loaded again runs in this process
    tasks = [(key, spec, ring, (jobs_out or {}).get(label), order, padding, gamma)
             for label, (spec, order) in runs.items()]
    out: dict[int, PolicyRun] = {}
    try:
        for index, result in map_runs(run_policy, tasks, workers=workers):
            out[index] = result
    except RunError as exc:
        message = exc.message.removeprefix("ValueError: ")
        raise ValueError(f"{labels[exc.index]}: {message}") from None
    return {label: out[i] if out[i].label == label else replace(out[i], label=label)
            for i, label in enumerate(labels)}


def assign_orders(specs: Sequence[str], orders: Sequence[str] | str | Mapping[str, str] | None,
                  option: str = "--order") -> dict[str, str | None]:
    """Return ``{spec: queue order or None}`` for the policies ``specs`` of a comparison.

    ``orders`` is ``None``, one order for every policy (``"file.py:function"``), a mapping
    ``{spec: order}``, or a sequence of items each either an order for every policy or
    ``"SPEC=file.py:function"`` for one (that one wins over an order for all). Raises
    ``ValueError`` naming ``option`` for two orders for all, two for one policy, or a policy
    that is not in ``specs``.
    """
    out: dict[str, str | None] = dict.fromkeys(specs)
    if orders is None:
        return out
    if isinstance(orders, Mapping):
        for spec, order in orders.items():
            if spec not in out:
                raise ValueError(f"{option}: {spec!r} is not one of the policies compared "
                                 f"({', '.join(specs)})")
            out[spec] = order
        return out
    items = [orders] if isinstance(orders, str) else list(orders)
    every: str | None = None
    own: dict[str, str] = {}
    for item in items:
        head, eq, tail = split_own_order(item, specs)
        if eq and head in out:
            if head in own:
                raise ValueError(f"{option}: two orders for {head!r}")
            own[head] = tail
        elif eq and not head.endswith(".py") and "/" not in head and ":" not in head:
            raise ValueError(f"{option} {item}: {head!r} is not one of the policies compared "
                             f"({', '.join(specs)})")
        elif every is not None:
            raise ValueError(f"{option}: two orders for every policy ({every} and {item}); give "
                             "one, or one per policy as POLICY=file.py:function")
        else:
            every = item
    return {spec: own.get(spec, every) for spec in specs}


def split_own_order(item: str, specs: Sequence[str]) -> tuple[str, str, str]:
    """Split ``POLICY=ORDER`` as :meth:`str.partition` does, at the ``=`` after the longest
    policy of ``specs`` it starts with (a spec may hold ``=`` itself: ``easy:estimates=exact``)."""
    found = max((spec for spec in specs if item.startswith(spec + "=")), key=len, default=None)
    if found is None:
        return item.partition("=")
    return found, "=", item[len(found) + 1:]


#: the queue order ``POLICY=arrival`` names: the policy's own, by arrival
ARRIVAL = "arrival"


def order_label(spec: str, order: str | None, full: bool = False) -> str:
    """Return the label of policy ``spec`` run under queue ``order`` beside the same policy
    under another: ``easy · order shortest.py:sjf`` (the file's name, or the order as given
    when ``full``), ``easy · arrival order`` for ``None``."""
    if order is None:
        return f"{spec} · arrival order"
    path, colon, function = order.rpartition(":")
    shown = order if full or not colon else f"{path.replace(chr(92), '/').rpartition('/')[2]}:{function}"
    return f"{spec} · order {shown}"


def labelled_runs(specs: Sequence[str], orders: Sequence[str] | str | None,
                  option: str = "--order") -> dict[str, tuple[str, str | None]]:
    """Return ``{label: (spec, queue order or None)}``, the runs of a comparison of the
    policies ``specs`` under the queue ``orders`` (as :func:`assign_orders` reads them).

    A policy given two or more orders of its own (``POLICY=file.py:function`` repeated;
    ``POLICY=arrival`` is its arrival order) runs once under each, side by side, each labelled
    by its order (:func:`order_label`); any other policy runs once under its label, the spec.
    Raises ``ValueError`` naming ``option`` for one order given twice to a policy, and as
    :func:`assign_orders` does.
    """
    items = [orders] if isinstance(orders, str) else list(orders or ())
    several: dict[str, list[str | None]] = {}
    rest = []
    for item in items:
        head, eq, tail = split_own_order(item, specs)
        if eq and head in specs:
            several.setdefault(head, []).append(None if tail.strip() == ARRIVAL else tail)
        else:
            rest.append(item)
    own = {spec: found for spec, found in several.items() if len(found) > 1}
    single = rest + [f"{spec}={found[0] or ''}" for spec, found in several.items() if len(found) == 1]
    assigned = assign_orders(specs, single, option)
    out: dict[str, tuple[str, str | None]] = {}
    for spec in specs:
        found = own.get(spec)
        if found is None:
            out[spec] = (spec, assigned[spec] or None)
            continue
        if len(set(found)) < len(found):
            raise ValueError(f"{option}: {spec!r} is given the same order twice")
        short = [order_label(spec, order) for order in found]
        full = len(set(short)) < len(short)  # two files of one name: the paths tell them apart
        for order in found:
            out[order_label(spec, order, full)] = (spec, order)
    return out


def comparison_of_policy_runs(title: str, runs: Mapping[str, PolicyRun]) -> Comparison:
    """Return the :class:`Comparison` of a comparison's runs (:func:`run_policies`): their
    figures, on the machine they ran on (every policy's processors, the same for all)."""
    procs = {r.machine.get("processors") for r in runs.values()}
    processors = procs.pop() if len(procs) == 1 else 0
    return comparison_from_figures(title, int(processors or 0),
                                   {label: r.figures for label, r in runs.items()})


def comparison_of_simulations(source: Any, sims: Mapping[str, Any]) -> Comparison:
    """Run every step-able simulation (label -> simulation, time-slot or space-sharing, built on
    ``source``) to its end, once, counting what its figures need on the way
    (:func:`gangviz.factory.finished.finish`), and return the :class:`Comparison` of their
    figures: the numbers of ``gangviz compare`` for the same policies. Raises ``ValueError``
    for another family."""
    from gangviz.factory.finished import finish

    return comparison_of_runs(source, {label: finish(sim, source, label) for label, sim in sims.items()})


def comparison_of_runs(source: Any, runs: Mapping[str, Any], gamma: float = 10.0) -> Comparison:
    """Return the :class:`Comparison` of finished time-slot or space-sharing runs (label ->
    :class:`~gangviz.factory.run.FinishedRun` of ``source``): the numbers of ``gangviz compare``
    for the same policies (the compare window's table, from each simulation's
    :meth:`~gangviz.sim.protocol.Measures.finish`), the bounded slowdown with threshold
    ``gamma`` in the source's clock."""
    from gangviz.results.figures import run_figures

    figures = {label: run_figures(done, gamma) for label, done in runs.items()}
    return comparison_from_figures(source.title, source.processors, figures)


#: ``--padding`` choices: what a trace's processors added by ``--procs`` are for every policy
#: of a comparison: ``used`` (real processors every policy may use) or ``absent`` (processors
#: that do not exist: every policy runs on the trace's own machine, a buddy scheme inside its
#: power of two)
PADDING = ("used", "absent")


def machine_sources(source: Source, specs: Sequence[str], padding: str | None = None) -> dict[str, Source]:
    """Return ``{spec: source}``: the source each policy of a comparison runs on, so that every
    policy runs on the same processors.

    A trace padded by ``--procs`` (:attr:`~gangviz.workloads.source.Source.absent_from`) is
    read by a buddy scheme as its own machine inside a power of two and by the others as a
    machine of every processor; when both kinds are compared ``padding`` (:data:`PADDING`)
    chooses one machine for all: ``"used"`` gives every policy every processor (the buddy
    schemes too), ``"absent"`` gives the others the trace's own processors. Raises
    ``ValueError`` with the reason and the choices when the policies would run on different
    machines and ``padding`` is ``None``, when a buddy scheme is compared on a machine that is
    not a power of two (and the trace gives none to pad to), and for an unknown ``padding``.
    """
    from dataclasses import replace

    if padding is not None and padding not in PADDING:
        raise ValueError(f"--padding must be one of {', '.join(PADDING)}, got {padding!r}")
    buddy = [s for s in specs if leaves_padding(s)]
    others = [s for s in specs if s not in buddy]
    procs = source.processors
    absent = source.absent_from
    if buddy and procs & (procs - 1) and source.kind != "scenario":  # (a scenario fixes its machine)
        power = 1 << (procs - 1).bit_length()
        raise ValueError(f"{source.title}: {', '.join(buddy)} needs a power-of-two machine (a buddy "
                         f"scheme's tree) and this one has {procs:,} processors; compare every "
                         f"policy on one machine: --procs {power} with --padding absent (the "
                         f"{power - procs:,} added processors absent for all) or --padding used "
                         f"(all {power:,} real for all)")
    if absent is None:
        if padding is not None:
            raise ValueError(f"--padding applies to a trace run on more processors than its header's "
                             f"(--procs above its MaxProcs); {source.title} has none added")
        return dict.fromkeys(specs, source)
    if padding is None:
        if buddy and others:
            raise ValueError(
                f"{source.title}: the policies would run on different machines: "
                f"{', '.join(buddy)} leave{'s' if len(buddy) == 1 else ''} processors {absent}-"
                f"{procs - 1} (added by --procs {procs}) absent, as a buddy scheme pads the "
                f"trace's {absent:,} to a power of two, while {', '.join(others)} would use all "
                f"{procs:,}; choose one machine for every policy: --padding used (all {procs:,} "
                f"processors) or --padding absent (the trace's {absent:,})")
        return dict.fromkeys(specs, source)
    if padding == "used":
        used = replace(source, absent_from=None)
        return dict.fromkeys(specs, used)
    own = replace(source, processors=absent, absent_from=None)
    return {s: (source if s in buddy else own) for s in specs}


def machine_text(machines: Mapping[str, Mapping[str, Any]]) -> str:
    """Return one line saying which machine the runs of a comparison used: ``N processors for
    every policy`` (with the padding of those that have some), or each policy's when they
    differ (a comparison refused by :func:`machine_sources` never gets here)."""
    sizes = {m["processors"] for m in machines.values()}
    padded = [f"{label} inside {m['processors'] + m['absent']:,} with {m['absent']:,} absent"
              for label, m in machines.items() if m["absent"]]
    if len(sizes) == 1:
        text = f"machine: {sizes.pop():,} processors for every policy"
    else:
        text = "machine: " + ", ".join(f"{label} {m['processors']:,} processors"
                                       for label, m in machines.items())
    return text + (f" ({'; '.join(padded)})" if padded else "")


@dataclass(frozen=True)
class Sampled:
    """A comparison over several samples of a synthetic model (one per seed): per policy and
    figure the ``mean`` and the ``half`` width of its 95% interval (Student's t over the
    seeds), and per figure the policies marked best, those whose interval lies wholly on the
    better side of every other policy's; ``note`` as :attr:`Comparison.note` (no best marked
    when some sample's policies served different work)."""

    labels: tuple[str, ...]
    seeds: tuple[int, ...]
    keys: tuple[str, ...]
    mean: dict[str, dict[str, float]]
    half: dict[str, dict[str, float]]
    best: dict[str, tuple[str, ...]]
    units: dict[str, str]
    note: str = ""
    #: the bounded slowdown's threshold Γ, as :attr:`Comparison.gamma`
    gamma: float | None = None

    def to_text(self) -> str:
        """Return the table: ``mean ± half`` per policy and figure, ``*`` where the intervals
        separate the best from every other policy."""
        head = ["metric", *(lab + "  " for lab in self.labels), "unit"]
        rows = [head]
        for m in self.keys:
            row = [m]
            for lab in self.labels:
                v, h = self.mean[lab][m], self.half[lab][m]
                text = number(v) if math.isnan(h) else f"{number(v)} ± {number(h)}"
                row.append(text + (" *" if lab in self.best.get(m, ()) else "  "))
            row.append(self.units.get(m, ""))
            rows.append(row)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        last = len(head) - 1
        lines = ["  ".join(c.ljust(w) if i in (0, last) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                 for r in rows]
        lines.append(f"mean ± half-width of the 95% interval over {len(self.seeds)} seeds "
                     f"({', '.join(map(str, self.seeds))})")
        if self.gamma is not None:
            unit = "s" if self.units.get("wait") == "s" else "slices"
            lines.append(f"bounded slowdown threshold Γ = {self.gamma:g} {unit} (--bsld-threshold)")
        lines.append(self.note or "* best in its row where its interval is clear of every other "
                                  "policy's (no * where the intervals overlap)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (``nan`` becomes ``None``)."""
        def clean(d: dict[str, dict[str, float]]) -> dict[str, dict[str, float | None]]:
            return {lab: {m: (None if math.isnan(v) else v) for m, v in ms.items()} for lab, ms in d.items()}

        return {"seeds": list(self.seeds), "level": 0.95, "mean": clean(self.mean),
                "half_width": clean(self.half), "best": {m: list(b) for m, b in self.best.items()},
                "note": self.note, "bsld_threshold": self.gamma}


def sampled_comparison(samples: Mapping[int, Comparison]) -> Sampled:
    """Return the :class:`Sampled` comparison of one comparison per seed (``seed ->``
    :class:`Comparison` of the same policies). Raises ``ValueError`` for fewer than two."""
    from gangviz.experiments.stats import mean_ci

    if len(samples) < 2:
        raise ValueError("a sampled comparison needs at least two seeds")
    first = next(iter(samples.values()))
    labels, keys = first.labels, first.keys
    mean: dict[str, dict[str, float]] = {lab: {} for lab in labels}
    half: dict[str, dict[str, float]] = {lab: {} for lab in labels}
    for lab in labels:
        for m in keys:
            mu, h, _ = mean_ci([c.metrics[lab][m] for c in samples.values()])
            mean[lab][m], half[lab][m] = mu, h
    note = next((c.note for c in samples.values() if c.note), "")
    best: dict[str, tuple[str, ...]] = {}
    if not note:
        for m, goal in first.goals.items():
            best[m] = _separated({lab: (mean[lab][m], half[lab][m]) for lab in labels
                                  if m not in first.lacks.get(lab, ())}, goal)
    return Sampled(labels, tuple(samples), keys, mean, half, best, dict(first.units), note, first.gamma)


def _separated(cells: Mapping[str, tuple[float, float]], goal: str) -> tuple[str, ...]:
    """Return the label whose interval is clear of every other's on the better side of
    ``goal`` (``()`` when none is: the intervals overlap, or a value is undefined)."""
    known = {lab: (v, h) for lab, (v, h) in cells.items() if not math.isnan(v) and not math.isnan(h)}
    if len(known) < 2 or len(known) < len(cells):
        return ()
    sign = 1.0 if goal == "max" else -1.0
    top = max(known, key=lambda lab: sign * known[lab][0])
    v, h = known[top]
    for lab, (w, k) in known.items():
        if lab != top and not (sign * (v - h * sign) > sign * (w + k * sign)):
            return ()
    return (top,)
