"""Gang scheduling, shortest job first: the waiting job with the least work goes first, into the
lowest slot with a run of idle processors wide enough, else into a new slot; empty slots are
deleted. No re-packing, no migration.

    gangviz run downey --jobs 200 --procs 32 --policy examples/policies/gang_sjf.py
"""

from gangviz.userpolicy import MatrixPolicy


class ShortestJobFirst(MatrixPolicy):
    """Place the shortest waiting jobs first, each in the lowest slot with room."""

    name = "gang-sjf"

    def decide(self, view, act):
        for slot in reversed(view.empty_slots()):  # from the top, so indices stay valid
            act.delete_slot(slot)
        for job in sorted(view.waiting, key=lambda j: (j.work, j.arrival, j.id)):
            room = view.first_fit(job.size)
            slot, first = room if room is not None else (act.open_slot(), 0)
            act.place(job.id, slot, range(first, first + job.size))
