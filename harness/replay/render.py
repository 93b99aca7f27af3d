"""A readable step-through of a replay, by its game's renderer: the whole table, or what one seat saw."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from harness.games import get_game


def render(records: Sequence[Any], seat: int | None = None) -> Iterator[str]:
    """Yield one text block per step; with ``seat`` only what that seat could see."""
    yield from get_game(records[0].game).render_text(records, seat)
