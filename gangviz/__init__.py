"""gangviz: a live Ousterhout matrix with an exact, fast embedded simulator of gang scheduling.

Layers, top first (a module imports only from its own layer or below; docs/architecture.md
draws them, ``make lint`` checks them): ``cli`` > ``commands`` > ``gui`` | ``api`` >
``experiments`` > ``results`` > ``factory`` > ``fast`` > ``policies`` > ``multisite`` | ``epoch``
| ``spacesharing`` > ``metrics`` > ``sim`` > ``workloads`` > ``core`` > small leaf modules. Only
``gangviz.gui`` imports Qt.

The notebook API (:mod:`gangviz.api`) is available here: ``gangviz.simulate``,
``gangviz.compare``, ``gangviz.Result``; it loads on first use, so ``import gangviz`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Result", "compare", "simulate", "to_pandas", "__version__"]

if TYPE_CHECKING:  # pragma: no cover
    from gangviz.api import Result, compare, simulate, to_pandas


def __getattr__(name: str) -> Any:
    if name in ("Result", "compare", "simulate", "to_pandas"):
        from gangviz import api

        return getattr(api, name)
    raise AttributeError(f"module 'gangviz' has no attribute {name!r}")
