# The optional C reader of SWF job lines (_swfscan.c): its signature, which the compiled module
# does not carry. Fills ``out`` (rows x fields doubles, C-contiguous, writable) and returns True
# when ``body`` is exactly that many lines of that many numbers; False when the exact reader
# must read it.
import numpy as np

def table(body: bytes, rows: int, fields: int, out: np.ndarray, /) -> bool: ...
