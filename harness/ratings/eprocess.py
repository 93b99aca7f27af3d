"""Anytime-valid tests of a mean in [0, 1] by betting: lopsided pairs stop in a handful of groups.

A bettor starts with wealth 1 and before each deal group stakes a fraction ``lam`` of
it on the group score X beating a target m: the wealth is multiplied by
1 + lam (X - m) (testing "the mean is at most m") or 1 + lam (m - X) ("at least m").
The stake is chosen from the groups before only (predictable) and kept in
[0, CAP / m] (resp. [0, CAP / (1 - m)]) so the wealth stays positive. Under the
hypothesis every factor has expectation at most 1, so the wealth is a nonnegative
supermartingale and, by Ville's inequality, P(the wealth ever reaches 1/a) <= a:
stopping when it does is a level-a test at every look, whatever the looks
(Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting",
JRSS B 86(1), 2024, section 4; the stake is their aGRAPA rule, which approximates the
growth-optimal Kelly bet).

The SPRT adds at most log(s1/s0) to its LLR per group (0.029 at [0, 10]), so it needs
over a hundred groups even when every group is won; this bettor's wealth grows by up
to log(1 + CAP) per group (0.59), and reaches 1/a = 200 in about ten.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# The largest share of the wealth at risk on one group (where the score can fall to 0):
# a lost group keeps 1 - CAP of it.
CAP = 0.8
# The stake's estimates start from a pseudo-group at the target with the variance of a
# fair coin (no edge: the first stake is 0).
PRIOR_VARIANCE = 0.25


@dataclass
class Bettor:
    """The wealth of a bettor against "mean <= target" (``up``) or "mean >= target"."""

    target: float
    up: bool
    log_wealth: float = 0.0
    count: int = 0
    total: float = 0.0  # sum of the scores
    squares: float = PRIOR_VARIANCE  # sum of squared deviations from the running means, and the prior's

    def __post_init__(self) -> None:
        if not 0.0 < self.target < 1.0:
            raise ValueError(f"a betting target is in (0, 1), got {self.target!r}")

    def stake(self) -> float:
        """The fraction of the wealth staked on the next group (aGRAPA, truncated)."""
        mean = (self.target + self.total) / (self.count + 1)
        variance = self.squares / (self.count + 1)
        edge = mean - self.target if self.up else self.target - mean
        if edge <= 0.0:
            return 0.0
        worst = self.target if self.up else 1.0 - self.target  # the most one group can lose per unit staked
        return min(edge / (variance + edge * edge), CAP / worst)

    def add(self, score: float) -> None:
        """Bet on one finished group (its score in [0, 1])."""
        stake = self.stake()
        payoff = score - self.target if self.up else self.target - score
        self.log_wealth += math.log1p(stake * payoff)
        mean = (self.target + self.total) / (self.count + 1)  # predictable: before this group
        self.squares += (score - mean) ** 2
        self.total += score
        self.count += 1

    def rejects(self, level: float) -> bool:
        """Whether the wealth has reached 1/level: the hypothesis is rejected at ``level``."""
        return self.log_wealth >= -math.log(level)
