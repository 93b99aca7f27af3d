"""Replay format v1: one JSON object per line, named by ``type``; the header names the game.

The records every game shares are here: the header's common fields, ``fault``,
``game_end`` and an action record's envelope (``seat``, ``forced``, ``ms``). A game
adds its own header fields, action fields and records in its package
(``Game.wire.records``), so a replay alone re-checks a whole game of any kind.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

REPLAY_FORMAT = 1

Seat = Annotated[int, Field(ge=0)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlayerInfo(_Record):
    name: str
    version: str


class Header(_Record):
    """The first record; a game's header model adds ``game``, ``options`` and its own fields."""

    type: Literal["header"]
    format: Literal[1]
    game: str
    seed: Annotated[int, Field(ge=0)]
    players: list[PlayerInfo] = Field(description="By seat")
    match: Annotated[int, Field(ge=1, description="Game number within its match")] = 1
    match_games: Annotated[int | None, Field(ge=1, description="Games in the match (each hello's games)")] = (
        None
    )
    bot_seeds: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None, description="By seat: the seed each bot got in game_start"
    )


class ActionRecord(_Record):
    """What one seat did; a game's action model adds the action's fields (and what it revealed)."""

    type: Literal["action"]
    seat: Seat
    forced: bool = False
    ms: float | None = Field(default=None, description="Wall-clock time the bot took")


class FaultRecord(_Record):
    type: Literal["fault"]
    seat: Seat
    kind: Literal["timeout", "crash", "malformed", "invalid", "illegal", "startup"]
    detail: str
    stderr: str = Field(default="", description="Tail of the bot's stderr")


class GameEndRecord(_Record):
    type: Literal["game_end"]
    scores: list[int]
    winners: list[Seat]
    placements: list[int]
    forfeited: list[bool]
    adjudicated: bool
    rounds: int


def record_union(*models: type[BaseModel]) -> Any:
    """The union type of a game's records (for its published schema)."""
    union: Any = models[0]
    for model in (*models[1:], FaultRecord, GameEndRecord):
        union = union | model
    return Annotated[union, Field(discriminator="type")]


def record_adapter(*models: type[BaseModel]) -> TypeAdapter[Any]:
    """A validator of a game's records: its ``models`` (header, action, own records), fault and game_end."""
    return TypeAdapter(record_union(*models))


Record = Any  # a record model of some game: Header, ActionRecord, FaultRecord, GameEndRecord or its own

__all__ = [
    "REPLAY_FORMAT",
    "ActionRecord",
    "FaultRecord",
    "GameEndRecord",
    "Header",
    "PlayerInfo",
    "Record",
    "record_adapter",
    "record_union",
]
