"""The one registry of scheduling policies: every built-in of every family, described once.

Each :class:`PolicyEntry` says what a policy is called, which simulation family runs it
(``matrix``: the time-slot engine; ``space-sharing``: the backfilling simulator;
``multisite``; ``epoch``), its group of schemes, the paper section it follows, its typed
parameters (:class:`gangviz.core.params.Param`, defaults and ranges), the loops that can run
it (``reference``: the step-able simulation; ``compiled``: a compiled headless loop), when it
decides and the traits a checker, a loop or a view reads (``buddy``: aligned power-of-two
blocks; ``wlt``: allocates by the workload tree, so the window draws it; ``backfill``, ``migrate``; ``pow2-nodes``/``pow2-jobs``: Table 2's restrictions of
McCann94 §4.4). The constructor is named by import path (``module:attribute``) and imported only
when a policy is built, so the registry sits below every package that implements one.

The factory, the command line (``gangviz policies``), the window's policy menus, compare,
sweeps and the API all read :data:`REGISTRY` through :func:`lookup`, :func:`names` and
:func:`build`; no other module keeps a table of policy names.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from gangviz.colours import base_name, hashed_colour, separated
from gangviz.core.limits import MAX_JOBS, MAX_SLICES, MAX_SLOTS
from gangviz.core.params import Param, ParamError, check_keys, quote, split_spec

__all__ = ["FAMILIES", "FAMILY", "Family", "family", "MATRIX", "SPACE_SHARING", "MULTISITE", "EPOCH", "LOOPS", "PolicyEntry",
           "REGISTRY", "lookup", "names", "entries", "entry_for_target", "parse", "runs_on", "menu", "colour",
           "colours_shown"]

MATRIX, SPACE_SHARING, MULTISITE, EPOCH = "matrix", "space-sharing", "multisite", "epoch"
FAMILIES = (MATRIX, SPACE_SHARING, MULTISITE, EPOCH)
LOOPS = ("reference", "compiled")
#: ``NAME(k)``: the epoch policies write their one number in brackets (McCann94 §4.4).
_BRACKETED = re.compile(r"^\s*([A-Za-z*\-]+)\s*\(\s*([^()]*?)\s*\)\s*$")


@dataclass(frozen=True)
class Family:
    """What a family of policies brings with it, so that no layer above asks which one it is.

    ``key`` is one of :data:`FAMILIES`; ``title`` how a run's header names it; ``runs_on`` the
    source family its policies run (a space-sharing policy runs a matrix source: a trace, a
    model, a scenario without a starting matrix); ``default`` the policy spec a source of this
    family runs when neither the caller nor the source names one (``None``: no source is of
    this family). ``maker`` builds a policy of the family from its entry and typed parameters,
    ``finisher`` runs a built simulation to its end and returns its finished run,
    ``figures`` gives a finished run's figures (the family's list in
    :mod:`gangviz.results.figures`) and ``views`` is how the window draws it (``""``: the
    board's own matrix views), ``simulator`` builds the step-able simulation of a source under
    a policy of the family, ``headless`` runs one to its end without steps when it can (a
    compiled loop, the backfilling simulator; ``""``: always the simulator) and ``end_state``
    gives the comparable end state a scenario's ``[expect]`` checks: each a ``module:attribute``
    imported only when it is used, so the family sits below every package that implements it.
    ``matrix``: its runs end with an Ousterhout matrix and its steps are change records;
    ``measured``: its runs have the whole core of a finished run (the time-slot and
    space-sharing families); ``backfills``: its runs are the backfilling simulator's, so a
    finished run's and a simulation's ``result`` is a
    :class:`~gangviz.spacesharing.backfill.BackfillResult` whose records are the per-job table;
    ``labelled``: outputs name its runs by the policy's ``label()`` (its name with the
    parameters that differ from the defaults, ``easy:estimates=exact``) rather than by its name.
    """

    key: str
    title: str
    runs_on: str
    default: str | None
    maker: str
    finisher: str
    figures: str
    views: str = ""
    simulator: str = ""
    headless: str = ""
    end_state: str = ""
    matrix: bool = False
    measured: bool = True
    backfills: bool = False
    labelled: bool = False

    def load(self, attribute: str) -> Any:
        """Return what the field ``attribute`` (``maker``, ``finisher``, ``figures``, ``views``,
        ``simulator``, ``headless``, ``end_state``) names, imported now. Raises ``ValueError`` when the family names none."""
        target = str(getattr(self, attribute))
        if not target:
            raise ValueError(f"the {self.key} family has no {attribute}")
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)


_BUILD, _RUN, _EXPECT = "gangviz.factory.build:", "gangviz.factory.run:", "gangviz.factory.expect:"
_FAMILIES = (
    Family(MATRIX, "time slots", MATRIX, "repack", "gangviz.factory.policy:construct",
           "gangviz.factory.finished:finish", "gangviz.results.figures:run_figures",
           simulator=_BUILD + "matrix_simulation", headless=_RUN + "compiled_run",
           end_state=_EXPECT + "matrix_end", matrix=True),
    Family(SPACE_SHARING, "space sharing", MATRIX, None, "gangviz.factory.policy:construct",
           "gangviz.factory.finished:finish", "gangviz.results.figures:run_figures",
           "gangviz.gui.families.table:GANTT", simulator=_BUILD + "space_sharing_simulation",
           headless=_RUN + "backfill_run", end_state=_EXPECT + "space_sharing_end",
           backfills=True, labelled=True),
    Family(MULTISITE, MULTISITE, MULTISITE, "AFCFSwM", "gangviz.multisite.config:migrates",
           "gangviz.factory.finished:finish_stepping", "gangviz.results.figures:family_figures",
           "gangviz.gui.families.table:QUEUES", simulator=_BUILD + "multisite_simulation",
           end_state=_EXPECT + "multisite_end", measured=False),
    Family(EPOCH, EPOCH, EPOCH, "OPT-EPOCH(1)", "gangviz.epoch.policies:from_entry",
           "gangviz.factory.finished:finish_stepping", "gangviz.results.figures:family_figures",
           "gangviz.gui.families.table:EPOCHS", simulator=_BUILD + "epoch_simulation",
           end_state=_EXPECT + "epoch_end", measured=False),
)
#: Every family by its key.
FAMILY: Mapping[str, Family] = MappingProxyType({f.key: f for f in _FAMILIES})


def family(key: str) -> Family:
    """Return the :class:`Family` called ``key`` (one of :data:`FAMILIES`); raises
    ``ValueError`` naming them for another key."""
    try:
        return FAMILY[key]
    except KeyError:
        raise ValueError(f"unknown family {key!r}; known: {', '.join(FAMILIES)}") from None


@dataclass(frozen=True)
class PolicyEntry:
    """One policy: see the module docstring for the fields.

    ``name`` is the lookup key (lower case), ``title`` how papers and the window write it,
    ``target`` the constructor's ``module:attribute``, ``origin`` the file a user policy came
    from, ``colour`` the ``#RRGGBB`` every plot and window draws it in (distinct within its
    family; a user's policy has none and takes one by hash, :func:`colour`). A multisite entry
    names the simulation that runs it (its ``migrate`` trait switches migration on).
    """

    name: str
    title: str
    family: str
    group: str
    paper: str
    target: str
    params: tuple[Param, ...] = ()
    loops: tuple[str, ...] = ("reference",)
    decides: str = "boundary"
    traits: frozenset[str] = frozenset()
    aliases: tuple[str, ...] = ()
    doc: str = ""
    origin: str = ""
    colour: str = ""
    loader: Callable[[], Any] | None = field(default=None, compare=False, repr=False)

    @property
    def declared(self) -> Mapping[str, Param]:
        """The parameters by name."""
        return {p.name: p for p in self.params}

    def coerce(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Return ``params`` (text or values) parsed by their declared types and checked.

        Raises :class:`~gangviz.core.params.ParamError` for an unknown parameter or a bad
        value, naming the policy, the parameter and what is allowed.
        """
        declared = self.declared
        check_keys(params, declared, self.title)
        return {key: declared[key].parse(value, self.title) for key, value in params.items()}

    def defaults(self) -> dict[str, Any]:
        """Return every parameter's default."""
        return {p.name: p.default for p in self.params}

    def constructor(self) -> Any:
        """Return what ``target`` names, imported now (a user policy's loader runs instead)."""
        if self.loader is not None:
            return self.loader()
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def runs_on(self) -> str:
        """Return the source family the policy runs on (``matrix`` for space sharing; a family
        the registry does not know runs its own)."""
        known = FAMILY.get(self.family)
        return known.runs_on if known is not None else self.family

    @property
    def kind(self) -> Family:
        """Return the policy's :class:`Family`. Raises ``ValueError`` for an unknown family."""
        return family(self.family)

    def to_dict(self) -> dict[str, Any]:
        """Return the entry as plain data (``gangviz policies --json``)."""
        return {"name": self.title, "key": self.name, "family": self.family, "group": self.group,
                "paper": self.paper, "loops": list(self.loops), "decides": self.decides,
                "traits": sorted(self.traits),
                "parameters": [{"name": p.name, "type": p.kind, "default": p.default,
                                "allowed": p.allowed(), "doc": p.doc,
                                **({"choices": list(p.choices)} if p.choices else {}),
                                **({"low": p.low} if p.low is not None else {}),
                                **({"high": p.high} if p.high is not None else {}),
                                **({"none": p.none} if p.none is not None else {}),
                                **({"unit": p.unit} if p.unit else {})}
                               for p in self.params]}


_OCCUPY = Param("occupy", "choice", "size", "which processors of the buddy block a job runs on",
                choices=("size", "block"))
_EXTRA = Param("extra_slots_on", "choice", None,
               "when jobs take extra slots (default: the scheme's own)",
               choices=("arrival", "decision"), none="default")
_MPL = Param("mpl", "int", 5, "multiprogramming level: most rows of the matrix", low=1,
             high=MAX_SLOTS)
_DECIDE = Param("decide", "choice", "event", "when the phases run (event: every arrival and "
                "departure, §4.2; boundary: slice boundaries)", choices=("event", "boundary"))
_SLICE = (
    Param("cut_at_departure", "bool", True, "with decisions at events, a departure cuts the slice "
          "short (false: the slice runs to its end, eq. 3's w_k)"),
    Param("after_cut", "choice", "next", "the row that runs after an event cut a slice short: the "
          "next row or the same one again", choices=("next", "same")),
)
_MIGRATION = (
    Param("q", "int", None, "most tasks migrated per decision", low=0, high=MAX_JOBS,
          none="none"),
    Param("migration_cost", "float", 0.0, "cost C of migrating one job", low=0.0,
          high=MAX_SLICES, unit="slices"),
    Param("charge_migration", "bool", True, "the delayed jobs pay the migration overhead in "
          "service (§5.4)"),
)
_SPACE = (
    Param("estimates", "choice", "requested", "run-time estimates: the trace's requested time "
          "(§2.1) or each job's exact run time", choices=("requested", "exact")),
    Param("kill", "bool", True, "terminate a job when it reaches its estimate (§2.1)"),
)
_SPREAD = Param("spread", "choice", "shares", "how an epoch's free nodes are spread (§4.3)",
                choices=("shares", "level"))

#: The multi-site simulation runs AFCFS itself; the ``migrate`` trait switches migration on.
_MULTISITE_SIM = "gangviz.multisite.simulation:MultiSiteSimulation"


def _k(low: int) -> Param:
    return Param("k", "int", None, "the policy's bound k, written NAME(k)",
                 low=low, high=1 << 20)


_BUILTINS: tuple[PolicyEntry, ...] = (
    # re-packing and the linear-array allocations of Zhou99
    PolicyEntry("repack", "repack", MATRIX, "linear", "[Zhou99 §3, §4 (Fig. 5)]",
                "gangviz.policies.linear:Repack",
                (Param("window", "choice", "least-loaded", "which run of the WLV takes a job",
                       choices=("least-loaded", "leftmost")),
                 Param("cuts", "choice", "alternating", "how a re-pack cuts the rows",
                       choices=("alternating", "pairwise"))),
                traits=frozenset({"wlt"}),
                doc="WLV allocation with re-packing at every arrival and termination", colour="#0072B2"),
    PolicyEntry("random", "random", MATRIX, "linear", "[Zhou99 §2 (Fig. 1)]",
                "gangviz.policies.linear:RandomAllocation",
                (Param("seed", "int", 0, "seed of the random processor choice", low=0,
                       high=(1 << 63) - 1),),
                doc="random processors in the first slot with room; no re-packing", colour="#7F7F7F"),
    PolicyEntry("firstfit", "firstfit", MATRIX, "linear", "[Zhou99 §2]",
                "gangviz.policies.linear:FirstFit",
                doc="the leftmost run of idle processors in the first slot with one", colour="#228833"),
    # the buddy schemes of Zhou00
    PolicyEntry("bc", "BC", MATRIX, "buddy", "[Zhou00 §4.1]", "gangviz.policies.buddy:BC",
                (_OCCUPY,), LOOPS, traits=frozenset({"buddy", "wlt"}),
                doc="conventional buddy: the first slot with a free block", colour="#009E73"),
    PolicyEntry("br", "BR", MATRIX, "buddy", "[Zhou00 §4.1, §3; Zhou99 §4]",
                "gangviz.policies.buddy:BR", (_OCCUPY,), LOOPS, traits=frozenset({"buddy", "wlt"}),
                doc="buddy with re-packing: the least-loaded free block of the WLT", colour="#D55E00"),
    PolicyEntry("brms", "BRMS", MATRIX, "buddy", "[Zhou00 §4.1, §4.3]",
                "gangviz.policies.buddy:BRMS", (_OCCUPY, _EXTRA), LOOPS,
                traits=frozenset({"buddy", "wlt"}), doc="BR with multi-slot running", colour="#CC79A7"),
    PolicyEntry("brmms", "BRMMS", MATRIX, "buddy", "[Zhou00 §4.1]",
                "gangviz.policies.buddy:BRMMS", (_OCCUPY, _EXTRA), LOOPS,
                traits=frozenset({"buddy", "wlt"}),
                doc="BR with multi-slot running that never needs more slots than BR", colour="#56B4E9"),
    # the gang policies of the IBM study
    PolicyEntry("gs", "GS", MATRIX, "ibm", "[Zhang01 §4.2, §5.1]", "gangviz.policies.ibm.gs:GS",
                (_MPL, _DECIDE, *_SLICE), LOOPS, "event", doc="gang scheduling with home rows and an MPL", colour="#EE6677"),
    PolicyEntry("bgs", "BGS", MATRIX, "ibm", "[Zhang01 §5.2]", "gangviz.policies.ibm.gs:BGS",
                (_MPL, _DECIDE, *_SLICE), LOOPS, "event", frozenset({"backfill"}),
                doc="gang scheduling with backfilling", colour="#4477AA"),
    PolicyEntry("mgs", "MGS", MATRIX, "ibm", "[Zhang01 §5.4]", "gangviz.policies.ibm.gs:MGS",
                (_MPL, *_MIGRATION, _DECIDE, *_SLICE), LOOPS, "event", frozenset({"migrate"}),
                doc="gang scheduling with migration", colour="#AA3377"),
    PolicyEntry("mbgs", "MBGS", MATRIX, "ibm", "[Zhang01 §5.5]", "gangviz.policies.ibm.gs:MBGS",
                (_MPL, *_MIGRATION, _DECIDE, *_SLICE), LOOPS, "event", frozenset({"backfill", "migrate"}),
                doc="gang scheduling with migration and backfilling", colour="#661100"),
    # space sharing
    PolicyEntry("fcfs", "fcfs", SPACE_SHARING, "backfill", "[Zhang01 §1]",
                "gangviz.spacesharing.policy:FCFS", _SPACE, LOOPS, "event",
                doc="first come, first served, no backfilling", colour="#117733"),
    PolicyEntry("easy", "easy", SPACE_SHARING, "backfill", "[Zhang01 §1, §3]",
                "gangviz.spacesharing.policy:EASY", _SPACE, LOOPS, "event",
                frozenset({"backfill", "reserve-head"}),
                doc="EASY backfilling: a reservation for the head of the queue only", colour="#882255"),
    PolicyEntry("conservative", "conservative", SPACE_SHARING, "backfill", "[Zhang01 §1, §3]",
                "gangviz.spacesharing.policy:Conservative", _SPACE, LOOPS, "event",
                frozenset({"backfill", "reserve-all"}),
                doc="conservative backfilling: a reservation for every waiting job", colour="#BBBB44"),
    # the multi-site model
    PolicyEntry("afcfs", "AFCFS", MULTISITE, "afcfs", "[Papazachos09 §3.2]", _MULTISITE_SIM,
                loops=LOOPS, decides="event", doc="Adapted FCFS over one queue per processor", colour="#AA3377"),
    PolicyEntry("afcfswm", "AFCFSwM", MULTISITE, "afcfs", "[Papazachos09 §3.2, §3.3]",
                _MULTISITE_SIM,
                loops=LOOPS, decides="event", traits=frozenset({"migrate"}),
                doc="Adapted FCFS with local and grid migration", colour="#E69F00"),
    # the epoch policies of McCann and Zahorjan (Table 2)
    PolicyEntry("buddy", "BUDDY", EPOCH, "epoch", "[McCann94 §4.1]", "gangviz.epoch.buddy:buddy",
                decides="quantum", traits=frozenset({"pow2-nodes", "pow2-jobs", "optimal"}), colour="#EE6677"),
    PolicyEntry("buddy*", "BUDDY*", EPOCH, "epoch", "[McCann94 §4.1]",
                "gangviz.epoch.buddy:buddy_star", decides="quantum",
                traits=frozenset({"pow2-nodes"}), colour="#228833"),
    PolicyEntry("hybrid", "HYBRID(k)", EPOCH, "epoch", "[McCann94 §4.1]",
                "gangviz.epoch.buddy:hybrid", (_k(1), _SPREAD), decides="quantum",
                traits=frozenset({"pow2-nodes"}), colour="#AA3377"),
    PolicyEntry("equi-epoch", "EQUI-EPOCH", EPOCH, "epoch", "[McCann94 §4.2]",
                "gangviz.epoch.epochs:equi_epoch", decides="quantum",
                traits=frozenset({"optimal-if-pow2"}), colour="#332288"),
    PolicyEntry("opt-epoch", "OPT-EPOCH(k)", EPOCH, "epoch", "[McCann94 §4.2]",
                "gangviz.epoch.epochs:opt_epoch", (_k(0),), decides="quantum",
                traits=frozenset({"optimal"}), colour="#BBBB44"),
    PolicyEntry("heuristic-epoch", "HEURISTIC-EPOCH(k)", EPOCH, "epoch", "[McCann94 §4.3]",
                "gangviz.epoch.epochs:heuristic_epoch", (_k(1), _SPREAD), decides="quantum",
                aliases=("heuristic",), colour="#66CCEE"),
)

#: Every built-in policy by its lookup key.
REGISTRY: Mapping[str, PolicyEntry] = MappingProxyType({e.name: e for e in _BUILTINS})
#: The built-ins a user's queue order is graded under: a time-slot policy and the three
#: space-sharing ones that keep a queue order.
ORDER_GRADED = ("gs", "fcfs", "easy", "conservative")
#: The traits of the space-sharing built-ins whose rule a policy declaring one keeps (the
#: reservation rule of ``check-policy``).
RESERVING_TRAITS = frozenset({"easy", "fcfs", "conservative"})
_ALIASES = {alias: e.name for e in _BUILTINS for alias in e.aliases}
_BY_TARGET = {e.target: e for e in _BUILTINS}


def entry_for_target(target: str) -> PolicyEntry | None:
    """Return the built-in whose constructor is ``target`` (``module:attribute``), or ``None``:
    how a policy class finds the entry that names it."""
    return _BY_TARGET.get(target)


def entries(family: str | None = None, group: str | None = None) -> Iterator[PolicyEntry]:
    """Yield the built-ins (of ``family`` and ``group`` when given) in the registry's order."""
    for e in _BUILTINS:
        if (family is None or e.family == family) and (group is None or e.group == group):
            yield e


def names(family: str | None = None, group: str | None = None) -> list[str]:
    """Return the titles of the built-ins (of ``family``/``group``) in the registry's order."""
    return [e.title for e in entries(family, group)]


def runs_on(source_family: str) -> list[str]:
    """Return the titles of the built-ins a source of ``source_family`` can run."""
    return [e.title for e in _BUILTINS if e.runs_on() == source_family]


def menu(source_family: str) -> list[str]:
    """Return the specs a menu offers for a source of ``source_family``: the lookup keys of the
    matrix family's policies (sorted), the titles of the others with k = 1 (``OPT-EPOCH(1)``)."""
    chosen = [e for e in _BUILTINS if e.runs_on() == source_family]
    if family(source_family).matrix:
        return sorted(e.name for e in chosen)
    return [e.title.replace("(k)", "(1)") for e in chosen]


def colour(name: str) -> str:
    """Return the ``#RRGGBB`` colour of the policy ``name`` (a title, key, alias or spec, any case,
    parameters ignored): its entry's, else a fixed one by hash of its base name
    (:func:`gangviz.colours.hashed_colour`)."""
    base = base_name(name)
    entry = REGISTRY.get(_ALIASES.get(base, base))
    return entry.colour if entry is not None and entry.colour else hashed_colour(name)


def colours_shown(names: Sequence[str]) -> list[str]:
    """Return the colours of the policies ``names`` shown together: each its own :func:`colour`
    unless two would look alike (:func:`gangviz.colours.separated`, which raises
    ``ValueError`` for more names than it has colours)."""
    return separated([colour(n) for n in names])


def lookup(name: str) -> tuple[PolicyEntry, dict[str, str]]:
    """Return the entry called ``name`` (any case) and the parameters its name carries
    (``OPT-EPOCH(2)`` carries ``k=2``).

    Raises :class:`~gangviz.core.params.ParamError` naming the known policies for an unknown
    name, or the form to write for a bracket where the policy takes none.
    """
    base, bracket = name.strip(), None
    m = _BRACKETED.match(name)
    if m:
        base, bracket = m.group(1), m.group(2)
    key = base.strip().lower()
    key = _ALIASES.get(key, key)
    entry = REGISTRY.get(key)
    if entry is None:
        raise ParamError(f"unknown policy {quote(name)}; known: {', '.join(names())}")
    takes_k = "k" in entry.declared
    if takes_k and bracket is None:
        raise ParamError(f"policy {quote(name)}: write it as {entry.title}")
    if bracket is not None and not takes_k:
        raise ParamError(f"policy {quote(name)}: write it as {entry.title}")
    return entry, ({"k": bracket} if bracket is not None else {})


def parse(spec: str) -> tuple[PolicyEntry, dict[str, Any]]:
    """Return the entry and the typed parameters of a spec ``NAME[:key=value,...]``.

    Raises :class:`~gangviz.core.params.ParamError` for a malformed spec, an unknown policy or
    parameter, a repeated key or a bad value.
    """
    name, given = split_spec(spec)
    entry, carried = lookup(name)
    if carried and "k" in given:
        raise ParamError(f"policy {entry.title}: parameter k is given twice (in {quote(spec)})")
    return entry, entry.coerce({**carried, **given})
