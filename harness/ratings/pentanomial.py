"""The deal groups' score distribution: logistic Elo and scores, the observed values, the constrained MLE.

Shared by the SPRT (:mod:`harness.ratings.sprt`) and its stop-adjusted estimate
(:mod:`harness.ratings.sprt_elo`), which both build on it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
# Pseudo-counts at the extreme scores 0 and 1: the constrained MLE exists for any
# s in (0, 1) even before a group has gone either way (as fishtest regularises).
REGULARISATION = 1e-3

def elo_to_score(elo: float) -> float:
    """Expected score of a bot ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference of an expected score in (0, 1); ±inf at the ends."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _distribution(scores: Sequence[float]) -> tuple[FloatArray, FloatArray]:
    """The observed values and their frequencies, with the end-point pseudo-counts."""
    values, counts = np.unique(np.asarray(scores, dtype=np.float64), return_counts=True)
    values = np.concatenate([[0.0, 1.0], values])
    weights = np.concatenate([[REGULARISATION, REGULARISATION], counts.astype(np.float64)])
    merged, inverse = np.unique(values, return_inverse=True)
    freq = np.bincount(inverse.ravel(), weights, minlength=len(merged))
    return merged, freq / freq.sum()


def constrained_mle(values: FloatArray, probs: FloatArray, mean: float) -> FloatArray:
    """The distribution on ``values`` closest (in likelihood) to ``probs`` with expectation ``mean``."""
    a = values - mean
    lo, hi = -1.0 / a.max(), -1.0 / a.min()  # 1 + x a_i > 0 for every i
    x = 0.0
    for _ in range(100):  # Newton on f(x) = sum p a / (1 + x a), which decreases; bisect when it leaves
        denominator = 1.0 + x * a
        f = float(np.sum(probs * a / denominator))
        if abs(f) < 1e-14:
            break
        if f > 0.0:
            lo = x
        else:
            hi = x
        slope = -float(np.sum(probs * a * a / (denominator * denominator)))
        step = x - f / slope if slope < 0.0 else math.nan
        x = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo < 1e-15:
            break
    out: FloatArray = probs / (1.0 + x * a)
    normalised: FloatArray = out / out.sum()
    return normalised


__all__ = ["REGULARISATION", "FloatArray", "constrained_mle", "elo_to_score", "score_to_elo"]
