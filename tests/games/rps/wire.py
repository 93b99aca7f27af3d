"""Rock-paper-scissors on the wire and in replays, as closed pydantic models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from harness.games.base import Wire
from harness.protocol.messages import GameEnd, GameStart, HelloReply, In, Shutdown, TimeLimits
from harness.replay import records as base

from .rules import THROWS, OptionsModel

ThrowName = Literal["rock", "paper", "scissors", "lizard", "spock"]
assert set(ThrowName.__args__) == set(THROWS)  # type: ignore[attr-defined]
Seat = Annotated[int, Field(ge=0, le=1)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Hello(_Out):
    type: Literal["hello"]
    protocol: Literal[1]
    game: Literal["rps"]
    options: OptionsModel
    seat: Seat
    players: Literal[2]
    games: Annotated[int, Field(ge=1)]
    time: TimeLimits


class ThrowWire(_Out):
    throw: ThrowName


class Turn(_Out):
    type: Literal["turn"]
    id: Annotated[int, Field(ge=1)]
    game: Annotated[int, Field(ge=1)]
    seat: Seat
    round: Annotated[int, Field(ge=1)]
    rounds: Annotated[int, Field(ge=1)]
    scores: list[int]
    legal: list[ThrowWire]


class Revealed(_Out):
    type: Literal["revealed"]
    game: Annotated[int, Field(ge=1)]
    round: Annotated[int, Field(ge=1)]
    throws: list[ThrowName] = Field(description="Both throws, by seat")
    scores: list[int]


ToBot = Annotated[Hello | GameStart | Turn | Revealed | GameEnd | Shutdown, Field(discriminator="type")]
TO_BOT: TypeAdapter[Any] = TypeAdapter(ToBot)


class ActionReply(In):
    type: Literal["action"]
    id: Annotated[int, Field(ge=1)]
    throw: ThrowName


FromBot = Annotated[HelloReply | ActionReply, Field(discriminator="type")]


class Header(base.Header):
    game: Literal["rps"]
    options: OptionsModel


class ActionRecord(base.ActionRecord):
    seat: Seat
    throw: ThrowName


class ThrowsRecord(_Out):
    type: Literal["throws"]
    round: Annotated[int, Field(ge=1)]
    throws: list[ThrowName]
    winner: Seat | None


Record = base.record_union(Header, ActionRecord, ThrowsRecord)
WIRE = Wire(to_bot=ToBot, from_bot=FromBot, records=Record)
