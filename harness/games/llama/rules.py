"""L.L.A.M.A. rules as docs/rules.md decides them: cards, deals, legal actions, scoring.

Pure and deterministic: no I/O, no clock, no global randomness. A deal comes from
``random.Random`` seeded by the game seed and the round number, so the same seed gives
the same cards whatever the players do (duplicate deals rely on this).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

LLAMA = 7
HAND_SIZE = 6
MIN_PLAYERS = 2
MAX_PLAYERS = 6


def next_card(card: int) -> int:
    """Return the card that follows ``card`` in the wrapping order 1→…→6→Llama→1."""
    return card % 7 + 1


class Variant(StrEnum):
    STANDARD = "standard"
    KOMARY = "komary"


class NextStarter(StrEnum):
    ENDER = "ender"
    LAST_PLAY = "last_play"
    ROTATE = "rotate"


@dataclass(frozen=True, slots=True)
class Options:
    """Every rules option with its default (the printed rules' choice where they make one)."""

    variant: Variant = Variant.STANDARD
    next_starter: NextStarter = NextStarter.ENDER
    end_score: int = 40
    max_rounds: int = 50

    def to_dict(self) -> dict[str, object]:
        return {
            "variant": self.variant.value,
            "next_starter": self.next_starter.value,
            "end_score": self.end_score,
            "max_rounds": self.max_rounds,
        }


class Kind(StrEnum):
    PLAY = "play"
    DRAW = "draw"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class Action:
    """One move: play a card, draw, or quit. ``card`` is set for plays only."""

    kind: Kind
    card: int | None = None

    def wire(self) -> dict[str, object]:
        """The action as sent to a bot (a shared dict: do not mutate it)."""
        # by identity first: hashing a dataclass costs more than the rest of a lookup
        found = _WIRE_OF.get(id(self))
        return found if found is not None else _WIRE[self]

    def __str__(self) -> str:
        return f"play {self.card}" if self.kind is Kind.PLAY else self.kind.value


DRAW = Action(Kind.DRAW)
QUIT = Action(Kind.QUIT)
PLAY = {card: Action(Kind.PLAY, card) for card in range(1, 8)}
_WIRE: dict[Action, dict[str, object]] = {
    DRAW: {"action": "draw"},
    QUIT: {"action": "quit"},
    **{action: {"action": "play", "card": card} for card, action in PLAY.items()},
}
_WIRE_OF: dict[int, dict[str, object]] = {id(action): wire for action, wire in _WIRE.items()}


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one round: hands by seat, the face-up discard, the stock top first."""

    hands: tuple[tuple[int, ...], ...]
    discard: int
    stock: tuple[int, ...]


def deck(variant: Variant) -> list[int]:
    """Return the unshuffled deck: 8 of each number and 8 Llamas (7 in ``komary``)."""
    llamas = 7 if variant is Variant.KOMARY else 8
    return [card for card in range(1, 7) for _ in range(8)] + [LLAMA] * llamas


def shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates with ``rng``, drawing exactly as ``random.Random.shuffle`` does in CPython 3.11.

    Written out so that a seed deals the same cards whatever the Python version (a test
    holds it to ``rng.shuffle``), and a third faster: a deal happens every round.
    """
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:  # rejection sampling: uniform in [0, n)
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def deal(variant: Variant, players: int, rng: random.Random) -> Deal:
    """Shuffle a deck with ``rng`` and deal six cards to each of ``players`` seats."""
    cards = deck(variant)
    shuffle(cards, rng)
    hands = tuple(tuple(cards[HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in range(players))
    rest = cards[HAND_SIZE * players :]
    return Deal(hands=hands, discard=rest[0], stock=tuple(rest[1:]))


def seeded_deal(variant: Variant, players: int, seed: int, round_no: int) -> Deal:
    """Return the deal of round ``round_no`` of the game with ``seed``.

    Each round has its own generator, so a round's cards do not depend on how many
    cards earlier rounds consumed or on the players' choices.
    """
    return deal(variant, players, random.Random(f"llama:{seed}:{round_no}"))


def penalty(hand: Sequence[int], variant: Variant) -> int:
    """Score a hand: the sum of its distinct numbers, plus 10 for Llamas.

    Standard: Llamas count 10 once however many. ``komary``: each one counts 10.
    """
    numbers = sum(set(card for card in hand if card != LLAMA))
    llamas = sum(1 for card in hand if card == LLAMA)
    if variant is Variant.KOMARY:
        return numbers + 10 * llamas
    return numbers + (10 if llamas else 0)


def chip_return(score: int) -> int:
    """Chip value returned by a player who played out, holding ``score`` before it.

    Chips can be exchanged at any time, so a black chip (10) is returned when the
    score reaches 10, a white one (1) when it is at least 1, else nothing.
    """
    if score >= 10:
        return 10
    if score >= 1:
        return 1
    return 0


def placements(scores: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """Rank seats by score ascending, equal scores sharing a place (1 = best).

    Forfeited seats are placed after every other seat, sharing the last place.
    """
    live = [score for score, lost in zip(scores, forfeited, strict=True) if not lost]
    last = len(live) + 1
    return [
        last if lost else 1 + sum(1 for other in live if other < score)
        for score, lost in zip(scores, forfeited, strict=True)
    ]
