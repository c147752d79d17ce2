"""The policies of the IBM study (Zhang01): GS, BGS, MGS, MBGS in the engine,
and BF (conservative) and EASY backfilling as a separate event-driven simulator
(:mod:`gangviz.policies.ibm.backfill`).

Importing this package registers ``gs``, ``bgs``, ``mgs`` and ``mbgs`` with
:func:`gangviz.policies.register_policy`.
"""

from __future__ import annotations

from gangviz.policies import register_policy
from gangviz.policies.ibm.gs import BGS, GS, MBGS, MGS, IBMGang

for _cls in (GS, BGS, MGS, MBGS):
    register_policy(_cls.name, _cls)

__all__ = ["IBMGang", "GS", "BGS", "MGS", "MBGS"]
