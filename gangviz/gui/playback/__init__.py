"""Playing a simulation: the player that steps and animates it on the GUI thread, the timeline
scrubber, play speeds, and connecting views to a player and letting go of it."""
