"""The Player: drives one simulation on the GUI thread and animates its steps.

One ``Player`` per simulation, on the GUI thread, driven by a parented
``QTimer``; each tick runs the simulation forward by the speed setting with a cap on the work
per tick and emits coarse signals. Views never poll the simulation between ticks: they listen to
``stepped``/``moved`` and repaint on ``frame``.

The player drives any :class:`gangviz.sim.protocol.Simulation` (the Ousterhout matrix engine,
the multi-site, epoch and space-sharing simulations) through that protocol alone. Only the
matrix family (whose snapshot is an :class:`~gangviz.core.matrix.OusterhoutMatrix`) gets
per-change animation; for the others the view receives each step through ``stepped`` and
animates it itself.

Speed: ``SPEEDS`` are multipliers of the lecture pace, where one change animates in
``CHANGE_SECONDS`` and a step then rests ``HOLD_SECONDS``. When a change would animate in less than
``MIN_ANIM_SECONDS`` the animation is skipped and only results are drawn; the player then takes
as many steps per tick as the speed asks for, but never works longer than ``TICK_BUDGET`` seconds
in one tick, so the event loop stays responsive (a tick stays well under 50 ms), and views are asked
to repaint at most every ``BATCH_REDRAW`` seconds.

Speed on a trace: :meth:`Player.set_time_rate` sets a speed in simulated time instead (slices per
second, :mod:`gangviz.gui.playback.speeds`): playing then moves a clock at that rate and takes, each tick
and within the same budget, every step due by the clock, without animation (a trace's hundred
thousand jobs are no lecture); when the simulation cannot keep up the clock waits for it rather
than run ahead. Step, Back and seeks are the same in both modes.

History: stepping back uses the model's own history (``go_to``/``step_back``). The player keeps
the narration and the re-pack/migration/deletion markers of every step it has seen (``known``),
so the timeline still shows the future after stepping back (the engine is deterministic, so that
future comes back identical); a what-if action (terminate now / submit now) forgets the steps
after the current one because it changes the future.

Guided exercise: with ``guided`` on, a step with a re-pack (a change of ``MOVE_KINDS``)
taken by playing or stepping is animated up to its first moving change and held there, at
``t`` = 0 (the picture before the move), with the timer stopped; :attr:`gate` says which change
waits and ``gateChanged`` tells the views; :meth:`reveal` plays the rest of the step. Jumps
(``go_to``, ``next_move``, seeks) never stop at a gate. Tie-break: one gate per step, before its
first moving change; the changes before it (terminations, a slice moving on) play as usual.

Stepping by move: :meth:`step_move` and :meth:`back_move` stop after each move of a step (each
change record but a slice moving on, :func:`gangviz.core.changes.move_ends`), so a lecturer can
stop on every shift, migration, slot deletion, placement and termination of one scheduling
decision (Zhou99 Fig. 2(b), (c), (d) are three stops of one step). Between two stops of one
step the simulation stays after the step and the picture is the step's animation held after
the move (:attr:`move_stop` says which); steps in which nothing moves are passed over (the
picture after them differs only in the running slot). :meth:`step_forward`/:meth:`step_back`
still take whole decisions: from a stop within a step, forward shows the rest of that step.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QObject, QTimer, Signal

from gangviz.core import registry
from gangviz.core.changes import (
    MOVE_KINDS,
    STILL_KINDS,
    JobMigrated,
    RegionSwapped,
    RowActivated,
    SlotAdded,
    SlotRemoved,
    move_ends,
)
from gangviz.core.record import undo
from gangviz.sim.protocol import Simulation
from gangviz.userpolicy.errors import RuleViolation

if TYPE_CHECKING:
    from gangviz.core.matrix import OusterhoutMatrix
    from gangviz.core.record import Change, Step

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 32.0, 128.0, 1024.0, float("inf"))
DEFAULT_SPEED_LEVEL = 2  # 1x: half a second per change
CHANGE_SECONDS = 0.5
HOLD_SECONDS = 0.35
#: the key moments of a step (a slot deletion: the WLT root turning non-zero [Zhou99 §4]) are
#: held this long at 1x before they play, the empty slot and its sentence on screen, so a lecture
#: can point at them
KEY_PAUSE_SECONDS = 2.5
KEY_KINDS = frozenset({"slot_removed"})
#: Relative duration of each kind of change's animation (a slice moving on is quick; a collapse
#: takes longer); every other change takes 1.
ANIMATION_WEIGHT: dict[type[Change | None], float] = {RowActivated: 0.4, SlotRemoved: 1.4, SlotAdded: 0.8,
                                               JobMigrated: 1.3, RegionSwapped: 1.2}
MIN_ANIM_SECONDS = 0.03
TICK_MS = 16
TICK_BUDGET = 0.012
#: Seconds between two gc.freeze() calls while steps are batched.
FREEZE_EVERY = 0.5
#: while steps are batched (animation skipped), views are told to repaint at most this often
BATCH_REDRAW = 0.05
#: a jump forward of at most this many steps is done at once; longer ones seek over ticks
SYNC_STEPS = 16
#: stepping by move passes over at most this many steps in which nothing moves in one key press
MAX_STILL_STEPS = 5000


def animation_weight(change: Change | None) -> float:
    """Return the relative duration of ``change``'s animation (1 for ``None``: a whole step of
    a model without a matrix)."""
    return ANIMATION_WEIGHT.get(type(change), 1.0)


@dataclass(slots=True)
class KnownStep:
    """What the player remembers about one step (kept after stepping back)."""

    time: float
    cause: str
    narration: list[str]
    move: bool


@dataclass(slots=True)
class Transition:
    """The change being animated: ``state`` is the matrix before ``change``; ``t`` in [0, 1]."""

    state: OusterhoutMatrix
    change: Change
    t: float = 0.0
    index: int = 0  # position of the change in its step
    count: int = 1


@dataclass(frozen=True, slots=True)
class MoveStop:
    """Where stepping by move stands: move ``number`` (1-based) of the ``count`` moves of step
    ``step`` (1-based) is shown; ``change`` is that move, ``index`` its position among the step's
    changes (its sentence in the step's narration) and ``state`` the matrix just before it (what
    the move cues draw the ghost and trail from)."""

    step: int
    number: int
    count: int
    change: Change
    index: int
    state: OusterhoutMatrix


@dataclass
class _Anim:
    step: Step
    work: OusterhoutMatrix
    changes: list[Change]
    i: int = 0
    elapsed: float = 0.0
    durations: list[float] = field(default_factory=list)
    leads: list[float] = field(default_factory=list)  # seconds each change rests before it moves
    gate: int | None = None  # hold before this change until revealed (guided exercise)
    until: int | None = None  # stepping by move: hold once this many changes are applied
    held: bool = False  # held at ``until`` (a stop within the step)
    before: OusterhoutMatrix | None = None  # the matrix before the step (stepping by move)


class Player(QObject):
    """Plays one simulation; see the module docstring.

    Signals:
        stepped(step): one step was taken forward (animation of its changes follows).
        moved(): the position changed without animation (back, jump, batch of steps, reset).
        frame(): an animation frame is due (views holding a transition repaint).
        finished(): the simulation has nothing more to do.
        playingChanged(bool), speedChanged(int), historyChanged(): UI state.
    """

    stepped = Signal(object)
    moved = Signal()
    frame = Signal()
    finished = Signal()
    playingChanged = Signal(bool)
    speedChanged = Signal(int)
    historyChanged = Signal()
    gateChanged = Signal(bool)
    #: A step the simulation refused (a user's policy broke a rule or failed): the one-line
    #: message. The player stops there; the steps before stay.
    failed = Signal(str)

    def __init__(self, sim: Simulation, parent: QObject | None = None, *, speed_level: int = DEFAULT_SPEED_LEVEL):
        super().__init__(parent)
        self.sim = sim
        #: Why the simulation refused its next step (:attr:`failed`), or ``None``.
        self.failure: str | None = None
        #: The broken rule behind :attr:`failure` (a user policy's
        #: :class:`~gangviz.userpolicy.errors.RuleViolation`: its rule, file:line and the cells it
        #: asked for), or ``None`` for any other failure. It belongs to the position
        #: ``len(known)``: the picture just before the refused step.
        self.violation: RuleViolation | None = None
        self.known: list[KnownStep] = []
        self.markers: list[int] = []  # indices (0-based) of steps with a re-pack/migration/deletion
        self.move_kinds: set[str] = set()  # the MOVE_KINDS any step seen so far has shown (the key names them)
        self._speed_level = max(0, min(speed_level, len(SPEEDS) - 1))
        #: simulated slices per second while playing (a trace), or ``None``: the lecture pace
        self.time_rate: float | None = None
        self._clock = 0.0
        self._playing = False
        self._anim: _Anim | None = None
        self._hold = 0.0
        self._seek: int | None = None
        self._last_tick = time.perf_counter()
        self._finished_sent = False
        self._unshown = 0
        self._last_moved = 0.0
        self.guided = False
        self._gated = False
        self._stop: MoveStop | None = None
        self._holds: list[Callable[[], bool]] = []
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self._last_freeze = 0.0
        self.timer.timeout.connect(self._tick)
        self._remember_existing()

    # ------------------------------------------------------------ properties
    @property
    def position(self) -> int:
        """Return the number of steps applied (0 = the starting picture)."""
        return self.sim.position

    @property
    def furthest(self) -> int:
        """Return the number of steps known (taken at some point and still valid)."""
        return len(self.known)

    @property
    def playing(self) -> bool:
        """Return whether the player is running."""
        return self._playing

    @property
    def speed_level(self) -> int:
        """Return the index into ``SPEEDS`` of the current speed."""
        return self._speed_level

    @property
    def speed(self) -> float:
        """Return the speed multiplier (``inf``: as fast as the tick budget allows)."""
        return SPEEDS[self._speed_level]

    @property
    def animates(self) -> bool:
        """Return whether steps are animated at the current speed."""
        return self.has_matrix and CHANGE_SECONDS / self.speed >= MIN_ANIM_SECONDS

    @property
    def has_matrix(self) -> bool:
        """Return whether the simulation is of the matrix family (drawn as an Ousterhout matrix)."""
        return registry.family(self.sim.family).matrix

    @property
    def paced(self) -> bool:
        """Return whether playing takes one step at a time, slowly enough to watch it."""
        return CHANGE_SECONDS / self.speed >= MIN_ANIM_SECONDS

    @property
    def transition(self) -> Transition | None:
        """Return the change being animated now, or ``None`` (draw the model as it is)."""
        a = self._anim
        if a is None or a.i >= len(a.changes) or a.held:
            return None
        lead = a.leads[a.i] if a.i < len(a.leads) else 0.0
        d = a.durations[a.i] - lead
        t = min(max(a.elapsed - lead, 0.0) / d, 1.0) if d > 0 else 1.0
        if a.gate == a.i:
            t = 0.0
        return Transition(a.work, a.changes[a.i], t, a.i, len(a.changes))

    def transition_changes(self) -> list[Change]:
        """Return the changes of the animated step from the current one on (empty when no
        animation runs); the guided exercise reads the job a held step will place."""
        a = self._anim
        return [] if a is None else list(a.changes[a.i:])

    @property
    def display_state(self) -> OusterhoutMatrix | None:
        """Return the matrix to draw: the animation's working copy, else the model's matrix
        (``None`` for a family without one)."""
        if self._anim is not None:
            return self._anim.work
        return self._matrix() if self.has_matrix else None

    @property
    def gate(self) -> Transition | None:
        """Return the move waiting for :meth:`reveal` (at ``t`` = 0), or ``None``."""
        return self.transition if self._gated else None

    @property
    def busy(self) -> bool:
        """Return whether an animation or a seek is in progress (a stop between two moves of a
        step is not one)."""
        return (self._anim is not None and not self._anim.held) or self._seek is not None

    @property
    def move_stop(self) -> MoveStop | None:
        """Return the move stepping by move stopped on (shown at rest), or ``None`` when the
        picture was reached otherwise (a whole step, a jump, playing) or a move is animating."""
        if self._anim is not None and not self._anim.held:
            return None
        return self._stop

    @property
    def held(self) -> bool:
        """Return whether a view asked (:meth:`hold_while`) to finish showing the last step."""
        return any(h() for h in self._holds)

    # --------------------------------------------------------------- control
    def hold_while(self, showing: Callable[[], bool]) -> None:
        """While playing at a paced speed, take no next step while ``showing()`` is true.

        A view that builds its picture of a step on its own clock (e.g. BUDDY's construction)
        registers here so that playing never draws the next step over an unfinished one. Batched
        speeds do not wait: the view must then jump to its end when the next step arrives.
        """
        self._holds.append(showing)

    def set_speed_level(self, level: int) -> None:
        """Set the speed to ``SPEEDS[level]`` (clamped to the valid range)."""
        level = max(0, min(int(level), len(SPEEDS) - 1))
        if level != self._speed_level:
            self._speed_level = level
            self.speedChanged.emit(level)
            if not self.animates and self._anim is not None and not self._anim.held:
                self._finish_anim()

    def set_time_rate(self, rate: float | None) -> None:
        """Play at ``rate`` simulated slices per second (``None``: back to the speed levels of
        the lecture pace)."""
        self.time_rate = None if rate is None else max(float(rate), 1e-9)

    def set_guided(self, on: bool) -> None:
        """Turn the guided exercise on or off (off releases a waiting move at once)."""
        self.guided = bool(on)
        if not on and self._gated:
            self.reveal()

    def reveal(self) -> bool:
        """Play the move held by the guided exercise; return whether one was waiting."""
        if not self._gated:
            return False
        self._gated = False
        if self._anim is not None:
            self._anim.gate = None
            self._anim.elapsed = 0.0
        self.gateChanged.emit(False)
        self._ensure_timer()
        return True

    def play(self) -> None:
        """Start playing (does nothing when the simulation is done)."""
        if self._playing or self._sim_done():
            if self._sim_done():
                self._notify_finished()
            return
        self._playing = True
        self._hold = 0.0
        self._release_stop()
        self._clock = float(self.sim.time)
        self._ensure_timer()
        self.playingChanged.emit(True)

    def pause(self) -> None:
        """Stop playing; a running animation completes on its own."""
        if not self._playing:
            return
        self._playing = False
        self.playingChanged.emit(False)
        if self._unshown:
            self._unshown = 0
            self.moved.emit()
        if self._anim is None and self._seek is None:
            self.timer.stop()

    def toggle(self) -> None:
        """Play when paused, pause when playing."""
        self.pause() if self._playing else self.play()

    def step_forward(self, animate: bool | None = None) -> Any:
        """Take one step (animated when the speed allows it, unless ``animate`` is False).

        From a stop within a step (stepping by move) it shows the rest of that step instead.
        Returns the step, or ``None`` when the simulation is done.
        """
        a = self._anim
        if a is not None and a.held:
            self._finish_anim()
            self.moved.emit()
            return a.step
        self._finish_anim()
        self._seek = None
        return self._advance(self.animates if animate is None else animate, guide=True)

    # ------------------------------------------------------------ by move
    def step_move(self, animate: bool | None = None) -> bool:
        """Show the next move (see the module docstring): the next stop of the step shown, else
        the first move of the next step in which something moves (steps in between are taken
        at once). Animated when the speed allows it, unless ``animate`` is False. Returns
        whether a move was shown (``False`` at the end of the run)."""
        animate = self.animates if animate is None else animate
        self._seek = None
        a = self._anim
        if a is not None and not a.held and a.until is not None and a.before is not None:
            self._show_stop(a.step, a.before, a.until)  # a move still sliding ends first
            a = self._anim
        if a is not None and a.held:
            ends = move_ends(a.changes)
            nxt = next(e for e in ends if e > a.i)
            if animate:
                a.held, a.until, a.elapsed = False, nxt, 0.0
                a.durations, a.leads = self._timing(a.changes)
                self._stop = None
                self._ensure_timer()
                self.frame.emit()
            else:
                self._show_stop(a.step, a.before if a.before is not None else self._before(a.step), nxt)
            return True
        self._finish_anim()
        if not self.has_matrix:
            return self._advance(animate) is not None
        for _ in range(MAX_STILL_STEPS):
            before = self._matrix().copy()
            step = self._advance_quietly()
            if step is None:
                self.moved.emit()
                return False
            ends = move_ends(step.changes)
            if ends:
                break
        else:
            self.moved.emit()
            return True
        if animate:
            anim = self._start_anim(step, before)
            anim.until, anim.before = ends[0], before.copy()
            self._stop = None
            self.stepped.emit(step)
        else:
            self.stepped.emit(step)
            self._show_stop(step, before, ends[0])
        return True

    def back_move(self) -> bool:
        """Show the move before the one shown, at rest: the previous stop of this step, else
        the last move of the latest earlier step in which something moved (else the starting
        picture). Returns whether the picture went back (``False`` at the start)."""
        self._seek = None
        a = self._anim
        if a is not None and not a.held:
            self._finish_anim()  # an animated move ends first; going back starts from its end
            a = None
        if not self.has_matrix:
            return self.step_back() is not None
        pos = self.position
        if a is not None:
            step, shown = a.step, a.i
        elif pos > 0:
            step = self.sim.step_at(pos - 1)
            shown = len(step.changes)
        else:
            return False
        earlier = [e for e in move_ends(step.changes) if e < shown]
        if earlier:
            before = a.before if a is not None and a.before is not None else self._before(step)
            self._show_stop(step, before, earlier[-1])
            return True
        self._finish_anim()
        target = pos - 1
        while target > 0 and not move_ends(self.sim.step_at(target - 1).changes):
            target -= 1
        self._model_go_to(target)
        self._finished_sent = False
        self._stop = None
        if target > 0:
            last = self.sim.step_at(target - 1)
            self._show_stop(last, self._before(last), len(last.changes))
        else:
            self.moved.emit()
        return True

    def go_to_move(self, number: int, move: int) -> None:
        """Show step ``number`` (1-based) up to its ``move``-th move (1-based), at rest, at once.

        Raises ``ValueError`` when the run has fewer steps, or when ``move`` is not in 1..the
        step's moves (the message says how many it has).
        """
        if number < 1:
            raise ValueError(f"steps count from 1, got {number}")
        self.go_to(number - 1, now=True)
        if self.position != number - 1:
            raise ValueError(f"the run has {self.position} steps, not {number}")
        if not self.has_matrix:
            raise ValueError("only a matrix simulation is shown move by move")
        before = self._matrix().copy()
        step = self._advance_quietly()
        if step is None:
            raise ValueError(f"the run has {number - 1} steps, not {number}")
        ends = move_ends(step.changes)
        if not 1 <= move <= len(ends):
            self.moved.emit()
            have = f"{len(ends)} move{'s' if len(ends) != 1 else ''}" if ends else "no move"
            raise ValueError(f"step {number} has {have}; move {move} is not one of them")
        self.stepped.emit(step)
        self._show_stop(step, before, ends[move - 1])

    def step_back(self) -> Any:
        """Undo one step, drawn at once (from a stop within a step: the picture before that
        step); returns the undone step or ``None`` at the start."""
        self._finish_anim()
        self._seek = None
        if self.position == 0:
            return None
        step = self.sim.step_back()
        self._finished_sent = False
        self.moved.emit()
        return step

    def go_to(self, index: int, *, now: bool = False) -> None:
        """Move to the state after ``index`` steps, drawn without animation.

        Going back is immediate. Going forward by more than ``SYNC_STEPS`` steps is spread over
        timer ticks (a seek) so the window stays responsive, unless ``now`` is true (for the command line and
        tests). ``index`` is clamped at 0.
        """
        self._finish_anim()
        index = max(0, int(index))
        if index <= self.position:
            if index < self.position:
                self._model_go_to(index)
                self._finished_sent = False
            self._seek = None
            self.moved.emit()
            return
        if now or index - self.position <= SYNC_STEPS:
            while self.position < index and self._advance_quietly() is not None:
                pass
            self.moved.emit()
            return
        self._seek = index
        self._ensure_timer()

    def next_move(self) -> bool:
        """Jump to the next step that re-packs, migrates or deletes a slot.

        Uses the known markers first; otherwise steps forward until such a step is taken (within
        the tick budget per tick). Returns whether a marker ahead was already known.
        """
        pos = self.position
        ahead = [m for m in self.markers if m >= pos]
        if ahead:
            self.go_to(ahead[0] + 1)
            return True
        self._finish_anim()
        self._seek = -1  # seek until the next move
        self._ensure_timer()
        return False

    def reset(self) -> None:
        """Pause and go back to the starting picture."""
        self.pause()
        self.go_to(0)

    def terminate_now(self, job: int) -> Any:
        """What-if: terminate ``job`` now (forgets the known future); returns the step.

        Raises ``ValueError`` (from the model) when the job is not in the system, or for a
        simulation of another family than the matrix one.
        """
        return self._what_if(lambda: self._matrix_sim().terminate_now(job))

    def submit_now(self, size: int, work: float, name: str | None = None) -> Any:
        """What-if: submit a job of ``size`` processors and ``work`` slices now; returns the step.

        Raises ``ValueError`` (from the model) for a size or work out of range, or for a
        simulation of another family than the matrix one.
        """
        return self._what_if(lambda: self._matrix_sim().submit_now(size, work, name))

    def advance_animation(self, dt: float) -> None:
        """Move the running animation on by ``dt`` seconds (the timer does this each tick;
        benchmarks and tests call it to render frames deterministically)."""
        if self._anim is not None:
            self._advance_anim(dt)

    def stop(self) -> None:
        """Stop every timer and animation (call before dropping the player)."""
        self._playing = False
        self._anim = None
        self._seek = None
        self.timer.stop()

    # -------------------------------------------------------------- internals
    def _before(self, step: Step) -> OusterhoutMatrix:
        """Return the matrix before ``step``, the last step taken (its changes undone on a
        copy of the matrix after it)."""
        work = self._matrix().copy()
        undo(step, work)
        return work

    def _show_stop(self, step: Step, before: OusterhoutMatrix, end: int) -> None:
        """Show ``step`` (the last step taken) with its first ``end`` changes applied to
        ``before``, at rest, as the stop of the move whose change is the last non-still one
        applied; at the step's end the model itself is drawn."""
        self._anim = None
        changes = list(step.changes)
        ends = move_ends(changes)
        work = before.copy()
        last = ends.index(end)
        first_of_move = ends[last - 1] if last else 0
        for c in changes[:first_of_move]:
            c.apply(work)
        # the move's own change is its last change that is not a slice moving on
        own = max(i for i in range(first_of_move, end) if changes[i].kind not in STILL_KINDS)
        for c in changes[first_of_move:own]:
            c.apply(work)
        state = work.copy()
        for c in changes[own:end]:
            c.apply(work)
        self._stop = MoveStop(int(step.index) + 1 if step.index is not None else self.position,
                              last + 1, len(ends), changes[own], own, state)
        if end < len(changes):
            self._anim = _Anim(step, work, changes, i=end, until=end, held=True, before=before,
                               durations=[0.0] * len(changes), leads=[0.0] * len(changes))
        if not self._playing and self._seek is None:
            self.timer.stop()
        self.frame.emit()
        self.moved.emit()

    def _release_stop(self) -> None:
        """Let a held stop play the rest of its step (playing goes on from the picture shown)."""
        a = self._anim
        self._stop = None
        if a is not None and a.held:
            a.held, a.until, a.elapsed = False, None, 0.0
            a.durations, a.leads = self._timing(a.changes)

    def _matrix_sim(self) -> Any:
        """Return the simulation for a what-if action, which only the matrix family offers
        (:meth:`gangviz.sim.engine.Simulation.terminate_now`); raise ``ValueError`` otherwise."""
        if not self.has_matrix:
            raise ValueError(f"what-if actions need a matrix simulation, not a {self.sim.family} one")
        return self.sim

    def _sim_done(self) -> bool:
        return bool(self.sim.done) and self.position >= self.sim.known

    def _ensure_timer(self) -> None:
        if not self.timer.isActive():
            self._last_tick = time.perf_counter()
            self.timer.start()

    def _remember_existing(self) -> None:
        for i in range(self.position):
            self._remember(self.sim.step_at(i))

    def _remember(self, step: Any) -> None:
        idx = step.index if step.index is not None else len(self.known)
        if idx < len(self.known):
            return
        kinds = {c.kind for c in step.changes} & MOVE_KINDS
        move = bool(kinds)
        self.known.append(KnownStep(step.time, step.cause, list(step.narration), move))
        if move:
            self.markers.append(idx)
            self.move_kinds |= kinds

    def _forget_after(self, n: int) -> None:
        if len(self.known) > n:
            del self.known[n:]
            self.markers = [m for m in self.markers if m < n]
            self.historyChanged.emit()

    def _model_go_to(self, index: int) -> None:
        self.sim.go_to(index)

    def _what_if(self, action: Callable[[], Step]) -> Any:
        self._finish_anim()
        self._seek = None
        self._forget_after(self.position)
        before = self._matrix().copy() if self.animates else None
        step = action()
        self._remember(step)
        self._finished_sent = False
        if before is not None and step.changes:
            self._start_anim(step, before)  # the consequences (re-packing) play out on screen
        self.moved.emit()
        return step

    def _advance(self, animate: bool, guide: bool = False) -> Any:
        """Take the next step as the viewer sees it: animated with ``animate``, held before its
        first move with ``guide`` when guided cuts are on, announced by ``stepped``. Return it,
        or ``None`` at the end or when the policy failed."""
        guide = guide and self.guided and self.has_matrix
        before = self._matrix().copy() if (animate or guide) and self.has_matrix else None
        step = self._advance_quietly()
        if step is None:
            return None
        gate = next((i for i, c in enumerate(step.changes) if c.kind in MOVE_KINDS), None) if guide else None
        if before is not None and (animate or gate is not None) and step.changes:
            self._start_anim(step, before).gate = gate
            if gate is not None:
                self._advance_anim(0.0)  # changes before the gate that take no time, then hold
        self.stepped.emit(step)
        return step

    def _advance_quietly(self) -> Any:
        """Take the next step with no animation and no ``stepped`` signal (the caller shows
        where it lands). Return it, or ``None`` at the end or when the policy failed (then
        ``failed`` is emitted and :attr:`failure` says why)."""
        self._stop = None
        if self.failure is not None:
            return None
        try:
            step = self.sim.step()
        except ValueError as exc:  # a user's policy: a broken rule or an error in its code
            self.failure = str(exc)
            self.violation = exc if isinstance(exc, RuleViolation) else None
            self._notify_finished()
            self.failed.emit(self.failure)
            return None
        if step is None:
            self._notify_finished()
            return None
        self._remember(step)
        return step

    def _matrix(self) -> OusterhoutMatrix:
        """Return the live matrix of a matrix-family simulation (its snapshot)."""
        return cast("OusterhoutMatrix", self.sim.snapshot())

    def _start_anim(self, step: Step, before: OusterhoutMatrix) -> _Anim:
        """Start animating ``step`` from the matrix ``before`` it; return the animation."""
        changes = list(step.changes)
        durations, leads = self._timing(changes)
        self._anim = anim = _Anim(step, before, changes, durations=durations, leads=leads)
        self._ensure_timer()
        return anim

    def _timing(self, changes: list[Change]) -> tuple[list[float], list[float]]:
        """Return the seconds each of ``changes`` animates in at this speed (its rest before
        it included) and the seconds it rests first (a key moment, :data:`KEY_KINDS`)."""
        base = CHANGE_SECONDS / self.speed
        leads = [KEY_PAUSE_SECONDS / self.speed if c.kind in KEY_KINDS else 0.0 for c in changes]
        return [base * animation_weight(c) + lead for c, lead in zip(changes, leads)], leads

    def _finish_anim(self) -> None:
        self._stop = None
        if self._anim is not None:
            self._anim = None
            self.frame.emit()
        if self._gated:
            self._gated = False
            self.gateChanged.emit(False)

    def _notify_finished(self) -> None:
        if self._unshown:
            self._unshown = 0
            self.moved.emit()
        if self._playing:
            self._playing = False
            self.playingChanged.emit(False)
        if self._anim is None:
            self._seek = None
            self.timer.stop()
        if not self._finished_sent:
            self._finished_sent = True
            self.finished.emit()

    def _tick(self) -> None:
        now = time.perf_counter()
        dt = min(now - self._last_tick, 0.1)
        self._last_tick = now
        if self._anim is not None and not self._anim.held:
            self._advance_anim(dt)
            return
        if self._seek is not None:
            self._do_seek(now)
            return
        if not self._playing:
            self.timer.stop()
            return
        if self.time_rate is not None:
            self._play_time(now, dt)
            return
        if (self.paced or self.guided) and self.held:
            return  # a view is still building the last step; its rest starts once it is done
        if self._hold > 0:
            self._hold -= dt
            return
        if self.paced or self.guided:
            if self._advance(self.paced, guide=True) is not None:
                # a model without a matrix animates its step in its own view meanwhile
                extra = 0.0 if self._anim is not None else CHANGE_SECONDS
                self._hold = (HOLD_SECONDS + extra) / self.speed
            return
        self._batch(now, dt)

    def _advance_anim(self, dt: float) -> None:
        a = self._anim
        assert a is not None
        if a.held:
            return
        a.elapsed += dt
        while a.i < len(a.changes) and a.elapsed >= a.durations[a.i]:
            if a.gate == a.i:
                break
            if a.until is not None and a.i >= a.until:
                break
            a.elapsed -= a.durations[a.i]
            a.changes[a.i].apply(a.work)
            a.i += 1
        if a.until is not None and a.i >= a.until:
            assert a.before is not None
            self._show_stop(a.step, a.before, a.until)
            return
        if a.gate is not None and a.gate == a.i:
            a.elapsed = 0.0
            self.timer.stop()
            if not self._gated:
                self._gated = True
                self.frame.emit()
                self.gateChanged.emit(True)
            return
        if a.i >= len(a.changes):
            self._anim = None
            self.frame.emit()
            self.moved.emit()
            if not self._playing and self._seek is None:
                self.timer.stop()
            return
        self.frame.emit()

    def _batch(self, start: float, dt: float) -> None:
        """Take the steps the speed asks for in this tick, within the work budget."""
        want = 10**9 if self.speed == float("inf") else max(1, round(self.speed / CHANGE_SECONDS * dt))
        taken = 0
        ended = False
        while taken < want and time.perf_counter() - start < TICK_BUDGET:
            if self._advance_quietly() is None:
                ended = True
                break
            taken += 1
        self._unshown += taken
        if taken and time.perf_counter() - self._last_freeze >= FREEZE_EVERY:
            # The history only grows while playing fast; moving what exists to the permanent
            # generation keeps the collector from rescanning it in one long pause.
            gc.freeze()
            self._last_freeze = time.perf_counter()
        # views repaint at most every BATCH_REDRAW seconds while steps are batched
        if self._unshown and (ended or time.perf_counter() - self._last_moved >= BATCH_REDRAW):
            self._unshown = 0
            self._last_moved = time.perf_counter()
            self.moved.emit()

    def _play_time(self, start: float, dt: float) -> None:
        """Move the play clock by :attr:`time_rate` x ``dt`` and take the steps due by it,
        within the tick's work budget; a clock ahead of a simulation that cannot keep up
        waits at the simulation's time."""
        assert self.time_rate is not None
        self._clock = max(self._clock, float(self.sim.time)) + self.time_rate * dt
        taken, ended = 0, False
        while time.perf_counter() - start < TICK_BUDGET:
            nxt = self.sim.peek()
            if self._clock < nxt < math.inf:
                break
            if self._advance_quietly() is None:  # the end (the player says finished)
                ended = True
                break
            taken += 1
        else:
            self._clock = float(self.sim.time)  # behind: the clock waits for the simulation
        self._unshown += taken
        if self._unshown and (ended or time.perf_counter() - self._last_moved >= BATCH_REDRAW):
            self._unshown = 0
            self._last_moved = time.perf_counter()
            self.moved.emit()

    def _do_seek(self, start: float) -> None:
        target = self._seek
        moved = False
        while time.perf_counter() - start < TICK_BUDGET:
            if target is not None and target >= 0 and self.position >= target:
                self._seek = None
                break
            step = self._advance_quietly()
            if step is None:
                self._seek = None
                break
            moved = True
            if target == -1 and any(c.kind in MOVE_KINDS for c in step.changes):
                self._seek = None
                break
        if moved or self._seek is None:
            self.moved.emit()
        if self._seek is None and not self._playing and self._anim is None:
            self.timer.stop()
