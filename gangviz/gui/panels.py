"""Side panels of the window: the policy chooser, the synthetic-model dialog, job details.

Opening a workload: the policy and its parameters are chosen in a panel; a synthetic
model is opened with its parameters (jobs, load, processors, seed: the workload model of
Zhou00 §4.1).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gangviz.core.changes import cols_label
from gangviz.core.matrix import slot_label
from gangviz.core.params import key_value_items
from gangviz.gui.families.table import matrix_of
from gangviz.gui.kit.layouts import fill_form
from gangviz.gui.param_fields import ParamFields
from gangviz.timefmt import clock_text, format_time
from gangviz.userpolicy.errors import printable

if TYPE_CHECKING:
    from gangviz.sim.protocol import Simulation


def parse_params(text: str) -> dict[str, Any]:
    """Return the parameters written as ``key=value, key=value`` (values as Python literals,
    else strings). Raises ``ValueError`` naming the bad token."""
    out: dict[str, Any] = {}
    for token, key, value in key_value_items(text):
        if value is None or not key.isidentifier():
            raise ValueError(f"policy parameters: expected key=value, got {token!r}")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


class PolicyPanel(QWidget):
    """Policy name, parameters and slice-by-slice stepping; ``applied`` fires on Apply."""

    applied = Signal()

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.combo = QComboBox()
        self.combo.addItems(names)
        self.fields = ParamFields()
        self.params = QLineEdit()
        self.params.setPlaceholderText("key=value, …")
        self.watch = QCheckBox("slice by slice")
        self.watch.setToolTip("Step one time slice at a time (the running slot moves every step)")
        self.apply_button = QPushButton("Apply (restart)")
        self.apply_button.clicked.connect(self.applied.emit)
        form.addRow("Policy", self.combo)
        form.addRow(self.fields)  # each field labelled with its parameter's name
        form.addRow("As text", self.params)
        form.addRow("", self.watch)
        form.addRow("", self.apply_button)
        self.combo.currentTextChanged.connect(lambda _: self._describe(self.policy()))
        self._describe(self.policy())

    def _describe(self, name: str) -> None:
        """Show the chosen policy's parameters, defaults and allowed values (from the registry,
        or a policy file's declarations) as the parameter field's hint and tooltip."""
        from gangviz.core.registry import lookup

        try:
            entry = lookup(name)[0]
        except ValueError:
            try:
                from gangviz.userpolicy.loader import user_entry

                found = user_entry(name)
            except ValueError:
                found = None
            if found is None:
                self.params.setPlaceholderText("key=value, …")
                self.params.setToolTip("")
                self.fields.set_params([])
                return
            entry = found[0]
        params = [p for p in entry.params if p.name != "k"]
        self.fields.set_params(params)
        self.params.setPlaceholderText(", ".join(f"{p.name}={p.describe_default()}" for p in params)
                                       or "(no parameters)")
        self.params.setToolTip("\n".join(f"{p.name}: {p.allowed()} (default {p.describe_default()})"
                                          f"{' — ' + p.doc if p.doc else ''}" for p in params)
                               or f"{entry.title} takes no parameters")

    def policy(self) -> str:
        """Return the chosen policy name (a policy file's spec as given, not as shown)."""
        data = self.combo.currentData()
        return data if isinstance(data, str) else self.combo.currentText()

    def show_params(self, params: dict[str, Any]) -> None:
        """Show ``params``: a declared parameter in its field, anything else as text."""
        rest = self.fields.set_values(dict(params))
        self.params.setText(", ".join(f"{k}={v!r}" for k, v in rest.items()))

    def chosen_params(self) -> dict[str, Any]:
        """Return the parameters chosen: the fields changed from their defaults, then the text
        field's ``key=value`` items over them. Raises ``ValueError`` naming a bad text token."""
        return {**self.fields.values(), **parse_params(self.params.text())}

    def set_policy(self, name: str) -> None:
        """Show ``name`` as chosen (added to the list if unknown, shown with its control
        characters escaped: a policy file's path may hold them)."""
        index = self.combo.findData(name)
        if index < 0:
            index = self.combo.findText(name) if name == printable(name) else -1
        if index < 0:
            self.combo.addItem(printable(name), name)
            index = self.combo.count() - 1
        self.combo.setCurrentIndex(index)


class ModelDialog(QDialog):
    """Asks for a synthetic model's parameters."""

    def __init__(self, models: tuple[str, ...], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Synthetic workload")
        form = QFormLayout(self)
        self.model = QComboBox()
        self.model.addItems(list(models))
        self.jobs = QSpinBox()
        self.jobs.setRange(1, 1_000_000)
        self.jobs.setValue(200)
        self.load = QDoubleSpinBox()
        self.load.setRange(0.01, 5.0)
        self.load.setSingleStep(0.05)
        self.load.setValue(0.5)
        self.procs = QSpinBox()
        self.procs.setRange(1, 65536)
        self.procs.setValue(128)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        fill_form(self, form, [("Model", self.model), ("Jobs", self.jobs), ("Offered load", self.load),
                               ("Processors", self.procs), ("Seed", self.seed)])

    def values(self) -> dict[str, Any]:
        """Return the chosen name and parameters for ``load_source``."""
        return {"name": self.model.currentText(), "jobs": self.jobs.value(), "load": self.load.value(),
                "procs": self.procs.value(), "seed": self.seed.value()}


class JobPanel(QWidget):
    """Details of the selected job."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("Click a job in the matrix to see its details.")
        #: seconds per slice on a trace (times as its clock, durations in its units), else ``None``
        self.slice_seconds: float | None = None
        self.label.setWordWrap(True)
        lay.addWidget(self.label)
        self.job: int | None = None

    def show_job(self, sim: Simulation | None, job: int | None) -> None:
        """Show ``job``'s details from ``sim`` (or the hint when ``job`` is None)."""
        self.job = job
        rec = sim.job_status(job) if job is not None and sim is not None else None
        m = matrix_of(sim)
        if job is None or rec is None or m is None:
            self.label.setText("Click a job in the matrix to see its details.")
            return
        spec = rec.spec
        per = self.slice_seconds
        if job in m:
            where = (f"{cols_label(m.job_cols(job))} in "
                     f"{', '.join(slot_label(r) for r in m.job_rows(job))}")
        elif rec.finish is not None:
            where = "terminated" if rec.terminated else f"finished at t = {clock_text(rec.finish, per)}"
        else:
            where = "waiting"
        start = "—" if rec.start is None else clock_text(rec.start, per)
        self.label.setText(
            f"<b>{spec.name}</b> (id {spec.id})<br>size {spec.size} processors<br>"
            f"work {format_time(spec.work, per)}, left {format_time(rec.remaining, per)}<br>"
            f"arrival t = {clock_text(spec.arrival, per)}, "
            f"start {start}<br>{where}")
