"""Workloads: SWF traces (:mod:`.swf`), synthetic models (:mod:`.synthetic`), validation
(:mod:`.validate`), all returning a :class:`~gangviz.workloads.model.Workload`."""

from gangviz.workloads.model import Workload
from gangviz.workloads.swf import SWFError, read_swf, write_swf

__all__ = ["Workload", "SWFError", "read_swf", "write_swf"]
