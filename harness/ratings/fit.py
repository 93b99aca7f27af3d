"""Batch maximum-likelihood Elo (Bradley–Terry) fit with cluster-robust errors.

Every pair of bots at a table is one comparison (win, draw or loss by
placement), weighted 1/(n-1) for a table of n so that each game carries the
same total weight per bot whatever its size. With per-seat advantages S,

    P(i beats j) = 1 / (1 + 10^(-(R_i + S_seat(i) - R_j - S_seat(j)) / 400)).

A weak prior keeps every estimate finite: as in BayesElo, every bot brings
`PRIOR_DRAWS` virtual draws, split over the opponents it met (a pair of bots gets
the mean of their two shares). A bot that never placed above an opponent (or
never below one) would otherwise be rated at minus (plus) infinity. Two draws per
*pair* (the old prior) pulled estimates in m - 1 times too much with m bots; one
draw per bot rather than BayesElo's two halves the pull heads-up, where it cost
coverage at large gaps with few deal groups (bench/coverage_study.py). The
interval of such an edge bot is open on its unbounded side (`open_side`): the
prior makes the estimate finite, not the games.

The pairs of one game, and the games of one duplicate-deal group, are not
independent, so the model-based (inverse Hessian) errors would be too narrow.
The errors here are cluster-robust (sandwich): H^-1 (sum_c g_c g_c^T) H^-1 with
the small-sample factor G/(G-1), where g_c is the score summed over the pairs
of cluster c; intervals use the t quantile with G - 1 degrees of freedom. For a
bot at or near the edge (fewer than `SCARCE` games' worth of wins or of losses)
the sandwich says little (its scores are all near zero, or rest on a few rare
results), so its error is the larger of the sandwich and the model-based one.
Two bots whose scores cancel in every cluster (identical deterministic bots)
have no robust error on their difference: the games hold no information on it,
and the fit says so instead of giving a zero-width interval.

The fit works on the sufficient statistics: pairs aggregated by (bot, bot, seat,
seat), so a Newton step costs O(distinct rows) whatever the number of games.
Internally it works in natural units (Elo * ln10 / 400) with bot 0 as a fixed
reference and the last seats free (seat 0 = minus their sum); ratings and
covariance are then mapped linearly to the requested anchoring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.ratings.aggregate import Aggregate, aggregate, cluster_meat
from harness.ratings.columns import Results
from harness.ratings.model import BotRating, EloFit, GameResult, SeatAdvantage
from harness.ratings.tdist import interval_quantile, t_cdf

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Natural (logistic) units -> Elo points.
ELO_PER_NAT = 400.0 / math.log(10.0)
DEFAULT_MEAN = 1500.0
# Virtual draws per bot, split over its opponents. BayesElo's default is 2; with 1 the
# heads-up intervals cover at 600 Elo and 13 deal groups (bench/coverage_study.py).
PRIOR_DRAWS = 1.0

# Tiny ridge (natural units) so a pool split into groups that never met still has a
# unique optimum.
RIDGE = 1e-6
TOLERANCE = 1e-9
MAX_ITERATIONS = 100
# A robust variance below this share of the model-based one is zero: no information.
NO_INFORMATION = 1e-9
# A bot whose rarer result (wins or losses, in games' worth of pairs) is below this has
# a sandwich estimated from a handful of rare results, far too narrow (heads-up at 600
# Elo: 71% coverage at 50 groups); its error is then at least the model-based one.
SCARCE = 6.0
# Cap on the cells of the per-cluster score block, to bound memory on big pools.
_SCORE_BLOCK_CELLS = 1 << 22


def with_prior(
    agg: Aggregate, wins: FloatArray, total: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Rows plus the prior's virtual draws for every pair of bots with weight in ``total``.

    As in BayesElo, each bot brings `PRIOR_DRAWS` virtual draws, split evenly over the
    distinct opponents it met: the pair (i, j) gets PRIOR_DRAWS * (1/deg_i + 1/deg_j) / 2.
    Two bots: PRIOR_DRAWS for their pair; m bots that all met: PRIOR_DRAWS / (m - 1) per pair.
    """
    m = len(agg.results.names)
    met = agg.idx[total > 0][:, :2]
    lo, hi = np.minimum(met[:, 0], met[:, 1]), np.maximum(met[:, 0], met[:, 1])
    pairs = np.unique(lo * m + hi)
    first, second = pairs // m, pairs % m
    draws = prior_draws(m, first, second)
    prior_idx = [first, second]
    if agg.k:  # the same seat column twice: the seat terms cancel
        prior_idx += [np.full(len(pairs), m), np.full(len(pairs), m)]
    idx = np.concatenate([agg.idx, np.stack(prior_idx, axis=1).astype(np.int64)])
    return (
        idx,
        np.concatenate([wins, draws / 2.0]),
        np.concatenate([total, draws]),
    )


def prior_draws(m: int, first: IntArray, second: IntArray) -> FloatArray:
    """Virtual draws of each met pair (first[r], second[r]): each bot's PRIOR_DRAWS split over its opponents."""
    # Every pair appears once, so a bot's degree is how often it occurs in the pairs.
    degree = np.bincount(first, minlength=m) + np.bincount(second, minlength=m)
    share = PRIOR_DRAWS / np.maximum(degree, 1)
    out: FloatArray = 0.5 * (share[first] + share[second])
    return out


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


class Objective:
    """Penalised negative log-likelihood on aggregated rows."""

    def __init__(self, m: int, k: int, idx: IntArray, sign: FloatArray, wins: FloatArray, total: FloatArray) -> None:
        self.m, self.size = m, m + k
        self.idx, self.sign, self.wins, self.total = idx, sign, wins, total
        self.t = _reparametrisation(m, k)
        ridge = np.eye(self.size)
        ridge[:m, :m] -= 1.0 / m  # ridge on deviations from the mean: anchor-free
        self.ridge = RIDGE * ridge

    def diffs(self, beta: FloatArray) -> FloatArray:
        """Linear predictor per aggregated row."""
        phi = self.t @ beta
        d: FloatArray = (phi[self.idx] * self.sign).sum(axis=1)
        return d

    def value(self, beta: FloatArray) -> float:
        phi = self.t @ beta
        d = self.diffs(beta)
        nll = self.wins @ np.logaddexp(0.0, -d) + (self.total - self.wins) @ np.logaddexp(0.0, d)
        return float(nll + 0.5 * phi @ self.ridge @ phi)

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
        grad_full = -self.scatter(self.wins - self.total * p) + self.ridge @ phi
        curvature = self.total * p * (1.0 - p)
        cells = self.size * self.size
        hess_flat = np.zeros(cells)
        width = len(self.sign)
        for u in range(width):
            for v in range(width):
                hess_flat += (self.sign[u] * self.sign[v]) * np.bincount(
                    self.idx[:, u] * self.size + self.idx[:, v], curvature, minlength=cells
                )
        hess_full = hess_flat.reshape(self.size, self.size) + self.ridge
        return self.t.T @ grad_full, self.t.T @ hess_full @ self.t

    def minimise(self) -> FloatArray:
        """Damped Newton steps from zero."""
        beta = np.zeros(self.t.shape[1])
        current = self.value(beta)
        for _ in range(MAX_ITERATIONS):
            grad, hess = self.gradient_hessian(beta)
            step = np.linalg.solve(hess, -grad)
            # Halve the step until the objective does not rise (beyond rounding).
            scale = 1.0
            while scale > 1e-10:
                candidate = beta + scale * step
                value = self.value(candidate)
                if value <= current + 1e-12 * (1.0 + abs(current)):
                    break
                scale *= 0.5
            beta, current = candidate, value
            if float(np.max(np.abs(scale * step), initial=0.0)) < TOLERANCE:
                break
        return beta


@dataclass(frozen=True)
class _Uncertainty:
    """Robust and model-based covariances of the ratings, who is at or near an edge.

    ``scarce``: the bots whose rarer result (wins or losses) is below `SCARCE` games'
    worth, edge bots included; ``pinned``: the anchor bot, if any (its own scarcity
    carries over to every rating measured against it).
    """

    robust: FloatArray
    model: FloatArray
    edge: tuple[str | None, ...]
    scarce: tuple[bool, ...]
    pinned: int | None = None

    def pair_variance(self, i: int, j: int) -> tuple[float, bool]:
        """Variance of R_i - R_j, and whether the games hold information on it."""
        robust = float(self.robust[i, i] + self.robust[j, j] - 2.0 * self.robust[i, j])
        model = float(self.model[i, i] + self.model[j, j] - 2.0 * self.model[i, j])
        if self.scarce[i] or self.scarce[j]:
            return max(robust, model), True
        if math.isfinite(robust) and model > 0 and robust < NO_INFORMATION * model:
            return math.nan, False
        return robust, True

    def variance(self, i: int) -> float:
        robust, model = float(self.robust[i, i]), float(self.model[i, i])
        if self.scarce[i] or (self.pinned is not None and self.scarce[self.pinned]):
            return max(robust, model)
        if math.isfinite(robust) and model > 0 and robust < NO_INFORMATION * model:
            return math.nan
        return robust


def _scarce(agg: Aggregate) -> tuple[bool, ...]:
    """Per bot: whether its rarer result (weighted wins or losses) is below `SCARCE`."""
    rarer = np.minimum(agg.bot_score, agg.bot_total - agg.bot_score)
    return tuple(bool(x < SCARCE) for x in rarer.tolist())


def _edges(agg: Aggregate) -> tuple[str | None, ...]:
    """'never won' / 'never lost' per bot (by placement against an opponent), else None."""
    return tuple(
        "never won" if score <= 0.0 else "never lost" if score >= total else None
        for score, total in zip(agg.bot_score.tolist(), agg.bot_total.tolist(), strict=True)
    )


def open_side(edge: str | None, anchor_edge: str | None = None) -> str | None:
    """'floor' when the games bound a rating only from below, 'ceiling' only from above, else None.

    ``edge`` is the bot's own (`_edges`), ``anchor_edge`` that of the bot its rating is
    measured against (``anchor``), if any. A bot that never lost could be any amount
    stronger: its interval has no upper end, whatever the prior's pull says.
    """
    above = edge == "never lost" or anchor_edge == "never won"
    below = edge == "never won" or anchor_edge == "never lost"
    if above and below:  # e.g. both never lost against the pool: neither end holds
        return "open"
    return "floor" if above else "ceiling" if below else None


def fit_elo(
    games: Sequence[GameResult] | Results,
    *,
    anchor: tuple[str, float] | None = None,
    seat_advantage: bool = True,
    stats: Aggregate | None = None,
    anchor_group: Sequence[str] | None = None,
) -> EloFit:
    """Fit Elo ratings (and seat advantages) to game results by maximum a-posteriori likelihood.

    Args:
        games: finished games (objects or columns); each pair of bots at a table is
            one comparison.
        anchor: `(name, rating)` to pin that bot's rating exactly; by default
            the ratings are shifted so their mean is 1500.
        seat_advantage: fit one advantage per seat index (summing to zero).
        stats: the statistics of ``games`` already aggregated (`aggregate`), whose
            bots all played; saves a pass over the games.
        anchor_group: instead, shift the ratings so that these bots' mean is 1500
            (a gauntlet's field); names that played no game are ignored.

    Returns:
        The fit, with cluster-robust standard errors clustered on
        `GameResult.cluster`. With fewer than two clusters the errors, intervals
        and likelihoods of superiority are NaN (the robust estimate is undefined).

    Raises:
        ValueError: if `games` is empty, involves fewer than two bots, or the
            anchor names a bot that played no game or has a non-finite rating.
    """
    results = games if isinstance(games, Results) else Results.from_games(games)
    if results.games == 0:
        raise ValueError("cannot fit ratings: no games given")
    names = results.names
    per_bot = results.games_per_bot()
    present = [name for i, name in enumerate(names) if per_bot[i] > 0]
    if len(present) < 2:
        raise ValueError(f"cannot fit ratings: need at least two bots, got {present!r}")
    if len(present) < len(names):  # names of the store that played no game yet
        results = drop_unplayed(results, per_bot)
        names, per_bot = results.names, results.games_per_bot()
    if anchor is not None and anchor[0] not in names:
        raise ValueError(f"anchor bot {anchor[0]!r} played no game; known bots: {list(names)!r}")
    if anchor is not None and not math.isfinite(anchor[1]):
        raise ValueError(f"anchor rating must be a finite number, got {anchor[1]!r}")

    m = len(names)
    agg = stats if stats is not None and stats.results is results else aggregate(results, seat_advantage)
    k = agg.k
    idx, wins, total = with_prior(agg, agg.wins, agg.total)
    objective = Objective(m, k, idx, agg.sign, wins, total)
    beta = objective.minimise()
    _, hess = objective.gradient_hessian(beta)
    bread = np.linalg.inv(hess)

    g = results.clusters
    if g >= 2:
        p_rows = _sigmoid(objective.diffs(beta))[: len(agg.wins)]
        meat = objective.t.T @ cluster_meat(agg, p_rows) @ objective.t
        cov_beta = (g / (g - 1)) * (bread @ meat @ bread)
    else:
        cov_beta = np.full(bread.shape, math.nan)

    # Linear map from beta to anchored Elo ratings: R = M beta + offset.
    group = [names.index(n) for n in anchor_group or () if n in names]
    if anchor is None and group:
        centring = np.eye(m)
        centring[:, group] -= 1.0 / len(group)
        offset = DEFAULT_MEAN
    elif anchor is None:
        centring = np.eye(m) - 1.0 / m
        offset = DEFAULT_MEAN
    else:
        centring = np.eye(m)
        centring[:, names.index(anchor[0])] -= 1.0
        offset = float(anchor[1])
    to_rating = ELO_PER_NAT * centring @ objective.t[:m]
    ratings = to_rating @ beta + offset
    spread = _Uncertainty(
        robust=to_rating @ cov_beta @ to_rating.T,
        model=to_rating @ bread @ to_rating.T if g >= 2 else np.full((m, m), math.nan),
        edge=_edges(agg),
        scarce=_scarce(agg),
        pinned=names.index(anchor[0]) if anchor is not None else None,
    )
    quantile = interval_quantile(g)

    pinned = spread.edge[names.index(anchor[0])] if anchor is not None else None
    bots = []
    for i, name in enumerate(names):
        se = math.sqrt(max(spread.variance(i), 0.0)) if math.isfinite(spread.variance(i)) else math.nan
        rating, half = float(ratings[i]), quantile * se
        bound = open_side(spread.edge[i], pinned if anchor is not None and name != anchor[0] else None)
        bots.append(
            BotRating(
                name=name,
                rating=rating,
                se=se,
                ci95=half,
                games=int(per_bot[i]),
                edge=spread.edge[i],
                low=-math.inf if bound in ("ceiling", "open") else rating - half,
                high=math.inf if bound in ("floor", "open") else rating + half,
                bound=bound,
            )
        )
    bots.sort(key=lambda bot: (-bot.rating, bot.name))

    seats: tuple[SeatAdvantage, ...] = ()
    if k:
        to_seat = ELO_PER_NAT * objective.t[m:]
        advantages = to_seat @ beta
        seat_se = np.sqrt(np.clip(np.diag(to_seat @ cov_beta @ to_seat.T), 0.0, None))
        seats = tuple(
            SeatAdvantage(
                seat=s,
                advantage=float(advantages[s]),
                se=float(seat_se[s]),
                ci95=quantile * float(seat_se[s]),
            )
            for s in range(k)
        )

    los, blind = _los(names, ratings, spread, g)
    return EloFit(
        bots=tuple(bots),
        seats=seats,
        los=los,
        games=results.games,
        clusters=g,
        prior=PRIOR_DRAWS,
        quantile=quantile,
        uninformative=blind,
    )


def drop_unplayed(results: Results, per_bot: IntArray) -> Results:
    """Drop names that played no game (the bot indices are renumbered)."""
    keep = np.flatnonzero(per_bot > 0)
    renumber = np.full(len(results.names), -1, dtype=np.int32)
    renumber[keep] = np.arange(len(keep), dtype=np.int32)
    return Results(
        tuple(results.names[i] for i in keep),
        results.offsets,
        renumber[results.bot],
        results.place,
        results.forfeited,
        results.cluster,
        results.clusters,
    )


def _los(
    names: tuple[str, ...], ratings: FloatArray, spread: _Uncertainty, clusters: int
) -> tuple[dict[str, dict[str, float]], tuple[tuple[str, str], ...]]:
    """Likelihood of superiority for every ordered pair, and the pairs without information."""
    out: dict[str, dict[str, float]] = {name: {} for name in names}
    blind: list[tuple[str, str]] = []
    dof = float(clusters - 1)
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            b = names[j]
            var, informative = spread.pair_variance(i, j)
            diff = float(ratings[i] - ratings[j])
            if not informative:
                blind.append((a, b))
                p = math.nan
            elif math.isnan(var):
                p = math.nan
            elif var > 0.0:
                p = t_cdf(diff / math.sqrt(var), dof)
            else:
                # No uncertainty left (e.g. fully determined): the sign decides.
                p = 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
            out[a][b] = p
            out[b][a] = 1.0 - p
    return out, tuple(blind)


def history(
    agg: Aggregate, anchor: tuple[str, float] | None = None, anchor_group: Sequence[str] = ()
) -> list[tuple[int, dict[str, float]]]:
    """The fit's ratings (no errors) on the first n games, at each of ``agg.marks``."""
    names = agg.results.names
    m = len(names)
    out: list[tuple[int, dict[str, float]]] = []
    for column, mark in enumerate(agg.marks):
        wins, total = agg.stretch_wins[:, column], agg.stretch_total[:, column]
        played = np.bincount(agg.idx[:, 0], total, minlength=m) + np.bincount(agg.idx[:, 1], total, minlength=m)
        seen = [i for i in range(m) if played[i] > 0]
        if len(seen) < 2:
            continue
        idx, w, t = with_prior(agg, wins, total)
        objective = Objective(m, agg.k, idx, agg.sign, w, t)
        raw = ELO_PER_NAT * (objective.t[:m] @ objective.minimise())
        if anchor is not None and anchor[0] in names and played[names.index(anchor[0])] > 0:
            shift = anchor[1] - float(raw[names.index(anchor[0])])
        else:
            group = [i for i in seen if names[i] in anchor_group] or seen
            shift = DEFAULT_MEAN - float(np.mean(raw[group]))
        out.append((mark, {names[i]: float(raw[i] + shift) for i in seen}))
    return out
