"""The compare window: two to four policies on one workload, side by side on one simulated
clock, with overlaid metric panels and a summary table; on real traces each pane is drawn from
its run's schedule."""
