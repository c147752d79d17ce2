"""A transparent layer drawn over a view: the base of the cue, coach and arrival layers."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QWidget


class ViewOverlay(QWidget):
    """A child of ``view`` covering it whole, kept to its size on every resize; the mouse goes
    through it to the view, and it paints no background of its own. With
    ``raise_on_resize`` it is also raised above the view's other children then."""

    raise_on_resize = False

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.view = view
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setGeometry(view.rect())
        view.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.view and event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.rect())
            if self.raise_on_resize:
                self.raise_()
        return False
