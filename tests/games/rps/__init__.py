"""Rock-paper-scissors over several rounds: the third game, living in this package alone.

Two seats throw at once (hidden until both are in). It is registered by the tests only
(tests/conftest.py names this folder in LLAMA_HARNESS_GAMES) and must pass everything
a game passes, with no edit to the harness.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.games.base import Final, GameState, Position

from . import positions as _positions
from .audit import Auditor
from .render import render_text
from .rules import Options, OptionsModel, Throw, parse_options, placements
from .state import RpsState
from .wire import WIRE

HERE = Path(__file__).resolve().parent


class RpsGame:
    name = "rps"
    title = "Rock-paper-scissors"
    min_players = 2
    max_players = 2
    options_model: type[BaseModel] = OptionsModel
    wire = WIRE
    viewer_js: Path = HERE / "viewer.js"

    def opponents(self) -> tuple[Path, ...]:
        return (HERE / "bots" / "rps_random",)

    def parse_options(self, raw: Mapping[str, object]) -> Options:
        return parse_options(raw)

    def new_game(self, options: Options, players: int, seed: int) -> RpsState:
        return RpsState(options, players)

    def final(self, state: GameState[Throw], forfeited: Sequence[bool]) -> Final:
        if not isinstance(state, RpsState):
            raise TypeError(f"not a rock-paper-scissors state: {type(state).__name__}")
        return Final(list(state.scores), placements(state.scores, forfeited), False, state.round)

    def hello_fields(self, options: Options) -> dict[str, Any]:
        return {}

    def auditor(self, players: int) -> Auditor:
        return Auditor(players)

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per seat: the rounds drawn (the same for both)."""
        draws = float(sum(1 for r in records if r.get("type") == "throws" and r.get("winner") is None))
        return {"draws": [draws, draws]}

    def render_text(self, records: Sequence[Any], seat: int | None) -> Iterator[str]:
        return render_text(records, seat)

    def positions(self) -> list[Position]:
        return _positions.positions()

    def action_label(self, action: Throw) -> str:
        return str(action)


GAME = RpsGame()

__all__ = ["GAME", "RpsGame"]
