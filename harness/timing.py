"""Per-bot timing: move times, time-outs and start-up times, kept as mergeable histograms.

A worker keeps one :class:`Timing` per bot and job; the league stores it with the job,
and the standings merge them: median and p99 from a log-spaced histogram (bins 2%
wide, so a quantile is within 1% of the exact one), the maximum exactly. The times are
the ones the replays record (``ms`` on action records): from sending a turn to reading
its reply. Start-up is from starting the process to its answer to hello.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

RATIO = 1.02  # bin width: each bin holds times within 2% of each other
FLOOR_MS = 0.001  # times below one microsecond share the first bin


def _bin(ms: float) -> int:
    return max(0, int(math.log(max(ms, FLOOR_MS) / FLOOR_MS, RATIO)))


def _middle(index: int) -> float:
    """The geometric middle of a bin, in ms."""
    return float(FLOOR_MS * RATIO ** (index + 0.5))


class Histogram:
    """Counts of times (ms) in log-spaced bins, with the exact count and maximum.

    :meth:`add` only queues a time (it runs once a decision, on the referee's hot
    path); the queue is binned when it fills, or when the histogram is read.
    """

    __slots__ = ("_counts", "_max", "_n", "_queue")
    _QUEUE = 4096

    def __init__(self, counts: dict[int, int] | None = None, n: int = 0, max_ms: float = 0.0) -> None:
        self._counts = dict(counts or {})
        self._n = n
        self._max = max_ms
        self._queue: list[float] = []

    def add(self, ms: float) -> None:
        queue = self._queue
        queue.append(ms)
        if len(queue) >= self._QUEUE:
            self._settle()

    def _settle(self) -> None:
        queue, counts = self._queue, self._counts
        if not queue:
            return
        for ms in queue:
            index = _bin(ms)
            counts[index] = counts.get(index, 0) + 1
        self._n += len(queue)
        self._max = max(self._max, *queue)
        queue.clear()

    @property
    def counts(self) -> dict[int, int]:
        self._settle()
        return self._counts

    @property
    def n(self) -> int:
        return self._n + len(self._queue)

    @property
    def max_ms(self) -> float:
        self._settle()
        return self._max

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Histogram):
            return NotImplemented
        return (self.counts, self.n, self.max_ms) == (other.counts, other.n, other.max_ms)

    def __repr__(self) -> str:
        return f"Histogram(counts={self.counts!r}, n={self.n}, max_ms={self.max_ms})"

    def merge(self, other: Histogram) -> None:
        self._settle()
        for index, count in other.counts.items():
            self._counts[index] = self._counts.get(index, 0) + count
        self._n += other.n
        self._max = max(self._max, other.max_ms)

    def quantile(self, q: float) -> float | None:
        """The q-quantile (0 < q <= 1) in ms, or None when empty; never above the maximum."""
        counts = self.counts
        if not self._n:
            return None
        rank = max(1, math.ceil(q * self._n))
        seen = 0
        for index in sorted(counts):
            seen += counts[index]
            if seen >= rank:
                return min(_middle(index), self._max)
        return self._max

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts
        return {"counts": {str(k): v for k, v in sorted(counts.items())}, "n": self._n, "max_ms": self._max}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Histogram:
        return cls({int(k): int(v) for k, v in data["counts"].items()}, int(data["n"]), float(data["max_ms"]))


@dataclass
class Timing:
    """One bot's move times, time-outs and start-ups (in one job, or merged over many)."""

    moves: Histogram = field(default_factory=Histogram)
    timeouts: int = 0
    startups: Histogram = field(default_factory=Histogram)

    def move(self, seconds: float) -> None:
        self.moves.add(seconds * 1000.0)

    def startup(self, seconds: float) -> None:
        self.startups.add(seconds * 1000.0)

    def merge(self, other: Timing) -> None:
        self.moves.merge(other.moves)
        self.startups.merge(other.startups)
        self.timeouts += other.timeouts

    def to_json(self) -> str:
        return json.dumps(
            {"moves": self.moves.to_dict(), "timeouts": self.timeouts, "startups": self.startups.to_dict()}
        )

    @classmethod
    def from_json(cls, text: str) -> Timing:
        data = json.loads(text)
        return cls(Histogram.from_dict(data["moves"]), int(data["timeouts"]), Histogram.from_dict(data["startups"]))

    def summary(self) -> dict[str, Any]:
        """The figures shown: move ms (median, p99, max), time-outs per 10,000 moves, start-up ms."""
        asked = self.moves.n + self.timeouts

        def ms(value: float | None) -> float | None:
            return None if value is None else round(value, 3)

        return {
            "moves": self.moves.n,
            "move_ms": {
                "median": ms(self.moves.quantile(0.5)),
                "p99": ms(self.moves.quantile(0.99)),
                "max": ms(self.moves.max_ms) if self.moves.n else None,
            },
            "timeouts": self.timeouts,
            "timeouts_per_10k": round(10_000 * self.timeouts / asked, 2) if asked else None,
            "startups": self.startups.n,
            "startup_ms": {
                "median": ms(self.startups.quantile(0.5)),
                "max": ms(self.startups.max_ms) if self.startups.n else None,
            },
        }


def text_cells(summary: dict[str, Any]) -> dict[str, str]:
    """The timing columns of a text table."""

    def ms(value: float | None) -> str:
        if value is None:
            return "-"
        return f"{value:.3f}" if value < 10 else f"{value:.1f}" if value < 1000 else f"{value:.0f}"

    move = summary["move_ms"]
    per10k = summary["timeouts_per_10k"]
    return {
        "move ms med/p99/max": f"{ms(move['median'])}/{ms(move['p99'])}/{ms(move['max'])}",
        "t/o per 10k": "-" if per10k is None else f"{per10k:g}",
        "start ms": ms(summary["startup_ms"]["median"]),
    }
