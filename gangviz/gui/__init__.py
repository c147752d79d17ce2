"""gangviz.gui: the Qt window (the only package that imports Qt).

Public entry points: :func:`gangviz.gui.app.run` (the interactive window) and
:func:`gangviz.gui.app.screenshot` (render offscreen and save a PNG); the window itself is
:class:`gangviz.gui.window.MainWindow`, driven by :class:`gangviz.gui.playback.player.Player`.

The subpackages are named for what a user sees: ``matrix`` (the Ousterhout matrix, the workload
vector and tree), ``families`` (the views of space sharing, multi-site and epoch, and the table
that picks a view), ``lecture`` (caption, narration, guided exercise, presentation mode and the
presenter view), ``compare`` (the compare window), ``editor`` (the scenario editor), ``plots``
(metric panels and sweep plots) and ``export`` (animations). What the window is made of — the
window, the player, the board, the side panels, the palette, sessions — sits at the top level.
"""
