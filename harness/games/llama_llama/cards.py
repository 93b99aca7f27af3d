"""Llama Llama card sets: 32 Llama cards and 4 Display cards, read from TOML (or a mapping).

The printed faces of the published game are not public, so the harness treats them as
data: :func:`load_card_set` validates a file with one-line errors naming the bad entry,
and :func:`default_card_set` is the shipped stand-in (``default.toml``).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

CARDS = 32
DISPLAYS = 4
Letter = Annotated[str, Field(pattern=r"^[A-Z]$", description="One capital letter A-Z")]


class CardSetError(ValueError):
    """A card set that does not load or validate; the message is one line naming the entry."""


# -- the file format (pydantic: this is a boundary) --------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class TopRuleModel(_Strict):
    letter: Letter
    points: Annotated[int, Field(ge=0, le=1000, description="Points for each card of that letter")]


class BottomRuleModel(_Strict):
    letters: Annotated[
        str,
        Field(pattern=r"^[A-Z]{2,4}$", description="The combination: 2-4 capital letters, repeats allowed"),
    ]
    points: Annotated[int, Field(ge=0, le=1000, description="Points for each time the hand holds it")]


class CardModel(_Strict):
    id: Annotated[int, Field(ge=1, le=CARDS, description="1-32, unique: the id bots name")]
    letter: Letter
    top: TopRuleModel
    bottom: BottomRuleModel


class FourSideModel(_Strict):
    passes: Annotated[int, Field(ge=0, le=3, description="Cards each player passes")]


class FewSideModel(_Strict):
    passes: Annotated[int, Field(ge=0, le=3, description="Cards each player passes")]
    dummy: bool = Field(default=False, description="Marked for a dummy goal (from round 2)")


class DisplayModel(_Strict):
    four_players: FourSideModel
    two_three_players: FewSideModel


class CardSetModel(_Strict):
    """A Llama Llama card set: 32 cards and the 4 displays, display 1 first."""

    name: Annotated[str, Field(min_length=1, max_length=100)] = "unnamed"
    note: Annotated[str, Field(max_length=2000)] = ""
    cards: list[CardModel]
    displays: list[DisplayModel]

    @model_validator(mode="after")
    def _complete(self) -> CardSetModel:
        if len(self.cards) != CARDS:
            raise ValueError(f"cards: {len(self.cards)} cards, a set has exactly {CARDS}")
        if len(self.displays) != DISPLAYS:
            raise ValueError(f"displays: {len(self.displays)} displays, a set has exactly {DISPLAYS}")
        seen: dict[int, int] = {}
        for index, card in enumerate(self.cards):
            if card.id in seen:
                raise ValueError(f"cards[{index}]: id {card.id} is already cards[{seen[card.id]}]'s")
            seen[card.id] = index
        marked = sum(1 for display in self.displays if display.two_three_players.dummy)
        if marked < 2:
            # two players leave two dummy hands, and each dummy goal needs a marked display
            raise ValueError(f"displays: {marked} marked for a dummy goal, at least 2 are needed")
        return self


# -- what the rules use (plain frozen dataclasses) ------------------------------------------


@dataclass(frozen=True, slots=True)
class Card:
    """One Llama card: the letter it counts as, and its goal face (top and bottom rule)."""

    id: int
    letter: str
    top_letter: str
    top_points: int
    bottom: str
    bottom_points: int
    bottom_need: tuple[tuple[str, int], ...]  # the combination as (letter, copies), sorted


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a Display card: the pass count and the dummy mark."""

    pass_count: int
    dummy: bool


@dataclass(frozen=True, slots=True)
class CardSet:
    """A validated card set; ``cards`` by id, ``displays`` as (4-player side, 2-3 player side)."""

    name: str
    note: str
    cards: Mapping[int, Card]
    displays: tuple[tuple[Side, Side], ...]

    def side(self, display: int, players: int) -> Side:
        """The side of display ``display`` (1-4) in force with ``players`` players."""
        four, few = self.displays[display - 1]
        return four if players == 4 else few

    def to_dict(self) -> dict[str, Any]:
        """The set in the file format (as a mapping), as written into hello and replay headers."""
        return {
            "name": self.name,
            "note": self.note,
            "cards": [
                {
                    "id": card.id,
                    "letter": card.letter,
                    "top": {"letter": card.top_letter, "points": card.top_points},
                    "bottom": {"letters": card.bottom, "points": card.bottom_points},
                }
                for card in self.cards.values()
            ],
            "displays": [
                {
                    "four_players": {"passes": four.pass_count},
                    "two_three_players": {"passes": few.pass_count, "dummy": few.dummy},
                }
                for four, few in self.displays
            ],
        }


def _build(model: CardSetModel) -> CardSet:
    cards = {
        c.id: Card(
            id=c.id,
            letter=c.letter,
            top_letter=c.top.letter,
            top_points=c.top.points,
            bottom=c.bottom.letters,
            bottom_points=c.bottom.points,
            bottom_need=tuple(sorted(Counter(c.bottom.letters).items())),
        )
        for c in sorted(model.cards, key=lambda c: c.id)
    }
    displays = tuple(
        (Side(d.four_players.passes, False), Side(d.two_three_players.passes, d.two_three_players.dummy))
        for d in model.displays
    )
    return CardSet(model.name, model.note, cards, displays)


def _where(loc: tuple[int | str, ...], raw: Mapping[str, Any]) -> str:
    """``cards[3] (id 4).bottom.letters`` from a pydantic error location."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            if len(loc) > 1 and loc[0] == "cards" and out.startswith("cards"):
                entries = raw.get("cards")
                if isinstance(entries, list) and part < len(entries) and isinstance(entries[part], dict):
                    card_id = entries[part].get("id")
                    if card_id is not None:
                        out += f" (id {card_id!r})"
        else:
            out += f".{part}" if out else part
    return out or "(top)"


def parse_card_set(raw: Mapping[str, Any], source: str = "card set") -> CardSet:
    """Validate a card set given as a mapping; raise CardSetError naming ``source`` and the entry."""
    try:
        model = CardSetModel.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        where = _where(tuple(first["loc"]), raw)
        text = f"{source}: {message}" if where == "(top)" else f"{source}: {where}: {message}"
        raise CardSetError(text) from None
    return _build(model)


MAX_CARD_SET = 1 << 20  # bytes: a card set is a few KiB of TOML


def load_card_set(path: str | Path) -> CardSet:
    """Read and validate a card-set TOML file; raise CardSetError with one line naming the problem."""
    from harness.files import read_regular

    path = Path(path)
    try:  # a regular file only, up to a cap: a FIFO would block, /dev/zero never end
        data = read_regular(path, MAX_CARD_SET + 1)
    except FileNotFoundError:
        raise CardSetError(f"{path}: no such card-set file") from None
    except OSError as err:
        raise CardSetError(f"{path}: cannot read the card set: {err.strerror or err}") from None
    if len(data) > MAX_CARD_SET:
        raise CardSetError(f"{path}: over {MAX_CARD_SET >> 10} KiB: not a card set")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CardSetError(f"{path}: cannot read the card set: {err}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CardSetError(f"{path}: not valid TOML: {err}") from None
    return parse_card_set(raw, str(path))


@cache
def default_card_set() -> CardSet:
    """The shipped stand-in set (``default.toml``, package data)."""
    text = resources.files(__package__).joinpath("default.toml").read_text(encoding="utf-8")
    return parse_card_set(tomllib.loads(text), "llama_llama/default.toml")


__all__ = [
    "CARDS",
    "DISPLAYS",
    "Card",
    "CardSet",
    "CardSetError",
    "CardSetModel",
    "Side",
    "default_card_set",
    "load_card_set",
    "parse_card_set",
]
