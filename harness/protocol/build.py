"""The messages and records the harness itself frames around a game, each built in one place.

``hello`` (match, check-bot, reproduction), the replay header's game fields (match and
the conformance suite) and ``game_end`` (its replay record, the message to the bots,
``replay --verify``'s expectation and check-bot's cut-short games).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.base import Final, Game, GameOptions
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


def game_hello(
    game: Game[Any, Any],
    options: GameOptions,
    *,
    seat: int,
    players: int,
    games: int,
    startup: float,
    move: float,
) -> dict[str, Any]:
    """``game``'s hello with ``options`` (parsed by the game): :func:`hello_message` with its fields."""
    return hello_message(
        game.name,
        options.to_dict(),
        seat=seat,
        players=players,
        games=games,
        startup=startup,
        move=move,
        fields=game.hello_fields(options),
    )


def header_fields(game: Game[Any, Any], options: GameOptions) -> dict[str, Any]:
    """A replay header's game fields, in order: ``game``, the game's hello fields, ``options``."""
    return {"game": game.name, **game.hello_fields(options), "options": options.to_dict()}


def turn_message(game_no: int, body: Mapping[str, Any]) -> dict[str, Any]:
    """A turn: the envelope around the game's body (``GameState.turn``); the session sets ``id``."""
    return {"type": "turn", "id": 0, "game": game_no, **body}


def winners(placements: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """The seats that share the win: first place and not forfeited."""
    return [seat for seat, place in enumerate(placements) if place == 1 and not forfeited[seat]]


def game_end_body(final: Final, forfeited: Sequence[bool]) -> dict[str, Any]:
    """What the ``game_end`` record and message share: scores, winners, placements, forfeited, adjudicated."""
    return {
        "scores": list(final.scores),
        "winners": winners(final.placements, forfeited),
        "placements": list(final.placements),
        "forfeited": list(forfeited),
        "adjudicated": final.adjudicated,
    }


def game_end_record(final: Final, forfeited: Sequence[bool]) -> dict[str, Any]:
    """The replay's last record: :func:`game_end_body` and the rounds played."""
    return {"type": "game_end", **game_end_body(final, forfeited), "rounds": final.rounds}


def game_end_message(game_no: int, final: Final, forfeited: Sequence[bool]) -> dict[str, Any]:
    """The ``game_end`` message to a bot (protocol v1: no ``rounds``)."""
    return {"type": "game_end", "game": game_no, **game_end_body(final, forfeited)}


__all__ = [
    "game_end_body",
    "game_end_message",
    "game_end_record",
    "game_hello",
    "header_fields",
    "hello_message",
    "turn_message",
    "winners",
]
