"""One JSON line, compact and UTF-8: the bytes of every message to a bot and every replay record.

orjson encodes a turn in ~0.65 µs against pydantic-core's ~1.5 µs (the referee writes
two lines a decision), with the same bytes for everything the harness builds: compact
separators, UTF-8 as is, the shortest float that reads back. What orjson refuses (an
integer past 64 bits) goes to pydantic-core, as before; a string holding a lone
surrogate is refused by both.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic_core import to_json

# the hot paths call these two directly (a call saved is ~0.1 µs a decision):
# ``try: FAST(value, option=NEWLINE) except TypeError: slow_line(value)``
FAST = orjson.dumps
NEWLINE = orjson.OPT_APPEND_NEWLINE


def slow_line(value: Any) -> bytes:
    """What orjson refuses (orjson.JSONEncodeError is a TypeError), through pydantic-core."""
    return to_json(value) + b"\n"


def dumps_line(value: Any) -> bytes:
    """``value`` as one JSON line, newline included."""
    try:
        return FAST(value, option=NEWLINE)
    except TypeError:  # an integer past 64 bits, say
        return slow_line(value)


__all__ = ["FAST", "NEWLINE", "dumps_line", "slow_line"]
