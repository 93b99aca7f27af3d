"""Batch maximum-likelihood Elo (Bradley–Terry) fit with cluster-robust errors.

Every pair of bots at a table is one comparison (win, draw or loss by
placement), weighted 1/(n-1) for a table of n so that each game carries the
same total weight per bot whatever its size. With per-seat advantages S,

    P(i beats j) = 1 / (1 + 10^(-(R_i + S_seat(i) - R_j - S_seat(j)) / 400)).

The pairs of one game, and the games of one duplicate-deal group, are not
independent, so the model-based (inverse Hessian) errors would be too narrow.
The errors here are cluster-robust (sandwich): H^-1 (sum_c g_c g_c^T) H^-1 with
the small-sample factor G/(G-1), where g_c is the score summed over the pairs
of cluster c.

Internally the fit works in natural units (Elo * ln10 / 400) with bot 0 as a
fixed reference and the last seats free (seat 0 = minus their sum); ratings and
covariance are then mapped linearly to the requested anchoring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.ratings.model import BotRating, EloFit, GameResult, SeatAdvantage

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Natural (logistic) units -> Elo points.
ELO_PER_NAT = 400.0 / math.log(10.0)
DEFAULT_MEAN = 1500.0
Z95 = 1.96

# Tiny ridge (natural units) so a bot that won or lost every comparison, or a
# pool split into groups that never met, still has a finite optimum.
RIDGE = 1e-6
TOLERANCE = 1e-9
MAX_ITERATIONS = 100
# Cap on the cells of the per-cluster score block, to bound memory on big pools.
_SCORE_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True, slots=True)
class _Pairs:
    """All pairwise comparisons as flat arrays (one entry per pair)."""

    idx: IntArray  # (pairs, 2 or 4): columns of the full parameter vector
    sign: FloatArray  # (2 or 4,): +1/-1 coefficient of each column
    outcome: FloatArray  # 1 = first bot placed better, 0.5 = tie, 0 = worse
    weight: FloatArray  # 1/(n-1)
    cluster: IntArray  # cluster index per pair


@dataclass(frozen=True, slots=True)
class _Layout:
    """Names, counts and parameter layout of one data set."""

    names: tuple[str, ...]
    games_per_bot: tuple[int, ...]
    seats: tuple[int, ...]  # seat indices that occur, ascending; empty if not fitted
    clusters: int


def _build(games: Sequence[GameResult], seat_advantage: bool) -> tuple[_Layout, _Pairs]:
    """Turn games into pair arrays with one Python pass over the games."""
    names = sorted({name for game in games for name in game.players})
    index = {name: i for i, name in enumerate(names)}
    counts = [0] * len(names)
    cluster_index: dict[str, int] = {}
    # Group games by table size so pairs can be expanded with numpy per size.
    by_size: dict[int, tuple[list[list[int]], list[tuple[int, ...]], list[int]]] = {}
    for game in games:
        ids = [index[name] for name in game.players]
        for i in ids:
            counts[i] += 1
        cid = cluster_index.setdefault(game.cluster, len(cluster_index))
        rows, places, clusters = by_size.setdefault(len(ids), ([], [], []))
        rows.append(ids)
        places.append(game.places)
        clusters.append(cid)

    m = len(names)
    seats = tuple(range(max(by_size))) if seat_advantage else ()
    parts: list[tuple[IntArray, FloatArray, FloatArray, IntArray]] = []
    for n, (rows, places, clusters) in sorted(by_size.items()):
        ids_arr = np.asarray(rows, dtype=np.int64)
        place_arr = np.asarray(places, dtype=np.int64)
        first, second = np.triu_indices(n, 1)
        a = ids_arr[:, first].ravel()
        b = ids_arr[:, second].ravel()
        pa = place_arr[:, first].ravel()
        pb = place_arr[:, second].ravel()
        outcome = np.where(pa < pb, 1.0, np.where(pa == pb, 0.5, 0.0))
        columns = [a, b]
        if seat_advantage:
            # Seat s is parameter m + s because seats 0..max-1 all occur.
            columns += [np.tile(first + m, len(rows)), np.tile(second + m, len(rows))]
        pair_clusters = np.repeat(np.asarray(clusters, dtype=np.int64), len(first))
        parts.append(
            (
                np.stack(columns, axis=1).astype(np.int64),
                outcome,
                np.full(len(a), 1.0 / (n - 1)),
                pair_clusters,
            )
        )
    sign = np.array([1.0, -1.0, 1.0, -1.0] if seat_advantage else [1.0, -1.0])
    pairs = _Pairs(
        idx=np.concatenate([p[0] for p in parts]),
        sign=sign,
        outcome=np.concatenate([p[1] for p in parts]),
        weight=np.concatenate([p[2] for p in parts]),
        cluster=np.concatenate([p[3] for p in parts]),
    )
    layout = _Layout(tuple(names), tuple(counts), seats, len(cluster_index))
    return layout, pairs


def _reparametrisation(m: int, k: int) -> FloatArray:
    """Matrix T with full parameters phi = T @ beta.

    Bot 0 is the reference (phi_0 = 0) and seat 0 is minus the sum of the other
    seats, so beta is identifiable and the seats sum to zero.
    """
    q = (m - 1) + max(k - 1, 0)
    t = np.zeros((m + k, q))
    t[1:m, : m - 1] = np.eye(m - 1)
    if k:
        t[m + 1 :, m - 1 :] = np.eye(k - 1)
        t[m, m - 1 :] = -1.0
    return t


def _sigmoid(d: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * d))  # overflow-free logistic
    return out


class _Objective:
    """Penalised negative log-likelihood on pairs aggregated by design row."""

    def __init__(self, pairs: _Pairs, m: int, k: int) -> None:
        self.m, self.size = m, m + k
        width = pairs.idx.shape[1]
        # Many pairs share (bot, bot, seat, seat); aggregating them makes each
        # Newton iteration cost O(distinct rows) instead of O(pairs).
        keys = np.ravel_multi_index(tuple(pairs.idx.T), (self.size,) * width)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        self.inverse = inverse.ravel()
        self.idx = pairs.idx[first]
        self.sign = pairs.sign
        rows = len(first)
        self.wins = np.bincount(self.inverse, pairs.weight * pairs.outcome, minlength=rows)
        self.total = np.bincount(self.inverse, pairs.weight, minlength=rows)
        self.t = _reparametrisation(m, k)
        penalty = np.eye(self.size)
        penalty[:m, :m] -= 1.0 / m  # ridge on deviations from the mean: anchor-free
        self.penalty = RIDGE * penalty

    def diffs(self, beta: FloatArray) -> FloatArray:
        """Linear predictor per aggregated row."""
        phi = self.t @ beta
        d: FloatArray = (phi[self.idx] * self.sign).sum(axis=1)
        return d

    def value(self, beta: FloatArray) -> float:
        phi = self.t @ beta
        d = self.diffs(beta)
        nll = self.wins @ np.logaddexp(0.0, -d) + (self.total - self.wins) @ np.logaddexp(0.0, d)
        return float(nll + 0.5 * phi @ self.penalty @ phi)

    def scatter(self, values: FloatArray) -> FloatArray:
        """Sum of values[r] * x_r over rows, in full coordinates."""
        out = np.zeros(self.size)
        for col, s in enumerate(self.sign):
            out += s * np.bincount(self.idx[:, col], values, minlength=self.size)
        return out

    def gradient_hessian(self, beta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Gradient and Hessian of `value` in beta coordinates."""
        phi = self.t @ beta
        p = _sigmoid(self.diffs(beta))
        grad_full = -self.scatter(self.wins - self.total * p) + self.penalty @ phi
        curvature = self.total * p * (1.0 - p)
        cells = self.size * self.size
        hess_flat = np.zeros(cells)
        width = len(self.sign)
        for u in range(width):
            for v in range(width):
                hess_flat += (self.sign[u] * self.sign[v]) * np.bincount(
                    self.idx[:, u] * self.size + self.idx[:, v], curvature, minlength=cells
                )
        hess_full = hess_flat.reshape(self.size, self.size) + self.penalty
        return self.t.T @ grad_full, self.t.T @ hess_full @ self.t


def _newton(objective: _Objective, q: int) -> FloatArray:
    """Minimise the objective with damped Newton steps."""
    beta = np.zeros(q)
    current = objective.value(beta)
    for _ in range(MAX_ITERATIONS):
        grad, hess = objective.gradient_hessian(beta)
        step = np.linalg.solve(hess, -grad)
        # Halve the step until the objective does not rise (beyond rounding);
        # a full Newton step can overshoot while a bot's rating runs away.
        scale = 1.0
        while scale > 1e-10:
            candidate = beta + scale * step
            value = objective.value(candidate)
            if value <= current + 1e-12 * (1.0 + abs(current)):
                break
            scale *= 0.5
        beta, current = candidate, value
        if float(np.max(np.abs(scale * step), initial=0.0)) < TOLERANCE:
            break
    return beta


def _cluster_meat(objective: _Objective, pairs: _Pairs, beta: FloatArray, g: int) -> FloatArray:
    """Sum over clusters of the outer product of cluster scores, full coordinates."""
    p = _sigmoid(objective.diffs(beta))[objective.inverse]
    score = pairs.weight * (pairs.outcome - p)
    size = objective.size
    order = np.argsort(pairs.cluster, kind="stable")
    sorted_clusters = pairs.cluster[order]
    block = max(1, _SCORE_BLOCK_CELLS // size)
    meat = np.zeros((size, size))
    for start in range(0, g, block):
        stop = min(start + block, g)
        lo, hi = np.searchsorted(sorted_clusters, [start, stop])
        sel = order[lo:hi]
        local = (sorted_clusters[lo:hi] - start) * size
        scores = np.zeros((stop - start) * size)
        for col, s in enumerate(pairs.sign):
            scores += s * np.bincount(local + pairs.idx[sel, col], score[sel], minlength=len(scores))
        per_cluster = scores.reshape(stop - start, size)
        meat += per_cluster.T @ per_cluster
    return meat


def _normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _los(names: tuple[str, ...], ratings: FloatArray, cov: FloatArray) -> dict[str, dict[str, float]]:
    """Likelihood of superiority for every ordered pair of distinct bots."""
    out: dict[str, dict[str, float]] = {}
    for i, a in enumerate(names):
        row: dict[str, float] = {}
        for j, b in enumerate(names):
            if i == j:
                continue
            diff = float(ratings[i] - ratings[j])
            var = float(cov[i, i] + cov[j, j] - 2.0 * cov[i, j])
            if math.isnan(var):
                row[b] = math.nan
            elif var > 0.0:
                row[b] = _normal_cdf(diff / math.sqrt(var))
            else:
                # No uncertainty left (e.g. fully determined): the sign decides.
                row[b] = 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
        out[a] = row
    return out


def _se(cov: FloatArray) -> FloatArray:
    out: FloatArray = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return out


def fit_elo(
    games: Sequence[GameResult],
    *,
    anchor: tuple[str, float] | None = None,
    seat_advantage: bool = True,
) -> EloFit:
    """Fit Elo ratings (and seat advantages) to game results by maximum likelihood.

    Args:
        games: finished games; each pair of bots at a table is one comparison.
        anchor: `(name, rating)` to pin that bot's rating exactly; by default
            the ratings are shifted so their mean is 1500.
        seat_advantage: fit one advantage per seat index (summing to zero).

    Returns:
        The fit, with cluster-robust standard errors clustered on
        `GameResult.cluster`. With fewer than two clusters the errors, intervals
        and likelihoods of superiority are NaN (the robust estimate is undefined).

    Raises:
        ValueError: if `games` is empty, involves fewer than two bots, or the
            anchor names a bot that played no game or has a non-finite rating.
    """
    if not games:
        raise ValueError("cannot fit ratings: no games given")
    layout, pairs = _build(games, seat_advantage)
    names = layout.names
    m, k = len(names), len(layout.seats)
    if m < 2:
        raise ValueError(f"cannot fit ratings: need at least two bots, got {list(names)!r}")
    if anchor is not None and anchor[0] not in names:
        raise ValueError(f"anchor bot {anchor[0]!r} played no game; known bots: {list(names)!r}")
    if anchor is not None and not math.isfinite(anchor[1]):
        raise ValueError(f"anchor rating must be a finite number, got {anchor[1]!r}")

    objective = _Objective(pairs, m, k)
    q = objective.t.shape[1]
    beta = _newton(objective, q)

    g = layout.clusters
    if g >= 2:
        _, hess = objective.gradient_hessian(beta)
        bread = np.linalg.inv(hess)
        meat = objective.t.T @ _cluster_meat(objective, pairs, beta, g) @ objective.t
        cov_beta = (g / (g - 1)) * (bread @ meat @ bread)
    else:
        cov_beta = np.full((q, q), math.nan)

    # Linear map from beta to anchored Elo ratings: R = M beta + offset.
    if anchor is None:
        centring = np.eye(m) - 1.0 / m
        offset = DEFAULT_MEAN
    else:
        centring = np.eye(m)
        centring[:, names.index(anchor[0])] -= 1.0
        offset = float(anchor[1])
    to_rating = ELO_PER_NAT * centring @ objective.t[:m]
    ratings = to_rating @ beta + offset
    cov_ratings = to_rating @ cov_beta @ to_rating.T
    rating_se = _se(cov_ratings)

    bots = tuple(
        sorted(
            (
                BotRating(
                    name=name,
                    rating=float(ratings[i]),
                    se=float(rating_se[i]),
                    ci95=Z95 * float(rating_se[i]),
                    games=layout.games_per_bot[i],
                )
                for i, name in enumerate(names)
            ),
            key=lambda bot: (-bot.rating, bot.name),
        )
    )

    seats: tuple[SeatAdvantage, ...] = ()
    if k:
        to_seat = ELO_PER_NAT * objective.t[m:]
        advantages = to_seat @ beta
        seat_se = _se(to_seat @ cov_beta @ to_seat.T)
        seats = tuple(
            SeatAdvantage(
                seat=seat,
                advantage=float(advantages[s]),
                se=float(seat_se[s]),
                ci95=Z95 * float(seat_se[s]),
            )
            for s, seat in enumerate(layout.seats)
        )

    return EloFit(
        bots=bots,
        seats=seats,
        los=_los(names, ratings, cov_ratings),
        games=len(games),
        clusters=g,
    )
