"""The gang policies of the IBM study (Zhang01): GS, BGS, MGS, MBGS in the engine. Its
backfilling baselines (conservative and EASY) run on the space-sharing simulator
(:mod:`gangviz.spacesharing.backfill`), its workload model is :mod:`gangviz.workloads.ibm`.

Importing this package registers ``gs``, ``bgs``, ``mgs`` and ``mbgs`` with
:func:`gangviz.policies.register_policy`.
"""

from __future__ import annotations

from gangviz.policies import register_policy
from gangviz.policies.ibm.gs import BGS, GS, MBGS, MGS, IBMGang

for _cls in (GS, BGS, MGS, MBGS):
    register_policy(_cls.name, _cls)

__all__ = ["IBMGang", "GS", "BGS", "MGS", "MBGS"]
