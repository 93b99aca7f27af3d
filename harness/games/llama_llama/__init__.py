"""Llama Llama (Kaya Miyano) as a :class:`harness.games.base.Game`: simultaneous choices, card passing."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from harness.games.base import BadOptions, Final, GameState, Position
from harness.games.llama_llama.audit import Auditor
from harness.games.llama_llama.cards import (
    CardSet,
    CardSetError,
    CardSetModel,
    default_card_set,
    load_card_set,
    parse_card_set,
)
from harness.games.llama_llama.positions import positions
from harness.games.llama_llama.render import render_text
from harness.games.llama_llama.rules import (
    END_SCORE,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    Options,
    placements,
)
from harness.games.llama_llama.state import Action, LlamaLlamaState
from harness.games.llama_llama.wire import WIRE
from harness.games.samples import sample_bots


class OptionsModel(BaseModel):
    """The rules options of Llama Llama, as in hello and the replay header."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    card_set: CardSetModel | str | None = Field(
        default=None,
        description="A card-set TOML file, or the set itself (hello and replay headers carry it inline); "
        "absent: the shipped stand-in set",
    )
    end_score: Annotated[
        int, Field(ge=1, description="The game ends after a round in which a total reaches it")
    ] = END_SCORE
    max_rounds: Annotated[int, Field(ge=1, description="The game ends after this many rounds")] = MAX_ROUNDS


KNOWN = ("card_set", "end_score", "max_rounds")


def _card_set(value: object) -> CardSet:
    if value is None:
        return default_card_set()
    try:
        if isinstance(value, str):
            return load_card_set(value)
        if isinstance(value, Mapping):
            return parse_card_set(value, "card set")
    except CardSetError as err:
        raise BadOptions(f"card_set: {err}") from None
    raise BadOptions(f"card_set: {value!r} is neither a file name nor a card set")


class LlamaLlamaGame:
    name = "llama-llama"
    title = "Llama Llama"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options_model: type[BaseModel] = OptionsModel
    wire = WIRE
    viewer_js: Path = Path(__file__).with_name("viewer.js")

    def parse_options(self, raw: Mapping[str, object]) -> Options:
        """Build Options from a mapping (loading a card-set file); raise BadOptions naming the field."""
        for key in raw:
            if key not in KNOWN:
                raise BadOptions(f"unknown rules option {key!r} (known: {', '.join(KNOWN)})")
        numbers: dict[str, int] = {}
        for key, default in (("end_score", END_SCORE), ("max_rounds", MAX_ROUNDS)):
            value = raw.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BadOptions(f"{key}: {value!r} is not a positive integer")
            numbers[key] = value
        return Options(_card_set(raw.get("card_set")), numbers["end_score"], numbers["max_rounds"])

    def new_game(self, options: Options, players: int, seed: int) -> LlamaLlamaState:
        return LlamaLlamaState(options, players, seed)

    def opponents(self) -> tuple[Path, ...]:
        """Check-bot's opponents: the sample bots that play Llama Llama."""
        return sample_bots("llama_llama_heuristic", "llama_llama_node", "llama_llama_random")

    def final(self, state: GameState[Action], forfeited: Sequence[bool]) -> Final:
        """Totals, the highest first, then the final round's score; forfeited seats last."""
        if not isinstance(state, LlamaLlamaState):
            raise TypeError(f"not a Llama Llama state: {type(state).__name__}")
        last = state.round_scores[-1] if state.round_scores else [0] * state.players
        scores = list(state.scores)
        return Final(scores, placements(scores, last, forfeited), state.adjudicated, state.round)

    def hello_fields(self, options: Options) -> dict[str, Any]:
        # the card set travels in hello.options.card_set (bots need the faces); nothing else
        return {}

    def render_text(self, records: Sequence[Any], seat: int | None = None) -> Iterator[str]:
        """The replay as text blocks: the whole table, or what ``seat`` saw."""
        return render_text(records, seat)

    def positions(self, options: Options | None = None) -> Sequence[Position]:
        """Check-bot's positions: states a bot must handle."""
        return positions(options or self.parse_options({}))

    def action_label(self, action: Action) -> str:
        return str(action)

    def auditor(self, players: int) -> Auditor:
        """The isolation auditor of the conformance suite (harness.games.conformance)."""
        return Auditor(players)

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per seat: the points the top rules and the bottom rules gave over the game."""
        top: list[float] = []
        bottom: list[float] = []
        for record in records:
            if record.get("type") == "round_end":
                breakdown = record["breakdown"]
                if not top:
                    top, bottom = [0.0] * len(breakdown), [0.0] * len(breakdown)
                for seat, goals in enumerate(breakdown):
                    top[seat] += sum(goal["top"] for goal in goals)
                    bottom[seat] += sum(goal["bottom"] for goal in goals)
        return {"top_points": top, "bottom_points": bottom}


LLAMA_LLAMA_GAME = LlamaLlamaGame()

__all__ = ["LLAMA_LLAMA_GAME", "Action", "LlamaLlamaGame", "LlamaLlamaState", "Options", "OptionsModel"]
