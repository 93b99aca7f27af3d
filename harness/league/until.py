"""Leagues that stop when they are decided: deal groups scheduled batch by batch.

A *controller* decides, each time the league has room for more work, which tables
the next deal groups go to (or that the league is decided); it sees every deal group
once all of its games are recorded, in group order (so the verdict does not depend
on which worker finished first). The games go through the same jobs, workers, store
and replays as a fixed league: duplicate deals, every seating of a group in a job of
its own (no bot process sees one deal twice), each job committed in one transaction.
An interrupted run resumes: the same command reopens its folder, hands the controller
the groups scheduled before (their tables) and then every finished group again, in
group order, plays the jobs that were cut short as they were stored, and goes on from
there. The games played and the verdict so far are the same as in the run that was
cut short; the tables chosen after the resume may differ from an uninterrupted run's
(they depend on when groups finished, as they always do with more than one worker).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from harness.bots.process import become_subreaper
from harness.errors import HarnessError
from harness.league import ship
from harness.league.config import LeagueConfig
from harness.league.interrupts import interruptible
from harness.league.outfolder import check_out
from harness.league.runner import (
    JobOutcome,
    JobTask,
    _dispatch,
    _no_strangers,
    _open_store,
    _sweep_orphans,
    job_task,
    open_executor,
    sealed,
)
from harness.league.schedule import Job, ScheduledGame, batch_jobs, deal_group
from harness.league.store import Store, locked
from harness.match import Wrapper
from harness.sandbox import check_bots, hiding, resolve_sandbox
from harness.seeds import new_secret, seed_secret


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


@dataclass(frozen=True)
class SequentialRun:
    folder: Path
    played: int  # games recorded by this run
    groups: int  # deal groups scheduled
    recorded: int = 0  # games recorded in all (with those of the run it resumed)


class _Groups:
    """Games of the scheduled deal groups until each is complete; completed groups in order."""

    def __init__(self) -> None:
        self.of_game: dict[int, int] = {}
        self.size: dict[int, int] = {}
        self.rows: dict[int, list[Played]] = {}
        self.next = 0  # the next group to hand over

    def add_group(self, group_id: int, games: Sequence[ScheduledGame]) -> None:
        self.size[group_id] = len(games)
        self.rows[group_id] = []
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
    """Play deal groups where ``controller`` says until it says stop; record them in ``folder``.

    The jobs run on local workers, or on the Dask cluster whose scheduler is ``cluster``.

    A folder holding this very run (same identity, same bots) resumes it; with
    ``force`` it starts over. Raises HarnessError for a folder holding another run
    (unless ``force``), an unavailable sandbox, a failed build, or a worker that died;
    Interrupted on SIGINT or SIGTERM, with every finished job recorded.
    """
    check_out(folder, config.bots)
    folder = folder.resolve()
    wrapper = hiding(
        resolve_sandbox(config.sandbox, config.limits, config.runtimes), folder, *(bot.folder for bot in config.bots)
    )
    check_bots(wrapper, config.bots)
    folder.mkdir(parents=True, exist_ok=True)
    with interruptible(), locked(folder):
        config = sealed(config, folder, wrapper)  # built, and running from snapshots
        rows = [(b.name, str(b.origin), b.digest(), b.version) for b in config.bots]
        with _open_store(folder, force=force) as store:
            resumed = not force and not store.is_new()
            if resumed:
                problem = _another_run(store, identity, {name: digest for name, _, digest, _ in rows})
                if problem:
                    raise HarnessError(f"{folder}: {problem}; use another --out, or --force to start over")
                secret = store.secret()  # refused when missing: never dealt from ''
            else:
                _no_strangers(folder, force)
                # the deals come from a secret, drawn unless an explicit seed makes it public
                if secret is None:
                    secret = new_secret() if config.seed is None else seed_secret(config.seed)
                store.create(identity, config.to_dict(), rows, [], secret=secret)
            if started is not None:
                started(store)
            return _play(config, folder, wrapper, store, controller, listener, secret, resumed, cluster)


def _another_run(store: Store, identity: dict[str, object], digests: dict[str, str]) -> str | None:
    """Why the run stored in ``store`` is not this one (its identity or a bot changed), or None."""
    old: dict[str, Any] = store.meta("identity") or {}
    new: dict[str, Any] = json.loads(json.dumps(identity))
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            return f"holds another run ({key}: {old.get(key)!r} -> {new.get(key)!r})"
    stored = store.bot_digests()
    for name, digest in digests.items():
        if stored.get(name) != digest:
            return f"holds a run of another version of bot {name!r} (its folder's files differ)"
    return None


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


def _play(
    config: LeagueConfig,
    folder: Path,
    wrapper: Wrapper | None,
    store: Store,
    controller: Controller,
    listener: Callable[[JobOutcome], None] | None,
    secret: str,
    resumed: bool,
    cluster: str | None,
) -> SequentialRun:
    groups = _Groups()
    counters = {"group": 0, "game": 0, "job": 0}
    cut_short: list[Job] = []
    if resumed:  # the controller learns what was scheduled, then sees every finished group again
        stored = _stored_groups(store)
        for index, games in enumerate(stored):
            groups.add_group(index, games)
        controller.resume([games[0].seating for games in stored])
        for done in groups.record(_recorded(store, stored)):
            controller.group_done(done)
        last_job, last_game = store.last_ids()
        counters = {"group": len(stored), "game": last_game, "job": last_job + 1}
        cut_short = list(store.iter_pending())
    # one parent for every bot's private temp folder (a cluster's workers use their own machine's)
    temp_root = None if cluster else tempfile.mkdtemp(prefix="llama-league-")

    def task(job: Job) -> JobTask:
        return job_task(config, job, folder, wrapper, cluster, temp_root, secret)

    def tasks() -> Iterator[JobTask]:
        yield from map(task, cut_short)  # first what an interruption cut short, as stored
        # then pulled by the dispatcher whenever a worker slot frees: the controller
        # decides on the groups finished so far
        while tables := controller.next_tables():
            batch = []
            for order in tables:
                group = deal_group(counters["group"], order, secret, counters["game"] + 1)
                groups.add_group(counters["group"], group)
                counters["group"] += 1
                counters["game"] += len(group)
                batch.append(group)
            jobs = batch_jobs(counters["job"], tuple(sorted(tables[0])), batch)
            counters["job"] += len(jobs)
            store.add_jobs(jobs)
            yield from map(task, jobs)

    played = 0
    become_subreaper()
    try:
        with open_executor(config.jobs, cluster, temp_root, config.bots) as (executor, slots):
            # a small window: work beyond the verdict is wasted (it is still recorded)
            for outcome in _dispatch(executor, tasks(), slots):
                if ship.record(store, folder, outcome):
                    played += len(outcome.games)
                    for group in groups.record(outcome.games):
                        controller.group_done(group)
                    if listener is not None:
                        listener(outcome)
    finally:
        _sweep_orphans()
        if temp_root is not None:
            shutil.rmtree(temp_root, ignore_errors=True)
    return SequentialRun(folder, played, counters["group"], store.counts()[0])


def pair_score(group: Sequence[Played], a: str, b: str) -> float:
    """A's mean pairwise result against B over the games of a group (1 better, 1/2 tie, 0 worse)."""
    total = 0.0
    for row in group:
        pa, pb = row.places[row.players.index(a)], row.places[row.players.index(b)]
        total += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
    return total / len(group)
