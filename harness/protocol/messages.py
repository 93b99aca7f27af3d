"""Bot protocol v1: the wire messages, as pydantic models.

These models are the specification: ``schemas/*.json`` are generated from them and
``docs/protocol.md`` describes them. Replies from bots are validated with them
(unknown extra fields ignored). Messages to bots are built as plain dicts on the hot
path for speed; a test validates every message of many random games against these
models, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

PROTOCOL_VERSION = 1

Card = Annotated[int, Field(ge=1, le=7, description="1-6 are numbers, 7 is the Llama")]
Seat = Annotated[int, Field(ge=0, le=5)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _In(BaseModel):
    # unknown extra fields in a bot's reply are ignored (a bot may send more than v1
    # needs); types are strict, so "card": "3" or "id": true are invalid rather than
    # silently coerced
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


# -- shared parts -------------------------------------------------------------------


class RulesOptions(_Out):
    variant: Literal["standard", "komary"] = "standard"
    next_starter: Literal["ender", "last_play", "rotate"] = "ender"
    end_score: Annotated[int, Field(ge=1)] = 40
    max_rounds: Annotated[int, Field(ge=1)] = 50


class TimeLimits(_Out):
    startup_ms: Annotated[int, Field(ge=1, description="Deadline for the hello reply")]
    move_ms: Annotated[int, Field(ge=1, description="Deadline for each action reply")]


class PlayerView(_Out):
    cards: Annotated[int, Field(ge=0, description="Cards in that seat's hand")]
    quit: bool
    score: int


class PlayAction(_Out):
    action: Literal["play"]
    card: Card


class DrawAction(_Out):
    action: Literal["draw"]


class QuitAction(_Out):
    action: Literal["quit"]


LegalAction = Annotated[PlayAction | DrawAction | QuitAction, Field(discriminator="action")]


class PlayEvent(_Out):
    seat: Seat
    action: Literal["play"]
    card: Card


class DrawEvent(_Out):
    seat: Seat
    action: Literal["draw"]


class QuitEvent(_Out):
    seat: Seat
    action: Literal["quit"]


Event = Annotated[PlayEvent | DrawEvent | QuitEvent, Field(discriminator="action")]


# -- referee → bot --------------------------------------------------------------------


class Hello(_Out):
    """First message of a match: who you are and the rules in force."""

    type: Literal["hello"]
    protocol: Literal[1]
    game: Literal["llama"]
    variant: Literal["standard", "komary"]
    options: RulesOptions
    seat: Seat
    players: Annotated[int, Field(ge=2, le=6)]
    games: Annotated[int, Field(ge=1, description="Games in this match")]
    time: TimeLimits


class GameStart(_Out):
    """A new game of the match; seats rotate, so ``seat`` may change between games."""

    type: Literal["game_start"]
    game: Annotated[int, Field(ge=1)]
    seat: Seat
    players: Annotated[int, Field(ge=2, le=6)]
    seed: Annotated[int, Field(ge=0, description="Seed for the bot's own randomness")]


class RoundStart(_Out):
    type: Literal["round_start"]
    game: int
    round: Annotated[int, Field(ge=1)]
    first: Seat
    hand: list[Card]
    discard: Card
    stock: Annotated[int, Field(ge=0)]
    players: list[PlayerView]


class Turn(_Out):
    """Your turn: the whole observation, the legal actions, and what happened since."""

    type: Literal["turn"]
    id: Annotated[int, Field(ge=1, description="Echo it in the reply")]
    game: int
    round: int
    seat: Seat
    hand: list[Card]
    discard: Card
    stock: Annotated[int, Field(ge=0)]
    players: list[PlayerView]
    legal: list[LegalAction]
    events: list[Event] = Field(description="Public actions since your last turn, oldest first")


class RoundEnd(_Out):
    type: Literal["round_end"]
    game: int
    round: int
    events: list[Event] = Field(description="Public actions since your last turn")
    penalties: list[int]
    returned: list[int] = Field(description="Chip value returned by whoever played out")
    scores: list[int]


class GameEnd(_Out):
    type: Literal["game_end"]
    game: int
    scores: list[int]
    winners: list[Seat]
    placements: list[int]
    forfeited: list[bool]
    adjudicated: bool


class Shutdown(_Out):
    type: Literal["shutdown"]


ToBot = Annotated[
    Hello | GameStart | RoundStart | Turn | RoundEnd | GameEnd | Shutdown,
    Field(discriminator="type"),
]
TO_BOT: TypeAdapter[Hello | GameStart | RoundStart | Turn | RoundEnd | GameEnd | Shutdown]
TO_BOT = TypeAdapter(ToBot)


# -- bot → referee --------------------------------------------------------------------


class HelloReply(_In):
    type: Literal["hello"]
    name: Annotated[str, Field(min_length=1, max_length=100)]
    version: Annotated[str, Field(max_length=100)] = "0"


class ActionReply(_In):
    type: Literal["action"]
    id: Annotated[int, Field(ge=1, description="The id of the turn answered")]
    action: Literal["play", "draw", "quit"]
    card: Card | None = Field(default=None, description="Required for play; ignored otherwise")

    @model_validator(mode="after")
    def _play_names_a_card(self) -> ActionReply:
        if self.action == "play" and self.card is None:
            raise ValueError("a play needs a card")
        return self


FromBot = Annotated[HelloReply | ActionReply, Field(discriminator="type")]
