"""League progress: an in-place line on a terminal, plain periodic lines otherwise (CI, logs)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from typing import TextIO

from harness.league.store import GameRow, StoredGame
from harness.referee import win_shares

# Without a terminal: a line at most every this many seconds, and at every 10%.
PLAIN_INTERVAL = 5.0


class Tally:
    """Running win shares (a shared win counts 1/k; a forfeit never wins) for the top of the table."""

    def __init__(self) -> None:
        self.games: dict[str, int] = {}
        self.wins: dict[str, float] = {}

    def add(self, players: Iterable[str], places: Iterable[int], forfeited: Iterable[bool]) -> None:
        names = list(players)
        for name, share in zip(names, win_shares(list(places), list(forfeited)), strict=True):
            self.games[name] = self.games.get(name, 0) + 1
            self.wins[name] = self.wins.get(name, 0.0) + share

    def add_row(self, row: GameRow) -> None:
        self.add(row.players, row.places, row.forfeited)

    def add_stored(self, game: StoredGame) -> None:
        self.add(game.players, game.places, game.forfeited)

    def top(self, n: int = 3) -> list[tuple[str, float]]:
        shares = [(name, self.wins.get(name, 0.0) / games) for name, games in self.games.items() if games]
        return sorted(shares, key=lambda item: (-item[1], item[0]))[:n]


GAUGE = 21  # characters between the two bounds in an SPRT's progress line


def llr_gauge(llr: float, lower: float, upper: float, width: int = GAUGE) -> str:
    """Where the LLR stands between its bounds: ``H0 [-----|--*-------] H1`` (``|`` is zero)."""
    cells = ["-"] * width

    def at(value: float) -> int:
        share = (value - lower) / (upper - lower) if upper > lower else 0.5
        return min(max(round(share * (width - 1)), 0), width - 1)

    if lower < 0.0 < upper:
        cells[at(0.0)] = "|"
    if llr == llr:  # not NaN
        cells[at(llr)] = "*"
    return f"H0 [{''.join(cells)}] H1"


def sprt_line(groups: int, games: int, llr: float, lower: float, upper: float) -> str:
    """An SPRT's progress: ``12 deal groups, 24 games · LLR +1.23 (bounds -2.94, +2.94) H0 [...] H1``."""
    return (
        f"{groups} deal groups, {games} games · LLR {llr:+.2f} (bounds {lower:+.2f}, {upper:+.2f}) "
        + llr_gauge(llr, lower, upper)
    )


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Shows games done/total, games per second, ETA and the current top 3 by win share."""

    def __init__(
        self,
        stream: TextIO,
        total: int,
        done: int,
        *,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.total = total
        self.start_done = self.done = done
        self.tty = stream.isatty() if tty is None else tty
        self.clock = clock
        self.started = self.last = clock()
        self.last_tenth = self._tenth(done)
        self.tally = Tally()
        self._width = 0

    def _tenth(self, done: int) -> int:
        return 10 * done // self.total if self.total else 10

    def line(self) -> str:
        """The status line, e.g. ``120/400 games · 35.2 games/s · ETA 0:08 · top: a 41%, b 30%``."""
        elapsed = self.clock() - self.started
        played = self.done - self.start_done
        rate = played / elapsed if elapsed > 0 else 0.0
        eta = _duration((self.total - self.done) / rate) if rate > 0 else "?"
        top = ", ".join(f"{name} {100 * share:.0f}%" for name, share in self.tally.top())
        text = f"{self.done}/{self.total} games · {rate:.1f} games/s · ETA {eta}"
        return f"{text} · top (win share): {top}" if top else text

    def update(self, games: Iterable[GameRow]) -> None:
        """Count a finished job's games and show the progress if it is time to."""
        for row in games:
            self.done += 1
            self.tally.add_row(row)
        now = self.clock()
        if self.tty:
            # wider than the terminal, the line would wrap and "\r" could not rewrite it
            text = self.line()[: shutil.get_terminal_size().columns - 1]
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
            self.stream.flush()
            return
        tenth = self._tenth(self.done)
        if now - self.last >= PLAIN_INTERVAL or tenth > self.last_tenth:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self.last, self.last_tenth = now, tenth

    def finish(self) -> None:
        """End the in-place line."""
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
