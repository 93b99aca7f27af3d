"""Bot protocol v1: the envelope every game shares, as pydantic models.

``hello`` (its common fields), ``game_start``, a turn's ``type``/``id``/``game``, the
action reply's ``type``/``id``, ``game_end`` and ``shutdown`` are here; each game's
package adds its own fields and messages (for L.L.A.M.A.: harness/games/llama/wire.py).
``schemas/*.json`` are generated from the models and ``docs/protocol.md`` describes
them. Messages to bots are built as plain dicts on the hot path; tests validate every
message of many random games against the models, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = 1


class Out(BaseModel):
    """A message to a bot: closed (no field a model does not name)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class In(BaseModel):
    """A message from a bot: unknown extra fields ignored; strict types ("3" is no number)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


class TimeLimits(Out):
    startup_ms: Annotated[int, Field(ge=1, description="Deadline for the hello reply")]
    move_ms: Annotated[int, Field(ge=1, description="Deadline for each action reply")]


Seat = Annotated[int, Field(ge=0)]


# -- referee → bot --------------------------------------------------------------------


class GameStart(Out):
    """A new game of the match; seats rotate, so ``seat`` may change between games."""

    type: Literal["game_start"]
    game: Annotated[int, Field(ge=1)]
    seat: Seat
    players: Annotated[int, Field(ge=2)]
    seed: Annotated[int, Field(ge=0, description="Seed for the bot's own randomness")]


class GameEnd(Out):
    type: Literal["game_end"]
    game: int
    scores: list[int]
    winners: list[Seat]
    placements: list[int]
    forfeited: list[bool]
    adjudicated: bool


class Shutdown(Out):
    type: Literal["shutdown"]


# -- bot → referee --------------------------------------------------------------------


class HelloReply(In):
    type: Literal["hello"]
    name: Annotated[str, Field(min_length=1, max_length=100)]
    version: Annotated[str, Field(max_length=100)] = "0"


class ActionEnvelope(In):
    """What the session checks of every action reply; the game checks the rest."""

    type: Literal["action"]
    id: Annotated[int, Field(ge=1, description="The id of the turn answered")]


__all__ = [
    "PROTOCOL_VERSION",
    "ActionEnvelope",
    "GameEnd",
    "GameStart",
    "HelloReply",
    "In",
    "Out",
    "Seat",
    "Shutdown",
    "TimeLimits",
]
