"""Classic incremental multiplayer Elo, applied game by game.

Unlike `fit_elo` this depends on the order of the games and has no error
estimate; it is reported beside the batch fit as a familiar reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.ratings.model import GameResult


def _expected(rating: float, opponent: float) -> float:
    """Elo expected score of `rating` against `opponent`."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def sequential_elo(
    games: Sequence[GameResult], *, k: float = 32.0, initial: float = 1500.0
) -> dict[str, float]:
    """Run multiplayer Elo over `games` in order and return the final ratings.

    Each game counts as n-1 pairwise matches per bot. A bot's change is
    K/(n-1) times the sum over its opponents of (actual - expected), where the
    actual score is 1 for a better place, 1/2 for a tie and 0 for a worse one,
    and the expected score uses the ratings from before the game (all bots at
    the table are updated simultaneously). Bots start at `initial`.

    Returns:
        Rating by bot name, in order of first appearance.

    Raises:
        ValueError: if `k` is not positive.
    """
    if not k > 0:
        raise ValueError(f"k must be positive, got {k!r}")
    ratings: dict[str, float] = {}
    for game in games:
        for name in game.players:
            ratings.setdefault(name, initial)
        before = [ratings[name] for name in game.players]
        n = len(game.players)
        for i, name in enumerate(game.players):
            total = 0.0
            for j in range(n):
                if j == i:
                    continue
                mine, theirs = game.places[i], game.places[j]
                actual = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                total += actual - _expected(before[i], before[j])
            ratings[name] = before[i] + k / (n - 1) * total
    return ratings
