"""gangviz.gui: the Qt window (the only package that imports Qt).

Public entry points: :func:`gangviz.gui.app.run` (the interactive window) and
:func:`gangviz.gui.app.screenshot` (render offscreen and save a PNG); the window itself is
:class:`gangviz.gui.window.MainWindow`, driven by :class:`gangviz.gui.player.Player`.
"""
