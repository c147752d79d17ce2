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
    assert display_check.main() == 1
    err = capsys.readouterr().err
    assert "libxcb-cursor.so.0" in err and "apt-get install libxcb-cursor0" in err
    assert "dnf install xcb-util-cursor" in err
