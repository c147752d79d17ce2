"""Before the window opens on a real X display: can Qt's xcb platform plugin load?

On Linux, PySide6's wheels bring Qt but not the X11 client libraries its ``xcb`` plugin links
to (``libxcb-cursor0``, ``libxcb-icccm4``, ``libxcb-keysyms1``, ...). Without them Qt aborts
with "Could not load the Qt platform plugin "xcb"" and no hint of what is missing. ``make run``
calls ``python -m gangviz.display_check`` first; it lists the missing libraries and prints the
one command that installs them on Debian/Ubuntu and on Fedora (and, without any display, says
how to render the window to a file instead).

Nothing here imports Qt: the plugin is found through PySide6's install folder and checked with
``ldd``; when ``ldd`` finds nothing missing, a tiny ``QGuiApplication`` starts in a subprocess
so that any other failure is reported too, in Qt's own words. On Wayland, with
``QT_QPA_PLATFORM`` set to another platform, or on another system than Linux there is nothing
to check.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Library file -> (Debian/Ubuntu package, Fedora package).
PACKAGES = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
}

#: What the README's Set up section lists: the libraries Qt's xcb plugin needs beyond a desktop's.
APT_ALL = ("libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 "
           "libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libegl1")


def plugin_files() -> list[Path]:
    """Return the xcb plugin and the Qt library behind it, as installed with PySide6 (empty when
    PySide6 is not installed)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = Path(list(spec.submodule_search_locations)[0]) / "Qt"
    files = [qt / "plugins" / "platforms" / "libqxcb.so", qt / "lib" / "libQt6XcbQpa.so.6"]
    return [f for f in files if f.exists()]


def parse_ldd(text: str) -> list[str]:
    """Return the library names ``ldd`` output reports as "not found", in order, once each."""
    found = re.findall(r"^\s*(\S+)\s+=>\s+not found", text, flags=re.MULTILINE)
    return list(dict.fromkeys(found))


def missing_libraries() -> list[str]:
    """Return the system libraries the xcb plugin needs and the dynamic loader cannot find
    (empty when ``ldd`` is not available)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    text = ""
    for f in plugin_files():
        res = subprocess.run([ldd, str(f)], capture_output=True, text=True, timeout=30)
        text += res.stdout
    return parse_ldd(text)


def install_commands(libs: list[str]) -> tuple[str, str]:
    """Return the apt-get (Debian/Ubuntu) and dnf (Fedora) commands that install ``libs``."""
    deb = list(dict.fromkeys(PACKAGES.get(lib, (lib, lib))[0] for lib in libs))
    rpm = list(dict.fromkeys(PACKAGES.get(lib, (lib, lib))[1] for lib in libs))
    return (f"sudo apt-get install {' '.join(deb)}", f"sudo dnf install {' '.join(rpm)}")


def probe() -> str | None:
    """Start a ``QGuiApplication`` on the display in a subprocess; return Qt's last error lines
    when it fails, else ``None``."""
    code = "from PySide6.QtGui import QGuiApplication; QGuiApplication(['gangviz'])"
    try:
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "Qt did not start within 60 s"
    if res.returncode == 0:
        return None
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    return "\n".join(lines[-4:]) or f"Qt exited with status {res.returncode}"


def problem() -> str | None:
    """Return why the window cannot open on this display (no display, or one set that no X
    server answers on; missing libraries, with the commands that install them), or ``None``
    when nothing stands in the way that ``ldd`` and one connection can see. Quick: it starts
    no Qt."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and platform != "xcb" or not sys.platform.startswith("linux"):
        return None  # offscreen, Wayland or another system: Qt's xcb plugin is not used
    if not os.environ.get("DISPLAY"):
        if os.environ.get("WAYLAND_DISPLAY"):
            return None
        return ("no display to open the window on (DISPLAY is not set). Without one, "
                "'gangviz open fig2-repacking --screenshot out.png' renders the window to a file, "
                "and every other command works.")
    if reachable() is False:
        from gangviz.inputs import printable

        return (f"no display to open the window on (DISPLAY={printable(os.environ['DISPLAY'])} is "
                "set but no X server answers there). Without one, 'gangviz open fig2-repacking "
                "--screenshot out.png' renders the window to a file, and every other command works.")
    libs = missing_libraries()
    if libs:
        apt, dnf = install_commands(libs)
        return ("the window cannot open on this X display: Qt's xcb platform plugin needs "
                f"system libraries that are not installed: {', '.join(libs)}.\n"
                f"  Debian/Ubuntu: {apt}\n  Fedora:        {dnf}")
    return None


def reachable() -> bool | None:
    """Return whether an X server answers on ``$DISPLAY`` (it accepts a connection from this
    process, as Qt's xcb plugin will ask), or ``None`` when that cannot be told (no
    ``libxcb``). Quick: one connection, no Qt; without it Qt aborts the process on an
    unreachable display (exit 134) with a misleading hint about ``xcb-cursor0``."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("xcb")
    if name is None:
        return None
    try:
        xcb = ctypes.CDLL(name)
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(None, None)  # None: the display $DISPLAY names
    try:
        return conn is not None and xcb.xcb_connection_has_error(conn) == 0
    finally:
        if conn is not None:
            xcb.xcb_disconnect(conn)  # an error connection is freed the same way


def main() -> int:
    """Check the display; print what is missing and how to install it; return 0 (fine, or
    nothing to check) or 1."""
    reason = problem()
    if reason:
        print(f"gangviz: {reason}", file=sys.stderr)
        return 1
    if not os.environ.get("DISPLAY") or os.environ.get("QT_QPA_PLATFORM", "xcb") != "xcb" \
            or not sys.platform.startswith("linux"):
        return 0
    error = probe()
    if error:
        print(f"gangviz: Qt cannot open a window on DISPLAY={os.environ['DISPLAY']}:\n{error}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
