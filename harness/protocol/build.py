"""The referee's messages that carry state, built in one place for the referee and check-bot.

Every message to a seat comes from ``state.view(seat)``, the legal actions and the
public events: never from anything hidden (harness/games/base.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.base import GameState
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
) -> dict[str, Any]:
    """The first message to a bot process: who it is and the rules and clocks in force."""
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "variant": options.get("variant", "standard"),
        "options": dict(options),
        "seat": seat,
        "players": players,
        "games": games,
        "time": {"startup_ms": round(startup * 1000), "move_ms": round(move * 1000)},
    }


def turn_message(
    state: GameState, game_no: int, seat: int, events: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """A turn for ``seat``: its view, its legal actions, the public events since its last turn.

    ``id`` is 0 here: the session numbers the turns it sends.
    """
    return {
        "type": "turn",
        "id": 0,
        "game": game_no,
        "seat": seat,
        **state.view(seat),
        "legal": state.legal_wire(),
        "events": events,
    }
