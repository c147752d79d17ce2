"""Space sharing beside gang scheduling: FCFS, EASY and conservative backfilling
(Zhang01 §1-§3).

* :mod:`~gangviz.spacesharing.backfill`: the event-driven simulator;
* :mod:`~gangviz.spacesharing.policy`: the policies by name (``fcfs``, ``easy``, ``conservative``);
* :mod:`~gangviz.spacesharing.simulation`: a run as steps for the window;
* :mod:`~gangviz.spacesharing.checker`: the rule checker;
* headless runs are printed by :mod:`gangviz.commands.run_space_sharing`.
"""
