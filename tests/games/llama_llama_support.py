"""Helpers for the Llama Llama tests: custom card sets and states with an explicit deal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.games.llama_llama import LLAMA_LLAMA_GAME
from harness.games.llama_llama.state import LlamaLlamaState

Face = tuple[str, str, int, str, int]  # letter, top letter, top points, bottom letters, bottom points


def card_set_dict(
    faces: Sequence[Face] = (),
    four: Sequence[int] = (1, 2, 3, 0),
    few: Sequence[int] = (1, 2, 2, 3),
    marked: Sequence[int] = (2, 4),
) -> dict[str, Any]:
    """A valid card set: ``faces`` for the first cards, then filler cards lettered Z."""
    cards = []
    for index in range(32):
        letter, top, top_points, bottom, bottom_points = (
            faces[index] if index < len(faces) else ("Z", "Y", 0, "YY", 0)
        )
        cards.append(
            {
                "id": index + 1,
                "letter": letter,
                "top": {"letter": top, "points": top_points},
                "bottom": {"letters": bottom, "points": bottom_points},
            }
        )
    displays = [
        {"four_players": {"passes": f}, "two_three_players": {"passes": t, "dummy": d + 1 in marked}}
        for d, (f, t) in enumerate(zip(four, few, strict=True))
    ]
    return {"name": "test", "cards": cards, "displays": displays}


def state(players: int, seed: int = 1, **options: Any) -> LlamaLlamaState:
    """A begun game with raw ``options`` (parsed as from a replay header)."""
    game = LLAMA_LLAMA_GAME.new_game(LLAMA_LLAMA_GAME.parse_options(options), players, seed)
    game.begin()
    return game


def with_hands(game: LlamaLlamaState, hands: Sequence[Sequence[int]]) -> LlamaLlamaState:
    """Replace the 4 hands of the current round (by holder) with ``hands``: an explicit deal."""
    assert sorted(card for hand in hands for card in hand) == sorted(
        card for hand in game.hands for card in hand
    ), "an explicit deal must hold the same cards"
    game.hands = [list(hand) for hand in hands]
    return game
