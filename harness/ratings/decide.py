"""When is a ranking decided? Sequential tests per pair with error control across looks.

Watching the ratings and stopping when the likelihood of superiority looks decided
declares false winners: between identical bots in about 31% of leagues, against 5% at a
fixed end, because every look is another chance for noise to cross the line. Here each
pair of bots is a two-sided sequential test whose error is spent over the looks with
the Lan–DeMets Pocock-type spending function of the information fraction
t = games / budget:

    spent(t) = a ln(1 + (e - 1) t),   a = (1 - confidence) / pairs,

which spends evenly enough that a league decided well before its budget stops early
(the O'Brien–Fleming function, which spends almost nothing early, kept a league with
a generous budget playing to ~60% of it). At a look the pair is decided when the
p-value of its difference (cluster-robust, t with one less degree of freedom than the
deal groups both bots played: only those inform it) is below the error spent since the
previous look. By the union bound over looks and over all m(m-1)/2 pairs (adjacency in
the ranking is chosen by the data, so every pair is counted), the chance that any
decided pair is in the wrong order is at most 1 - confidence. A decided pair stays
decided.

Ties give up (``margin`` > 0): a pair is decided *equal within ±margin* at a look when
the interval of its difference at that look's level (|d| + q se, q the t quantile of
the error spent at the look, two-sided) lies inside (-margin, margin): a two one-sided
test (TOST) with each side at half the look's error. For a pair whose true difference
is beyond the margin a wrong order and a false "equal" then each have at most half
the look's error, so the union bound still holds for every statement the league makes
(an order, or an equality within the margin).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from harness.ratings.model import EloFit
from harness.ratings.tdist import t_cdf, t_quantile

# No decision on a pair that shared fewer deal groups than this plus one.
MIN_DOF = 4
# --margin's default (Elo): neighbours closer than this may be called equal and stop needing games.
DEFAULT_MARGIN = 30.0


def spent(fraction: float, alpha: float) -> float:
    """Error spent by information fraction ``fraction`` (0..1) of a two-sided level-``alpha`` test."""
    if fraction <= 0.0:
        return 0.0
    return alpha * math.log(1.0 + (math.e - 1.0) * min(fraction, 1.0))


@dataclass(frozen=True)
class Decision:
    better: str
    worse: str
    games: int  # games at the look that decided it
    look: int


@dataclass
class Ranking:
    """The sequential decisions of one league: feed it a fit at each look."""

    names: tuple[str, ...]
    budget: int  # the games the league may play at most (the information fraction's 1)
    confidence: float = 0.95
    decided: dict[frozenset[str], Decision] = field(default_factory=dict)
    looks: int = 0
    fraction: float = 0.0  # of the last look
    order: tuple[str, ...] = ()  # the ranking at the last look
    evidence: dict[frozenset[str], float] = field(default_factory=dict)  # |z| of each pair at the last look
    # a gauntlet's new bots: then only where each stands in the field is asked (new bots
    # never meet, and the field's own order is not the question)
    new: frozenset[str] = frozenset()
    margin: float = 0.0  # Elo; 0: a pair is decided only by its order
    equal: dict[frozenset[str], Decision] = field(default_factory=dict)  # pairs equal within ±margin

    def __post_init__(self) -> None:
        if not 0.5 <= self.confidence < 1.0:
            raise ValueError(f"--confidence must be in [0.5, 1), got {self.confidence!r}")
        if not (math.isfinite(self.margin) and self.margin >= 0.0):
            raise ValueError(f"--margin must be a finite number of Elo >= 0, got {self.margin!r}")

    @property
    def pair_alpha(self) -> float:
        if self.new:  # only new-field pairs are tested
            pairs = len(self.new) * (len(self.names) - len(self.new))
        else:
            pairs = len(self.names) * (len(self.names) - 1) // 2
        return (1.0 - self.confidence) / max(pairs, 1)

    def _asked(self, a: str, b: str) -> bool:
        """Whether the pair is one the league must decide (a gauntlet's: one new bot, one field bot)."""
        return not self.new or (a in self.new) != (b in self.new)

    def look(self, fit: EloFit, games: int, shared: Mapping[frozenset[str], int] | None = None) -> None:
        """Test every undecided pair on ``fit`` (of the first ``games`` games).

        ``shared``: per pair, the clusters (deal groups) both bots played in. Only those
        inform the pair's robust error, so its t test has that many minus one degrees of
        freedom (fewer than the fit's G - 1: with G - 1 the tails were too thin and
        identical bots were decided too often).
        """
        fraction = min(games / self.budget, 1.0)
        budget = spent(fraction, self.pair_alpha) - spent(self.fraction, self.pair_alpha)
        self.fraction, self.looks = fraction, self.looks + 1
        rating = {bot.name: bot.rating for bot in fit.bots}
        self.order = tuple(bot.name for bot in fit.bots)
        if budget <= 0.0 or fit.clusters < 2:
            return
        for a in rating:
            for b in rating:
                key = frozenset((a, b))
                if a >= b or key in self.decided or not self._asked(a, b):
                    continue
                p = fit.los[a][b]  # P(a > b) from the t distribution (G - 1 dof) of the difference
                if not math.isfinite(p):
                    continue  # no information on this pair
                ratio = t_quantile(min(max(p, 1e-15), 1.0 - 1e-15), fit.clusters - 1)  # difference / error
                self.evidence[key] = abs(ratio)
                dof = (shared.get(key, 0) if shared is not None else fit.clusters) - 1
                if dof < MIN_DOF:
                    continue
                if 2.0 * t_cdf(-abs(ratio), dof) < budget:
                    better, worse = (a, b) if rating[a] > rating[b] else (b, a)
                    self.decided[key] = Decision(better, worse, games, self.looks)
                elif self.margin > 0.0 and key not in self.equal and self._within(rating[a] - rating[b], ratio, dof, budget):
                    better, worse = (a, b) if rating[a] >= rating[b] else (b, a)
                    self.equal[key] = Decision(better, worse, games, self.looks)

    def _within(self, difference: float, ratio: float, dof: int, budget: float) -> bool:
        """Whether the pair's interval at this look's level lies inside ±margin (TOST).

        Its error is |difference / ratio|; at a ratio too near 0 to recover it (a
        difference of exactly 0) the pair waits for the next look.
        """
        if abs(ratio) < 1e-9:
            return False
        error = abs(difference / ratio)
        return abs(difference) + t_quantile(1.0 - budget / 2.0, dof) * error < self.margin

    def adjacent(self) -> list[tuple[str, str]]:
        """The adjacent pairs of the current ranking, best first.

        In a gauntlet: each new bot with the field bots just above and just below it
        (the other new bots skipped), so that where it stands in the field is decided.
        """
        if not self.new:
            return list(zip(self.order, self.order[1:], strict=False))
        pairs: list[tuple[str, str]] = []
        for index, name in enumerate(self.order):
            if name not in self.new:
                continue
            above = next((other for other in reversed(self.order[:index]) if other not in self.new), None)
            below = next((other for other in self.order[index + 1 :] if other not in self.new), None)
            pairs += [(above, name)] if above is not None else []
            pairs += [(name, below)] if below is not None else []
        return pairs

    def undecided(self) -> list[tuple[str, str]]:
        """Adjacent pairs not (yet) decided in the ranking's order, nor equal within the margin."""
        out = []
        for a, b in self.adjacent():
            key = frozenset((a, b))
            decision = self.decided.get(key)
            if (decision is None or decision.better != a) and key not in self.equal:
                out.append((a, b))
        return out

    def tied(self) -> list[tuple[str, str]]:
        """Adjacent pairs not ordered in the ranking's order but equal within the margin."""
        out = []
        for a, b in self.adjacent():
            key = frozenset((a, b))
            decision = self.decided.get(key)
            if (decision is None or decision.better != a) and key in self.equal:
                out.append((a, b))
        return out

    def done(self) -> bool:
        return bool(self.order) and len(self.order) == len(self.names) and not self.undecided()

    def to_dict(self) -> dict[str, object]:
        return {
            "confidence": self.confidence,
            "budget": self.budget,
            "looks": self.looks,
            "order": list(self.order),
            "decided": [
                {"better": d.better, "worse": d.worse, "games": d.games, "look": d.look}
                for d in sorted(self.decided.values(), key=lambda d: (d.look, d.better, d.worse))
            ],
            "undecided": [list(pair) for pair in self.undecided()],
            "margin": self.margin,
            "equal": [
                {"a": d.better, "b": d.worse, "games": d.games, "look": d.look}
                for d in sorted(self.equal.values(), key=lambda d: (d.look, d.better, d.worse))
            ],
            "tied": [list(pair) for pair in self.tied()],
            "done": self.done(),
            **({"gauntlet": sorted(self.new)} if self.new else {}),
        }


def summary_lines(data: dict[str, object]) -> list[str]:
    """The standings' lines about a league run until decided (from `Ranking.to_dict`)."""
    decided = data.get("decided") or []
    undecided = data.get("undecided") or []
    confidence = float(data.get("confidence", 0.95))  # type: ignore[arg-type]
    lines = [
        f"until decided: sequential tests per pair at {100 * confidence:g}% across "
        f"{data.get('looks', 0)} looks (error spent Pocock-type over the --games budget, Bonferroni over pairs)"
        + (f"; a pair within ±{float(data['margin']):g} Elo may be called equal" if data.get("margin") else "")  # type: ignore[arg-type]
    ]
    pairs: Sequence[dict[str, object]] = decided  # type: ignore[assignment]
    if pairs:
        lines.append(
            "decided: " + ", ".join(f"{d['better']} > {d['worse']} (at {d['games']} games)" for d in pairs)
        )
    margin = float(data.get("margin") or 0.0)  # type: ignore[arg-type]
    tied: Sequence[Sequence[str]] = data.get("tied") or []  # type: ignore[assignment]
    equal: Sequence[dict[str, object]] = data.get("equal") or []  # type: ignore[assignment]
    if tied:
        at = {frozenset((str(d["a"]), str(d["b"]))): d["games"] for d in equal}
        lines.append(
            f"equal within ±{margin:g} Elo (too close to call): "
            + ", ".join(f"{a} = {b} (at {at.get(frozenset((a, b)), '?')} games)" for a, b in tied)
        )
    open_pairs: Sequence[Sequence[str]] = undecided  # type: ignore[assignment]
    if open_pairs:
        lines.append("not decided: " + ", ".join(f"{a} ? {b}" for a, b in open_pairs))
    elif tied:
        lines.append(f"every adjacent pair of the ranking is ordered or equal within ±{margin:g} Elo")
    else:
        lines.append("every adjacent pair of the ranking is decided")
    return lines
