"""Leagues that stop when they are decided: deal groups scheduled batch by batch.

A *controller* decides, each time the league has room for more work, which tables
the next deal groups go to (or that the league is decided); it sees every deal group
once all of its games are recorded, in group order (so the verdict does not depend
on which worker finished first). The games go through the same jobs, workers, store
and replays as a fixed league: duplicate deals, every seating of a group in a job of
its own (no bot process sees one deal twice), each job committed in one transaction.
The run goes through the one league loop (:mod:`harness.league.loop`), which
:class:`GroupFeed` adapts the controller to. Once the controller is decided the loop
starts no more jobs, and the deal groups after the verdict's group are discarded
(results and replays): no game played after the verdict counts, and a decided run
resumed plays nothing. An interrupted run resumes: the same command reopens its
folder, hands the controller the groups scheduled before (their tables) and then every
finished group again, in group order, plays the jobs that were cut short as they were
stored, and goes on from there. The games played and the verdict so far are the same as in the run that was
cut short; the tables chosen after the resume may differ from an uninterrupted run's
(they depend on when groups finished, as they always do with more than one worker).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from harness.league.config import LeagueConfig
from harness.league.loop import Run, run
from harness.league.opening import sequential
from harness.league.runner import JobOutcome
from harness.league.schedule import Job, ScheduledGame, batch_jobs, deal_group
from harness.league.store import Store


class Played(Protocol):
    """A finished game as a controller sees it (a worker's GameRow, or one read back from the store)."""

    @property
    def game_id(self) -> int: ...

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def places(self) -> tuple[int, ...]: ...


class Controller(Protocol):
    def next_tables(self) -> list[tuple[str, ...]]:
        """Seating orders of the next deal groups (one table each; all of one table); [] = stop."""
        ...

    def group_done(self, group: Sequence[Played]) -> None:
        """A finished deal group, all its games, in game order."""
        ...

    def resume(self, tables: Sequence[tuple[str, ...]]) -> None:
        """The seatings of the groups scheduled before the run was cut short, in group order.

        Called once, before the finished groups are handed over again with group_done.
        """
        ...

    def decided(self) -> bool:
        """True once the verdict is known: the loop then starts no more games (see harness.league.loop)."""
        ...


@dataclass(frozen=True)
class SequentialRun:
    folder: Path
    played: int  # games recorded by this run
    groups: int  # deal groups scheduled (those of the verdict's and before, once decided)
    recorded: int = 0  # games recorded in all (with those of the run it resumed)


class _Groups:
    """Games of the scheduled deal groups until each is complete; completed groups in order."""

    def __init__(self) -> None:
        self.of_game: dict[int, int] = {}
        self.size: dict[int, int] = {}
        self.rows: dict[int, list[Played]] = {}
        self.members: dict[int, list[int]] = {}  # every scheduled group's game ids
        self.next = 0  # the next group to hand over

    def add_group(self, group_id: int, games: Sequence[ScheduledGame]) -> None:
        self.size[group_id] = len(games)
        self.rows[group_id] = []
        self.members[group_id] = [game.game_id for game in games]
        for game in games:
            self.of_game[game.game_id] = group_id

    def record(self, rows: Sequence[Played]) -> Iterator[list[Played]]:
        for row in rows:
            self.rows[self.of_game.pop(row.game_id)].append(row)
        while self.next in self.size and len(self.rows[self.next]) == self.size[self.next]:
            done = sorted(self.rows.pop(self.next), key=lambda row: row.game_id)
            del self.size[self.next]
            self.next += 1
            yield done


class GroupFeed:
    """A controller's deal groups as the loop's feed: batches scheduled as it asks, finished groups in order."""

    window = 1  # one job a slot: work beyond the verdict is wasted

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.groups = _Groups()
        self.verdict: int | None = None  # the group at whose end the controller was decided
        self._group = self._game = self._job = 0  # the next ids
        self._cut_short: list[Job] = []
        self._store: Store | None = None
        self._secret = ""

    def start(self, store: Store, resumed: bool) -> None:
        """Hand a resumed run's controller what was scheduled, then every finished group again.

        Raises HarnessError (a damaged database) for stored games that are not deal groups.
        """
        self._store, self._secret = store, store.secret()
        if not resumed:
            return
        stored = _stored_groups(store)
        for index, games in enumerate(stored):
            self.groups.add_group(index, games)
        self.controller.resume([games[0].seating for games in stored])
        self._hand(_recorded(store, stored))
        last_job, last_game = store.last_ids()
        self._group, self._game, self._job = len(stored), last_game, last_job + 1
        self._cut_short = list(store.iter_pending())

    def jobs(self) -> Iterator[Job]:
        assert self._store is not None  # start() comes first
        yield from self._cut_short  # first what an interruption cut short, as stored
        # then pulled by the loop whenever a worker slot frees: the controller decides
        # on the groups finished so far
        while not self.decided() and (tables := self.controller.next_tables()):
            batch = []
            for order in tables:
                group = deal_group(self._group, order, self._secret, self._game + 1)
                self.groups.add_group(self._group, group)
                self._group += 1
                self._game += len(group)
                batch.append(group)
            jobs = batch_jobs(self._job, tuple(sorted(tables[0])), batch)
            self._job += len(jobs)
            self._store.add_jobs(jobs)
            yield from jobs

    def planned(self) -> int | None:
        return None  # the controller schedules as it goes

    def done(self, outcome: JobOutcome) -> None:
        self._hand(outcome.games)

    def decided(self) -> bool:
        return self.verdict is not None

    def beyond(self) -> list[int]:
        if self.verdict is None:
            return []
        return [game for group, games in self.groups.members.items() if group > self.verdict for game in games]

    @property
    def scheduled(self) -> int:
        """The deal groups scheduled that count: up to the verdict's, once decided."""
        return self._group if self.verdict is None else self.verdict + 1

    def _hand(self, rows: Sequence[Played]) -> None:
        """Record finished games; hand each group they complete to the controller, in group order."""
        for group in self.groups.record(rows):
            if self.verdict is None:  # after it, groups are complete but do not count
                self.controller.group_done(group)
                if self.controller.decided():
                    self.verdict = self.groups.next - 1


def run_sequential(
    config: LeagueConfig,
    folder: Path,
    controller: Controller,
    *,
    identity: dict[str, object],
    listener: Callable[[JobOutcome], None] | None = None,
    secret: str | None = None,
    started: Callable[[Store], None] | None = None,
    force: bool = False,
    cluster: str | None = None,
) -> SequentialRun:
    """Play deal groups where ``controller`` says until it says stop or is decided; record them in ``folder``.

    The jobs run on local workers, or on the Dask cluster whose scheduler is ``cluster``.

    A folder holding this very run (same identity, same bots) resumes it; with
    ``force`` it starts over. Raises HarnessError for a folder holding another run
    (unless ``force``), an unavailable sandbox, a failed build, or a worker that died;
    Interrupted on SIGINT or SIGTERM, with every finished job recorded.
    """
    feed = GroupFeed(controller)
    done: Run = run(
        config,
        folder,
        feed,
        sequential(identity, secret),
        cluster=cluster,
        force=force,
        listener=listener,
        started=started,
    )
    return SequentialRun(done.folder, done.played, feed.scheduled, done.recorded)


def _stored_groups(store: Store) -> list[list[ScheduledGame]]:
    """The deal groups the store has scheduled, in group order, each its games in game order.

    Raises HarnessError (a damaged database) for a deal group that is not ``d<number>``.
    """
    groups: dict[int, list[ScheduledGame]] = {}
    for game in store.scheduled_games():
        number = str(game.cluster).removeprefix("d")
        if not number.isdigit():
            raise store.damaged(f"game {game.game_id}: deal group {game.cluster!r} is not d<number>")
        groups.setdefault(int(number), []).append(game)
    return [groups[index] for index in sorted(groups)]


def _recorded(store: Store, stored: Sequence[Sequence[ScheduledGame]]) -> list[Any]:
    """The finished games, each checked against the table it was scheduled at.

    Raises HarnessError (a damaged database) for a result of a game never scheduled,
    or whose seats are not its table (extra or missing ``seats`` rows, another bot).
    """
    seating = {game.game_id: game.seating for games in stored for game in games}
    rows = list(store.games())
    for row in rows:
        table = seating.get(row.game_id)
        if table is None:
            raise store.damaged(f"game {row.game_id} has a result but was never scheduled")
        if tuple(row.players) != tuple(table):
            raise store.damaged(
                f"game {row.game_id}: the seats table holds {list(row.players)}, not its table {list(table)}"
            )
    return rows


def pair_score(group: Sequence[Played], a: str, b: str) -> float:
    """A's mean pairwise result against B over the games of a group (1 better, 1/2 tie, 0 worse)."""
    total = 0.0
    for row in group:
        pa, pb = row.places[row.players.index(a)], row.places[row.players.index(b)]
        total += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
    return total / len(group)
