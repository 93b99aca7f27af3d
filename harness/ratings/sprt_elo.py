"""The Elo difference after an SPRT stop: a median-unbiased estimate and its interval.

Stopping when the LLR crosses a bound favours extreme means: the plain mean of the
groups played is biased away from the middle, and its t interval under-covers. As
fishtest's ``sprt.analytics`` does, the LLR path is approximated by a Brownian motion
whose drift and variance per group are those of one group's LLR step when the true
expected score is s (the observed distribution tilted to mean s, as the GSPRT's own
hypotheses are); the outcome of the test (a stop at H0 after T groups, at H1 after T
groups, or no verdict after T groups at LLR y) is ordered from worst to best: H0
sooner, then no verdict by its LLR, then H1 later. F(elo) is the chance, were the true
difference elo, of an outcome at most as good as the observed one; it falls as elo
rises. The estimate is the elo where F = 1/2, the ``level`` interval runs from
F = (1 + level)/2 to F = (1 - level)/2.

F is computed here, not as fishtest does (series in sines): the density of the
Brownian motion still between the bounds a < 0 < b at time T is the method of images
(sources at 2kA, sinks at 2b - 2kA, A = b - a) times Girsanov's drift factor; the
chance of hitting b before a from x is the gambler's-ruin formula u(x), so by the
strong Markov property at T

    P(H1 by T) = u(0) - integral p(x, T) u(x) dx,
    P(H0 by T) = 1 - u(0) - integral p(x, T) (1 - u(x)) dx,

integrated on a grid. As in fishtest, an LLR past a bound is clamped to it, at the
time T' = T bound / LLR it would have reached it at its average pace.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from harness.ratings.pentanomial import FloatArray, _distribution, constrained_mle, elo_to_score

GRID = 1201  # points of the integration grid
WIDTH = 12.0  # the grid spans the alive density's mean ± this many of its deviations (within the bounds)
REACH = 999.0  # |Elo| searched; beyond it an end of the interval is open (infinite)


def _density(x: FloatArray, time: float, mu: float, var: float, a: float, b: float) -> FloatArray:
    """The density at ``x`` of the Brownian motion (drift mu, variance var per unit time) not yet absorbed at a or b."""
    width = b - a
    spread = var * time
    images = math.ceil(3.0 * math.sqrt(spread) / width) + 2
    k = np.arange(-images, images + 1, dtype=np.float64)
    sources, sinks = 2.0 * k * width, 2.0 * b - 2.0 * k * width
    plus = -((x[:, None] - sources[None, :]) ** 2) / (2.0 * spread)
    minus = -((x[:, None] - sinks[None, :]) ** 2) / (2.0 * spread)
    top = np.maximum(plus.max(axis=1), minus.max(axis=1))
    drift = mu * x / var - mu * mu * time / (2.0 * var) - 0.5 * math.log(2.0 * math.pi * spread)
    both = np.exp(plus - top[:, None]).sum(axis=1) - np.exp(minus - top[:, None]).sum(axis=1)
    out: FloatArray = np.maximum(np.exp(top + drift) * both, 0.0)
    return out


def _ruin(x: FloatArray, mu: float, var: float, a: float, b: float) -> FloatArray:
    """The chance of reaching b before a from x (gambler's ruin of a Brownian motion with drift)."""
    theta = 2.0 * mu / var
    width = b - a
    if abs(theta * width) < 1e-9:
        linear: FloatArray = (x - a) / width
        return linear
    if theta > 0.0:
        up: FloatArray = np.expm1(-theta * (x - a)) / math.expm1(-theta * width)
        return up
    down: FloatArray = (np.exp(theta * (b - x)) - math.exp(theta * width)) / -math.expm1(theta * width)
    return down


def outcome_cdf(outcome: str | None, time: float, y: float, mu: float, var: float, a: float, b: float) -> float:
    """F: the chance of an outcome at most as good as (``outcome`` after ``time`` groups, at LLR ``y``)."""
    centre, spread = mu * time, math.sqrt(var * time)
    x = np.linspace(max(a, centre - WIDTH * spread), min(b, centre + WIDTH * spread), GRID)
    # an empty grid: the alive density lies beyond a bound, nothing is left alive
    p = np.zeros_like(x) if x[0] >= x[-1] else _density(x, time, mu, var, a, b)
    u = _ruin(x, mu, var, a, b)
    to_upper = float(_ruin(np.array([0.0]), mu, var, a, b)[0])
    h1 = min(max(to_upper - float(np.trapezoid(p * u, x)), 0.0), 1.0)
    h0 = min(max(1.0 - to_upper - float(np.trapezoid(p * (1.0 - u), x)), 0.0), 1.0)
    if outcome == "H0":
        return h0
    if outcome == "H1":
        return 1.0 - h1
    below = x <= y
    alive = float(np.trapezoid(p[below], x[below])) if below.sum() > 1 else 0.0
    return min(h0 + alive, 1.0)


def stop_adjusted(
    scores: Sequence[float],
    elo0: float,
    elo1: float,
    lower: float,
    upper: float,
    outcome: str | None,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """The median-unbiased Elo difference after the test stopped, and its ``level`` interval.

    ``lower``, ``upper``: the LLR bounds the test stopped at; ``outcome``: "H0", "H1" or
    None (the budget ran out). An end beyond ±`REACH` Elo is infinite. NaNs without groups.
    """
    if not scores:
        return math.nan, math.nan, math.nan
    values, probs = _distribution(scores)
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    step = np.log(constrained_mle(values, probs, s1)) - np.log(constrained_mle(values, probs, s0))
    groups = float(len(scores))
    slope = float(np.sum(probs * step))
    y = groups * slope
    time = groups
    if y > upper or y < lower:  # clamped to the bound it passed, at the time its pace reached it
        bound = upper if y > upper else lower
        time, y = groups * bound / y, bound

    def cdf(elo: float) -> float:
        tilted = constrained_mle(values, probs, elo_to_score(elo))
        mu = float(np.sum(tilted * step))
        var = max(float(np.sum(tilted * (step - mu) ** 2)), 1e-12)
        return outcome_cdf(outcome, time, y, mu, var, lower, upper)

    return (
        _solve(cdf, 0.5, elo0, elo1),
        _solve(cdf, 0.5 + level / 2.0, elo0, elo1),
        _solve(cdf, 0.5 - level / 2.0, elo0, elo1),
    )


def _solve(cdf: Callable[[float], float], target: float, elo0: float, elo1: float) -> float:
    """The elo where the decreasing ``cdf`` equals ``target`` (±inf beyond ±REACH)."""
    middle, spread = (elo0 + elo1) / 2.0, elo1 - elo0
    reach = 30.0 * spread
    while True:
        lo, hi = max(middle - reach, -REACH), min(middle + reach, REACH)
        f_lo, f_hi = cdf(lo) - target, cdf(hi) - target
        if f_lo >= 0.0 >= f_hi:
            if f_lo == 0.0:
                return lo
            if f_hi == 0.0:
                return hi
            # bisection to 0.01 Elo (cdf is monotone; about 20 evaluations at most)
            while hi - lo > 0.01:
                mid = 0.5 * (lo + hi)
                if cdf(mid) >= target:
                    lo = mid
                else:
                    hi = mid
            return 0.5 * (lo + hi)
        if lo <= -REACH and hi >= REACH:
            return -math.inf if f_lo < 0.0 else math.inf
        reach *= 4.0
