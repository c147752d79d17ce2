"""The Ousterhout matrix as the window draws it: slots as rows, processors as columns, with the
workload vector and the buddy workload tree aligned under it. Here too are the legal cuts of a
held move and the animation cues that show a re-pack, a migration or a slot deletion step by
step. What to draw (:mod:`gangviz.gui.matrix.scene`) and where (:mod:`gangviz.gui.matrix.layout`)
are computed without Qt; the painters draw it as layers, in the styles of
:mod:`gangviz.gui.matrix.style`."""
