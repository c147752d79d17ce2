# The optional C writer of a per-job table's rows (_rowtext.c): its signature, which the
# compiled module does not carry. Returns the rows' text, or None when a column is not of a
# kind it writes.
from typing import Any

def rows(columns: list[Any], sep: str, quote: bool, /) -> bytes | None: ...
