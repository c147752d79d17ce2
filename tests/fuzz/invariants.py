"""What every successful run must satisfy, checked on the simulation a command line describes."""

from __future__ import annotations

import math

#: Decision points examined per run (the fuzzed workloads are small; this bounds the check).
MAX_STEPS = 5000


def check_run(argv: list[str]) -> str | None:
    """Re-run the matrix simulation that ``argv`` (a ``run`` or ``compare`` command line) ran and
    return a description of the first broken invariant, or ``None``: no row ever holds more
    cells than processors, every job holds exactly its size in each of its rows, finish >=
    arrival, and a job that was not terminated has turnaround >= its work (up to the clock's
    resolution)."""
    if not argv or argv[0] not in ("run", "compare"):
        return None
    opts = _options(argv[2:])
    from gangviz.policies import make_policy
    from gangviz.sim.engine import Simulation
    from gangviz.workloads.source import load_source

    kwargs = {"procs": _int(opts.get("--procs")), "slice_seconds": _float(opts.get("--slice"))}
    for key, conv in (("--jobs", _int), ("--load", _float), ("--seed", _int)):
        if key in opts:
            kwargs[key[2:]] = conv(opts[key])
    source = load_source(argv[1], **kwargs)
    if source.model != "matrix":
        return None
    names = opts.get("--policy") or [source.policy or "repack"]
    if argv[0] == "run":
        names = names[-1:]  # run takes the last --policy given, as argparse does
    for spec in names if isinstance(names, list) else [names]:
        name = spec.split(":")[0]
        policy = make_policy(name, **source.policy_params(name)) if ":" not in spec else None
        if policy is None:
            continue
        sim = Simulation(source.jobs, policy, source.processors, ring="--ring" in argv or source.ring,
                         initial=source.matrix, script=source.script, record=False)
        broken = _check_steps(sim) or _check_records(sim)
        if broken:
            return f"{spec}: {broken}"
    return None


def _check_steps(sim) -> str | None:
    """Step ``sim`` (at most :data:`MAX_STEPS` times); describe the first step after which a slot
    holds more cells than processors or a job holds other than its size in processors."""
    for _ in range(MAX_STEPS):
        if sim.step() is None:
            break
        m = sim.matrix
        if m.n_rows and int(m.busy_per_row().max()) > m.processors:
            return f"a slot holds more than {m.processors} processors at t={sim.time}"
        for job in m.jobs():
            if len(list(m.job_cols(job))) != sim.jobs[job].spec.size:
                return f"job {job} holds {len(list(m.job_cols(job)))} processors, not its size"
    return None


def _check_records(sim) -> str | None:
    """Describe the first finished job of ``sim`` that finished before arriving or, not
    terminated, has a turnaround below its work."""
    for rec in sim.records():
        if rec.finish is None:
            continue
        if rec.finish < rec.spec.arrival:
            return f"job {rec.spec.name} finished at {rec.finish} before arriving at {rec.spec.arrival}"
        if not rec.terminated and math.isfinite(rec.spec.work):
            eps = 1e-9 * max(1.0, abs(rec.finish))
            if rec.turnaround + eps < rec.spec.work:
                return f"job {rec.spec.name} turnaround {rec.turnaround} < its work {rec.spec.work}"
    return None


def _options(args: list[str]) -> dict:
    out: dict = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--") and i + 1 < len(args) and not args[i + 1].startswith("--"):
            if a == "--policy":
                out.setdefault(a, []).append(args[i + 1])
            else:
                out[a] = args[i + 1]
            i += 2
        else:
            out[a] = True
            i += 1
    return out


def _int(v):
    return None if v is None else int(v)


def _float(v):
    return None if v is None else float(v)
