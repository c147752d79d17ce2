"""Benchmarks of the window. Prints figures; asserts nothing.

    python benchmarks/bench_gui.py                            # frames, play, memory (= all)
    python benchmarks/bench_gui.py --quick                    # all of them on small sizes, seconds
    python benchmarks/bench_gui.py frames [--frames 600]     # median frame time, 128 x 32 matrix
    python benchmarks/bench_gui.py scale [--frames 300]      # frame times at 1,024 x 64 and 9,216 x 32
    python benchmarks/bench_gui.py first [--trace FILE]      # time to the first frame of a trace
    python benchmarks/bench_gui.py play [--jobs 20000]       # longest gap between player ticks
    python benchmarks/bench_gui.py memory [--jobs 20000] [--trace FILE]  # history memory of a run
    python benchmarks/bench_gui.py soak [--frames 100000]    # render frames, check refcount(True)

Targets: median frame <= 8 ms at 128 x 32 and <= 16 ms at 1,024 x 64 and 9,216 x 32 (frames that
redraw the cached layer included); first frame of a 1,024-processor trace <= 3 s; longest tick
gap <= 50 ms; history <= 200 MB. ``--trace`` takes an SWF file (e.g. LANL-CM5, 1,024
processors); without it a 1,024-processor synthetic workload of as many jobs is generated. Everything runs
offscreen (QT_QPA_PLATFORM=offscreen is set when unset).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

from gangviz.core.changes import JobPlaced, SlotAdded
from gangviz.core.jobs import JobSpec
from gangviz.core.matrix import OusterhoutMatrix
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.source import load_source


def buddy_matrix(procs: int = 128, slots: int = 32, seed: int = 0):
    """Return (matrix, jobs): ``slots`` rows of random aligned buddy blocks, ~15% idle."""
    rng = np.random.default_rng(seed)
    m = OusterhoutMatrix(procs)
    jobs: list[JobSpec] = []
    for r in range(slots):
        SlotAdded(r).apply(m)
        c = 0
        while c < procs:
            size = int(2 ** rng.integers(0, 6))
            while c % size or c + size > procs:
                size //= 2
            if rng.random() > 0.15:
                jid = len(jobs)
                jobs.append(JobSpec(jid, f"J{jid}", 0.0, size, float(rng.integers(50, 500))))
                JobPlaced(jid, r, range(c, c + size)).apply(m)
            c += size
    m.set_active(0)
    return m, jobs


def _app():
    from gangviz.gui.app import application

    return application(offscreen=True)


def bench_frames(frames: int = 600, width: int = 1200, height: int = 700, cold: bool = False,
                 procs: int = 128, slots: int = 32, target_ms: float = 8.0) -> list[float]:
    """Animate what-if terminations on a ``procs`` x ``slots`` matrix; return per-frame times
    (seconds).

    ``cold`` drops the view's cached static layer before every frame (the worst case: every
    frame redraws all cells, boundaries, names and labels).
    """
    from PySide6.QtGui import QImage

    from gangviz.gui.matrix.view import MatrixWidget
    from gangviz.gui.playback.player import Player

    app = _app()
    m, jobs = buddy_matrix(procs, slots)
    policy = "br" if procs & (procs - 1) == 0 else "repack"
    sim = Simulation(jobs, make_policy(policy), procs, initial=m, watch=True)
    player = Player(sim, speed_level=2)
    view = MatrixWidget(player)
    view.resize(width, height)
    img = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    rng = np.random.default_rng(1)
    times: list[float] = []
    kinds: dict[str, int] = {}
    while len(times) < frames:
        running = sim.matrix.jobs()
        if not running:
            break
        player.terminate_now(int(rng.choice(running)))
        if not player.busy:
            player.step_forward(animate=True)
        while player.busy and len(times) < frames:
            if cold:
                view._static.clear()
            t0 = time.perf_counter()
            player.advance_animation(1 / 60)
            tr = player.transition
            if tr is not None:
                kinds[tr.change.kind] = kinds.get(tr.change.kind, 0) + 1
            view.render(img)
            times.append(time.perf_counter() - t0)
    player.stop()
    view.deleteLater()
    app.processEvents()
    print(f"frames{' (cold: no layer cache)' if cold else ''}: {len(times)} frames of a {procs:,} x "
          f"{sim.matrix.n_rows}..{slots} matrix at {width}x{height}; "
          f"median {statistics.median(times) * 1e3:.2f} ms, p95 {np.percentile(times, 95) * 1e3:.2f} ms, "
          f"max {max(times) * 1e3:.2f} ms (target median <= {target_ms:g} ms)")
    print(f"        change kinds animated (frames): {dict(sorted(kinds.items()))}")
    return times


def bench_first(trace: str | None = None, width: int = 1400, height: int = 900) -> float:
    """Return the seconds from asking the window to open a 1,024-processor trace until its
    first frame (matrix, vector and tree painted) is on screen."""
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QImage

    from gangviz.gui.window import MainWindow

    app = _app()
    settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "gangviz", "bench")
    win = MainWindow(source="", settings=settings)
    win.resize(width, height)
    win.show()
    app.processEvents()
    if trace is None:
        name, kwargs = "downey", {"jobs": 3000, "load": 0.8, "procs": 1024, "seed": 1}
    else:
        name, kwargs = trace, {}
    img = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    t0 = time.perf_counter()
    ok = win.open_source(name, "repack" if trace else "br", remember=False, **kwargs)
    app.processEvents()
    win.board.render(img)
    took = time.perf_counter() - t0
    procs = win.player.sim.processors if ok else 0
    print(f"first frame: {name if trace else 'downey, 3,000 jobs'} on {procs:,} processors in {took:.2f} s "
          f"(target <= 3 s)")
    win.close()
    win.deleteLater()
    app.processEvents()
    return took


def bench_play(jobs: int = 20000, load: float = 0.7, procs: int = 128) -> dict:
    """Play the downey workload under br at full speed in the full window; return figures."""
    from PySide6.QtCore import QEventLoop, QSettings

    from gangviz.gui.playback.player import SPEEDS
    from gangviz.gui.window import MainWindow

    app = _app()
    settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "gangviz", "bench")
    win = MainWindow(source="", settings=settings)
    win.resize(1400, 900)
    win.show()
    src = load_source("downey", jobs=jobs, load=load, procs=procs)
    sim = Simulation(src.jobs, make_policy("br"), src.processors)
    win.set_simulation(sim)
    player = win.player
    player.set_speed_level(len(SPEEDS) - 1)
    ticks: list[float] = []
    player.timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    loop = QEventLoop()
    player.finished.connect(loop.quit)
    t0 = time.perf_counter()
    player.play()
    loop.exec()
    wall = time.perf_counter() - t0
    gaps = np.diff(ticks) if len(ticks) > 1 else np.zeros(1)
    out = {"steps": player.position, "wall_s": wall, "ticks": len(ticks),
           "max_gap_ms": float(gaps.max() * 1e3), "p99_gap_ms": float(np.percentile(gaps, 99) * 1e3),
           "median_gap_ms": float(np.median(gaps) * 1e3)}
    print(f"play: {jobs} jobs, br, {procs} processors, load {load}: {out['steps']} steps in {wall:.1f} s "
          f"({out['steps'] / wall:.0f} steps/s) over {out['ticks']} ticks; gap between ticks: median "
          f"{out['median_gap_ms']:.1f} ms, p99 {out['p99_gap_ms']:.1f} ms, max {out['max_gap_ms']:.1f} ms "
          f"(target max <= 50 ms)")
    player.stop()
    win.close()
    win.deleteLater()
    app.processEvents()
    return out


def bench_memory(jobs: int = 20000, load: float = 0.7, procs: int = 128, trace: str | None = None) -> float:
    """Return the bytes the recorded history of the run holds (tracemalloc, engine only): the
    synthetic workload, or the whole of ``trace`` under repack when given."""
    src = load_source(trace) if trace else load_source("downey", jobs=jobs, load=load, procs=procs)
    policy = "repack" if trace else "br"
    sim = Simulation(src.jobs, make_policy(policy), src.processors, record=True)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    sim.run()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    snaps = len(getattr(sim, "_snapshots", {}))
    print(f"memory: {trace or f'downey {jobs} jobs'}: history of {len(sim.steps):,} steps ({snaps} snapshots) "
          f"holds {used / 1e6:.1f} MB, {used / max(len(sim.steps), 1):.0f} bytes per step "
          f"(tracemalloc, {time.perf_counter() - t0:.0f} s; target <= 200 MB)")
    return used


def bench_soak(frames: int = 100_000) -> int:
    """Render ``frames`` animation frames offscreen; return 0 when refcount(True) did not fall."""
    from PySide6.QtGui import QImage

    from gangviz.gui.matrix.vector import VectorTreeView
    from gangviz.gui.matrix.view import MatrixWidget
    from gangviz.gui.playback.player import Player

    app = _app()
    # A stable load, so the matrix keeps a steady size for the whole soak (BRMS at 0.9 grows
    # without bound and would measure that growth instead).
    src = load_source("downey", jobs=100_000, load=0.7, procs=64, seed=5)
    sim = Simulation(src.jobs, make_policy("brmms"), src.processors, record=False)
    player = Player(sim, speed_level=5)
    view, vec = MatrixWidget(player), VectorTreeView(player)
    view.resize(900, 400)
    vec.resize(900, 160)
    img, img2 = QImage(900, 400, QImage.Format.Format_ARGB32_Premultiplied), QImage(900, 160, QImage.Format.Format_ARGB32_Premultiplied)
    before = sys.getrefcount(True)
    t0 = time.perf_counter()
    done = 0
    while done < frames:
        if not player.busy and player.step_forward(animate=True) is None:
            break
        player.advance_animation(0.02)
        view.render(img)
        if done % 10 == 0:
            vec.render(img2)
            app.processEvents()
        done += 1
    after = sys.getrefcount(True)
    player.stop()
    print(f"soak: {done} frames in {time.perf_counter() - t0:.0f} s; refcount(True) {before} -> {after}"
          f" ({'ok' if after >= before else 'FELL'})")
    return 0 if after >= before and done == frames else 1


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmark(s); return 0 (1 when the soak fails)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", nargs="?", default="all",
                    choices=["frames", "scale", "first", "play", "memory", "soak", "all"],
                    help="which benchmark (default all: frames, scale, first, play, memory)")
    ap.add_argument("--frames", type=int, default=None,
                    help="frames to render (default 600; scale 300; soak: 100,000)")
    ap.add_argument("--jobs", type=int, default=20000, help="jobs of the played run (default 20000)")
    ap.add_argument("--trace", default=None, help="an SWF trace for 'first' and 'memory'")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes (20 frames, a quarter of scale's slots, 200 jobs; soak 2,000 "
                         "frames): a check that it runs")
    args = ap.parse_args(argv)
    if args.quick:
        args.frames = args.frames or (2000 if args.what == "soak" else 20)
        args.jobs = min(args.jobs, 200)
    if args.what in ("frames", "all"):
        bench_frames(args.frames or 600)
        bench_frames(args.frames or 600, cold=True)
    if args.what in ("scale", "all"):
        for procs, slots in ((1024, 64), (9216, 32)):
            if args.quick:  # the wide matrices' drawing, at a quarter of the rows to build
                slots //= 4
            bench_frames(args.frames or 300, procs=procs, slots=slots, target_ms=16)
            bench_frames(args.frames or 300, procs=procs, slots=slots, target_ms=16, cold=True)
    if args.what in ("first", "all"):
        bench_first(args.trace)
    if args.what in ("play", "all"):
        bench_play(args.jobs)
    if args.what in ("memory", "all"):
        bench_memory(args.jobs, trace=args.trace)
    if args.what == "soak":
        return bench_soak(args.frames or 100_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
