"""The fits' sufficient statistics, gathered in streaming passes over chunks of games.

A comparison's row is (first bot, second bot, first seat, second seat): the fit needs
only the weighted score and weight per row, the robust errors the score per deal
group, the rating history the rows' sums per stretch of games, the cross table the
counts per row. Games are taken a chunk at a time (whole clusters, ~100,000 games), so
memory stays bounded at any league size.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.ratings.columns import Pairs, Results, pairs_of

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CHUNK_GAMES = 100_000
# Up to this many possible rows, a row is its key (dense arrays); beyond, keys are
# collected in a first pass and looked up.
DENSE_ROWS = 1 << 22


def chunks(results: Results, size: int = CHUNK_GAMES) -> Iterator[IntArray]:
    """Game indices in chunks of about ``size`` that never split a cluster."""
    order: IntArray = np.argsort(results.cluster, kind="stable").astype(np.int64)
    by_cluster = results.cluster[order]
    start, n = 0, len(order)
    while start < n:
        stop = min(start + size, n)
        if stop < n:
            stop = int(np.searchsorted(by_cluster, by_cluster[stop - 1], side="right"))
        yield order[start:stop]
        start = stop


class RowIndex:
    """Maps a pair to its row: dense keys for small pools, looked-up keys otherwise."""

    def __init__(self, results: Results, k: int) -> None:
        self.m, self.k = len(results.names), k
        self.seats = max(k, 1)
        space = self.m * self.m * self.seats * self.seats
        self.keys: IntArray | None = None
        if space > DENSE_ROWS:
            found = [np.unique(self.key(pairs_of(results, games))) for games in chunks(results)]
            self.keys = np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)
        self.size = space if self.keys is None else len(self.keys)

    def key(self, pairs: Pairs) -> IntArray:
        sa = pairs.seat_a if self.k else 0
        sb = pairs.seat_b if self.k else 0
        out: IntArray = ((pairs.a.astype(np.int64) * self.m + pairs.b) * self.seats + sa) * self.seats + sb
        return out

    def rows(self, pairs: Pairs) -> IntArray:
        key = self.key(pairs)
        if self.keys is None:
            return key
        out: IntArray = np.searchsorted(self.keys, key).astype(np.int64)
        return out

    def columns(self, rows: IntArray) -> IntArray:
        """The parameter columns (a, b[, m + seat a, m + seat b]) of ``rows``."""
        key = rows if self.keys is None else self.keys[rows]
        key, sb = np.divmod(key, self.seats)
        key, sa = np.divmod(key, self.seats)
        a, b = np.divmod(key, self.m)
        cols = [a, b] + ([self.m + sa, self.m + sb] if self.k else [])
        out: IntArray = np.stack(cols, axis=1).astype(np.int64)
        return out


@dataclass(frozen=True)
class Aggregate:
    """Sufficient statistics of one set of results (rows with weight only)."""

    results: Results
    index: RowIndex
    rows: IntArray  # the row ids that occur
    idx: IntArray  # their parameter columns
    wins: FloatArray  # weighted score of the row's first bot
    total: FloatArray  # weight
    marks: tuple[int, ...]  # game counts of the history checkpoints
    stretch_wins: FloatArray  # (rows, len(marks)): cumulative up to each mark
    stretch_total: FloatArray
    counts: IntArray  # (rows, 3): losses, ties, wins of the first bot (games)
    bot_score: FloatArray  # per bot: weighted score and weight over all its pairs
    bot_total: FloatArray

    @property
    def k(self) -> int:
        return self.index.k

    @property
    def sign(self) -> FloatArray:
        return np.array([1.0, -1.0, 1.0, -1.0] if self.k else [1.0, -1.0])

    def local(self, pairs: Pairs) -> IntArray:
        """Positions in ``rows`` of each pair's row."""
        lookup = np.zeros(self.index.size, dtype=np.int64)
        lookup[self.rows] = np.arange(len(self.rows))
        out: IntArray = lookup[self.index.rows(pairs)]
        return out


def aggregate(results: Results, seat_advantage: bool = True, marks: Sequence[int] = ()) -> Aggregate:
    """One pass over ``results``: row sums, history stretches (``marks``: game counts), counts."""
    k = int(results.sizes().max()) if seat_advantage and results.games else 0
    index = RowIndex(results, k)
    m, stretches = len(results.names), len(marks)
    bounds = np.asarray(marks, dtype=np.int64)
    wins = np.zeros(index.size * max(stretches, 1))
    total = np.zeros(index.size * max(stretches, 1))
    counts = np.zeros(index.size * 3, dtype=np.int64)
    bot_score, bot_total = np.zeros(m), np.zeros(m)
    for games in chunks(results):
        pairs = pairs_of(results, games)
        rows = index.rows(pairs)
        where = rows
        if stretches:  # the first mark at or after the game: game g counts from mark(g) on
            where = rows * stretches + np.searchsorted(bounds, pairs.game.astype(np.int64) + 1)
        wins += np.bincount(where, pairs.weight * pairs.outcome, minlength=len(wins))
        total += np.bincount(where, pairs.weight, minlength=len(total))
        counts += np.bincount(rows * 3 + (2.0 * pairs.outcome).astype(np.int64), minlength=len(counts))
        bot_score += np.bincount(pairs.a, pairs.weight * pairs.outcome, minlength=m)
        bot_score += np.bincount(pairs.b, pairs.weight * (1.0 - pairs.outcome), minlength=m)
        bot_total += np.bincount(pairs.a, pairs.weight, minlength=m) + np.bincount(pairs.b, pairs.weight, minlength=m)
    wins2 = wins.reshape(index.size, max(stretches, 1))
    total2 = total.reshape(index.size, max(stretches, 1))
    row_total = total2.sum(axis=1)
    rows = np.flatnonzero(row_total > 0).astype(np.int64)
    return Aggregate(
        results=results,
        index=index,
        rows=rows,
        idx=index.columns(rows),
        wins=wins2.sum(axis=1)[rows],
        total=row_total[rows],
        marks=tuple(int(x) for x in marks),
        stretch_wins=np.cumsum(wins2[rows], axis=1),
        stretch_total=np.cumsum(total2[rows], axis=1),
        counts=counts.reshape(index.size, 3)[rows],
        bot_score=bot_score,
        bot_total=bot_total,
    )


def cluster_meat(agg: Aggregate, p_rows: FloatArray) -> FloatArray:
    """Sum over clusters of the outer product of the clusters' scores, full coordinates.

    ``p_rows``: the fitted probability of each of ``agg.rows``.
    """
    m, k = len(agg.results.names), agg.k
    size = m + k
    meat = np.zeros((size, size))
    for games in chunks(agg.results):
        pairs = pairs_of(agg.results, games)
        score = pairs.weight * (pairs.outcome - p_rows[agg.local(pairs)])
        _, local = np.unique(pairs.cluster, return_inverse=True)
        local = local.ravel().astype(np.int64) * size
        groups = int(local.max() // size) + 1 if len(local) else 0
        columns = [pairs.a, pairs.b] + ([m + pairs.seat_a, m + pairs.seat_b] if k else [])
        scores = np.zeros(groups * size)
        for column, s in zip(columns, agg.sign, strict=True):
            scores += s * np.bincount(local + column, score, minlength=len(scores))
        per_cluster = scores.reshape(groups, size)
        meat += per_cluster.T @ per_cluster
    return meat
