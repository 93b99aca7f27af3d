"""Llama Llama rules that need no state: options, scoring, the passing ring, placements.

Pure and deterministic: no I/O, no clock, no global randomness; every random choice
takes an explicit ``random.Random``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.games.llama_llama.cards import Card, CardSet

MIN_PLAYERS = 2
MAX_PLAYERS = 4
HOLDERS = 4  # hands dealt every round, whatever the player count
DEAL = 8  # cards in each hand dealt
END_SCORE = 100
MAX_ROUNDS = 4


@dataclass(frozen=True, slots=True)
class Options:
    """Every rules option with its default; ``card_set`` is the set itself, not a path."""

    card_set: CardSet
    end_score: int = END_SCORE
    max_rounds: int = MAX_ROUNDS

    def to_dict(self) -> dict[str, object]:
        """The options as written into hello and the replay header (the whole card set inline)."""
        return {
            "card_set": self.card_set.to_dict(),
            "end_score": self.end_score,
            "max_rounds": self.max_rounds,
        }


@dataclass(frozen=True, slots=True)
class GoalScore:
    """What one revealed goal gave one hand."""

    display: int
    card: int
    top: int
    bottom: int

    def wire(self) -> dict[str, int]:
        return {"display": self.display, "card": self.card, "top": self.top, "bottom": self.bottom}


def times(need: Sequence[tuple[str, int]], counts: Mapping[str, int]) -> int:
    """How many times a hand with letter ``counts`` holds the combination ``need``.

    A card is never used twice within one combination: the minimum, over the letters L
    of the combination, of count(L in hand) // count(L in combination). ``DDFF`` holds
    ``DF`` twice; ``DFF`` holds it once.
    """
    return min(counts.get(letter, 0) // copies for letter, copies in need)


def score_goal(goal: Card, counts: Mapping[str, int]) -> tuple[int, int]:
    """(top, bottom) points that ``goal`` gives a hand with letter ``counts``."""
    top = goal.top_points * counts.get(goal.top_letter, 0)
    return top, goal.bottom_points * times(goal.bottom_need, counts)


def score_hand(hand: Sequence[int], goals: Sequence[int], cards: Mapping[int, Card]) -> list[GoalScore]:
    """Score ``hand`` by each goal of ``goals`` (card ids, display 1 first), each on its own."""
    counts = Counter(cards[card].letter for card in hand)
    out = []
    for display, goal in enumerate(goals, 1):
        top, bottom = score_goal(cards[goal], counts)
        out.append(GoalScore(display, goal, top, bottom))
    return out


def ring_of(players: int, right_of: int | None) -> list[int]:
    """The passing ring as holders (seats, then dummies ``players..3``), seat 0 first.

    Left is the next position. 4 players: 0, 1, 2, 3. 2 players: 0, dummy, 1, dummy.
    3 players: the dummy (holder 3) sits just before seat ``right_of``, i.e. to its right.
    """
    if players == 4:
        return [0, 1, 2, 3]
    if players == 2:
        return [0, 2, 1, 3]
    if right_of is None:
        raise ValueError("3 players: the dummy needs a place")
    ring = [0, 1, 2]
    ring.insert(right_of, 3)
    start = ring.index(0)
    return ring[start:] + ring[:start]


def dummy_place(players: int, round_no: int, scores: Sequence[int], rng: random.Random) -> int | None:
    """The seat the 3-player dummy sits to the right of this round (None with 2 or 4 players).

    Round 1: left of a random player, i.e. to the right of the next one. Later: to the
    right of the lowest total, a tie broken at random.
    """
    if players != 3:
        return None
    if round_no == 1:
        return (rng.randrange(3) + 1) % 3
    low = min(scores)
    return rng.choice([seat for seat in range(3) if scores[seat] == low])


def place_goals(
    card_set: CardSet,
    players: int,
    round_no: int,
    goals: Sequence[int],
    scores: Sequence[int],
    rng: random.Random,
) -> tuple[list[int], list[int | None]]:
    """Put the goals of the holders (``goals[h]``) on displays 1-4.

    Return (holder by display, the display each seat knows as its own goal's or None).
    Round 1 shuffles them. Later rounds: dummy goals on the marked displays lowest
    first; the players' goals on the other displays by total descending, tied players'
    goals shuffled among their displays (so a tied player does not know its display).
    """
    if round_no == 1:
        order = list(range(HOLDERS))
        rng.shuffle(order)
        return order, [None] * players
    owner: list[int | None] = [None] * HOLDERS
    for dummy in range(players, HOLDERS):
        marked = next(d for d in range(HOLDERS) if owner[d] is None and card_set.side(d + 1, players).dummy)
        owner[marked] = dummy
    free = [d for d in range(HOLDERS) if owner[d] is None]
    known: list[int | None] = [None] * players
    for total in sorted(set(scores), reverse=True):
        group = [seat for seat in range(players) if scores[seat] == total]
        if len(group) > 1:
            rng.shuffle(group)
        for seat in group:
            display = free.pop(0)
            owner[display] = seat
            if len(group) == 1:
                known[seat] = display + 1
    return [h for h in owner if h is not None], known


def placements(totals: Sequence[int], final: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """Places (1 = best): by total descending, then the final round's score; ties share.

    Forfeited seats share the place after every other seat.
    """
    keys = list(zip(totals, final, strict=True))
    live = [key for key, lost in zip(keys, forfeited, strict=True) if not lost]
    last = len(live) + 1
    return [
        last if lost else 1 + sum(1 for other in live if other > key)
        for key, lost in zip(keys, forfeited, strict=True)
    ]


def canonical(cards: Sequence[int]) -> list[int]:
    """Cards in the canonical order (ascending id): hands on the wire, forced choices."""
    return sorted(cards)
