"""Best-fit slot allocation: a waiting job (in arrival order) goes into the slot whose idle
processors it fills most tightly, on the narrowest run of idle processors that holds it, unlike
the buddy schemes (Zhou00 §4.1), which round a job up to an aligned block. A new slot opens
only when no slot has room; empty slots are deleted.

    gangviz run downey --jobs 200 --procs 32 --policy examples/policies/best_fit_slot.py
"""

from gangviz.userpolicy import MatrixPolicy, Param


class BestFitSlot(MatrixPolicy):
    """Fill the slot with the fewest idle processors that still holds the job."""

    name = "best-fit-slot"
    params = (Param("max_slots", "int", 64, "most slots before a job waits", low=1, high=1024),)

    def decide(self, view, act):
        for slot in reversed(view.empty_slots()):
            act.delete_slot(slot)
        for job in view.waiting:
            best = None  # (idle processors left, run width, slot, first processor)
            for slot in range(view.slots):
                idle = view.idle(slot)
                for start, width in _runs(idle):
                    if width >= job.size:
                        fit = (len(idle) - job.size, width, slot, start)
                        best = fit if best is None or fit < best else best
            if best is not None:
                _, _, slot, start = best
            elif view.slots < self.max_slots or not view.running:
                slot, start = act.open_slot(), 0
            else:
                continue  # it waits for a completion
            act.place(job.id, slot, range(start, start + job.size))


def _runs(idle):
    """The (first processor, width) of each run of consecutive idle processors."""
    runs, start = [], None
    for i, p in enumerate(idle):
        if start is None:
            start = p
        if i + 1 == len(idle) or idle[i + 1] != p + 1:
            runs.append((start, p - start + 1))
            start = None
    return runs
