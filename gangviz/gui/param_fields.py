"""A policy's declared parameters as typed fields: a check box for a bool, a spin box for an
int or a float (its declared range), a list for a choice, a line for text.

:class:`ParamFields` is built from the registry's :class:`~gangviz.core.params.Param`
declarations (a built-in's or a policy file's) and gives back only the values changed from
their defaults, so a scenario's own parameters are not overridden by untouched fields.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

#: a spin box holds a C int: declared ranges wider than this are cut to it
INT_LIMIT = 2**31 - 1
#: the widest range a float spin box shows
FLOAT_LIMIT = 1e12


class ParamFields(QWidget):
    """One labelled field per declared parameter (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.params: list[Any] = []
        #: parameter name -> its editor
        self.fields: dict[str, QWidget] = {}

    def set_params(self, params: list[Any]) -> None:
        """Show one field per parameter of ``params`` (``Param``s), each at its default."""
        while self.form.rowCount():
            self.form.removeRow(0)
        self.params = list(params)
        self.fields = {}
        if not self.params:
            self.form.addRow(QLabel("(no parameters)"))
        for p in self.params:
            field = _editor(p)
            field.setToolTip(f"{p.name}: {p.allowed()} (default {p.describe_default()})"
                             f"{' — ' + p.doc if p.doc else ''}")
            self.fields[p.name] = field
            self.form.addRow(p.name, field)

    def set_values(self, values: dict[str, Any]) -> dict[str, Any]:
        """Show ``values`` in the fields of the parameters they name; return the others."""
        rest = {}
        for name, value in values.items():
            p = next((q for q in self.params if q.name == name), None)
            if p is None:
                rest[name] = value
                continue
            try:
                _set(self.fields[name], p, p.parse(value, "the panel"))
            except ValueError:
                rest[name] = value  # the text field shows it, and Apply reports it
        return rest

    def values(self) -> dict[str, Any]:
        """Return ``{name: value}`` of the fields changed from their defaults (``None`` for a
        parameter set to its "none" word)."""
        out = {}
        for p in self.params:
            value = _get(self.fields[p.name], p)
            if value != p.default:
                out[p.name] = value
        return out


def _editor(p: Any) -> QWidget:
    if p.kind == "bool":
        check = QCheckBox()
        check.setChecked(bool(p.default))
        return check
    if p.kind == "choice":
        box = QComboBox()
        if p.none is not None:
            box.addItem(p.none)
        box.addItems(list(p.choices))
        _set(box, p, p.default)
        return box
    if p.kind in ("int", "float"):
        spin: QSpinBox | QDoubleSpinBox
        below = 0 if p.none is None else 1  # one step below the range stands for "none"
        if p.kind == "int":
            spin = ispin = QSpinBox()
            low = -INT_LIMIT if p.low is None else max(int(p.low), -INT_LIMIT + 1)
            high = INT_LIMIT if p.high is None else min(int(p.high), INT_LIMIT)
            ispin.setRange(low - below, high)
        else:
            spin = fspin = QDoubleSpinBox()
            fspin.setDecimals(3)
            flow = -FLOAT_LIMIT if p.low is None else max(float(p.low), -FLOAT_LIMIT)
            fhigh = FLOAT_LIMIT if p.high is None else min(float(p.high), FLOAT_LIMIT)
            fspin.setRange(flow - below, fhigh)
        if p.none is not None:
            spin.setSpecialValueText(p.none)
        if p.unit:
            spin.setSuffix(f" {p.unit}")
        _set(spin, p, p.default)
        return spin
    line = QLineEdit()
    _set(line, p, p.default)
    return line


def _set(field: QWidget, p: Any, value: Any) -> None:
    if isinstance(field, QCheckBox):
        field.setChecked(bool(value))
    elif isinstance(field, QComboBox):
        field.setCurrentText(p.none if value is None and p.none is not None else str(value))
    elif isinstance(field, QSpinBox):
        field.setValue(field.minimum() if value is None else value)
    elif isinstance(field, QDoubleSpinBox):
        field.setValue(field.minimum() if value is None else value)
    elif isinstance(field, QLineEdit):
        field.setText("" if value is None else str(value))


def _get(field: QWidget, p: Any) -> Any:
    if isinstance(field, QCheckBox):
        return field.isChecked()
    if isinstance(field, QComboBox):
        text = field.currentText()
        return None if p.none is not None and text == p.none else text
    if isinstance(field, (QSpinBox, QDoubleSpinBox)):
        if p.none is not None and field.value() == field.minimum():
            return None
        return int(field.value()) if p.kind == "int" else float(field.value())
    if isinstance(field, QLineEdit):
        return field.text()
    return None
