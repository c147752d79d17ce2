# The optional C loops of gangviz.spacesharing.backfill (_easyloop.c): their signatures, which
# the compiled module does not carry. Each returns (end, (lost, small, large), start, finish,
# first reservation), the lists in priority order, or None when an entry is not an exact float
# (an int for size).

def easy(arrival: list[float], size: list[int], est: list[float], run: list[float], P: int,
         small_max: int, backfill: bool, /) -> tuple[float, tuple[float, float, float],
                                                     list[float], list[float],
                                                     list[float | None]] | None: ...

def conservative(arrival: list[float], size: list[int], est: list[float], run: list[float],
                 P: int, small_max: int, /) -> tuple[float, tuple[float, float, float],
                                                     list[float], list[float],
                                                     list[float | None]] | None: ...
