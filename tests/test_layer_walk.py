"""One run and one window step go down the layers and never climb back.

The import contracts (``tests/test_layers.py``) say which module may *import* which; this test
watches what actually *calls* what. While ``gangviz run`` works through a scenario and a trace,
and while the window opens a scenario, takes one step and paints it, every Python call from one
module of the package into another is recorded (``sys.setprofile``). A call from a module of a
lower layer into one of a higher layer — a callback climbing back up, say from the engine into
the window — fails the test, naming both functions. Calls within one layer, and calls that pass
through code outside the package (Qt's event loop, numpy), are not climbs.

Two kinds of upward call are the design: the engine calls the policy it was given
(``Policy.schedule``), a method that a class of the engine's own layer declares
(``gangviz/sim/policy.py``) and a policy overrides; and a sequence of records made on read
(``gangviz/core/lazy.py``) asks its subclass for its length and an item. Such a call is a *dispatch*: it is allowed
when the called object's class inherits the method's name from a class defined at the caller's
layer or below, and the test lists the dispatches it allowed so that a new one is seen.

``docs/architecture.md`` follows the same two paths in prose.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gangviz"
SWF = ROOT / "resources" / "traces"


def _layers() -> list[list[str]]:
    """The layers of the import contract, highest first, each a list of sibling packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    return [[name.strip() for name in layer.split("|")] for layer in layers]


def _rank_of() -> Callable[[str], int | None]:
    """A function from a module's dotted name to its layer's rank (0 = highest), or None."""
    ranks = {name: i for i, group in enumerate(_layers()) for name in group}

    def rank(module: str) -> int | None:
        parts = module.split(".")
        for k in range(len(parts), 0, -1):
            hit = ranks.get(".".join(parts[:k]))
            if hit is not None:
                return hit
        return None

    return rank


def _module_of(frame: FrameType) -> str | None:
    """The dotted name of the package module a frame runs in, or None outside the package."""
    path = Path(frame.f_code.co_filename)
    try:
        rel = path.resolve().relative_to(PACKAGE.resolve())
    except (ValueError, OSError):
        return None
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["gangviz", *parts])


@contextmanager
def _calls() -> Iterator[set[tuple[str, str, str, str]]]:
    """Record (caller module, caller function, callee module, callee function) of every call
    from one package module into another while the block runs."""
    seen: set[tuple[str, str, str, str]] = set()
    dispatched: set[tuple[str, str, str, str]] = set()
    rank = _rank_of()

    def _declared_below(frame: FrameType, name: str, caller: str) -> bool:
        """Whether the call is a method whose name a class at the caller's layer or below
        declares, on an object of a class that inherits it (dispatch through a base class)."""
        owner = frame.f_locals.get("self")
        floor = rank(caller)
        if owner is None or floor is None:
            return False
        for base in type(owner).__mro__[1:]:
            base_rank = rank(base.__module__)
            if base_rank is not None and base_rank >= floor and name in vars(base):
                return True
        return False

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee = _module_of(frame)
        if callee is None:
            return
        caller = _module_of(frame.f_back)
        if caller is None or caller == callee:
            return
        name = frame.f_code.co_name
        above, below = rank(caller), rank(callee)
        climbs = above is not None and below is not None and below < above
        if climbs and _declared_below(frame, name, caller):
            dispatched.add((caller, frame.f_back.f_code.co_name, callee, name))
        else:
            seen.add((caller, frame.f_back.f_code.co_name, callee, name))

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)
        DISPATCHES.update(dispatched)


#: Every dispatch through a base class that the walks allowed (see the module's docstring).
DISPATCHES: set[tuple[str, str, str, str]] = set()


def _climbs(seen: set[tuple[str, str, str, str]]) -> list[str]:
    rank = _rank_of()
    out = []
    for caller, cfun, callee, efun in sorted(seen):
        above, below = rank(caller), rank(callee)
        if above is not None and below is not None and below < above:
            out.append(f"{caller}.{cfun} -> {callee}.{efun}")
    return out


def _layers_touched(seen: set[tuple[str, str, str, str]]) -> set[int]:
    rank = _rank_of()
    return {r for edge in seen for r in (rank(edge[0]), rank(edge[2])) if r is not None}


@pytest.mark.parametrize("argv", [
    ["run", "fig2-repacking", "--policy", "repack"],
    ["run", "fig2-repacking", "--policy", "gs", "--json"],
    ["run", "downey", "--jobs", "200", "--seed", "3", "--policy", "easy"],
    ["run", "downey", "--jobs", "200", "--seed", "3", "--policy", "brmms"],
], ids=["repack", "gs-json", "easy", "brmms"])
def test_a_run_goes_down_the_layers(argv, capsys):
    from gangviz.cli import main

    # once unwatched first: a compiled loop's first call compiles it, and numba's compiler is
    # a great deal of Python that the recorder would slow to a crawl
    assert main(argv) == 0
    with _calls() as seen:
        assert main(argv) == 0
    capsys.readouterr()
    assert not _climbs(seen), "calls that climb a layer:\n" + "\n".join(_climbs(seen))
    # the walk is a real one: from the command line down to the core
    rank = _rank_of()
    assert {rank("gangviz.cli"), rank("gangviz.commands"), rank("gangviz.core")} <= \
        _layers_touched(seen)


def test_a_window_step_goes_down_the_layers(qtbot, monkeypatch, tmp_path):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from gangviz.gui.window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    with _calls() as seen:
        win = MainWindow(settings=settings)
        qtbot.addWidget(win)
        win.resize(1000, 700)
        win.show()
        qtbot.waitExposed(win)
        win.player.step_forward(animate=False)
        picture = win.grab()
    win.close()
    assert not picture.isNull()
    assert not _climbs(seen), "calls that climb a layer:\n" + "\n".join(_climbs(seen))
    rank = _rank_of()
    assert {rank("gangviz.gui"), rank("gangviz.factory"), rank("gangviz.sim"),
            rank("gangviz.core")} <= _layers_touched(seen)


def test_a_climb_is_caught():
    """A call from a low layer into a high one is named; one downwards or sideways is not."""
    rank = _rank_of()
    assert rank("gangviz.core.matrix") > rank("gangviz.commands.errors")  # type: ignore[operator]
    seen = {("gangviz.core.matrix", "f", "gangviz.commands.errors", "g"),
            ("gangviz.commands.run", "h", "gangviz.core.matrix", "k"),
            ("gangviz.multisite.fast", "m", "gangviz.epoch.model", "n")}
    assert _climbs(seen) == ["gangviz.core.matrix.f -> gangviz.commands.errors.g"]


def test_the_allowed_dispatches_are_the_engine_calling_its_policy():
    """Every upward call the walks above allowed is the engine (or a model's loop) calling a
    method of the policy it was given, or a sequence made on read asking its subclass for its
    length and items; a new kind of dispatch has to be looked at and added."""
    if not DISPATCHES:
        pytest.skip("runs alone: the walks above record the dispatches")
    rank = _rank_of()
    lazy = {edge for edge in DISPATCHES if edge[0] == "gangviz.core.lazy"}
    assert {edge[3] for edge in lazy} <= {"__len__", "_make"}, sorted(lazy)
    kinds = {(edge[0].rsplit(".", 1)[0], edge[3]) for edge in DISPATCHES - lazy}
    assert kinds <= {("gangviz.sim", "schedule"), ("gangviz.sim", "check_initial")}, sorted(kinds)
    assert all(rank(edge[0]) == rank("gangviz.sim") for edge in DISPATCHES - lazy)
