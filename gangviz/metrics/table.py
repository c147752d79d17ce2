"""The one table of figures: every figure any run reports, declared once.

Each :class:`Figure` says its ``key`` (the name in JSON, CSV, the API and the window), its name
in words, its unit for each clock, which way it is better (``goal``), its definition with its
paper, which families report it, whether it is also given for small and large jobs, and how
it reduces per-job values to one number (:class:`Reduce`). Everything that shows a figure reads
it from here: the run's text and JSON (:mod:`gangviz.results.figures`), ``gangviz compare``
(:mod:`gangviz.experiments.compare`), the sweeps' columns, the notebook API, the summaries and
the window's panels; :mod:`gangviz.metrics.reduce` computes every ``Reduce`` the same way for
a whole column and for a column given a block of jobs at a time.

Clocks (:func:`gangviz.results.figures.clock_of`): ``"s"`` on a trace (seconds), ``"slice"``
on a scenario or synthetic model, ``"time"`` for the multi-site and epoch models (their own
time units). A unit or definition template names ``{t}`` for the clock's time unit
(``s``, ``slices``, ``time units``), ``{per}`` for the rate's unit (``h``, ``slice``,
``time unit``), ``{per_word}`` for it in words (``hour``, ...) and ``{gamma}`` for the bounded
slowdown's threshold Γ.

A family object names its figures with :func:`family_keys` and its live panel with
:data:`PANELS`: each :class:`Panel` is one plot of the window, drawing figures of the table (their
running values) or fields of the engine's samples; adding a figure to a family's panel is one
:func:`panel` in its list.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Reduce", "Figure", "TABLE", "BY_KEY", "SIZE_CLASSES", "SMALL_NODES_MAX", "SMALL_WORK_MAX",
           "MEDIUM_WORK_MAX", "family_keys", "keys", "split_keys", "unit", "definition", "title",
           "goals", "MATRIX", "SPACE_SHARING", "MULTISITE", "EPOCH", "CORE_FAMILIES", "Panel", "panel",
           "PANELS", "SAMPLED"]

#: Zhang01 §2.2 and §3.1: a small job uses 32 or fewer nodes, a large one more.
SMALL_NODES_MAX = 32
#: Zhou00 §4.3: small jobs have 1-12 slices of work, medium 13-60, large more.
SMALL_WORK_MAX = 12
MEDIUM_WORK_MAX = 60

MATRIX, SPACE_SHARING, MULTISITE, EPOCH = "matrix", "space-sharing", "multisite", "epoch"
#: the families whose runs report the whole core, the IBM study's figures [Zhang01 §2.3], each
#: figure also for small and large jobs (the multi-site and epoch models report part of it,
#: for all jobs)
CORE_FAMILIES = (MATRIX, SPACE_SHARING)

#: the size classes of the core, suffix -> words [Zhang01 §2.2]
SIZE_CLASSES = {"": "", "_small": ", small jobs", "_large": ", large jobs"}


@dataclass(frozen=True)
class Reduce:
    """How a figure reduces per-job values to one number (:mod:`gangviz.metrics.reduce`).

    ``how`` is one of

    * ``"mean"``: the mean of the per-job quantity ``of`` (its deviation goes under ``std``);
    * ``"share"``: the sum of ``of`` over the machine's node-time (processors x makespan);
    * ``"extremum"``: the last finish less the first arrival (``of`` = ``"finish"``);
    * ``"rate"``: the jobs over the makespan, per ``{per}``;
    * ``"count"``: the jobs;
    * ``"lost"``: the node-time lost while jobs waited over the machine's node-time;
    * ``"percentile"``: the ``q``-th percentile of ``of``, gathered over every job (linear
      interpolation, numpy's default);
    * ``"own"``: made by the family's own code from its records (its paper's figure);
    * ``"sum"``: the sum of ``of``;
    * ``"weighted"``: the size-weighted mean of ``of`` (its sum of size x value over the sum of
      sizes);
    * ``"alias"``: the figure ``of`` under the name its family's paper gives it (the same
      value, reduced once).

    Per-job quantities (``of``, :data:`gangviz.metrics.reduce.PER_JOB`): ``wait``,
    ``response``, ``bounded_slowdown``, ``slowdown`` (response / execution), ``node_time`` (size x the time the job ran),
    ``node_time_asked`` (size x work), ``node_time_unserved`` (size x the work not run),
    ``finish``. ``among`` is the jobs reduced when not a size class: ``"killed"`` (stopped at
    their estimate) or ``"completed"``.
    """

    how: str
    of: str = ""
    q: float = 0.0
    among: str = ""


@dataclass(frozen=True)
class Figure:
    """One figure (module docstring). ``units`` maps each clock (``"s"``, ``"slice"``,
    ``"time"``) to a unit template, ``"*"`` to the template of any clock not listed.
    ``split``: also given for small and large jobs (suffixes ``_small``, ``_large``).
    ``shown_unless_equal``: the run's text leaves the row out when it equals that figure
    (the JSON keeps it). ``definitions`` maps a clock to the definition on it where it differs
    from ``definition`` (on the models' own ``"time"`` clock a gang has no single start)."""

    key: str
    title: str
    units: tuple[tuple[str, str], ...]
    goal: str | None
    definition: str
    families: tuple[str, ...]
    reduce: Reduce
    split: bool = False
    shown_unless_equal: str = ""
    definitions: tuple[tuple[str, str], ...] = ()

    def unit(self, clock: str) -> str:
        """Return the unit of this figure on ``clock``."""
        table = dict(self.units)
        return _fill(table.get(clock, table["*"]), clock)


def _u(template: str) -> tuple[tuple[str, str], ...]:
    """One unit template for every clock."""
    return (("*", template),)


_T = _u("{t}")
_CORE = CORE_FAMILIES
#: the core figures the multi-site and epoch models report besides their papers' own: a gang
#: runs all its tasks at once for its execution time, so its wait, bounded slowdown and
#: node-time are defined; an epoch job runs on a varying number of nodes from its arrival on,
#: so only its response, the makespan, the throughput and the count are [McCann94 §5.2]
_GANGS = (*_CORE, MULTISITE)
_EVERY = (*_CORE, MULTISITE, EPOCH)
_OWN = Reduce("own")

#: every figure, in the order the outputs list them: the core (each size-split figure, the job
#: counts, the served work), the time-slot family's own [Zhou00 §4.3], the multi-site
#: family's [Papazachos09 §4.1], the epoch family's [McCann94 §5]
TABLE: tuple[Figure, ...] = (
    Figure("wait", "mean wait", _T, "min",
           "mean wait, start - arrival (a time-slot job starts when it is placed in a slot)",
           _GANGS, Reduce("mean", "wait"), split=True,
           definitions=(("time", "mean wait, response - execution: a gang waits until all its "
                         "tasks run, migration overheads included [Papazachos09 §3.3]"),)),
    Figure("response", "mean response", _T, "min", "mean response time, finish - arrival",
           _EVERY, Reduce("mean", "response"), split=True),
    Figure("bounded_slowdown", "mean bounded slowdown", _u("ratio"), "min",
           "mean bounded slowdown, max(response, Γ) / max(executed, Γ), "
           "executed = min(work, finish - start), Γ = {gamma:g} {t}",
           _GANGS, Reduce("mean", "bounded_slowdown"), split=True),
    Figure("utilization", "utilisation", _u("fraction"), "max",
           "utilisation, work delivered: sum(size x executed) / (processors x makespan), "
           "executed = the time the job ran [Zhang01 eq. 1]",
           _GANGS, Reduce("share", "node_time"), split=True),
    Figure("loss_of_capacity", "loss of capacity", _u("fraction"), "min",
           "loss of capacity, node-time left idle while jobs waited / "
           "(processors x makespan) [Zhang01 eqs. 2-3]",
           _CORE, Reduce("lost"), split=True),
    Figure("makespan", "makespan", _T, "min", "last finish - first arrival",
           _EVERY, Reduce("extremum", "finish"), split=True),
    Figure("throughput", "throughput", _u("jobs/{per}"), "max",
           "jobs finished per {per_word} over the makespan", _EVERY, Reduce("rate"), split=True),
    Figure("jobs", "jobs finished", _u("jobs"), None, "jobs finished", _EVERY, Reduce("count"),
           split=True),
    Figure("jobs_completed", "jobs completed", _u("jobs"), None,
           "jobs that ran to the end of their work", _CORE, Reduce("count", among="completed")),
    Figure("jobs_killed", "jobs killed", _u("jobs"), None,
           "jobs stopped at their estimate before the end of their work (kill at estimate)",
           _CORE, Reduce("count", among="killed")),
    Figure("work_unserved", "work unserved", _u("processor-{t}"), None,
           "work asked for and never run: sum(size x (work - executed))",
           _CORE, Reduce("sum", "node_time_unserved", among="killed")),
    Figure("utilization_requested", "utilisation of the work asked for", _u("fraction"), None,
           "utilisation of the work asked for, sum(size x work) / (processors x makespan): "
           "above the delivered one when jobs were killed",
           _CORE, Reduce("share", "node_time_asked"), shown_unless_equal="utilization"),
    Figure("r_a", "processor active ratio", _u("fraction"), "max",
           "processor active ratio, sum(size x work) / (processors x T) [Zhou00 §4.3]", (MATRIX,), _OWN),
    Figure("n_l", "most slots at once", _u("slots"), "min",
           "largest number of slots at once [Zhou00 §4.3]", (MATRIX,), _OWN),
    Figure("n_a", "mean number of slots", _u("slots"), "min",
           "time-average number of slots [Zhou00 §4.3]", (MATRIX,), _OWN),
    Figure("t_ta", "mean turnaround", _T, "min", "mean turnaround, all jobs [Zhou00 §4.3]", (MATRIX,), _OWN),
    Figure("t_sa", "mean turnaround, small work", _T, "min",
           f"mean turnaround, jobs of 1-{SMALL_WORK_MAX} slices of work [Zhou00 §4.3]", (MATRIX,), _OWN),
    Figure("t_ma", "mean turnaround, medium work", _T, "min",
           f"mean turnaround, jobs of {SMALL_WORK_MAX + 1}-{MEDIUM_WORK_MAX} slices of work",
           (MATRIX,), _OWN),
    Figure("t_la", "mean turnaround, large work", _T, "min",
           f"mean turnaround, jobs of more than {MEDIUM_WORK_MAX} slices of work", (MATRIX,), _OWN),
    Figure("RT", "mean response", _T, "min",
           "response under its paper's name: mean response time of the completed gangs "
           "[Papazachos09 §4.1]", (MULTISITE,), Reduce("alias", "response")),
    Figure("WRT", "weighted mean response", _T, "min",
           "size-weighted mean response time [Papazachos09 §4.1]", (MULTISITE,),
           Reduce("weighted", "response")),
    Figure("SLD", "mean slowdown", _u("ratio"), "min",
           "mean slowdown, response / execution [Papazachos09 §4.1]", (MULTISITE,),
           Reduce("mean", "slowdown")),
    Figure("WSLD", "weighted mean slowdown", _u("ratio"), "min",
           "size-weighted mean slowdown [Papazachos09 §4.1]", (MULTISITE,), Reduce("weighted", "slowdown")),
    Figure("gangs", "gangs completed", _u("gangs"), None,
           "jobs under its paper's name: gangs completed [Papazachos09 §4.2]", (MULTISITE,),
           Reduce("alias", "jobs")),
    Figure("migrations", "migrations", _u("tasks"), None, "task migrations [Papazachos09 §3.3]",
           (MULTISITE,), _OWN),
    Figure("departed", "jobs departed", _u("jobs"), None,
           "jobs under its paper's name: jobs departed [McCann94 §5.2]", (EPOCH,),
           Reduce("alias", "jobs")),
    Figure("reallocations", "reallocations", _u("reallocations"), "min",
           "node reallocations over the run [McCann94 §2.3]", (EPOCH,), _OWN),
    Figure("overhead", "overhead", _u("reallocations/node/quantum"), "min",
           "normalised overhead [McCann94 §5.1]", (EPOCH,), _OWN),
)

#: key -> its figure (the keys without a size suffix)
BY_KEY: dict[str, Figure] = {f.key: f for f in TABLE}


def split_keys(figure: Figure, family: str = "") -> tuple[str, ...]:
    """Return the keys ``figure`` is reported under (by ``family``, when given): its key, and
    with ``_small`` and ``_large`` when it is split by size (only the core families split,
    their jobs having sizes [Zhang01 §2.2]: the epoch family's ``response`` is one figure)."""
    whole = figure.split and (not family or family in CORE_FAMILIES)
    return tuple(figure.key + s for s in SIZE_CLASSES) if whole else (figure.key,)


def keys(family: str, reduced: bool | None = None) -> tuple[str, ...]:
    """Return the keys of ``family``'s figures in table order (each size class's too). With
    ``reduced`` True only those made from per-job values (:class:`Reduce` other than
    ``"own"``), False only the family's own code's."""
    return tuple(k for f in TABLE if family in f.families
                 and (reduced is None or (f.reduce.how != "own") == reduced) for k in split_keys(f, family))


def family_keys(family: str) -> tuple[str, ...]:
    """Return every key of ``family``'s figures (:func:`keys`), what a family object points at."""
    return keys(family)


def _base(key: str) -> tuple[Figure | None, str]:
    """The figure of ``key`` and its size suffix (``""`` when none)."""
    for suffix in ("_small", "_large"):
        if key.endswith(suffix) and key[:-len(suffix)] in BY_KEY and BY_KEY[key[:-len(suffix)]].split:
            return BY_KEY[key[:-len(suffix)]], suffix
    return BY_KEY.get(key), ""


_TIME = {"s": "s", "slice": "slices"}
_PER = {"s": "h", "slice": "slice"}
_PER_WORD = {"s": "hour", "slice": "slice"}


def _fill(template: str, clock: str, gamma: float = 10.0) -> str:
    return template.format(t=_TIME.get(clock, "time units"), per=_PER.get(clock, "time unit"),
                           per_word=_PER_WORD.get(clock, "time unit"), gamma=gamma)


def unit(key: str, clock: str) -> str:
    """Return the unit of figure ``key`` (with or without a size suffix) on ``clock``.
    Raises ``KeyError`` for a key not in the table."""
    figure, _ = _base(key)
    if figure is None:
        raise KeyError(key)
    return figure.unit(clock)


def definition(key: str, clock: str, gamma: float = 10.0) -> str:
    """Return the one-line definition of figure ``key`` on ``clock`` (Γ = ``gamma`` in the
    clock's unit), with its size class. Raises ``KeyError`` for a key not in the table."""
    figure, suffix = _base(key)
    if figure is None:
        raise KeyError(key)
    text = dict(figure.definitions).get(clock, figure.definition)
    if figure.reduce.how == "count" and figure.split and suffix:  # "small jobs finished"
        return f"{suffix[1:]} {text}"
    return _fill(text, clock, gamma) + SIZE_CLASSES[suffix]


def title(key: str) -> str:
    """Return figure ``key``'s name in words (``"mean bounded slowdown"`` for
    ``bounded_slowdown``, ``"mean wait, small jobs"`` for ``wait_small``); a key not in the
    table reads as itself with spaces."""
    figure, suffix = _base(key)
    if figure is None:
        return key.replace("_", " ")
    if figure.reduce.how == "count" and figure.split and suffix:
        return f"{suffix[1:]} {figure.title}"
    return figure.title + SIZE_CLASSES[suffix]


def goals() -> dict[str, str]:
    """Return key -> ``"min"`` or ``"max"``, which way each figure is better (each size class
    too); a figure without a goal (a count) is not listed."""
    return {k: f.goal for f in TABLE if f.goal is not None for k in split_keys(f)}


#: the fields of a time-slot or space-sharing engine's samples a panel can draw
#: (:class:`gangviz.sim.state.Sample`), besides the figures of the table
SAMPLED = ("slots", "waiting", "running", "active_ratio", "mean_turnaround")


@dataclass(frozen=True)
class Panel:
    """One plot of a family's live panel: ``title``, ``ylabel``, the axis ``kind`` (see
    :mod:`gangviz.gui.plots.axes`), its ``curves`` as ``(key, legend, colour)`` (a key is a
    figure's, drawn as its running value, or a field of :data:`SAMPLED`), the ``figures``
    whose current value the title gives, each named by the word of ``named`` at its place;
    ``linear``: the curves grow continuously between their points (drawn straight, not as
    steps)."""

    title: str
    ylabel: str
    curves: tuple[tuple[str, str, str], ...]
    kind: str = "plain"
    figures: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    linear: bool = False

    @property
    def sampled(self) -> bool:
        """Whether a curve comes from the engine's samples (:data:`SAMPLED`)."""
        return any(key in SAMPLED for key, _, _ in self.curves)


def panel(key: str, colour: str, *, heading: str = "", ylabel: str = "", clock: str = "slice",
          kind: str = "plain", legend: str = "", named: str = "", linear: bool = False) -> Panel:
    """Return the :class:`Panel` of the one figure ``key``: its running curve in ``colour``,
    its current value in the title. Unless given, the title (``heading``) is the figure's name
    in words (:func:`title`), the y label its unit on ``clock``, the legend its key in words
    and the word naming its value in the title ``"mean"`` for a mean, else the key."""
    figure, _ = _base(key)
    mean = figure is not None and figure.reduce.how in ("mean", "weighted")
    return Panel(heading or title(key).capitalize(), ylabel or unit(key, clock),
                 ((key, legend or key.replace("_", " "), colour),), kind, (key,),
                 (named or ("mean" if mean else key),), linear)


#: the jobs waiting and running, from the samples (no figure)
_JOBS = Panel("Jobs", "jobs", (("waiting", "waiting", "#CC6677"), ("running", "running", "#4477AA")),
              "integer")

#: family -> the plots of its live panel, in the window's order (two rows at most)
PANELS: dict[str, tuple[Panel, ...]] = {
    # Zhou00 §4.2-4.3 from the engine's samples, then the core [Zhang01 §2.3] of the jobs so far
    MATRIX: (
        Panel("Slots", "slots", (("slots", "slots", "#332288"),), "integer", ("n_l", "n_a"), ("n_l", "n_a")),
        Panel("Processor active ratio", "ratio", (("active_ratio", "active ratio", "#117733"),), "ratio",
              ("r_a",), ("r_a",)),
        _JOBS,
        Panel("Mean turnaround", "slices", (("mean_turnaround", "mean turnaround", "#AA4499"),),
              "turnaround", ("t_ta",), ("t_ta",)),
        panel("wait", "#CC6677"),
        panel("bounded_slowdown", "#882255", heading="Bounded slowdown"),
    ),
    # the IBM study's figures [Zhang01 §2.3]
    SPACE_SHARING: (
        panel("wait", "#CC6677", ylabel="seconds"),
        panel("bounded_slowdown", "#AA4499", heading="Bounded slowdown", ylabel="slowdown"),
        panel("loss_of_capacity", "#117733", ylabel="share", kind="ratio", named="κ"),
        _JOBS,
    ),
    # Papazachos09 §4.1 and the task migrations
    MULTISITE: (
        panel("RT", "#332288", heading="Response time", ylabel="time", named="RT"),
        panel("WRT", "#4477AA", heading="Weighted response time", ylabel="time", named="WRT"),
        panel("SLD", "#AA4499", heading="Slowdown", ylabel="slowdown", named="SLD"),
        panel("migrations", "#CC6677", kind="integer", named="total"),
    ),
    # McCann94 §5
    EPOCH: (
        panel("response", "#332288", heading="Response time", ylabel="time", legend="mean response"),
        panel("reallocations", "#CC6677", ylabel="node reallocations", named="total", linear=True),
        panel("overhead", "#117733", ylabel="per node per quantum", legend="normalised overhead",
              named="mean"),
    ),
}
