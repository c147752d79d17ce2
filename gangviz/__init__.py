"""gangviz: a live Ousterhout matrix with an exact, fast embedded simulator of gang scheduling.

Layers (imports point downwards only): ``gui`` -> ``cli`` -> ``experiments`` -> ``policies`` ->
``sim`` -> ``core``; ``workloads`` and ``metrics`` sit beside ``sim``. Only ``gangviz.gui``
imports Qt.
"""

__version__ = "0.1.0"
