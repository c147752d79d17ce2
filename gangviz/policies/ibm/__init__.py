"""The gang policies of the IBM study (Zhang01): GS, BGS, MGS, MBGS in the engine. Its
backfilling baselines (conservative and EASY) run on the space-sharing simulator
(:mod:`gangviz.spacesharing.backfill`), its workload model is :mod:`gangviz.workloads.ibm`.
"""

from __future__ import annotations

from gangviz.policies.ibm.gs import BGS, GS, MBGS, MGS, IBMGang

__all__ = ["IBMGang", "GS", "BGS", "MGS", "MBGS"]
