"""Games the harness can referee, by name: the only place outside a game's package that names it."""

from __future__ import annotations

from typing import Any

from harness.games.base import (
    BadOptions,
    Final,
    Game,
    GameState,
    IllegalAction,
    InvalidReply,
    Outcome,
)
from harness.games.llama import LLAMA_GAME
from harness.games.llama_llama import LLAMA_LLAMA_GAME

# any game: its action and options types are its own (the harness only passes them back)
AnyGame = Game[Any, Any]
_GAMES: tuple[AnyGame, ...] = (LLAMA_GAME, LLAMA_LLAMA_GAME)
REGISTRY: dict[str, AnyGame] = {game.name: game for game in _GAMES}
DEFAULT_GAME = LLAMA_GAME.name  # the game of a bot or league that names none


def get_game(name: str) -> AnyGame:
    """Return the game called ``name``; raise KeyError naming the known games."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(sorted(REGISTRY))})") from None


__all__ = [
    "DEFAULT_GAME",
    "REGISTRY",
    "AnyGame",
    "BadOptions",
    "Final",
    "Game",
    "GameState",
    "IllegalAction",
    "InvalidReply",
    "Outcome",
    "get_game",
]
