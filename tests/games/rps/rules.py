"""Rock-paper-scissors over several rounds: the throws, who beats whom, the options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import one_line
from harness.games.base import BadOptions

# what beats what, by variant: each throw -> the throws it beats
BEATS: dict[str, dict[str, frozenset[str]]] = {
    "classic": {
        "rock": frozenset({"scissors"}),
        "paper": frozenset({"rock"}),
        "scissors": frozenset({"paper"}),
    },
    "lizard-spock": {
        "rock": frozenset({"scissors", "lizard"}),
        "paper": frozenset({"rock", "spock"}),
        "scissors": frozenset({"paper", "lizard"}),
        "lizard": frozenset({"paper", "spock"}),
        "spock": frozenset({"rock", "scissors"}),
    },
}
THROWS = ("rock", "paper", "scissors", "lizard", "spock")  # every throw of every variant, in order


class OptionsModel(BaseModel):
    """The rules options of rock-paper-scissors, as in hello and the replay header."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    rounds: Annotated[int, Field(ge=1, le=1000, description="Rounds in a game")] = 5
    variant: Literal["classic", "lizard-spock"] = Field(
        default="classic", description="classic (3 throws) or lizard-spock (5 throws)"
    )


@dataclass(frozen=True)
class Options:
    rounds: int = 5
    variant: str = "classic"

    def to_dict(self) -> dict[str, object]:
        return {"rounds": self.rounds, "variant": self.variant}


def parse_options(raw: Mapping[str, object]) -> Options:
    """Options from a mapping; BadOptions naming the field."""
    try:
        model = OptionsModel.model_validate(dict(raw))
    except ValidationError as err:
        raise BadOptions(one_line(err)) from None
    return Options(model.rounds, model.variant)


@dataclass(frozen=True)
class Throw:
    """One seat's throw."""

    throw: str

    def wire(self) -> dict[str, object]:
        return {"throw": self.throw}

    def __str__(self) -> str:
        return self.throw


def winner(variant: str, throws: Sequence[str]) -> int | None:
    """The seat whose throw beats the other's, or None for a draw."""
    first, second = throws
    if second in BEATS[variant][first]:
        return 0
    if first in BEATS[variant][second]:
        return 1
    return None


def placements(scores: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """More rounds won places first; ties share; forfeited seats last."""
    live = [score for score, lost in zip(scores, forfeited, strict=True) if not lost]
    return [
        len(live) + 1 if lost else 1 + sum(1 for other in live if other > score)
        for score, lost in zip(scores, forfeited, strict=True)
    ]
