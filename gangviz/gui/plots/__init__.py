"""The pyqtgraph plots: the live metric panels of each family, the compare window's overlaid
panels, the sweep plot, the sweep progress dialog, and the axis set-up they share (units, steps
rather than ramps)."""
