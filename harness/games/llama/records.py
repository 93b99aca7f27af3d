"""L.L.A.M.A.'s replay records: its header fields, an action's fields, round_start and round_end.

A replay alone re-checks a whole game: the header names the rules and seed, each
``round_start`` holds every card (hands, discard, stock in draw order), and each
``action`` what a seat did, including the card a draw revealed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from harness.games.llama.wire import Card, RulesOptions, Seat
from harness.replay import records as base
from harness.replay.records import FaultRecord, GameEndRecord, PlayerInfo, _Record


class Header(base.Header):
    game: Literal["llama"]
    variant: Literal["standard", "komary"]
    options: RulesOptions


class RoundStartRecord(_Record):
    type: Literal["round_start"]
    round: Annotated[int, Field(ge=1)]
    first: Seat
    hands: list[list[Card]]
    discard: Card
    stock: list[Card] = Field(description="Remaining stock in draw order, top first")


class ActionRecord(base.ActionRecord):
    seat: Seat
    action: Literal["play", "draw", "quit"]
    card: Card | None = None
    drawn: Card | None = None


class RoundEndRecord(_Record):
    type: Literal["round_end"]
    round: int
    penalties: list[int]
    returned: list[int]
    scores: list[int]


Record = base.record_union(Header, RoundStartRecord, ActionRecord, RoundEndRecord)
RECORD: TypeAdapter[Any] = TypeAdapter(Record)

__all__ = [
    "RECORD",
    "ActionRecord",
    "FaultRecord",
    "GameEndRecord",
    "Header",
    "PlayerInfo",
    "Record",
    "RoundEndRecord",
    "RoundStartRecord",
]
