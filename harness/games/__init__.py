"""Games the harness can referee, by name: the only place outside a game's package that names it."""

from __future__ import annotations

from harness.games.base import (
    BadOptions,
    Game,
    GameState,
    IllegalAction,
    InvalidReply,
    Outcome,
)
from harness.games.llama import LLAMA_GAME
from harness.games.llama_llama import LLAMA_LLAMA_GAME

_GAMES: tuple[Game, ...] = (LLAMA_GAME, LLAMA_LLAMA_GAME)
REGISTRY: dict[str, Game] = {game.name: game for game in _GAMES}
DEFAULT_GAME = LLAMA_GAME.name  # the game of a bot or league that names none


def get_game(name: str) -> Game:
    """Return the game called ``name``; raise KeyError naming the known games."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(sorted(REGISTRY))})") from None


__all__ = [
    "DEFAULT_GAME",
    "REGISTRY",
    "BadOptions",
    "Game",
    "GameState",
    "IllegalAction",
    "InvalidReply",
    "Outcome",
    "get_game",
]
