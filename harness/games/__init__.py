"""Games the harness can referee, by name."""

from __future__ import annotations

from harness.games.base import (
    BadOptions,
    Game,
    GameState,
    IllegalAction,
    InvalidReply,
    Outcome,
    Step,
    Transition,
)
from harness.games.llama import LLAMA_GAME

REGISTRY: dict[str, Game] = {LLAMA_GAME.name: LLAMA_GAME}


def get_game(name: str) -> Game:
    """Return the game called ``name``; raise KeyError naming the known games."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(sorted(REGISTRY))})") from None


__all__ = [
    "REGISTRY",
    "BadOptions",
    "Game",
    "GameState",
    "IllegalAction",
    "InvalidReply",
    "Outcome",
    "Step",
    "Transition",
    "get_game",
]
