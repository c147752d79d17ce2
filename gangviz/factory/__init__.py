"""From (source, policy spec, options) to a simulation or a finished run: the one place that
builds simulations.

* :func:`build` returns a step-able simulation of any family (matrix, space-sharing, multisite,
  epoch) for the window, the compare window and everything that steps or records;
* :func:`run` runs a source to its end headless and returns a :class:`FinishedRun`, on a
  compiled loop (:mod:`gangviz.factory.compiled`) whenever one covers the run and no step is
  recorded;
* policy specs (``NAME:key=value,...``) are parsed and their parameters merged in
  :mod:`gangviz.factory.policy` only;
* :func:`multisite_model` and :func:`epoch_model` build the random models of those families;
* :func:`measures_of` gives a simulation its figures, bound to it (every simulation built here
  has them already);
* :mod:`gangviz.factory.expect` compares a finished scenario with its ``[expect]``.

Nothing here imports a simulator until it is asked for one.
"""

from gangviz.factory.build import build, epoch_model, multisite_model
from gangviz.factory.expect import check_expect, end_state, piece_text, run_to_end
from gangviz.factory.finished import measures_of
from gangviz.factory.policy import (
           PolicyChoice,
           parse_policy_spec,
           policy_name,
           resolve,
)
from gangviz.factory.run import ENGINES, FinishedRun, run

__all__ = ["build", "run", "FinishedRun", "ENGINES", "multisite_model", "epoch_model", "resolve",
           "PolicyChoice", "parse_policy_spec", "policy_name", "check_expect",
           "end_state", "piece_text", "run_to_end", "measures_of"]
