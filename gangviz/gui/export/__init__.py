"""Exports of what the window shows: an animation rendered offscreen through the window's own
views (GIF, MP4, PNG frames), the export dialog, and the dialog that sets them."""
