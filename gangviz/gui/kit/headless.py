"""Offscreen, no dialog: a message box nobody can see or close would hang the process.

While :func:`dialogs_raise` is active (``gangviz open ... --screenshot``, the compare window's
screenshot), every message box, input dialog, file dialog and modal ``exec`` raises
:class:`DialogError` with the text it would have shown. The command line prints it and exits
with status 1, so an error is never lost behind an invisible window and never waits for a click.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox


class DialogError(ValueError):
    """What a dialog would have said, raised instead of showing it offscreen."""


def _refuse(kind: str) -> Callable[..., NoReturn] | staticmethod[..., NoReturn]:
    def raise_instead(*args: Any, **_kwargs: Any) -> NoReturn:
        texts = [a for a in args if isinstance(a, str)]
        if kind in _MESSAGES and len(texts) >= 2:  # QMessageBox.critical(parent, title, text)
            raise DialogError(f"{texts[0]}: {texts[1]}" if texts[0] else texts[1])
        dialog = args[0] if kind == "exec" and args else None
        title = dialog.windowTitle() if dialog is not None else (texts[0] if texts else "")
        raise DialogError(f"{title or 'a dialog'}: needs an answer, and no one can give it offscreen")
    return raise_instead if kind == "exec" else staticmethod(raise_instead)


_MESSAGES = {"critical", "warning", "information", "question"}
#: (class, attribute) of every way a dialog could wait for a user
_DOORS = ((QMessageBox, "critical"), (QMessageBox, "warning"), (QMessageBox, "information"),
          (QMessageBox, "question"), (QMessageBox, "exec"), (QDialog, "exec"),
          (QInputDialog, "getInt"), (QInputDialog, "getDouble"), (QInputDialog, "getItem"),
          (QInputDialog, "getText"), (QFileDialog, "getOpenFileName"),
          (QFileDialog, "getSaveFileName"), (QFileDialog, "getExistingDirectory"))


@contextmanager
def dialogs_raise() -> Iterator[None]:
    """Within the block, every dialog raises :class:`DialogError` instead of opening (see the
    module docstring); the dialogs are restored on leaving it, even after an exception."""
    saved = [(cls, name, cls.__dict__.get(name)) for cls, name in _DOORS]
    try:
        for cls, name in _DOORS:
            setattr(cls, name, _refuse(name))
        yield
    finally:
        for cls, name, old in saved:
            if old is None:
                delattr(cls, name)
            else:
                setattr(cls, name, old)
