"""Game results as flat numpy columns: the input of the fits at any league size.

One million games of four are 4,000,000 seats: a few bytes each here, against a few
hundred bytes per game as Python objects. The league store reads its results straight
into this form (`harness.league.store.Store.results`); `Results.from_games` builds it
from `GameResult` objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.ratings.model import GameResult

IntArray = npt.NDArray[np.int64]
SmallArray = npt.NDArray[np.int32]


@dataclass(frozen=True)
class Results:
    """Finished games in game order, seats flattened game by game.

    Attributes:
        names: bot names; ``bot`` holds indices into it.
        offsets: ``games + 1`` entries; game g's seats are ``offsets[g]:offsets[g+1]``.
        bot, place: per seat (seat 0 first within a game): bot index, place (1 = best).
        forfeited: per seat, 1 if the bot forfeited (placed last; never wins).
        cluster: per game, the cluster (deal group) index, 0..clusters-1.
    """

    names: tuple[str, ...]
    offsets: IntArray
    bot: SmallArray
    place: SmallArray
    forfeited: SmallArray
    cluster: SmallArray
    clusters: int

    @property
    def games(self) -> int:
        return len(self.offsets) - 1

    def sizes(self) -> IntArray:
        """Players per game."""
        out: IntArray = np.diff(self.offsets)
        return out

    def prefix(self, games: int) -> Results:
        """The first ``games`` games (clusters keep their indices)."""
        stop = int(self.offsets[games])
        return Results(
            self.names,
            self.offsets[: games + 1],
            self.bot[:stop],
            self.place[:stop],
            self.forfeited[:stop],
            self.cluster[:games],
            self.clusters,
        )

    def games_per_bot(self) -> IntArray:
        out: IntArray = np.bincount(self.bot, minlength=len(self.names)).astype(np.int64)
        return out

    @classmethod
    def from_games(cls, games: Sequence[GameResult], forfeited: Sequence[Sequence[bool]] = ()) -> Results:
        """Columns of ``games`` (names sorted; clusters numbered by first appearance)."""
        names = sorted({name for game in games for name in game.players})
        index = {name: i for i, name in enumerate(names)}
        clusters: dict[str, int] = {}
        sizes = [len(game.players) for game in games]
        offsets = np.zeros(len(games) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        bot = np.fromiter((index[n] for game in games for n in game.players), np.int32, int(offsets[-1]))
        place = np.fromiter((p for game in games for p in game.places), np.int32, int(offsets[-1]))
        lost = np.zeros(int(offsets[-1]), dtype=np.int32)
        if forfeited:
            lost = np.fromiter((int(f) for row in forfeited for f in row), np.int32, int(offsets[-1]))
        cluster = np.fromiter(
            (clusters.setdefault(game.cluster, len(clusters)) for game in games), np.int32, len(games)
        )
        return cls(tuple(names), offsets, bot, place, lost, cluster, len(clusters))


@dataclass(frozen=True)
class Pairs:
    """Every pair of players inside each game: first = the lower seat."""

    a: SmallArray  # bot index
    b: SmallArray
    seat_a: SmallArray
    seat_b: SmallArray
    outcome: npt.NDArray[np.float64]  # 1 = a placed better, 0.5 = tie, 0 = worse
    weight: npt.NDArray[np.float64]  # 1/(n-1)
    cluster: SmallArray
    game: SmallArray  # game index


def pairs_of(results: Results, games: IntArray | None = None) -> Pairs:
    """Expand ``games`` (indices; default all) into pairs, table size by table size."""
    chosen = np.arange(results.games) if games is None else games
    sizes = results.sizes()[chosen]
    parts: list[tuple[npt.NDArray[Any], ...]] = []
    for n in np.unique(sizes).tolist():
        these = chosen[sizes == n]
        first, second = np.triu_indices(n, 1)
        base = results.offsets[these][:, None]
        ia, ib = (base + first).ravel(), (base + second).ravel()
        pa, pb = results.place[ia], results.place[ib]
        parts.append(
            (
                results.bot[ia],
                results.bot[ib],
                np.tile(first.astype(np.int32), len(these)),
                np.tile(second.astype(np.int32), len(these)),
                np.where(pa < pb, 1.0, np.where(pa == pb, 0.5, 0.0)),
                np.full(len(ia), 1.0 / (n - 1)),
                np.repeat(results.cluster[these], len(first)),
                np.repeat(these.astype(np.int32), len(first)),
            )
        )
    if not parts:
        empty = np.zeros(0, dtype=np.int32)
        return Pairs(empty, empty, empty, empty, np.zeros(0), np.zeros(0), empty, empty)
    return Pairs(*(np.concatenate([part[i] for part in parts]) for i in range(8)))
