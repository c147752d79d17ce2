"""``gangviz open --screenshot`` and the Qt-free import of the command."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtGui import QImage

from gangviz.cli import main


def test_screenshot_writes_a_png_of_the_requested_size(tmp_path, capsys):
    out = tmp_path / "shot.png"
    code = main(["open", "fig2-repacking", "--policy", "repack", "--screenshot", str(out),
                 "--step", "1", "--size", "900x640"])
    assert code == 0
    img = QImage(str(out))
    assert not img.isNull()
    assert (img.width(), img.height()) == (900, 640)
    assert str(out) in capsys.readouterr().out


def test_screenshot_of_a_bad_source_is_a_one_line_error(tmp_path, capsys):
    code = main(["open", str(tmp_path / "nope.toml"), "--screenshot", str(tmp_path / "x.png")])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("gangviz:") and "nope.toml" in err and "Traceback" not in err


def test_negative_step_is_refused(tmp_path, capsys):
    assert main(["open", "--screenshot", str(tmp_path / "x.png"), "--step", "-1"]) == 1
    assert "--step" in capsys.readouterr().err


def test_the_command_imports_without_qt():
    code = ("import sys; sys.modules['PySide6'] = None; sys.modules['pyqtgraph'] = None\n"
            "import gangviz.commands.open as o; from gangviz.cli import build_parser\n"
            "a = build_parser().parse_args(['open', 'x.toml', '--screenshot', 'y.png'])\n"
            "assert a.func is o.run and 'PySide6' not in [m for m in sys.modules if sys.modules[m]]\n"
            "print('ok')")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"
