"""A deliberately wrong policy: it always places a waiting job on the first processors of slot
0, even when another job runs there. ``gangviz check-policy`` rejects it with the rule it
breaks: no processor holds two processes in one slot.
"""

from gangviz.userpolicy import MatrixPolicy


class Overlap(MatrixPolicy):
    """Everything into slot 0, from processor 0."""

    def decide(self, view, act):
        for job in view.waiting:
            if view.slots == 0:
                act.open_slot()
            act.place(job.id, 0, range(job.size))
