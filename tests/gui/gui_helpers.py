"""Shared helpers of the GUI tests: build players and probe grabbed pictures."""

from __future__ import annotations

from PySide6.QtGui import QColor, QImage, QPainter

from gangviz.gui.playback.player import Player
from gangviz.policies import make_policy
from gangviz.sim.engine import Simulation
from gangviz.workloads.source import load_source


def fig2_sim(watch: bool = True) -> Simulation:
    """Return a fresh simulation of the built-in Fig. 2 scenario."""
    src = load_source("fig2-repacking")
    return Simulation(src.jobs, make_policy(src.policy), src.processors, initial=src.matrix,
                      script=src.script, watch=watch)


def downey_sim(policy: str = "br", jobs: int = 60, procs: int = 32, load: float = 0.8,
               seed: int = 3, watch: bool = False) -> Simulation:
    """Return a small synthetic-workload simulation."""
    src = load_source("downey", jobs=jobs, load=load, procs=procs, seed=seed)
    return Simulation(src.jobs, make_policy(policy), src.processors, watch=watch)


def job_id(sim, name: str) -> int:
    """Return the id of the job called ``name``."""
    return next(j for j, r in sim.jobs.items() if r.spec.name == name)


def pixel(img: QImage, x: float, y: float) -> QColor:
    """Return the colour at (x, y) of ``img`` (device-independent coordinates)."""
    ratio = img.devicePixelRatio()
    return QColor(img.pixel(int(x * ratio), int(y * ratio)))


def close_rgb(a: QColor, b: QColor, tol: int = 6) -> bool:
    """Return whether two colours match within ``tol`` per channel."""
    return all(abs(p - q) <= tol for p, q in zip(a.getRgb()[:3], b.getRgb()[:3]))


def make_player(qtbot, sim) -> Player:
    """Return a player on ``sim`` whose timer is stopped when the test ends."""
    p = Player(sim)
    qtbot.addWidget  # noqa: B018 (keeps qtbot in the signature for symmetry)
    return p


def record_painted_texts(monkeypatch, module) -> list[str]:
    """Make ``module``'s ``QPainter`` record the strings it paints (``drawText``'s last
    argument) and return the list they are appended to, for the test's lifetime."""
    texts: list[str] = []

    class Painter(QPainter):
        def drawText(self, *args):
            if args and isinstance(args[-1], str):
                texts.append(args[-1])
            return super().drawText(*args)

    monkeypatch.setattr(module, "QPainter", Painter)
    return texts
