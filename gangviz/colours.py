"""Colours shared by the window and the headless plots (Qt-free: hex strings and numpy only).

* A registered policy's colour is its registry entry's (:func:`gangviz.core.registry.colour`);
  :func:`hashed_colour` gives any other name a fixed one, and :func:`separated` parts the colours
  of policies shown together, so ``br`` has the same colour in the window, the compare window,
  the sweep plot and ``gangviz plot-sweep`` whatever order the policies are listed in.
* :data:`JOB_HEX` is the job palette of the matrix. It was chosen so that every pair of job
  colours is at least :data:`MIN_DELTA_E` apart in CIEDE2000 and at least
  :data:`MIN_DELTA_E_CVD` apart after simulated deuteranopia and protanopia (Machado, Oliveira
  and Fernandes 2009, severity 1), and every job colour is far from the idle tone;
  ``tests/gui/test_palette.py`` recomputes all of it with :func:`delta_e2000` and
  :func:`simulate_cvd`.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterable, Sequence

import numpy as np

#: job colours (see the module docstring); ordered so that consecutive entries differ most
JOB_HEX = ["#0080FF", "#FF8020", "#208060", "#9F409F", "#009FBF", "#BF4020", "#4020FF",
           "#9F8080", "#FF0060", "#404060", "#BF9FFF", "#802040", "#604020"]
#: idle cells: a light, cool grey no job colour comes near
IDLE_HEX = "#F4F4F1"
#: idle cells of the running slot: the same tone, a little warmer
IDLE_ACTIVE_HEX = "#FBF3DA"
MIN_DELTA_E = 20.0
MIN_DELTA_E_CVD = 9.0

#: the colours a policy outside the registry takes by hash of its name (a registered policy
#: has its own: :func:`gangviz.core.registry.colour`)
EXTRA_POLICY_HEX = ("#4477AA", "#EE6677", "#228833", "#AA3377", "#66CCEE", "#BBBB44")
#: the least CIEDE2000 distance between two policies shown together (also seen with
#: deuteranopia), and the colours a policy takes when its own is too close to one shown:
#: Okabe and Ito's black, orange, sky blue, green, with a purple and a brown, every pair at
#: least 26 apart, also with deuteranopia and protanopia (Machado et al. 2009)
MIN_POLICY_DELTA_E = 20.0
SHARED_POLICY_HEX = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#5D3A9B", "#5A3D00")


def base_name(name: str) -> str:
    """Return the base of a policy spec or label, lower case: ``br(limit=2)``, ``random:seed=3``
    and ``BR`` all give ``br``."""
    key = str(name).strip().lower()
    return key.split("(", 1)[0].split(":", 1)[0].split(" ", 1)[0].strip()


def hashed_colour(name: str) -> str:
    """Return the ``#RRGGBB`` colour of a policy the registry does not know (a user's): one of
    :data:`EXTRA_POLICY_HEX` by a stable hash of its :func:`base_name`, so the colour never
    depends on the order policies are shown in, nor on the process."""
    return EXTRA_POLICY_HEX[zlib.crc32(base_name(name).encode()) % len(EXTRA_POLICY_HEX)]


def separated(own: Sequence[str]) -> list[str]:
    """Return the colours of policies shown together (a compare window's 2-4), given each one's
    own colour in ``own``: each keeps its own unless that lies within
    :data:`MIN_POLICY_DELTA_E` (CIEDE2000, as seen and with deuteranopia) of a colour taken
    before it; such a policy takes the first of :data:`SHARED_POLICY_HEX` far enough from every
    colour taken, and when none is (never for up to four policies of the registry: a test checks
    every set) all take :data:`SHARED_POLICY_HEX` by place. Returns ``#RRGGBB`` strings in
    ``own``'s order; raises ``ValueError`` for more than :data:`SHARED_POLICY_HEX` has colours."""
    if len(own) > len(SHARED_POLICY_HEX):
        raise ValueError(f"at most {len(SHARED_POLICY_HEX)} policies get distinct colours, got {len(own)}")
    taken: list[str] = []
    for colour in own:
        fits = [c for c in (colour, *SHARED_POLICY_HEX) if _apart(c, taken)]
        if not fits:
            return list(SHARED_POLICY_HEX[:len(own)])
        taken.append(fits[0])
    return taken


def _apart(colour: str, taken: list[str]) -> bool:
    """Whether ``colour`` is at least :data:`MIN_POLICY_DELTA_E` from each of ``taken``, as
    seen and with deuteranopia."""
    return all(_policy_distance(colour, other) >= MIN_POLICY_DELTA_E for other in taken)


@functools.lru_cache(maxsize=4096)
def _policy_distance(a: str, b: str) -> float:
    """The smaller CIEDE2000 distance of ``a`` and ``b``, as seen and with deuteranopia."""
    return float(min(pair_distances([a, b], kind)[0, 1] for kind in (None, "deuteranopia")))


#: the least contrast ratio of any text against its background (WCAG 2.1, level AA, 1.4.3)
MIN_CONTRAST = 4.5


def relative_luminance(colour: str) -> float:
    """Return the WCAG 2.1 relative luminance (0 black .. 1 white) of ``#RRGGBB``."""
    r, g, b = _to_linear(hex_to_rgb([colour]))[0]
    return float(0.2126 * r + 0.7152 * g + 0.0722 * b)


def contrast_ratio(fg: str, bg: str) -> float:
    """Return the WCAG 2.1 contrast ratio (1 .. 21) of two ``#RRGGBB`` colours, in either
    order."""
    a, b = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def readable_on(fill: str) -> str:
    """Return black or white, whichever has the higher contrast on ``fill`` (at least 4.58:1
    on any fill)."""
    return "#000000" if contrast_ratio("#000000", fill) >= contrast_ratio("#FFFFFF", fill) else "#FFFFFF"


def hex_to_rgb(colours: Iterable[str]) -> np.ndarray:
    """Return an ``n x 3`` float array in [0, 1] of ``#RRGGBB`` strings."""
    return np.array([[int(h[i:i + 2], 16) / 255.0 for i in (1, 3, 5)] for h in colours])


def _to_linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _from_linear(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0.0, 1.0)
    return np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)


def rgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """Return CIE L*a*b* (D65) of sRGB values in [0, 1] (``n x 3``)."""
    lin = _to_linear(np.asarray(rgb, dtype=float))
    m = np.array([[0.4124564, 0.3575761, 0.1804375],
                  [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def delta_e2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """Return the CIEDE2000 colour difference of matching rows of two ``n x 3`` Lab arrays
    (Sharma, Wu and Dalal 2005, with kL = kC = kH = 1)."""
    L1, a1, b1 = np.asarray(lab1, dtype=float).T
    L2, a2, b2 = np.asarray(lab2, dtype=float).T
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cm ** 7 / (Cm ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp = L2 - L1
    dCp = C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0.0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh) / 2)
    Lm = (L1 + L2) / 2
    Cmp = (C1p + C2p) / 2
    hsum = h1p + h2p
    hm = np.where(np.abs(h1p - h2p) > 180, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2), hsum / 2)
    hm = np.where(C1p * C2p == 0, hsum, hm)
    T = (1 - 0.17 * np.cos(np.radians(hm - 30)) + 0.24 * np.cos(np.radians(2 * hm))
         + 0.32 * np.cos(np.radians(3 * hm + 6)) - 0.20 * np.cos(np.radians(4 * hm - 63)))
    d_theta = 30 * np.exp(-(((hm - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cmp ** 7 / (Cmp ** 7 + 25.0 ** 7))
    Sl = 1 + 0.015 * (Lm - 50) ** 2 / np.sqrt(20 + (Lm - 50) ** 2)
    Sc = 1 + 0.045 * Cmp
    Sh = 1 + 0.015 * Cmp * T
    Rt = -np.sin(np.radians(2 * d_theta)) * Rc
    distance: np.ndarray = np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2
                                   + Rt * (dCp / Sc) * (dHp / Sh))
    return distance


#: Machado, Oliveira and Fernandes (2009), severity 1.0, applied in linear RGB
CVD_MATRICES = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}


def simulate_cvd(rgb: np.ndarray, kind: str) -> np.ndarray:
    """Return sRGB colours (``n x 3`` in [0, 1]) as seen with ``kind`` ("protanopia" or
    "deuteranopia"); raises ``KeyError`` for another kind."""
    lin = _to_linear(np.asarray(rgb, dtype=float))
    return _from_linear(lin @ CVD_MATRICES[kind].T)


def pair_distances(colours: Iterable[str], kind: str | None = None) -> np.ndarray:
    """Return the ``n x n`` CIEDE2000 distances between ``#RRGGBB`` colours (seen with CVD
    ``kind`` when given)."""
    rgb = hex_to_rgb(colours)
    if kind is not None:
        rgb = simulate_cvd(rgb, kind)
    lab = rgb_to_lab(rgb)
    n = len(lab)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return delta_e2000(lab[i.ravel()], lab[j.ravel()]).reshape(n, n)
