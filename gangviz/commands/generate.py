"""``gangviz generate MODEL ...``: write a synthetic workload as SWF.

Models: ``downey`` (uniform-log sizes and run times, Zhou00 §4.2), ``hyper-erlang`` (Zhang01 §2.1,
with ``--phi`` estimates, optionally fitted per size class to a trace with ``--fit``),
``gangs`` (Papazachos09 §2) and ``min-nodes`` (McCann94 Table 3). The output reads back with ``read_swf`` to
the same jobs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from gangviz.core.limits import check_slice_seconds
from gangviz.experiments.options import add_seed
from gangviz.outputs import check_output
from gangviz.workloads import synthetic
from gangviz.workloads.model import Workload
from gangviz.workloads.swf import read_swf, write_swf

DESCRIPTION = (
    "Write a synthetic workload as an SWF file that reads back to the same jobs. Models: "
    "downey (uniform-log sizes and run times, Zhou and Walsh (2000) §4.2), hyper-erlang "
    "(Zhang et al. (2001) §2.1, with user estimates from --phi, optionally fitted per size "
    "class to a trace with --fit), gangs (Papazachos and Karatza §2) and min-nodes (McCann and "
    "Zahorjan (1994) Table 3).")


def _moments(text: str) -> tuple[float, float, float]:
    parts = text.replace(",", " ").split()
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3:
        raise argparse.ArgumentTypeError(f"expected three raw moments 'M1,M2,M3', got {text!r}")
    return values


def _check_out(a: argparse.Namespace) -> None:
    """Refuse an existing or unwritable ``-o`` before any workload is generated."""
    if getattr(a, "output", "-") != "-":
        check_output(a.output, force=a.force)


def _model(make: Callable[[argparse.Namespace], Workload]) -> Callable[[argparse.Namespace], int]:
    """Return the command of a model: check ``-o``, then write the workload ``make(args)``."""
    def command(a: argparse.Namespace) -> int:
        _check_out(a)
        return _emit(a, make(a))
    return command


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``generate`` sub-command with one nested parser per model."""
    p = sub.add_parser("generate", help="write a synthetic workload as SWF",
                       description=DESCRIPTION)
    inner = p.add_subparsers(dest="model", metavar="MODEL")

    def common(q: argparse.ArgumentParser, jobs: int) -> None:
        q.add_argument("--jobs", type=int, default=jobs, help=f"number of jobs (default {jobs})")
        add_seed(q)
        q.add_argument("-o", "--out", "--output", dest="output", default="-", metavar="FILE",
                       help="SWF file to write (.gz compresses); '-' for stdout (default)")
        q.add_argument("--slice", type=float, default=1.0, dest="slice_seconds", metavar="SECONDS",
                       help="seconds per slice in the written file (default 1)")
        q.add_argument("--force", action="store_true", help="overwrite an existing -o file")

    d = inner.add_parser("downey", help="uniform-log sizes and run times (Zhou and Walsh (2000) §4.2)")
    common(d, 200)
    d.add_argument("--load", type=float, default=0.5, help="offered load rho (default 0.5)")
    d.add_argument("--procs", type=int, default=128, help="processors (default 128)")
    d.add_argument("--max-work", type=int, default=120, help="longest run time in slices (default 120)")
    d.set_defaults(func=_model(lambda a: synthetic.uniform_log(
        a.jobs, a.load, procs=a.procs, max_work=a.max_work, seed=a.seed)))

    h = inner.add_parser("hyper-erlang", help="hyper-Erlang times fitted to three moments (Zhang et al. (2001) §2.1)")
    common(h, 1000)
    h.add_argument("--procs", type=int, default=320, help="processors (default 320)")
    h.add_argument("--interarrival", type=_moments, default=synthetic.DEFAULT_INTERARRIVAL,
                   metavar="M1,M2,M3", help="raw moments of the inter-arrival time (slices)")
    h.add_argument("--service", type=_moments, default=synthetic.DEFAULT_SERVICE,
                   metavar="M1,M2,M3", help="raw moments of the service time (slices)")
    h.add_argument("--max-size", type=int, default=256, help="largest job size (default 256)")
    h.add_argument("--fit", metavar="SWF", help="fit one class per power-of-two size bin to this trace")
    h.add_argument("--arrival-factor", type=float, default=1.0, help="multiplies the arrival rate")
    h.add_argument("--service-factor", type=float, default=1.0, help="multiplies service times")
    h.add_argument("--phi", type=float, default=None,
                   help="Phi of the over-estimation model; writes estimates (default: none)")
    h.set_defaults(func=_hyper_erlang)

    g = inner.add_parser("gangs", help="bounded-normal or uniform gang sizes (Papazachos and Karatza §2)")
    common(g, 1000)
    g.add_argument("--sizes", choices=("normal", "uniform"), default="normal",
                   help="distribution of the gang sizes (default normal)")
    g.add_argument("--sigma", type=float, default=3.0, help="standard deviation (default 3)")
    g.add_argument("--bound", choices=("resample", "clip"), default="resample",
                   help="how the normal is kept in 1..P (default resample)")
    g.add_argument("--lam", type=float, default=2.4, help="arrival rate (default 2.4)")
    g.add_argument("--mu", type=float, default=1.0, help="service rate (default 1)")
    g.add_argument("--site-procs", type=int, default=16, help="processors per site P (default 16)")
    g.add_argument("--sites", type=int, default=2, help="sites (default 2)")
    g.set_defaults(func=_model(lambda a: synthetic.gangs(
        a.jobs, sizes=a.sizes, sigma=a.sigma, lam=a.lam, mu=a.mu, site_procs=a.site_procs,
        sites=a.sites, bound=a.bound, seed=a.seed)))

    m = inner.add_parser("min-nodes", help="uniform minimum node requirements (McCann and Zahorjan (1994) Table 3)")
    common(m, 8)
    m.add_argument("--nodes", type=int, default=128, help="nodes N (default 128)")
    m.add_argument("--load", type=float, default=1.0, help="load factor L (default 1.0 = 100%%)")
    m.add_argument("--count", type=int, default=None,
                   help="jobs to write, population first then replacements (default --jobs)")
    m.set_defaults(func=_model(lambda a: synthetic.min_nodes(
        a.jobs, nodes=a.nodes, load=a.load, count=a.count, seed=a.seed)))

    def usage(a: argparse.Namespace) -> int:  # no model named: say which there are
        p.print_help()
        return 2

    p.set_defaults(func=usage)


def _hyper_erlang(a: argparse.Namespace) -> int:
    _check_out(a)
    classes = None
    if a.fit:
        left, classes = synthetic.fit_classes(read_swf(a.fit, procs=a.procs))
        for lo, hi, count in left:
            print(f"gangviz: size class {lo}..{hi} ({count} job{'' if count == 1 else 's'}) could not be fitted; left out",
                  file=sys.stderr)
    return _emit(a, synthetic.hyper_erlang(
        a.jobs, procs=a.procs, interarrival=a.interarrival, service=a.service,
        max_size=a.max_size, classes=classes, arrival_factor=a.arrival_factor,
        service_factor=a.service_factor, phi=a.phi, seed=a.seed))


def _emit(a: argparse.Namespace, w: Workload) -> int:
    check_slice_seconds(a.slice_seconds)
    w.slice_seconds = a.slice_seconds
    if a.output == "-":
        write_swf(w, sys.stdout)
    else:
        write_swf(w, a.output)
        print(f"wrote {len(w.jobs)} jobs to {a.output}", file=sys.stderr)
    return 0
