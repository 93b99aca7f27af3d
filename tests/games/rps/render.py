"""A text replay of rock-paper-scissors (after each round both throws are public)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any


def _plain(record: Any) -> dict[str, Any]:
    if isinstance(record, Mapping):
        return dict(record)
    dumped: dict[str, Any] = record.model_dump(mode="json", exclude_none=True)
    return dumped


def render_text(records: Sequence[Any], seat: int | None = None) -> Iterator[str]:
    """One block per round, then the result; ``seat``: as that seat saw it (the same, once revealed)."""
    rows = [_plain(record) for record in records]
    header = rows[0]
    names = [player["name"] for player in header["players"]]
    options = header["options"]
    title = (
        f"rock-paper-scissors ({options['variant']}, {options['rounds']} rounds): {names[0]} vs {names[1]}"
    )
    yield title + (f", as seen by {names[seat]} (seat {seat})" if seat is not None else "")
    for row in rows[1:]:
        kind = row["type"]
        if kind == "throws":
            won = row.get("winner")
            result = "a draw" if won is None else f"{names[won]} wins it"
            yield f"round {row['round']}: {names[0]} {row['throws'][0]}, {names[1]} {row['throws'][1]}: {result}"
        elif kind == "fault":
            yield f"{names[row['seat']]} (seat {row['seat']}) faulted: {row['kind']}: {row['detail']}"
        elif kind == "game_end":
            scores = ", ".join(f"{name} {score}" for name, score in zip(names, row["scores"], strict=True))
            yield f"game over after {row['rounds']} rounds: {scores}"
