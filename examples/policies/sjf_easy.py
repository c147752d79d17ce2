"""Shortest-job backfilling as a full space-sharing policy: the queue is ordered by estimate,
shortest first; the head of that order starts when it fits, else it holds a reservation at its
shadow time (when enough running jobs will have ended, by their estimates), and any other job
starts now if it fits and either ends, by its estimate, before that reservation or uses only
processors the head will not need then (EASY's rule, Zhang01 §3, over another queue order).

    gangviz run downey --jobs 500 --procs 64 --load 0.9 --policy examples/policies/sjf_easy.py
"""

from gangviz.userpolicy import SpacePolicy


class ShortestJobBackfill(SpacePolicy):
    """EASY backfilling over a shortest-estimate-first queue."""

    name = "sjf-easy"

    def decide(self, view, act):
        queue = sorted(view.waiting, key=lambda j: (j.estimate, j.arrival, j.id))
        free = view.free
        while queue and queue[0].size <= free:  # start from the head while jobs fit
            free -= queue[0].size
            act.start(queue.pop(0).id)
        if not queue:
            return
        head = queue.pop(0)
        ends = sorted((view.end(j.id), j.size) for j in view.running)
        shadow, avail = view.time, free
        for end, size in ends:  # every job that ends by the shadow time frees its processors
            if avail >= head.size and end > shadow:
                break
            shadow, avail = end, avail + size
        act.reserve(head.id, shadow)
        extra = avail - head.size  # processors the head will not need at its reservation
        for job in queue:  # backfill: fits now, and ends by the reservation or uses extra ones
            ends_in_time = view.time + job.estimate <= shadow
            if job.size <= free and (ends_in_time or job.size <= extra):
                free -= job.size
                if not ends_in_time:
                    extra -= job.size
                act.start(job.id)
