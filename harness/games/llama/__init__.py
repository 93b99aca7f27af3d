"""L.L.A.M.A. (Reiner Knizia) as a :class:`harness.games.base.Game`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.games.base import BadOptions, Final, GameState, Position, Wire
from harness.games.llama import positions as _positions
from harness.games.llama.audit import Auditor
from harness.games.llama.records import Record
from harness.games.llama.render import render_text
from harness.games.llama.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    NextStarter,
    Options,
    Variant,
    placements,
    seeded_deal,
)
from harness.games.llama.state import LlamaState
from harness.games.llama.wire import FromBot, RulesOptions, ToBot
from harness.games.samples import sample_bots


class LlamaGame:
    """L.L.A.M.A.: 2-6 players, one seat acts at a time, the lowest score wins."""

    name = "llama"
    title = "L.L.A.M.A."
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options_model: type[BaseModel] = RulesOptions
    wire = Wire(to_bot=ToBot, from_bot=FromBot, records=Record)
    viewer_js: Path = Path(__file__).with_name("viewer.js")

    def parse_options(self, raw: Mapping[str, object]) -> Options:
        """Build Options from a mapping; raise BadOptions naming the bad field."""
        known = {"variant", "next_starter", "end_score", "max_rounds"}
        for key in raw:
            if key not in known:
                raise BadOptions(f"unknown rules option {key!r} (known: {', '.join(sorted(known))})")
        try:
            variant = Variant(str(raw.get("variant", Variant.STANDARD.value)))
        except ValueError:
            raise BadOptions(
                f"variant: {raw.get('variant')!r} is not one of {', '.join(v.value for v in Variant)}"
            ) from None
        try:
            starter = NextStarter(str(raw.get("next_starter", NextStarter.ENDER.value)))
        except ValueError:
            raise BadOptions(
                f"next_starter: {raw.get('next_starter')!r} is not one of "
                f"{', '.join(v.value for v in NextStarter)}"
            ) from None
        numbers: dict[str, int] = {}
        for key, default in (("end_score", 40), ("max_rounds", 50)):
            value = raw.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BadOptions(f"{key}: {value!r} is not a positive integer")
            numbers[key] = value
        return Options(variant, starter, numbers["end_score"], numbers["max_rounds"])

    def new_game(self, options: Options, players: int, seed: int) -> LlamaState:
        return LlamaState(options, players, partial(seeded_deal, options.variant, players, seed))

    def opponents(self) -> tuple[Path, ...]:
        """Check-bot's opponents: the random and the heuristic sample bots."""
        return sample_bots("random", "heuristic")

    def final(self, state: GameState[Action], forfeited: Sequence[bool]) -> Final:
        """Penalty points, the lowest first; adjudicated when the round cap ended it."""
        if not isinstance(state, LlamaState):
            raise TypeError(f"not a L.L.A.M.A. state: {type(state).__name__}")
        scores = list(state.scores)
        return Final(scores, placements(scores, forfeited), state.adjudicated, state.round)

    def hello_fields(self, options: Options) -> dict[str, Any]:
        """The variant, after ``game`` in hello and in the replay header (protocol v1)."""
        return {"variant": options.variant.value}

    def auditor(self, players: int) -> Auditor:
        """The isolation auditor of the conformance suite (harness.games.conformance)."""
        return Auditor(players)

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Each seat's sum of round penalties (before chips are returned)."""
        total: list[float] = []
        for record in records:
            if record.get("type") == "round_end":
                penalties = record["penalties"]
                total = [a + b for a, b in zip(total or [0.0] * len(penalties), penalties, strict=True)]
        return {"penalty": total}

    def render_text(self, records: Sequence[Any], seat: int | None) -> Iterator[str]:
        """The replay as text blocks, one per step (the terminal's ``replay``)."""
        return render_text(records, seat)

    def action_label(self, action: Action) -> str:
        """An action as people read it: "play 3", "draw", "quit"."""
        return str(action)

    def positions(self) -> list[Position]:
        """The edge cases check-bot feeds a bot (fresh states on every call)."""
        return _positions.positions()


LLAMA_GAME = LlamaGame()

__all__ = ["LLAMA_GAME", "LlamaGame", "LlamaState", "Options"]
