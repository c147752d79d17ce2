"""Your own policy: the public API for a user's scheduling policy.

Two levels:

1. **A queue order.** Any function of one job (a :class:`~gangviz.core.jobs.JobSpec`: ``id``,
   ``name``, ``arrival``, ``size``, ``work``, ``estimate``) returning a sort key orders the
   waiting queue of any built-in time-slot policy::

       def shortest_first(job):
           return job.work

   ``gangviz run T --policy gs --order my.py:shortest_first``.

2. **A full time-slot policy.** Subclass :class:`MatrixPolicy` and write ``decide(view, act)``:
   ``view`` (:class:`MatrixView`) shows the matrix, the jobs and the queue, read-only; ``act``
   (:class:`MatrixActions`) places a waiting job in a slot and processors, opens or deletes a
   slot, shifts a job to another slot on its processors (the legal move of Zhou99 §3) or
   migrates it. Each action is applied through the change records the built-ins use, so the
   window animates and narrates it and stepping back undoes it; each is checked against the
   family's rules (:data:`RULES`) unless the run says ``check=false`` (``--no-check``).
   Parameters are declared with :class:`Param` exactly as the built-ins' are; ``self.rng`` is
   the seeded generator to use for any random choice.

3. **A full space-sharing policy.** Subclass :class:`SpacePolicy` and write
   ``decide(view, act)``: at each arrival and completion, ``act.start(job)`` starts a waiting
   job now, ``act.reserve(job, time)`` holds a reservation, and a job left alone waits. A class
   that declares ``follows = "easy"`` (or ``"fcfs"``, ``"conservative"``) is held to that
   reservation rule by the backfilling checker.

Load one with ``--policy my.py`` (the one class in the file), ``my.py:Class``,
``package.module:Class`` or a name in the entry-point group ``gangviz.policies``, followed by
``:key=value,...`` for its parameters.
"""

from gangviz.core.params import Param
from gangviz.userpolicy.actions import MatrixActions
from gangviz.userpolicy.errors import RULES, RuleViolation, UserPolicyError
from gangviz.userpolicy.policy import MatrixPolicy
from gangviz.userpolicy.space import SpaceActions, SpacePolicy, SpaceView
from gangviz.userpolicy.view import JobView, MatrixView

__all__ = ["MatrixPolicy", "MatrixView", "MatrixActions", "SpacePolicy", "SpaceView",
           "SpaceActions", "JobView", "Param", "RULES", "RuleViolation", "UserPolicyError"]
