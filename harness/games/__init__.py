"""Games the harness can referee, by name: the only place outside a game's package that names it.

The shipped games are listed here. A game kept in a folder of its own (a package whose
``__init__.py`` defines ``GAME``) joins the registry when its folder is named in the
``LLAMA_HARNESS_GAMES`` environment variable (folders separated by ``:``): the league's
workers and the processes the harness starts inherit it, so it is the game's in every
command. docs/games.md says what such a package holds.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
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
GAMES_ENV = "LLAMA_HARNESS_GAMES"
_GAMES: tuple[AnyGame, ...] = (LLAMA_GAME, LLAMA_LLAMA_GAME)
BUILT_IN: tuple[str, ...] = tuple(game.name for game in _GAMES)  # the harness publishes their schemas
REGISTRY: dict[str, AnyGame] = {game.name: game for game in _GAMES}
DEFAULT_GAME = LLAMA_GAME.name  # the game of a bot or league that names none


def load_game(folder: Path) -> AnyGame:
    """Import the game package in ``folder`` and return its ``GAME``; raise ImportError saying why."""
    init = folder / "__init__.py"
    if not init.is_file():
        raise ImportError(f"{folder}: not a game package (no __init__.py)")
    name = f"llama_harness_game_{folder.resolve().name}"  # a top-level package of its own
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
        if spec is None or spec.loader is None:
            raise ImportError(f"{folder}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as err:
            del sys.modules[name]
            raise ImportError(f"{folder}: {type(err).__name__}: {err}") from None
    game: AnyGame | None = getattr(module, "GAME", None)
    if game is None:
        raise ImportError(f"{folder}: defines no GAME")
    return game


def _load_env() -> None:
    # a bad entry is a warning, not a crash of every command: the shipped games still work
    for entry in filter(None, os.environ.get(GAMES_ENV, "").split(os.pathsep)):
        try:
            game = load_game(Path(entry))
        except ImportError as err:
            print(f"warning: {GAMES_ENV}: {err}", file=sys.stderr)
            continue
        if REGISTRY.get(game.name, game) is not game:
            print(
                f"warning: {GAMES_ENV}: {entry}: a game called {game.name!r} is registered already",
                file=sys.stderr,
            )
            continue
        REGISTRY[game.name] = game


def get_game(name: str) -> AnyGame:
    """Return the game called ``name``; raise KeyError naming the known games."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(sorted(REGISTRY))})") from None


_load_env()

__all__ = [
    "BUILT_IN",
    "DEFAULT_GAME",
    "GAMES_ENV",
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
    "load_game",
]
