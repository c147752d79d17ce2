"""Writers of an exported animation: GIF (Pillow), MP4 (imageio-ffmpeg, optional), PNG frames.

Export. Qt-free: a writer receives RGB frames as ``numpy`` arrays (height x width x 3,
``uint8``) with a whole number of *ticks* each (one tick = one frame period, ``1000 / fps`` ms),
so a frame that rests on screen (the picture after a step) is one image shown for several
ticks.

* GIF: one GIF frame per distinct image, shown for ``ticks * 1000 / fps`` ms (GIF delays are in
  10 ms units, so the frame rate is exact for rates that divide 100: 1, 2, 4, 5, 10, 20, 25, 50).
  Identical consecutive images are merged into one frame (Pillow would merge them anyway; doing
  it here keeps the count we report equal to the count in the file). Each frame gets its own
  adaptive palette of at most 256 colours, so job colours survive exactly when a frame has few
  colours, as the matrix does.
* Frames: ``frame_00001.png``, ... at a constant rate: a frame of ``k`` ticks is written ``k``
  times, so ``ffmpeg -framerate FPS -i frame_%05d.png`` replays the animation at its pace.
* MP4: H.264 through the ``imageio-ffmpeg`` package, which ships its own ffmpeg binary; offered
  only when it is importable (:func:`mp4_unavailable` says why not). Frames are written ``k``
  times each, like the PNGs; width and height must be even (the caller rounds them down).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL.Image import Image

from gangviz.outputs import atomic, partial_path

KINDS = ("gif", "mp4", "frames")
MP4_HINT = ("MP4 export needs the imageio-ffmpeg package, which ships the ffmpeg encoder "
            "(pip install imageio-ffmpeg); export a .gif or a frames/ folder instead")


def mp4_unavailable() -> str | None:
    """Return why MP4 export is not possible here, or ``None`` when it is."""
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError as exc:
        return f"{MP4_HINT} ({exc})"
    return None


def output_kind(path: str | Path) -> str:
    """Return ``"gif"``, ``"mp4"`` or ``"frames"`` for an output path.

    A path ending in ``.gif`` or ``.mp4`` (any case) is that file; a path ending in a slash, an
    existing folder, or a name without a suffix is a folder of PNG frames. Raises ``ValueError``
    for any other suffix.
    """
    text = str(path)
    p = Path(text)
    suffix = p.suffix.lower()
    if suffix == ".gif":
        return "gif"
    if suffix == ".mp4":
        return "mp4"
    if text.endswith(("/", "\\")) or p.is_dir() or suffix == "":
        return "frames"
    raise ValueError(f"{text}: unknown output type {suffix!r}; use out.gif, out.mp4 or a folder frames/")


class GifWriter:
    """Collects frames and writes one animated GIF on :meth:`close` (see the module docstring)."""

    def __init__(self, path: str | Path, fps: int):
        self.path, self.fps = Path(path), int(fps)
        self._frames: list[Image] = []
        self._ticks: list[int] = []
        self._last: bytes | None = None

    def add(self, rgb: np.ndarray, ticks: int = 1) -> None:
        """Add a frame shown for ``ticks`` frame periods."""
        key = rgb.tobytes()
        if self._last is not None and key == self._last:
            self._ticks[-1] += ticks
            return
        from PIL import Image

        self._last = key
        img = Image.fromarray(rgb, "RGB").convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
        self._frames.append(img)
        self._ticks.append(int(ticks))

    @property
    def frames(self) -> int:
        """Return the number of GIF frames so far."""
        return len(self._frames)

    def close(self) -> int:
        """Write the file; return the number of frames. Raises ``OSError`` when it cannot be
        written and ``ValueError`` when no frame was added."""
        if not self._frames:
            raise ValueError("no frames to write")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        durations = [t * 1000.0 / self.fps for t in self._ticks]
        first, rest = self._frames[0], self._frames[1:]
        with atomic(self.path) as tmp:
            first.save(tmp, format="GIF", save_all=True, append_images=rest, duration=durations,
                       loop=0, disposal=1, optimize=False)
        return len(self._frames)

    def discard(self) -> None:
        """Drop the frames: nothing has been written."""
        self._frames.clear()


class FramesWriter:
    """Writes numbered PNGs into a folder at a constant frame rate."""

    def __init__(self, folder: str | Path, fps: int):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def name(self, i: int) -> Path:
        """Return the path of frame ``i`` (1-based)."""
        return self.folder / f"frame_{i:05d}.png"

    def add_png(self, save: Callable[[str], bool], ticks: int = 1) -> None:
        """Add a frame through ``save(path)`` (writes a PNG and returns success), ``ticks`` times.

        Raises ``OSError`` when a picture cannot be written.
        """
        self.count += 1
        first = self.name(self.count)
        if not save(str(first)):
            raise OSError(f"{first}: cannot write the picture")
        for _ in range(int(ticks) - 1):
            self.count += 1
            shutil.copyfile(first, self.name(self.count))

    def close(self) -> int:
        """Return the number of PNG files written."""
        return self.count


class Mp4Writer:
    """Streams frames to an H.264 MP4 through imageio-ffmpeg."""

    def __init__(self, path: str | Path, fps: int, size: tuple[int, int]):
        reason = mp4_unavailable()
        if reason is not None:
            raise ValueError(reason)
        import imageio_ffmpeg

        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = partial_path(self.path)  # renamed onto path by close(): never half a video
        self.count = 0
        self._gen = imageio_ffmpeg.write_frames(str(self._tmp), size, fps=fps, codec="libx264",
                                                pix_fmt_in="rgb24", pix_fmt_out="yuv420p",
                                                macro_block_size=2, quality=8)
        self._gen.send(None)

    def add(self, rgb: np.ndarray, ticks: int = 1) -> None:
        """Add a frame shown for ``ticks`` frame periods."""
        data = np.ascontiguousarray(rgb).tobytes()
        for _ in range(int(ticks)):
            self._gen.send(data)
            self.count += 1

    def close(self) -> int:
        """Finish the file and move it into place; return the number of video frames."""
        self._gen.close()
        os.replace(self._tmp, self.path)
        return self.count

    def discard(self) -> None:
        """Stop writing and remove the unfinished file; ``path`` is left as it was."""
        try:
            self._gen.close()
        finally:
            self._tmp.unlink(missing_ok=True)
