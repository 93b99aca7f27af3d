"""L.L.A.M.A. on the wire (protocol v1), as pydantic models: its hello fields, turn, notices, reply.

These models and the envelope's (harness/protocol/messages.py) are the specification:
``schemas/protocol-*.json`` are generated from them. Messages to bots are built as
plain dicts by the state; a test validates every message of many random games against
``TO_BOT``, and another holds the hand check of a reply (``state.reply_action``) to
``ActionReply``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter, model_validator

from harness.protocol.messages import GameEnd, GameStart, HelloReply, In, Out, Shutdown, TimeLimits

Card = Annotated[int, Field(ge=1, le=7, description="1-6 are numbers, 7 is the Llama")]
Seat = Annotated[int, Field(ge=0, le=5)]


class RulesOptions(Out):
    variant: Literal["standard", "komary"] = Field(default="standard", description="Rules variant")
    next_starter: Literal["ender", "last_play", "rotate"] = Field(
        default="ender", description="Who starts rounds after the first"
    )
    end_score: Annotated[int, Field(ge=1, description="A game ends when a score reaches this")] = 40
    max_rounds: Annotated[
        int, Field(ge=1, description="Round cap; a game that reaches it is adjudicated")
    ] = 50


class PlayerView(Out):
    cards: Annotated[int, Field(ge=0, description="Cards in that seat's hand")]
    quit: bool
    score: int


class PlayAction(Out):
    action: Literal["play"]
    card: Card


class DrawAction(Out):
    action: Literal["draw"]


class QuitAction(Out):
    action: Literal["quit"]


LegalAction = Annotated[PlayAction | DrawAction | QuitAction, Field(discriminator="action")]


class PlayEvent(Out):
    seat: Seat
    action: Literal["play"]
    card: Card


class DrawEvent(Out):
    seat: Seat
    action: Literal["draw"]


class QuitEvent(Out):
    seat: Seat
    action: Literal["quit"]


Event = Annotated[PlayEvent | DrawEvent | QuitEvent, Field(discriminator="action")]


# -- referee → bot --------------------------------------------------------------------


class Hello(Out):
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


class RoundStart(Out):
    type: Literal["round_start"]
    game: int
    round: Annotated[int, Field(ge=1)]
    first: Seat
    hand: list[Card]
    discard: Card
    stock: Annotated[int, Field(ge=0)]
    players: list[PlayerView]


class Turn(Out):
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


class RoundEnd(Out):
    type: Literal["round_end"]
    game: int
    round: int
    events: list[Event] = Field(description="Public actions since your last turn")
    penalties: list[int]
    returned: list[int] = Field(description="Chip value returned by whoever played out")
    scores: list[int]


ToBot = Annotated[
    Hello | GameStart | RoundStart | Turn | RoundEnd | GameEnd | Shutdown,
    Field(discriminator="type"),
]
TO_BOT: TypeAdapter[Hello | GameStart | RoundStart | Turn | RoundEnd | GameEnd | Shutdown]
TO_BOT = TypeAdapter(ToBot)


# -- bot → referee --------------------------------------------------------------------


class ActionReply(In):
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

__all__ = [
    "TO_BOT",
    "ActionReply",
    "Card",
    "FromBot",
    "Hello",
    "RoundEnd",
    "RoundStart",
    "RulesOptions",
    "Seat",
    "ToBot",
    "Turn",
]
