"""``python -m gangviz.display_check``, which ``make run`` calls before opening the window."""

from gangviz import display_check

LDD = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
"""


def test_missing_libraries_are_read_from_ldd_once_each():
    assert display_check.parse_ldd(LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert display_check.parse_ldd("\tlibc.so.6 => /lib/libc.so.6\n") == []


def test_one_install_command_per_distribution():
    apt, dnf = display_check.install_commands(["libxcb-icccm.so.4", "libxcb-keysyms.so.1",
                                               "libxcb-shape.so.0", "libxcb-xkb.so.1"])
    assert apt == "sudo apt-get install libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xkb1"
    assert dnf == "sudo dnf install xcb-util-wm xcb-util-keysyms libxcb"


def test_the_readme_lists_the_packages(monkeypatch):
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert display_check.APT_ALL in readme


def test_without_any_display_it_says_how_to_render_to_a_file(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(display_check.sys, "platform", "linux")
    assert display_check.main() == 1
    assert "--screenshot" in capsys.readouterr().err
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert display_check.main() == 0


def test_missing_libraries_fail_with_the_commands(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(display_check.sys, "platform", "linux")
    monkeypatch.setattr(display_check, "missing_libraries", lambda: ["libxcb-cursor.so.0"])
    monkeypatch.setattr(display_check, "reachable", lambda: True)  # an X server answers
    assert display_check.main() == 1
    err = capsys.readouterr().err
    assert "libxcb-cursor.so.0" in err and "apt-get install libxcb-cursor0" in err
    assert "dnf install xcb-util-cursor" in err


def test_a_display_set_but_unreachable_is_the_same_one_line_refusal(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(display_check.sys, "platform", "linux")
    monkeypatch.setattr(display_check, "reachable", lambda: False)
    monkeypatch.setattr(display_check, "missing_libraries", lambda: ["libxcb-cursor.so.0"])
    assert display_check.main() == 1
    err = capsys.readouterr().err
    assert "DISPLAY=:99 is set but no X server answers there" in err and "--screenshot" in err
    assert "libxcb" not in err  # not the libraries: no window can open there anyway


def test_open_and_compare_window_on_an_unreachable_display_exit_1_with_one_line():
    import ctypes.util
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    if not sys.platform.startswith("linux") or ctypes.util.find_library("xcb") is None:
        pytest.skip("needs Linux and libxcb")
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ":4093"  # no X server listens on display 4093
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    for args in (["open", "fig2-repacking"],
                 ["compare", "fig2-repacking", "--policy", "bc", "--policy", "repack", "--window"]):
        res = subprocess.run([sys.executable, "-m", "gangviz", *args], capture_output=True, text=True,
                             env=env, timeout=120)
        assert res.returncode == 1
        assert res.stderr.splitlines() == [
            "gangviz: no display to open the window on (DISPLAY=:4093 is set but no X server answers "
            "there). Without one, 'gangviz open fig2-repacking --screenshot out.png' renders the window "
            "to a file, and every other command works."]
