"""The sequential probability ratio test on deal groups: is A stronger than B?

The unit is the deal group: one deal played in every rotation of the table and of its
reverse, so luck of the cards and of the seats cancels inside it. A group's score is
A's mean pairwise result against B over its games (1 = A placed better, 1/2 = tie,
0 = worse): for two bots heads-up a group is a game pair and its score takes the five
values of fastchess's pentanomial; at a table of four it takes seventeen.

The test is the generalised SPRT of fishtest and fastchess, for any finite set of
score values: under H0 the expected group score is s0 = L(elo0), under H1 s1 = L(elo1)
(L the logistic Elo curve); each hypothesis' distribution is the maximum-likelihood
multinomial over the observed values with that mean, and the log-likelihood ratio of
N groups is N * sum_i p_i log(p1_i / p0_i). The test stops at H1 when the LLR
reaches log((1 - beta) / alpha), at H0 when it falls to log(beta / (1 - alpha)).
The constrained MLE is p_i / (1 + x (a_i - s)) with x the root of the secular
equation sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0 (monotone: bisection).

Two changes to that classic test, both measured by bench/sprt_study.py:

- *Lopsided pairs stop early.* Beside the SPRT run two betting e-processes
  (`harness.ratings.eprocess`): one against H0 (mean score <= s0), one against H1
  (>= s1), each given the share `E_SHARE` of alpha (resp. beta); the SPRT keeps the
  rest. The test stops at H1 when the SPRT's LLR reaches its upper bound or the bettor
  against H0 reaches 1/(E_SHARE alpha), and alike at H0. A false H1 needs the SPRT to
  err or the bettor to win under H0, so by the union bound it happens at most
  (1 - E_SHARE) alpha + E_SHARE alpha = alpha of the time.
- *Overshoot correction.* Wald's bounds hold exactly when the LLR lands on them; it
  jumps past them by the size of a group's step, so the test is conservative and
  slow when a group's step is large (a table with a field, wide bounds). The bounds
  are moved inward by the expected overshoot, Siegmund's 0.583 times the standard
  deviation of one group's LLR step (Siegmund, Sequential Analysis, 1985, ch. X;
  estimated from the groups so far and at most `MAX_SHIFT` of a bound).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from harness.ratings.eprocess import Bettor
from harness.ratings.pentanomial import (
    REGULARISATION,
    FloatArray,
    _distribution,
    constrained_mle,
    elo_to_score,
    score_to_elo,
)
from harness.ratings.sprt_elo import stop_adjusted
from harness.ratings.tdist import t_quantile

# Drawn groups added to the Elo estimate (not to the test), as the ratings' virtual draws.
PRIOR_GROUPS = 2
# The share of alpha (beta) given to the betting e-process against H0 (H1).
E_SHARE = 0.1
# The expected overshoot of a random walk over a far boundary, in standard deviations
# of its step: -zeta(1/2) / sqrt(2 pi) (Siegmund 1985, eq. 10.55).
OVERSHOOT = 0.5826
# The overshoot correction moves a bound inward by at most this share of it.
MAX_SHIFT = 0.25


def llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (elo1) against H0 (elo0) for these group scores."""
    return statistics(scores, elo0, elo1)[0]


def statistics(scores: Sequence[float], elo0: float, elo1: float) -> tuple[float, float]:
    """The LLR of these group scores and the standard deviation of one group's LLR step.

    The step of a group with score x is log(p1(x) / p0(x)); its deviation is taken
    under the observed distribution (what the overshoot correction needs).
    """
    if not scores:
        return 0.0, 0.0
    return _statistics(*_distribution(scores), len(scores), elo0, elo1)


def _counted(counts: dict[float, int]) -> tuple[FloatArray, FloatArray]:
    """`_distribution` from the count of each score (what a running test keeps)."""
    weights = dict.fromkeys((0.0, 1.0), REGULARISATION)
    for value, count in counts.items():
        weights[value] = weights.get(value, 0.0) + count
    values = np.array(sorted(weights), dtype=np.float64)
    freq = np.array([weights[v] for v in sorted(weights)], dtype=np.float64)
    return values, freq / freq.sum()


def _statistics(values: FloatArray, probs: FloatArray, n: int, elo0: float, elo1: float) -> tuple[float, float]:
    p0 = constrained_mle(values, probs, elo_to_score(elo0))
    p1 = constrained_mle(values, probs, elo_to_score(elo1))
    step = np.log(p1) - np.log(p0)
    mean = float(np.sum(probs * step))
    deviation = math.sqrt(max(float(np.sum(probs * (step - mean) ** 2)), 0.0))
    return n * mean, deviation


@dataclass(frozen=True)
class Bounds:
    """The hypotheses and error rates of a test."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise ValueError(f"--sprt needs ELO0 < ELO1, got {self.elo0:g},{self.elo1:g}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"--{name} must be in (0, 0.5), got {value!r}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass
class Sprt:
    """A running test: add group scores, read the LLR and the verdict.

    The verdict is the SPRT's (overshoot-corrected bounds, at 1 - `E_SHARE` of alpha
    and beta) or the betting e-processes' (at `E_SHARE`), whichever decides first.
    """

    bounds: Bounds
    scores: list[float] = field(default_factory=list)
    games: int = 0
    stopped_by: str | None = None  # "sprt" or "e-process", once there is a verdict
    # the classic GSPRT (Wald's bounds at alpha, beta; no e-process, no overshoot
    # correction): what the studies compare with
    classic: bool = False
    _state: tuple[float, float, float] | None = field(default=None, repr=False)  # llr, lower, upper

    def __post_init__(self) -> None:
        self._against_h0 = Bettor(elo_to_score(self.bounds.elo0), up=True)
        self._against_h1 = Bettor(elo_to_score(self.bounds.elo1), up=False)
        self._counts: dict[float, int] = {}
        for score in self.scores:
            self._bet(score)

    def _bet(self, score: float) -> None:
        self._against_h0.add(score)
        self._against_h1.add(score)
        self._counts[score] = self._counts.get(score, 0) + 1

    def add(self, score: float, games: int) -> None:
        """Add one finished deal group (its score, and how many games it had)."""
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a group score is in [0, 1], got {score!r}")
        self.scores.append(score)
        self.games += games
        self._bet(score)
        self._state = None

    def _statistics(self) -> tuple[float, float, float]:
        """The LLR and the SPRT's bounds after the overshoot correction (computed once per group)."""
        if self._state is None:
            if self.scores:
                values, probs = _counted(self._counts)
                value, deviation = _statistics(values, probs, len(self.scores), self.bounds.elo0, self.bounds.elo1)
            else:
                value, deviation = 0.0, 0.0
            if self.classic:
                self._state = (value, self.bounds.lower, self.bounds.upper)
                return self._state
            share = 1.0 - E_SHARE
            lower = math.log(share * self.bounds.beta / (1.0 - share * self.bounds.alpha))
            upper = math.log((1.0 - share * self.bounds.beta) / (share * self.bounds.alpha))
            shift = OVERSHOOT * deviation
            self._state = (
                value,
                lower + min(shift, -MAX_SHIFT * lower),
                upper - min(shift, MAX_SHIFT * upper),
            )
        return self._state

    @property
    def llr(self) -> float:
        return self._statistics()[0]

    @property
    def lower(self) -> float:
        """The LLR at or below which the SPRT accepts H0 (after the overshoot correction)."""
        return self._statistics()[1]

    @property
    def upper(self) -> float:
        """The LLR at or above which the SPRT accepts H1 (after the overshoot correction)."""
        return self._statistics()[2]

    @property
    def wealth(self) -> tuple[float, float]:
        """The log-wealth of the bettors against H0 and against H1."""
        return self._against_h0.log_wealth, self._against_h1.log_wealth

    def verdict(self) -> str | None:
        """'H1' (A is stronger by elo1), 'H0' (by elo0 at most), or None (keep playing)."""
        value, lower, upper = self._statistics()
        found, by = None, "sprt"
        if value >= upper:
            found = "H1"
        elif value <= lower:
            found = "H0"
        elif self.classic:
            pass
        elif self._against_h0.rejects(E_SHARE * self.bounds.alpha):
            found, by = "H1", "e-process"
        elif self._against_h1.rejects(E_SHARE * self.bounds.beta):
            found, by = "H0", "e-process"
        self.stopped_by = by if found else None
        return found

    def elo(self, level: float = 0.95) -> tuple[float, float, float]:
        """The Elo difference A - B from the mean group score, with a ``level`` interval.

        The interval is the t interval of the mean group score mapped to Elo; after
        a sequential stop it is only approximate (the stop favours extreme means).
        As in the ratings, a weak prior (`PRIOR_GROUPS` drawn groups) keeps both
        finite when every group went one way.
        """
        if not self.scores:
            return math.nan, math.nan, math.nan
        scores = [*self.scores, *([0.5] * PRIOR_GROUPS)]
        n = len(scores)
        mean = float(np.mean(scores))
        half = t_quantile(0.5 + level / 2.0, n - 1) * float(np.std(scores, ddof=1)) / math.sqrt(n)
        return score_to_elo(mean), score_to_elo(mean - half), score_to_elo(mean + half)

    def adjusted_elo(self, level: float = 0.95) -> tuple[float, float, float]:
        """The stop-adjusted (median-unbiased) Elo difference and its ``level`` interval.

        After a stop by the SPRT's bounds or at the budget: `harness.ratings.sprt_elo`
        (fishtest's method). After a stop by an e-process, which the Brownian model of
        the LLR does not describe, it is the fixed-sample estimate `elo` (such stops are
        far outside the bounds, where the stop's bias is small against the difference).
        """
        verdict = self.verdict()
        if self.stopped_by == "e-process" or not self.scores:
            return self.elo(level)

        return stop_adjusted(
            self.scores, self.bounds.elo0, self.bounds.elo1, self.lower, self.upper, verdict, level
        )

    def to_dict(self) -> dict[str, object]:
        """The ``sprt`` entry of summary.json (infinite bounds of the interval become null).

        ``elo``/``elo_ci95`` are the plain mean of the groups (not adjusted for the stop);
        ``elo_adjusted``/``elo_adjusted_ci95`` the stop-adjusted estimate, and
        ``elo_adjusted_method`` says which method gave it.
        """
        elo, low, high = self.elo()
        verdict = self.verdict()
        adjusted, adjusted_low, adjusted_high = self.adjusted_elo()

        def num(x: float) -> float | None:
            return round(x, 2) if math.isfinite(x) else None

        method = (
            "fixed-sample (an e-process stopped the test)"
            if self.stopped_by == "e-process"
            else "median-unbiased after the stop (Brownian approximation, as fishtest)"
        )
        wealth_h0, wealth_h1 = self.wealth
        return {
            "result": verdict or "inconclusive",
            "stopped_by": self.stopped_by,
            "llr": round(self.llr, 4),
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "log_wealth": [round(wealth_h0, 4), round(wealth_h1, 4)],
            "log_wealth_bound": [
                round(-math.log(E_SHARE * self.bounds.alpha), 4),
                round(-math.log(E_SHARE * self.bounds.beta), 4),
            ],
            "elo0": self.bounds.elo0,
            "elo1": self.bounds.elo1,
            "alpha": self.bounds.alpha,
            "beta": self.bounds.beta,
            "groups": len(self.scores),
            "games": self.games,
            "elo": num(elo),
            "elo_ci95": [num(low), num(high)],
            "elo_adjusted": num(adjusted),
            "elo_adjusted_ci95": [num(adjusted_low), num(adjusted_high)],
            "elo_adjusted_method": method if self.scores else None,
        }
