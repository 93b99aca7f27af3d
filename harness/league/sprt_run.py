"""``match A B [FIELD...] --sprt ELO0,ELO1``: deal groups until the SPRT decides.

Every deal group seats A, B and the field bots in every rotation of one order and of
its reverse; the test (`harness.ratings.sprt`) takes each group's score of A against
B and stops at H1 (A is stronger by ELO1), at H0 (by ELO0 at most), or at the game
budget (inconclusive).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.league.config import LeagueConfig
from harness.league.runner import JobOutcome
from harness.league.schedule import group_size
from harness.league.store import Store
from harness.league.until import Played, SequentialRun, pair_score, run_sequential
from harness.ratings.sprt import Bounds, Sprt

# Groups per batch: one job per seating plays this many groups (fresh processes per job).
GROUPS_PER_BATCH = 4


@dataclass
class SprtController:
    """Schedules batches of groups at the one table until the test decides or the budget is spent."""

    order: tuple[str, ...]
    test: Sprt
    max_games: int
    scheduled: int = 0  # games
    verdict: str | None = None
    seen: list[float] = field(default_factory=list)

    def next_tables(self) -> list[tuple[str, ...]]:
        size = group_size(len(self.order))
        room = (self.max_games - self.scheduled) // size
        if self.verdict is not None or room <= 0:
            return []
        count = min(GROUPS_PER_BATCH, room)
        self.scheduled += count * size
        return [self.order] * count

    def group_done(self, group: Sequence[Played]) -> None:
        if self.verdict is not None:
            return  # played after the stop: recorded, not counted
        self.test.add(pair_score(group, self.order[0], self.order[1]), len(group))
        self.verdict = self.test.verdict()

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None:
        self.scheduled += len(tables) * group_size(len(self.order))

    def decided(self) -> bool:
        return self.verdict is not None


@dataclass(frozen=True)
class SprtResult:
    run: SequentialRun
    test: Sprt

    def summary(self) -> dict[str, object]:
        return {**self.test.to_dict(), "games_played": self.run.recorded}  # with a resumed run's


def run_sprt(
    config: LeagueConfig,
    folder: Path,
    bounds: Bounds,
    max_games: int,
    listener: Callable[[JobOutcome, Sprt], None] | None = None,
    secret: str | None = None,
    started: Callable[[Store], None] | None = None,
    force: bool = False,
) -> SprtResult:
    """Test config.bots[0] (A) against config.bots[1] (B), the rest of config.bots at the table.

    The same call on a folder holding this test cut short resumes it (see harness.league.until).
    """
    order = tuple(bot.name for bot in config.bots)
    controller = SprtController(order, Sprt(bounds), max_games)
    identity = {**config.identity(), "sprt": [bounds.elo0, bounds.elo1, bounds.alpha, bounds.beta]}

    def heard(outcome: JobOutcome) -> None:
        if listener is not None:
            listener(outcome, controller.test)

    run = run_sequential(
        config, folder, controller, identity=identity, listener=heard, secret=secret, started=started, force=force
    )
    return SprtResult(run, controller.test)
