"""Leagues that stop when they are decided: deal groups scheduled batch by batch.

A *controller* decides, each time the league has room for more work, which tables
the next deal groups go to (or that the league is decided); it sees every deal group
once all of its games are recorded, in group order (so the verdict does not depend
on which worker finished first). The games go through the same jobs, workers, store
and replays as a fixed league: duplicate deals, every seating of a group in a job of
its own (no bot process sees one deal twice), each job committed in one transaction.
A sequential run always starts its folder over (its schedule depends on its results).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.bots.process import become_subreaper
from harness.errors import HarnessError
from harness.league.config import LeagueConfig
from harness.league.runner import (
    LOGS,
    REPLAYS,
    JobOutcome,
    JobTask,
    _dispatch,
    _open_store,
    _sweep_orphans,
    open_executor,
)
from harness.league.schedule import ScheduledGame, batch_jobs, deal_group
from harness.league.store import DB_NAME, GameRow, Store, locked
from harness.match import Clock, Wrapper, build_bot
from harness.sandbox import hiding, resolve_sandbox
from harness.seeds import new_secret, seed_secret


class Controller(Protocol):
    def next_tables(self) -> list[tuple[str, ...]]:
        """Seating orders of the next deal groups (one table each; all of one table); [] = stop."""
        ...

    def group_done(self, group: Sequence[GameRow]) -> None:
        """A finished deal group, all its games, in game order."""
        ...


@dataclass(frozen=True)
class SequentialRun:
    folder: Path
    played: int  # games recorded
    groups: int  # deal groups scheduled


class _Groups:
    """Games of the scheduled deal groups until each is complete; completed groups in order."""

    def __init__(self) -> None:
        self.of_game: dict[int, int] = {}
        self.size: dict[int, int] = {}
        self.rows: dict[int, list[GameRow]] = {}
        self.next = 0  # the next group to hand over

    def add_group(self, group_id: int, games: Sequence[ScheduledGame]) -> None:
        self.size[group_id] = len(games)
        self.rows[group_id] = []
        for game in games:
            self.of_game[game.game_id] = group_id

    def record(self, rows: Sequence[GameRow]) -> Iterator[list[GameRow]]:
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
) -> SequentialRun:
    """Play deal groups where ``controller`` says until it says stop; record them in ``folder``.

    Raises HarnessError for a folder holding an earlier run (unless ``force``), an
    unavailable sandbox, a failed build, or a worker that died.
    """
    folder = folder.resolve()
    if not force and ((folder / DB_NAME).exists() or (folder / REPLAYS).exists()):
        raise HarnessError(f"{folder}: holds an earlier run; use another --out (a league also takes --force)")
    wrapper = hiding(
        resolve_sandbox(config.sandbox, config.limits), folder, *(bot.folder for bot in config.bots)
    )
    with locked(folder):
        for bot in {bot.folder: bot for bot in config.bots}.values():
            build_bot(bot, folder / LOGS, wrapper=wrapper)
        shutil.rmtree(folder / REPLAYS, ignore_errors=True)
        # the deals come from a secret, drawn unless an explicit seed makes it public
        if secret is None:
            secret = new_secret() if config.seed is None else seed_secret(config.seed)
        with _open_store(folder, force=True) as store:
            rows = [(b.name, str(b.folder), b.digest(), b.version) for b in config.bots]
            store.create(identity, config.to_dict(), rows, [], secret=secret)
            if started is not None:
                started(store)
            return _play(config, folder, wrapper, store, controller, listener, secret)


def _play(
    config: LeagueConfig,
    folder: Path,
    wrapper: Wrapper | None,
    store: Store,
    controller: Controller,
    listener: Callable[[JobOutcome], None] | None,
    secret: str,
) -> SequentialRun:
    specs = {bot.name: bot for bot in config.bots}
    groups = _Groups()
    counters = {"group": 0, "game": 0, "job": 0}
    temp_root = tempfile.mkdtemp(prefix="llama-league-")

    def tasks() -> Iterator[JobTask]:
        # pulled by the dispatcher whenever a worker slot frees: the controller decides
        # on the groups finished so far
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
            for job in jobs:
                yield JobTask(
                    job=job,
                    bots=tuple(specs[name] for name in job.bots),
                    rules=dict(config.rules),
                    clock=Clock(startup=config.startup_time, move=config.move_time),
                    wrapper=wrapper,
                    sandbox=None,
                    limits=dict(config.limits),
                    league=str(folder),
                    temp_root=temp_root,
                    secret=secret,
                )

    played = 0
    become_subreaper()
    try:
        with open_executor(config.jobs, None, temp_root) as (executor, slots):
            # a small window: work beyond the verdict is wasted (it is still recorded)
            for outcome in _dispatch(executor, tasks(), slots):
                if store.commit_job(outcome.job_id, outcome.games):
                    played += len(outcome.games)
                    for group in groups.record(outcome.games):
                        controller.group_done(group)
                    if listener is not None:
                        listener(outcome)
    finally:
        _sweep_orphans()
        shutil.rmtree(temp_root, ignore_errors=True)
    return SequentialRun(folder, played, counters["group"])


def pair_score(group: Sequence[GameRow], a: str, b: str) -> float:
    """A's mean pairwise result against B over the games of a group (1 better, 1/2 tie, 0 worse)."""
    total = 0.0
    for row in group:
        pa, pb = row.places[row.players.index(a)], row.places[row.players.index(b)]
        total += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
    return total / len(group)
