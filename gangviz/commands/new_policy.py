"""``gangviz new-policy NAME [--family matrix|space-sharing|order]``: write a commented template a
student can fill in: a time-slot policy (``matrix``, a :class:`gangviz.userpolicy.MatrixPolicy`),
a space-sharing one (a :class:`gangviz.userpolicy.SpacePolicy`) or a queue order for the
built-ins (``order``). It never overwrites a file.
"""

from __future__ import annotations

import argparse
import keyword
import re
from pathlib import Path

from gangviz.commands.errors import UserError

MATRIX = '''"""{title}: a time-slot (Ousterhout matrix) policy.

Run it:      gangviz run downey --jobs 200 --procs 32 --policy {file}
Check it:    gangviz check-policy {file}
Compare it:  gangviz compare downey --jobs 200 --procs 32 --policy brmms --policy {file}
Watch it:    gangviz open downey --policy {file}
"""

from gangviz.userpolicy import MatrixPolicy, Param


class {cls}(MatrixPolicy):
    """One line saying what the policy does (shown by check-policy)."""

    name = "{name}"
    paper = ""  # the paper section it follows, e.g. "[Zhou00 §4.1]"
    # Parameters, typed and range-checked like the built-ins': --policy {file}:max_slots=8
    params = (Param("max_slots", "int", 64, "most slots before a job waits", low=1, high=1024),)
    # buddy = True     # every job takes an aligned power-of-two block (and is checked for it)
    # migrates = True  # allow act.migrate (moving a job to other processors)

    def decide(self, view, act):
        """Called at each decision point (view.arrived, view.completed say why).

        view: the matrix and jobs, read-only: view.slots, view.processors, view.waiting,
              view.running, view.row(slot), view.idle(slot), view.runs(slot, size),
              view.first_fit(size), view.empty_slots(), view.time; view.rng for randomness.
        act:  act.place(job, slot, processors), act.open_slot(), act.delete_slot(slot),
              act.shift(job, slot) (same processors), act.migrate(job, slot, processors).
        Every action is checked against the rules; a broken rule stops the run naming this line.
        """
        # 1. delete the empty slots, from the top so the lower indices stay valid
        for slot in reversed(view.empty_slots()):
            act.delete_slot(slot)
        # 2. place the waiting jobs (here: first come, first served, first fit)
        for job in view.waiting:
            room = view.first_fit(job.size)
            if room is not None:
                slot, first = room
            elif view.slots < self.max_slots or not view.running:
                slot, first = act.open_slot(), 0
            else:
                continue  # it waits for a completion
            act.place(job.id, slot, range(first, first + job.size))
'''

SPACE = '''"""{title}: a space-sharing policy (each job gets its processors to itself).

Run it:      gangviz run downey --jobs 500 --procs 64 --load 0.9 --policy {file}
Check it:    gangviz check-policy {file}
Compare it:  gangviz compare downey --jobs 500 --procs 64 --load 0.9 --policy easy --policy {file}
"""

from gangviz.userpolicy import SpacePolicy


class {cls}(SpacePolicy):
    """One line saying what the policy does (shown by check-policy)."""

    name = "{name}"
    paper = ""
    # follows = "easy"  # hold the schedule to EASY's rule (or "fcfs", "conservative")

    def decide(self, view, act):
        """Called at each arrival and completion.

        view: view.time, view.processors, view.free, view.waiting (arrival order),
              view.running, view.end(job) (its end by its estimate), view.rng.
        act:  act.start(job) starts a waiting job now; act.reserve(job, time) holds a
              reservation; a job left alone keeps waiting.
        """
        free = view.free
        for job in view.waiting:  # first come, first served, no backfilling
            if job.size > free:
                break
            free -= job.size
            act.start(job.id)
'''

ORDER = '''"""{title}: a queue order for any built-in time-slot policy.

Run it:  gangviz run downey --jobs 200 --procs 32 --policy gs:mpl=2 --order {file}:{func}
"""


def {func}(job):
    """Return the sort key of a waiting job (smallest first; ties keep arrival order).

    job.id, job.name, job.arrival, job.size (processors), job.work (slices), job.estimate
    """
    return job.work
'''


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``new-policy`` sub-command."""
    p = sub.add_parser("new-policy", help="write a commented template of your own policy")
    p.add_argument("name", help="the file to write (NAME or NAME.py)")
    p.add_argument("--family", choices=("matrix", "space-sharing", "order"), default="matrix",
                   help="matrix: a time-slot policy; space-sharing: a backfilling-style policy; "
                        "order: a queue order for the built-ins")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the template; return 0 (1 when the file exists, is a link, or its name cannot be
    written into the template)."""
    from gangviz.inputs import quoted

    path = Path(args.name if args.name.endswith(".py") else args.name + ".py")
    shown = path.as_posix()
    if any(not c.isprintable() or c in "\"\\" for c in shown):
        raise UserError(f"new-policy: the name {quoted(args.name)} holds a quote, a backslash or a "
                        "control character; choose a plain file name")
    if path.exists() or path.is_symlink():
        raise UserError(f"{path} exists; choose another name (new-policy never overwrites)")
    stem = re.sub(r"\W+", "_", path.stem).strip("_") or "mine"
    cls = "".join(part.capitalize() for part in stem.split("_")) or "Mine"
    if cls[0].isdigit():
        cls = "P" + cls
    if keyword.iskeyword(cls) or not cls.isidentifier():  # None, True, False
        cls += "Policy"
    func = stem if stem.isidentifier() and not keyword.iskeyword(stem) else "order"
    template = {"matrix": MATRIX, "space-sharing": SPACE, "order": ORDER}[args.family]
    text = template.format(title=stem.replace("_", " ").capitalize(), file=shown, cls=cls,
                           name=stem.replace("_", "-"), func=func)
    compile(text, str(path), "exec")  # the template always compiles: a failure is a bug here
    try:
        # "x": created here or not at all; never through a link (even a dangling one)
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise UserError(f"{path} exists; choose another name (new-policy never overwrites)") from None
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror or exc}") from None
    print(f"wrote {path}; try: gangviz check-policy {path}" if args.family != "order"
          else f"wrote {path}; try: gangviz run downey --policy gs:mpl=2 --order {path}:{func}")
    return 0
