"""The one loop every league run goes through: fixed schedules, SPRT, until decided, gauntlets.

A run opens or resumes its folder (:mod:`harness.league.opening`), then asks its
:class:`Feed` for jobs whenever an executor slot frees (a local pool or a Dask
cluster: :func:`harness.league.runner.open_executor`), and commits every finished job,
its games and its bots' timing, in one transaction at one place (:func:`_commit`).
A fixed schedule's feed reads the stored schedule (:class:`StoredSchedule`); a
sequential run's adapts a controller (:class:`harness.league.until.GroupFeed`).

Once the feed is decided the loop submits nothing more: jobs not yet started are
cancelled, jobs in flight stopped, and the games scheduled after the verdict are
discarded, results and replays, so that no game started after it counts; a resumed
decided run plays nothing. Resume, interrupts (SIGINT/SIGTERM: every finished job
recorded, the rest replayed by the same command), the progress listener and timing
are therefore the same for every run kind.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import Protocol

from harness.bots.process import become_subreaper, children_of, kill_tree
from harness.errors import HarnessError
from harness.league import ship
from harness.league.config import LeagueConfig
from harness.league.interrupts import interruptible, stop_workers
from harness.league.opening import Opening, fixed, open_store, resolve_wrapper, sealed
from harness.league.runner import REPLAYS, JobOutcome, JobTask, job_task, open_executor, replay_path, run_job
from harness.league.schedule import Job
from harness.league.store import Store, locked
from harness.match import SECRET_FILE, keep_secret
from harness.replay.io import read_replay
from harness.replay.records import ActionRecord
from harness.sandbox_types import Wrapper
from harness.timing import Timing

Listener = Callable[[JobOutcome], None]


@dataclass(frozen=True)
class Run:
    """What a run did: its folder, the games scheduled and recorded."""

    folder: Path
    total: int  # games scheduled (after the run)
    resumed: int  # games already recorded when this run started
    played: int  # games recorded by this run (less those discarded after a verdict)
    recorded: int = 0  # games recorded in all, with those of the run it resumed


LeagueRun = Run  # the name the fixed schedules' callers know


class Feed(Protocol):
    """What a run plays next: the loop's side of a controller."""

    window: int  # jobs in flight per executor slot (few: work beyond a verdict is wasted)

    def start(self, store: Store, resumed: bool) -> None:
        """The store is open; on a resume, learn what it holds. Called once, before any job is pulled."""
        ...

    def jobs(self) -> Iterator[Job]:
        """The jobs to play, stored before they are yielded; pulled whenever a slot frees."""
        ...

    def planned(self) -> int | None:
        """How many jobs are left to play, when known before the run (a stored schedule)."""
        ...

    def done(self, outcome: JobOutcome) -> None:
        """A job was committed."""
        ...

    def decided(self) -> bool:
        """True once the verdict is known: the loop then starts no more jobs."""
        ...

    def beyond(self) -> list[int]:
        """Once decided: every game scheduled after the verdict (none of them counts)."""
        ...


class StoredSchedule:
    """A fixed schedule (league, gauntlet, match): the stored jobs not yet done, in job order."""

    window = 2  # two jobs a slot: a worker never waits for the next

    def __init__(self) -> None:
        self._store: Store | None = None

    def start(self, store: Store, resumed: bool) -> None:
        self._store = store

    def jobs(self) -> Iterator[Job]:
        assert self._store is not None  # start() comes first
        return self._store.iter_pending()  # read in chunks: memory stays flat at any length

    def planned(self) -> int | None:
        assert self._store is not None
        return self._store.pending_jobs()

    def done(self, outcome: JobOutcome) -> None:
        pass

    def decided(self) -> bool:
        return False  # a fixed schedule is played whole

    def beyond(self) -> list[int]:
        return []


def run(
    config: LeagueConfig,
    out: Path,
    feed: Feed,
    opening: Opening,
    *,
    cluster: str | None = None,
    force: bool = False,
    listener: Listener | None = None,
    started: Callable[[Store], None] | None = None,
    wrapper: Wrapper | EllipsisType | None = ...,
    keep_results: bool = False,
) -> Run:
    """Open or resume the run in ``out``, play what ``feed`` schedules, commit each job as it finishes.

    ``wrapper`` (None: none) replaces the sandbox that ``config.sandbox`` names (the
    library's matches); ``keep_results`` sends the referee's results to ``listener`` too;
    ``started`` gets the open store before the feed learns what it holds.
    Raises HarnessError for a folder holding another run (unless ``force``), an
    unavailable sandbox or cluster, a failed build, or a worker that died (the same
    command resumes); Interrupted on SIGINT or SIGTERM, with every finished job recorded.
    """
    resolved = resolve_wrapper(config, out, wrapper)
    folder = out.resolve()
    with interruptible(), locked(folder):
        config = sealed(config, folder, resolved)  # built, and running from snapshots
        store, resumed = open_store(config, folder, force, opening)
        with store:
            if config.kind == "match":  # a match keeps its secret beside its results too, before any game
                keep_secret(folder / SECRET_FILE, store.secret())
            secret = store.secret()  # never '': a database without its secret is refused
            if started is not None:
                started(store)
            feed.start(store, resumed)
            if feed.decided():  # a decided run resumed: it plays nothing (and drops what came after)
                _discard(config, folder, store, feed.beyond())
                before = store.counts()[0]
            else:
                before = store.counts()[0]
                _play(config, folder, resolved, store, feed, secret, cluster, listener, keep_results)
                if feed.decided():
                    _discard(config, folder, store, feed.beyond())
            recorded, total = store.counts()
    # net of the games after a verdict (one recorded before a resume may go too)
    return Run(folder, total, before, max(0, recorded - before), recorded)


def run_league(
    config: LeagueConfig,
    folder: Path,
    *,
    cluster: str | None = None,
    force: bool = False,
    listener: Listener | None = None,
    started: Callable[[Store], None] | None = None,
    wrapper: Wrapper | EllipsisType | None = ...,
    keep_results: bool = False,
) -> Run:
    """Play the fixed schedule's unfinished jobs (a league, a gauntlet, a match); see :func:`run`."""
    return run(
        config,
        folder,
        StoredSchedule(),
        fixed(config),
        cluster=cluster,
        force=force,
        listener=listener,
        started=started,
        wrapper=wrapper,
        keep_results=keep_results,
    )


def _play(
    config: LeagueConfig,
    folder: Path,
    wrapper: Wrapper | None,
    store: Store,
    feed: Feed,
    secret: str,
    cluster: str | None,
    listener: Listener | None,
    keep_results: bool,
) -> None:
    """Dispatch the feed's jobs until it has no more or is decided, committing each as it finishes."""
    jobs = feed.jobs()
    first = next(jobs, None)
    if first is None:
        return
    planned = feed.planned()
    workers = config.jobs if planned is None else max(1, min(config.jobs, planned))
    # one parent for every bot's private temp folder of this run (a cluster's workers use their own machine's)
    temp_root = None if cluster else tempfile.mkdtemp(prefix="llama-league-")

    def tasks() -> Iterator[JobTask]:
        for job in itertools.chain([first], jobs):  # pulled lazily: the feed decides as late as it can
            yield job_task(config, job, folder, wrapper, cluster, temp_root, secret, keep_results)

    # bots of a worker that dies (OOM killer) re-parent to us: swept at the end
    become_subreaper()
    try:
        with open_executor(workers, cluster, temp_root, config.bots) as (executor, slots):
            for outcome in _dispatch(executor, tasks(), feed.window * slots, feed.decided):
                _commit(store, folder, outcome, feed, listener)
    except BaseException:
        _remove_parts(folder)  # the replays the stopped jobs were writing: a resume writes them again
        raise
    finally:
        _sweep_orphans()
        if temp_root is not None:
            shutil.rmtree(temp_root, ignore_errors=True)


def _commit(store: Store, folder: Path, outcome: JobOutcome, feed: Feed, listener: Listener | None) -> None:
    """Record a finished job, its games and its bots' timing; then tell the feed and the listener.

    The one place a run records a job (a job already done is not recorded again); a
    cluster's job brings its replays and logs, written into ``folder`` first.
    """
    if ship.record(store, folder, outcome):
        feed.done(outcome)
        if listener is not None:
            listener(outcome)


def _discard(config: LeagueConfig, folder: Path, store: Store, game_ids: Sequence[int]) -> None:
    """Unschedule the games after a verdict, with their results and replays (a stopped job's too)."""
    if not game_ids:
        return
    recorded = store.discard_games(game_ids, _retimed(folder, store, game_ids))
    for relative in {*recorded, *(replay_path(game_id, config.kind, config.compress) for game_id in game_ids)}:
        (folder / relative).unlink(missing_ok=True)
    _remove_parts(folder)  # what the jobs stopped at the verdict were writing


def _retimed(folder: Path, store: Store, game_ids: Sequence[int]) -> dict[int, dict[str, Timing]]:
    """The timing of each job that keeps some of its games, counting only the moves of those.

    A job's timing is one histogram a bot: its moves are read again from the kept games'
    replays (the ``ms`` the worker recorded them with), its time-outs from their faults;
    its start-ups stay (the processes did start).
    """
    retimed: dict[int, dict[str, Timing]] = {}
    for job_id, kept in store.kept_of(game_ids).items():
        old = store.job_timing(job_id)
        fresh = {bot: Timing(startups=timing.startups) for bot, timing in old.items()}
        for replay, _ in kept:
            records = read_replay(folder / replay)
            names = [player.name for player in getattr(records[0], "players", [])]
            for record in records:
                if isinstance(record, ActionRecord) and record.ms is not None and not record.forced:
                    bot = names[record.seat] if record.seat < len(names) else None
                    if bot in fresh:
                        fresh[bot].moves.add(record.ms)
        for bot, count in store.timeouts_in([game_id for _, game_id in kept]).items():
            if bot in fresh:
                fresh[bot].timeouts = count
        retimed[job_id] = fresh
    return retimed


def _remove_parts(folder: Path) -> None:
    for part in (folder / REPLAYS).rglob("*.part"):
        part.unlink(missing_ok=True)


def _sweep_orphans() -> None:
    """Kill bots orphaned by a dead worker: our children in another session (bots only)."""
    mine = os.getsid(0)
    for pid in children_of(os.getpid()):
        with contextlib.suppress(OSError):
            if os.getsid(pid) != mine:
                kill_tree(pid)


def _dispatch(
    executor: Executor, tasks: Iterator[JobTask], window: int, decided: Callable[[], bool]
) -> Iterator[JobOutcome]:
    """Submit tasks keeping at most ``window`` in flight (memory stays flat); yield outcomes.

    A task is pulled only once a slot is free, so a controller decides on every job
    finished so far. Once ``decided()``, nothing more is submitted or yielded: the jobs
    not yet started are cancelled and the local workers stopped (a cluster's jobs in
    flight are waited for and dropped).
    """
    running: dict[Future[JobOutcome], int] = {}
    try:
        while not decided():
            if len(running) >= window:
                yield from _collect(running, decided)
                continue
            task = next(tasks, None)
            if task is None:
                break
            running[executor.submit(run_job, task)] = task.job.job_id
        while running and not decided():
            yield from _collect(running, decided)
        if running:  # decided with jobs in flight: their games come after the verdict
            for future in running:
                future.cancel()
            stop_workers(executor)
            wait(running)
            running.clear()
    finally:
        for future in running:
            future.cancel()


def _collect(running: dict[Future[JobOutcome], int], decided: Callable[[], bool]) -> Iterator[JobOutcome]:
    finished, _ = wait(running, return_when=FIRST_COMPLETED)
    for future in finished:
        if decided():  # the rest finished after the verdict: dropped with it
            return
        job_id = running.pop(future)
        try:
            outcome = future.result()
        except HarnessError:
            raise
        except BrokenProcessPool:
            raise HarnessError("a worker process died; run the same command again to resume") from None
        except OSError as err:
            if err.errno == errno.ENOSPC:  # the recorded jobs are intact: say what happened
                raise HarnessError(
                    f"job {job_id}: the disk is full ({err.strerror}); free some space and run the "
                    "same command again to resume"
                ) from None
            raise HarnessError(f"job {job_id} failed: {type(err).__name__}: {err}") from err
        except Exception as err:
            raise HarnessError(f"job {job_id} failed: {type(err).__name__}: {err}") from err
        yield outcome


__all__ = ["Feed", "LeagueRun", "Listener", "Run", "StoredSchedule", "run", "run_league"]
