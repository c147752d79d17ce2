"""Space sharing beside gang scheduling: FCFS, EASY and conservative backfilling
(Zhang01 §1-§3).

* :mod:`~gangviz.spacesharing.backfill`: the event-driven simulator;
* :mod:`~gangviz.spacesharing.policy`: the policies by name (``fcfs``, ``easy``, ``conservative``);
* :mod:`~gangviz.spacesharing.simulation`: a run as steps for the window;
* :mod:`~gangviz.spacesharing.checker`: the rule checker;
* a headless run of a trace's columns is chosen by :mod:`gangviz.experiments.headless`.
"""
