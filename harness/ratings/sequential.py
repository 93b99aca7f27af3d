"""Classic incremental multiplayer Elo, applied game by game.

Unlike `fit_elo` this depends on the order of the games, has no error estimate and,
with a fixed K, never settles (it keeps moving by about K/2 with every game); it is
reported beside the batch fit only as a familiar reference. With K = 32 it forgets
its start within a few thousand games, so on a long league it is computed over the
last `WINDOW` games only (all bots starting at `initial`), which gives the same
values as the whole run up to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.ratings.columns import Results
from harness.ratings.model import GameResult

WINDOW = 100_000


def sequential_elo(
    games: Sequence[GameResult] | Results,
    *,
    k: float = 32.0,
    initial: float = 1500.0,
    window: int | None = None,
) -> dict[str, float]:
    """Run multiplayer Elo over `games` in order and return the final ratings.

    Each game counts as n-1 pairwise matches per bot. A bot's change is
    K/(n-1) times the sum over its opponents of (actual - expected), where the
    actual score is 1 for a better place, 1/2 for a tie and 0 for a worse one,
    and the expected score uses the ratings from before the game (all bots at
    the table are updated simultaneously). Bots start at `initial`. With
    `window`, only the last `window` games are run.

    Returns:
        Rating by bot name, in order of first appearance.

    Raises:
        ValueError: if `k` is not positive.
    """
    if not k > 0:
        raise ValueError(f"k must be positive, got {k!r}")
    if isinstance(games, Results):
        return _columns(games, k, initial, window)
    if window is not None:
        games = games[max(0, len(games) - window) :]
    ratings: dict[str, float] = {}
    for game in games:
        for name in game.players:
            ratings.setdefault(name, initial)
        _update(ratings, list(game.players), list(game.places), k)
    return ratings


def _update(ratings: dict[str, float], players: list[str], places: list[int], k: float) -> None:
    before = [ratings[name] for name in players]
    n = len(players)
    for i, name in enumerate(players):
        total = 0.0
        for j in range(n):
            if j == i:
                continue
            mine, theirs = places[i], places[j]
            actual = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
            total += actual - 1.0 / (1.0 + math.pow(10.0, (before[j] - before[i]) / 400.0))
        ratings[name] = before[i] + k / (n - 1) * total


def _columns(results: Results, k: float, initial: float, window: int | None) -> dict[str, float]:
    """The same over columns, with 10^(R/400) kept per bot (fewer powers per game)."""
    first = 0 if window is None else max(0, results.games - window)
    offsets = results.offsets[first:].tolist()
    start = offsets[0]
    bots = results.bot[start:].tolist()
    places = results.place[start:].tolist()
    strength: dict[int, float] = {}
    scale = math.log(10.0) / 400.0
    unit = math.exp(initial * scale)
    for g in range(len(offsets) - 1):
        lo, hi = offsets[g] - start, offsets[g + 1] - start
        table = bots[lo:hi]
        place = places[lo:hi]
        q = [strength.setdefault(b, unit) for b in table]
        n = hi - lo
        step = k / (n - 1)
        for i in range(n):
            total = 0.0
            qi, pi = q[i], place[i]
            for j in range(n):
                if j != i:
                    pj = place[j]
                    total += (1.0 if pi < pj else 0.5 if pi == pj else 0.0) - qi / (qi + q[j])
            strength[table[i]] = qi * math.exp(step * total * scale)
    return {results.names[b]: math.log(q) / scale for b, q in strength.items()}
