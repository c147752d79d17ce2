"""Small Qt pieces every room of the window shares: the one QApplication, the offscreen rules,
dialog layouts, overlays, picture export and the names of pyqtgraph's classes in annotations."""
