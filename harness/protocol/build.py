"""The referee's hello, built in one place for the match and check-bot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.protocol.messages import PROTOCOL_VERSION


def hello_message(
    game: str,
    options: Mapping[str, object],
    *,
    seat: int,
    players: int,
    games: int,
    startup: float,
    move: float,
    fields: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The first message to a bot process: who it is and the rules and clocks in force.

    ``fields`` are the game's own (``Game.hello_fields``), written after ``game``.
    """
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        **(fields or {}),
        "options": dict(options),
        "seat": seat,
        "players": players,
        "games": games,
        "time": {"startup_ms": round(startup * 1000), "move_ms": round(move * 1000)},
    }


def turn_message(game_no: int, body: Mapping[str, Any]) -> dict[str, Any]:
    """A turn: the envelope around the game's body (``GameState.turn``); the session sets ``id``."""
    return {"type": "turn", "id": 0, "game": game_no, **body}
