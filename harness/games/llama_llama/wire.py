"""Llama Llama on the wire and in replays, as pydantic models (the schemas are generated from them).

Messages to bots are built as plain dicts by the state; tests validate every message of
many random games against these closed models, so the two cannot drift apart and no
unknown field can smuggle a hidden card.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from harness.games.base import Wire
from harness.games.llama_llama.cards import CardSetModel
from harness.replay import records as base

CardId = Annotated[int, Field(ge=1, le=32, description="A card's id in the card set")]
Seat = Annotated[int, Field(ge=0, le=3)]
Holder = Annotated[int, Field(ge=0, le=3, description="A hand: seats 0..players-1, then the dummies")]
DisplayNo = Annotated[int, Field(ge=1, le=4, description="Display 1-4, revealed in that order")]
Count = Annotated[int, Field(ge=0, le=3)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _In(BaseModel):
    # unknown extra fields in a reply are ignored; strict types: "card": "3" is invalid
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


# -- parts --------------------------------------------------------------------------------


class Options(_Out):
    card_set: CardSetModel = Field(description="The whole card set in force: every card's face, the displays")
    end_score: Annotated[int, Field(ge=1)] = 100
    max_rounds: Annotated[int, Field(ge=1)] = 4


class TimeLimits(_Out):
    startup_ms: Annotated[int, Field(ge=1, description="Deadline for the hello reply")]
    move_ms: Annotated[int, Field(ge=1, description="Deadline for each action reply")]


class DisplayView(_Out):
    display: DisplayNo
    passes: Count = Field(description="Cards each player passes when this goal is revealed")
    dummy: bool = Field(description="Marked for a dummy goal (2-3 players, from round 2)")
    goal: CardId | None = Field(description="The goal on it once revealed; null while face down")


class GoalAction(_Out):
    action: Literal["goal"]
    card: CardId


class PassAction(_Out):
    action: Literal["pass"]
    cards: list[CardId] = Field(description="Exactly `count` cards of your hand, ascending")


LegalAction = Annotated[GoalAction | PassAction, Field(discriminator="action")]


class GoalScore(_Out):
    display: DisplayNo
    card: CardId = Field(description="The goal card on that display")
    top: Annotated[int, Field(ge=0, description="Points from its top rule")]
    bottom: Annotated[int, Field(ge=0, description="Points from its bottom rule")]


class _View(_Out):
    round: Annotated[int, Field(ge=1)]
    phase: Literal["goal", "pass", "over"]
    display: DisplayNo | None = Field(description="pass phase: the display just revealed")
    count: Count | None = Field(description="pass phase: how many cards you pass")
    hand: list[CardId] = Field(description="Your hand, ascending ids")
    goal: CardId | None = Field(description="Your own goal card this round, once chosen")
    goal_display: DisplayNo | None = Field(
        description="The display holding your goal, when the placement shows it (from round 2, untied)"
    )
    displays: list[DisplayView]
    ring: list[Seat | None] = Field(description="The passing ring from seat 0; null is a dummy; left is next")
    scores: list[int] = Field(description="Totals by seat")
    round_scores: list[list[int]] = Field(description="Each finished round's scores by seat")


# -- referee → bot ------------------------------------------------------------------------


class Hello(_Out):
    type: Literal["hello"]
    protocol: Literal[1]
    game: Literal["llama-llama"]
    options: Options
    seat: Seat
    players: Annotated[int, Field(ge=2, le=4)]
    games: Annotated[int, Field(ge=1)]
    time: TimeLimits


class GameStart(_Out):
    type: Literal["game_start"]
    game: Annotated[int, Field(ge=1)]
    seat: Seat
    players: Annotated[int, Field(ge=2, le=4)]
    seed: Annotated[int, Field(ge=0)]


class RoundStart(_View):
    type: Literal["round_start"]
    game: int


class Turn(_View):
    """Your turn: choose a goal card, or the cards to pass; copy one entry of ``legal``."""

    type: Literal["turn"]
    id: Annotated[int, Field(ge=1, description="Echo it in the reply")]
    game: int
    seat: Seat
    legal: list[LegalAction]


class GoalsPlaced(_Out):
    type: Literal["goals_placed"]
    game: int
    round: int
    goal: CardId = Field(description="Your goal card")
    goal_display: DisplayNo | None = Field(description="Its display, if the placement shows it")


class Reveal(_Out):
    type: Literal["reveal"]
    game: int
    round: int
    display: DisplayNo
    card: CardId
    count: Count = Field(description="Cards each player now passes to the left")


class Passed(_Out):
    """Private: only what you passed and what you received."""

    type: Literal["passed"]
    game: int
    round: int
    display: DisplayNo
    passed: list[CardId] = Field(description="What you passed to your left")
    received: list[CardId] = Field(description="What you received from your right")


class RoundEnd(_Out):
    type: Literal["round_end"]
    game: int
    round: int
    goals: list[CardId] = Field(description="The goal on each display, display 1 first")
    round_scores: list[int]
    scores: list[int]
    breakdown: list[GoalScore] = Field(description="Your own hand's points by goal (never another's)")


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


ToBotMessage = (
    Hello | GameStart | RoundStart | Turn | GoalsPlaced | Reveal | Passed | RoundEnd | GameEnd | Shutdown
)
ToBot = Annotated[ToBotMessage, Field(discriminator="type")]
TO_BOT: TypeAdapter[ToBotMessage] = TypeAdapter(ToBot)


# -- bot → referee ------------------------------------------------------------------------


class HelloReply(_In):
    type: Literal["hello"]
    name: Annotated[str, Field(min_length=1, max_length=100)]
    version: Annotated[str, Field(max_length=100)] = "0"


class ActionReply(_In):
    type: Literal["action"]
    id: Annotated[int, Field(ge=1, description="The id of the turn answered")]
    action: Literal["goal", "pass"]
    card: CardId | None = Field(default=None, description="goal: the card you choose")
    cards: list[CardId] | None = Field(default=None, description="pass: the cards you pass")

    @model_validator(mode="after")
    def _names_cards(self) -> ActionReply:
        if self.action == "goal" and self.card is None:
            raise ValueError("a goal needs a card")
        if self.action == "pass" and self.cards is None:
            raise ValueError("a pass needs cards")
        return self


FromBot = Annotated[HelloReply | ActionReply, Field(discriminator="type")]


# -- replay records ---------------------------------------------------------------------


class Header(base.Header):
    game: Literal["llama-llama"]
    options: Options = Field(description="Every rules option in force, the whole card set included")


class RoundStartRecord(_Out):
    type: Literal["round_start"]
    round: Annotated[int, Field(ge=1)]
    ring: list[Holder] = Field(description="The passing ring from seat 0, as holders; left is next")
    hands: list[list[CardId]] = Field(description="The 4 hands dealt, by holder (seats, then dummies)")


class ActionRecord(base.ActionRecord):
    seat: Seat
    action: Literal["goal", "pass"]
    card: CardId | None = Field(default=None, description="goal: the card chosen")
    cards: list[CardId] | None = Field(default=None, description="pass: the cards passed, ascending")


class GoalsRecord(_Out):
    type: Literal["goals"]
    round: int
    chosen: list[CardId] = Field(description="Each holder's goal card (the dummies' drawn at random)")
    owners: list[Holder] = Field(description="The holder whose goal lies on each display")
    displays: list[CardId] = Field(description="The goal card on each display")


class RevealRecord(_Out):
    type: Literal["reveal"]
    display: DisplayNo
    card: CardId
    count: Count


class Move(_Out):
    by: Holder = Field(description="The hand that passes")
    to: Holder = Field(description="The hand to its left, that receives")
    cards: list[CardId]


class PassRecord(_Out):
    type: Literal["pass"]
    display: DisplayNo
    count: Count
    moves: list[Move] = Field(description="Every hand's pass in ring order, the dummies' random ones too")


class RoundEndRecord(_Out):
    type: Literal["round_end"]
    round: int
    round_scores: list[int]
    scores: list[int]
    breakdown: list[list[GoalScore]] = Field(description="By seat, then display")


Record = base.record_union(Header, RoundStartRecord, ActionRecord, GoalsRecord, RevealRecord, PassRecord, RoundEndRecord)
RECORD: TypeAdapter[Any] = TypeAdapter(Record)

WIRE = Wire(to_bot=ToBot, from_bot=FromBot, records=Record)
