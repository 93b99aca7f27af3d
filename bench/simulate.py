"""In-process games for the statistics studies: the league's schedule and rules engine,
with simple policies of tunable strength instead of bot processes.

A policy with noise ``e`` plays a sound rule (play the card that empties the hand
fastest, quit when the hand is worth little, else draw) and, with probability ``e``
per decision, a random legal action instead. Equal noise = equal strength exactly (the
policies are the same); the Elo gaps between noise levels are measured (`calibrate`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.games.llama import LLAMA_GAME, Options  # noqa: E402
from harness.games.llama.rules import DRAW, QUIT, Kind, penalty  # noqa: E402
from harness.league.schedule import duplicate_seatings  # noqa: E402
from harness.seeds import derive_seed  # noqa: E402

OPTIONS = Options()


def _hand_value(hand: Sequence[int]) -> int:
    return penalty(hand, OPTIONS.variant)


def decide(state: object, seat: int, noise: float, rng: random.Random) -> object:
    """One decision of a policy with this noise level."""
    legal = state.legal_actions(seat)  # type: ignore[attr-defined]
    if len(legal) == 1:
        return legal[0]
    if rng.random() < noise:
        return rng.choice(legal)
    plays = [a for a in legal if a.kind is Kind.PLAY]
    hand = state.hands[seat]  # type: ignore[attr-defined]
    if plays:
        # the card we hold most of: empties the hand fastest
        return max(plays, key=lambda a: (hand.count(a.card), a.card))
    if DRAW in legal and _hand_value(hand) >= 6 and len(hand) <= 6:
        return DRAW
    return QUIT


def play_game(seating: Sequence[float], deal: int, rng: random.Random) -> list[int]:
    """Play one game with policies of these noise levels by seat; return the places by seat."""
    state = LLAMA_GAME.new_game(OPTIONS, len(seating), deal)
    state.begin()
    while not state.over:
        state.apply([decide(state, seat, seating[seat], rng) for seat in state.acting()])
    return LLAMA_GAME.final(state, [False] * len(seating)).placements


def play_group(noise: dict[str, float], order: Sequence[str], group_id: int, seed: int) -> list[tuple[tuple[str, ...], list[int]]]:
    """One deal group of the league schedule: every seating of ``order``, one deal."""
    deal = derive_seed(seed, "deal", group_id)
    out = []
    for index, seating in enumerate(duplicate_seatings(order)):
        rng = random.Random(derive_seed(seed, "policy", group_id, index))
        out.append((seating, play_game([noise[name] for name in seating], deal, rng)))
    return out


def pair_score(games: Sequence[tuple[Sequence[str], Sequence[int]]], a: str, b: str) -> float:
    """A's mean pairwise result against B over a group's games."""
    total = 0.0
    for seating, places in games:
        pa, pb = places[list(seating).index(a)], places[list(seating).index(b)]
        total += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
    return total / len(games)
