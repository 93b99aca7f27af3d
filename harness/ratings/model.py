"""Data types shared by the rating fits and the renderers.

`GameResult` is the input: one finished game reduced to who sat where and how
they placed. `EloFit`, `BotRating` and `SeatAdvantage` are the output of
`harness.ratings.fit.fit_elo`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MIN_PLAYERS = 2  # no upper bound: a table's size is the game's to limit


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game, as seen by the rating fits.

    Attributes:
        players: bot name by seat (seat 0 first); two or more distinct names.
        places: placement by seat, 1 = best; equal places are a tie. The league
            computes them (final score ascending, forfeited bots last).
        cluster: clustering key for the robust standard errors: the
            duplicate-deal group id, or the game id when the deal is not
            duplicated.

    Raises:
        ValueError: on construction, if the table has fewer than 2 seats, the
            names are not distinct non-empty strings, `places` does not have
            one positive integer per seat, or `cluster` is not a non-empty
            string.
    """

    players: tuple[str, ...]
    places: tuple[int, ...]
    cluster: str

    def __post_init__(self) -> None:
        n = len(self.players)
        if n < MIN_PLAYERS:
            raise ValueError(f"a game needs at least {MIN_PLAYERS} players, got {n}: {self.players!r}")
        for name in self.players:
            if not isinstance(name, str) or not name:
                raise ValueError(f"bot names must be non-empty strings, got {name!r}")
        if len(set(self.players)) != n:
            raise ValueError(f"bot names in a game must be distinct, got {self.players!r}")
        if len(self.places) != n:
            raise ValueError(f"places must have one entry per seat ({n}), got {self.places!r}")
        for place in self.places:
            # bool is an int subclass; True as a place is almost surely a bug upstream.
            if not isinstance(place, int) or isinstance(place, bool) or place < 1:
                raise ValueError(f"places must be integers >= 1, got {self.places!r}")
        if not isinstance(self.cluster, str) or not self.cluster:
            raise ValueError(f"cluster must be a non-empty string, got {self.cluster!r}")


@dataclass(frozen=True, slots=True)
class BotRating:
    """One bot's fitted Elo rating.

    `se` is the cluster-robust standard error and `ci95` the half-width of the
    95% interval (t quantile with clusters - 1 degrees of freedom times se), both
    in Elo points; they are NaN when the data has fewer than two clusters, or
    when the games hold no information on the bot against the pool. `games` is
    how many games the bot played. `edge` is "never won" or "never lost" when
    the bot placed below (above) every opponent in every game: its rating is
    then held finite by the prior, and only one side of its interval means much.
    `low` and `high` are the ends of the 95% interval; `bound` is "floor" when the
    games bound the rating only from below (`high` is +inf: the bot never lost,
    or the anchor bot never won), "ceiling" when only from above (`low` is -inf),
    "open" when from neither side, else None.
    """

    name: str
    rating: float
    se: float
    ci95: float
    games: int
    edge: str | None = None
    low: float = math.nan
    high: float = math.nan
    bound: str | None = None


@dataclass(frozen=True, slots=True)
class SeatAdvantage:
    """Fitted advantage of sitting at `seat` (0-based), in Elo points.

    The advantages of the seats that occur sum to zero. `se` and `ci95` are as
    in `BotRating`.
    """

    seat: int
    advantage: float
    se: float
    ci95: float


def _json_float(value: float) -> float | None:
    # JSON has no NaN/inf; None (null) says "not available" without breaking parsers.
    return value if math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class EloFit:
    """Result of `fit_elo`.

    Attributes:
        bots: ratings sorted by rating, best first (ties by name).
        seats: seat advantages by seat index; empty when not fitted.
        los: likelihood of superiority, `los[a][b]` = P(a is stronger than b);
            the diagonal is left out.
        games: number of games fitted.
        clusters: number of distinct cluster keys.
        prior: virtual draws each bot brings, split over the opponents it met.
        quantile: the multiplier of se in ci95 (NaN with fewer than two clusters).
        uninformative: pairs (a, b) whose games hold no information on their
            difference (the same results in every cluster); their LOS is NaN.
    """

    bots: tuple[BotRating, ...]
    seats: tuple[SeatAdvantage, ...]
    los: dict[str, dict[str, float]]
    games: int
    clusters: int
    prior: float = 0.0
    quantile: float = math.nan
    uninformative: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON-ready data (non-finite numbers become None)."""
        return {
            "games": self.games,
            "clusters": self.clusters,
            "prior_draws": self.prior,
            "quantile": _json_float(self.quantile),
            "uninformative": [list(pair) for pair in self.uninformative],
            "bots": [
                {
                    "rank": rank,
                    "name": bot.name,
                    "rating": _json_float(bot.rating),
                    "se": _json_float(bot.se),
                    "ci95": _json_float(bot.ci95),
                    "games": bot.games,
                    "edge": bot.edge,
                    "low": _json_float(bot.low),
                    "high": _json_float(bot.high),
                    "bound": bot.bound,
                }
                for rank, bot in enumerate(self.bots, start=1)
            ],
            "seats": [
                {
                    "seat": seat.seat,
                    "advantage": _json_float(seat.advantage),
                    "se": _json_float(seat.se),
                    "ci95": _json_float(seat.ci95),
                }
                for seat in self.seats
            ],
            "los": {a: {b: _json_float(p) for b, p in row.items()} for a, row in self.los.items()},
        }
