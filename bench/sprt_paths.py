"""The SPRT of harness.ratings.sprt over a whole sequence of group scores at once (numpy).

A study runs thousands of tests; the harness's `Sprt` refits after every group, which
is right for a league (a look per finished group) but slow for a simulation. This
computes the same statistics for every prefix of a sequence in one pass: the counts
of each score value after each group, the constrained MLEs of all prefixes by a
vectorised safeguarded Newton iteration, the overshoot-corrected bounds, and the two
bettors' wealth (the stake uses only the groups before, so it is a cumulative sum).
`first_stop` gives the verdict and the group it came at, as `Sprt` would give at the
same looks; `check` compares the two on sequences and raises if they ever differ.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.ratings import eprocess
from harness.ratings.sprt import (
    E_SHARE,
    MAX_SHIFT,
    OVERSHOOT,
    REGULARISATION,
    Bounds,
    Sprt,
    elo_to_score,
)

Array = npt.NDArray[np.float64]


def _tilt(probs: Array, a: Array) -> Array:
    """Row-wise constrained MLE: probs / (1 + x a) with x solving sum p a / (1 + x a) = 0."""
    n = probs.shape[0]
    lo, hi = np.full(n, -1.0 / a.max()), np.full(n, -1.0 / a.min())
    # start at the first-order root sum p a - x sum p a^2 = 0: Newton then takes a few steps
    x = np.clip((probs * a).sum(axis=1) / (probs * a * a).sum(axis=1), 0.9 * lo, 0.9 * hi)
    for _ in range(80):
        d = 1.0 + x[:, None] * a
        f = (probs * a / d).sum(axis=1)
        slope = -(probs * a * a / (d * d)).sum(axis=1)
        lo = np.where(f > 0.0, x, lo)
        hi = np.where(f <= 0.0, x, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = x - f / slope
        inside = (step > lo) & (step < hi) & (slope < 0.0)
        new = np.where(inside, step, 0.5 * (lo + hi))
        x = new
        if np.all(np.abs(f) < 1e-13):
            break
    out = probs / (1.0 + x[:, None] * a)
    normalised: Array = out / out.sum(axis=1, keepdims=True)
    return normalised


def paths(scores: Array, values: Array, bounds: Bounds) -> dict[str, Array]:
    """Per prefix n = 1..len(scores): the LLR, its step's deviation and the bettors' log-wealth.

    ``values``: every value a score can take (sorted, with 0 and 1).
    """
    n = len(scores)
    index = np.searchsorted(values, scores)
    counts = np.zeros((n, len(values)))
    counts[np.arange(n), index] = 1.0
    counts = np.cumsum(counts, axis=0)
    counts[:, 0] += REGULARISATION
    counts[:, -1] += REGULARISATION
    probs = counts / counts.sum(axis=1, keepdims=True)
    s0, s1 = elo_to_score(bounds.elo0), elo_to_score(bounds.elo1)
    p0, p1 = _tilt(probs, values - s0), _tilt(probs, values - s1)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(probs > 0.0, np.log(p1) - np.log(p0), 0.0)
    mean = (probs * step).sum(axis=1)
    deviation = np.sqrt(np.maximum((probs * (step - mean[:, None]) ** 2).sum(axis=1), 0.0))
    groups = np.arange(1, n + 1, dtype=np.float64)
    return {
        "llr": groups * mean,
        "deviation": deviation,
        "h0": _wealth(scores, s0, up=True),
        "h1": _wealth(scores, s1, up=False),
    }


def _bounds(path: dict[str, Array], bounds: Bounds, classic: bool) -> tuple[Array, Array]:
    """The SPRT's bounds at each prefix: Wald's (classic), or at the SPRT's share moved in by the overshoot."""
    n = len(path["llr"])
    if classic:
        return np.full(n, bounds.lower), np.full(n, bounds.upper)
    share = 1.0 - E_SHARE
    wald_lower = math.log(share * bounds.beta / (1.0 - share * bounds.alpha))
    wald_upper = math.log((1.0 - share * bounds.beta) / (share * bounds.alpha))
    shift = OVERSHOOT * path["deviation"]
    return wald_lower + np.minimum(shift, -MAX_SHIFT * wald_lower), wald_upper - np.minimum(shift, MAX_SHIFT * wald_upper)


def _wealth(scores: Array, target: float, up: bool) -> Array:
    """`eprocess.Bettor`'s log-wealth after each group, for every prefix at once."""
    n = len(scores)
    before = np.concatenate([[0.0], np.cumsum(scores)[:-1]])
    count = np.arange(n, dtype=np.float64)
    mean = (target + before) / (count + 1.0)
    squares = eprocess.PRIOR_VARIANCE + np.cumsum((scores - mean) ** 2)
    squares_before = np.concatenate([[eprocess.PRIOR_VARIANCE], squares[:-1]])
    variance = squares_before / (count + 1.0)
    edge = mean - target if up else target - mean
    worst = target if up else 1.0 - target
    stake = np.where(edge > 0.0, np.minimum(edge / (variance + edge * edge), eprocess.CAP / worst), 0.0)
    payoff = scores - target if up else target - scores
    wealth: Array = np.cumsum(np.log1p(stake * payoff))
    return wealth


def first_stop(path: dict[str, Array], bounds: Bounds, classic: bool = False) -> tuple[str | None, int, str | None]:
    """(verdict, groups used, what stopped it) of the first look that decides; (None, len, None) if none."""
    lower, upper = _bounds(path, bounds, classic)
    sprt_h1 = path["llr"] >= upper
    sprt_h0 = path["llr"] <= lower
    if classic:
        e_h1 = e_h0 = np.zeros(len(sprt_h1), dtype=bool)
    else:
        e_h1 = path["h0"] >= -math.log(E_SHARE * bounds.alpha)
        e_h0 = path["h1"] >= -math.log(E_SHARE * bounds.beta)
    any_stop = sprt_h1 | sprt_h0 | e_h1 | e_h0
    if not any_stop.any():
        return None, len(sprt_h1), None
    at = int(np.argmax(any_stop))
    if sprt_h1[at]:
        return "H1", at + 1, "sprt"
    if sprt_h0[at]:
        return "H0", at + 1, "sprt"
    return ("H1" if e_h1[at] else "H0"), at + 1, "e-process"


Stop = tuple[str | None, int, str | None]


def run(draw: object, values: Array, bounds: Bounds, cap: int) -> tuple[Stop, Stop, Array]:
    """The test and the classic GSPRT on the same groups from ``draw(k)``, up to ``cap`` groups each.

    Returns both stops (verdict, groups, by) and the scores the test (not the classic one) used.
    """
    scores: Array = np.asarray(draw(min(cap, 128)), dtype=np.float64)  # type: ignore[operator]
    while True:
        path = paths(scores, values, bounds)
        new, classic = first_stop(path, bounds), first_stop(path, bounds, classic=True)
        if (new[0] is not None and classic[0] is not None) or len(scores) >= cap:
            return new, classic, scores[: new[1]]
        more = min(len(scores), cap - len(scores))
        scores = np.concatenate([scores, np.asarray(draw(more), dtype=np.float64)])  # type: ignore[operator]


def check(sequences: list[Array], values: Array, bounds: Bounds) -> None:
    """Raise AssertionError unless `Sprt` stops every sequence at the same group with the same verdict."""
    for classic in (False, True):
        for scores in sequences:
            verdict, used, by = first_stop(paths(scores, values, bounds), bounds, classic)
            test = Sprt(bounds, classic=classic)
            for score in scores:
                test.add(float(score), 1)
                if test.verdict() is not None:
                    break
            expected = (test.verdict(), len(test.scores), test.stopped_by)
            if (verdict, used, by) != expected:
                raise AssertionError(f"vectorised {(verdict, used, by)} != Sprt {expected} (classic={classic})")
