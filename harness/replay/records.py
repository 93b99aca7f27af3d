"""Replay format v1: one JSON object per line, named by ``type``.

A replay alone is enough to re-check a whole game: the header names the rules and
seed, each ``round_start`` holds every card (hands, discard, stock in draw order), and
each ``action`` holds what a seat did, including the card a draw revealed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from harness.protocol.messages import Card, RulesOptions, Seat

REPLAY_FORMAT = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlayerInfo(_Record):
    name: str
    version: str


class Header(_Record):
    type: Literal["header"]
    format: Literal[1]
    game: Literal["llama"]
    variant: Literal["standard", "komary"]
    options: RulesOptions
    seed: Annotated[int, Field(ge=0)]
    players: list[PlayerInfo] = Field(description="By seat")
    match: Annotated[int, Field(ge=1, description="Game number within its match")] = 1
    match_games: Annotated[int | None, Field(ge=1, description="Games in the match (each hello's games)")] = (
        None
    )
    bot_seeds: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None, description="By seat: the seed each bot got in game_start"
    )


class RoundStartRecord(_Record):
    type: Literal["round_start"]
    round: Annotated[int, Field(ge=1)]
    first: Seat
    hands: list[list[Card]]
    discard: Card
    stock: list[Card] = Field(description="Remaining stock in draw order, top first")


class ActionRecord(_Record):
    type: Literal["action"]
    seat: Seat
    action: Literal["play", "draw", "quit"]
    card: Card | None = None
    drawn: Card | None = None
    forced: bool = False
    ms: float | None = Field(default=None, description="Wall-clock time the bot took")


class FaultRecord(_Record):
    type: Literal["fault"]
    seat: Seat
    kind: Literal["timeout", "crash", "malformed", "invalid", "illegal", "startup"]
    detail: str
    stderr: str = Field(default="", description="Tail of the bot's stderr")


class RoundEndRecord(_Record):
    type: Literal["round_end"]
    round: int
    penalties: list[int]
    returned: list[int]
    scores: list[int]


class GameEndRecord(_Record):
    type: Literal["game_end"]
    scores: list[int]
    winners: list[Seat]
    placements: list[int]
    forfeited: list[bool]
    adjudicated: bool
    rounds: int


Record = Annotated[
    Header | RoundStartRecord | ActionRecord | FaultRecord | RoundEndRecord | GameEndRecord,
    Field(discriminator="type"),
]
RECORD: TypeAdapter[
    Header | RoundStartRecord | ActionRecord | FaultRecord | RoundEndRecord | GameEndRecord
] = TypeAdapter(Record)
