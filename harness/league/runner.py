"""A league's jobs and where they run: a worker plays one job at a table; the executors.

The run loop (:mod:`harness.league.loop`) dispatches jobs through a
``concurrent.futures.Executor`` (a local pool, or a Dask cluster's) and commits their
results to SQLite. A job runs in a worker with one :class:`harness.match.Table` (the
bots live for the whole job), writes its replays into the league folder and returns
picklable :class:`GameRow` results. The main process is the only writer of the store
and commits each finished job in one transaction, so killing the league at any moment
loses at most the unfinished jobs, which the same command replays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import multiprocessing
import os
import resource
import select
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.bots.manifest import BotSpec
from harness.bots.process import children_of, kill_tree, pid_alive
from harness.bots.snapshot import remove_tree
from harness.errors import HarnessError
from harness.games import DEFAULT_GAME, get_game
from harness.league import ship
from harness.league.config import LeagueConfig
from harness.league.interrupts import stop_workers, worker_signals
from harness.league.schedule import Job
from harness.league.store import FaultRow, GameRow
from harness.match import TEMP_FOLDERS, Clock, Table, TableSettings
from harness.referee import GameResult
from harness.replay.io import sync_filesystem
from harness.sandbox import hiding, resolve_sandbox
from harness.sandbox_types import Wrapper
from harness.seeds import bot_seed
from harness.timing import Timing

REPLAYS = "replays"
LOGS = "logs"


@dataclass(frozen=True)
class JobTask:
    """Everything a worker needs to play one job (picklable; paths are absolute)."""

    job: Job
    bots: tuple[BotSpec, ...]
    rules: Mapping[str, object]
    clock: Clock
    wrapper: Wrapper | None  # resolved once by the main process (local workers)
    sandbox: str | None  # or a mode each worker resolves itself (a cluster's machines differ)
    limits: Mapping[str, int]
    league: str
    temp_root: str | None = None  # the run's parent of the bots' temp folders (None: TMPDIR)
    # by game of the job: each seat's own seed, hashed from the league's secret in the
    # league process (the secret itself never reaches a worker: a cluster's clients see tasks)
    bot_seeds: tuple[tuple[int, ...], ...] = ()
    game: str = DEFAULT_GAME
    kind: str = "league"  # a match names its replays game-00001.jsonl, in one folder
    compress: bool = False
    keep_results: bool = False  # also return the referee's GameResults (the library's run_match)
    runtimes: tuple[str, ...] = ()  # with ``sandbox``: the runtime roots the worker's sandbox shows
    # a cluster's job: the bots run from the worker's snapshot cache (harness.league.ship),
    # the replays and logs come back in the outcome; ``league`` is not read or written
    ship: bool = False


@dataclass(frozen=True)
class JobOutcome:
    job_id: int
    games: tuple[GameRow, ...]
    worker_rss_kib: int = 0  # the worker's peak resident memory so far (bench/league.py)
    timing: tuple[tuple[str, Timing], ...] = ()  # each bot's move and start-up times in this job
    results: tuple[GameResult, ...] = ()  # with JobTask.keep_results, by game
    # a shipped job's replays (relative path, zlib bytes; a .gz as it is) and bots' logs
    # (file name, zlib bytes): harness.league.ship.record writes them into the league folder
    files: tuple[tuple[str, bytes], ...] = ()
    logs: tuple[tuple[str, bytes], ...] = ()


def replay_path(game_id: int, kind: str = "league", compress: bool = False) -> str:
    """Where a game's replay goes, relative to the league folder (a league: 1000 games per folder)."""
    suffix = ".jsonl.gz" if compress else ".jsonl"
    if kind == "match":
        return f"{REPLAYS}/game-{game_id:05d}{suffix}"
    return f"{REPLAYS}/{(game_id - 1) // 1000:03d}/game-{game_id:06d}{suffix}"


def _by_seat(statistics: dict[str, list[float]], players: int) -> tuple[dict[str, float], ...]:
    """The game's statistics (name → value by seat) as one mapping per seat."""
    return tuple(
        {name: values[seat] for name, values in statistics.items() if seat < len(values)} for seat in range(players)
    )


def run_job(task: JobTask) -> JobOutcome:
    """Play every game of a job at one table; raise HarnessError if the sandbox is unavailable.

    A shipped job (``task.ship``) plays into a private folder of its worker and returns
    its replays and logs; it raises HarnessError for a snapshot the worker cannot run.
    """
    if not task.ship:
        return _play(task, task.bots, Path(task.league), (Path(task.league), *(b.folder for b in task.bots)))
    bots, cache = ship.localize(task.bots)
    out = Path(tempfile.mkdtemp(prefix="llama-job-", dir=task.temp_root))
    try:
        outcome = _play(task, bots, out, (out, cache))
        files, logs = ship.collect(out, (row.replay for row in outcome.games), out / LOGS)
    finally:
        remove_tree(out)
    return dataclasses.replace(outcome, files=files, logs=logs)


def _play(task: JobTask, bots: tuple[BotSpec, ...], league: Path, hidden: tuple[Path, ...]) -> JobOutcome:
    """Play the job with ``bots``, writing into ``league``; the sandbox hides ``hidden`` from the bots."""
    game = get_game(task.game)
    wrapper = task.wrapper
    if task.sandbox is not None:
        wrapper = hiding(resolve_sandbox(task.sandbox, dict(task.limits), task.runtimes), *hidden)
    settings = TableSettings(
        game=game.name,
        options=game.parse_options(task.rules),
        clock=task.clock,
        logs=league / LOGS,
        wrapper=wrapper,
        temp_root=Path(task.temp_root) if task.temp_root else None,
        bot_seeds=dict(zip((g.game_id for g in task.job.games), task.bot_seeds, strict=True)),
    )
    rows: list[GameRow] = []
    kept: list[GameResult] = []
    with Table(bots, settings, len(task.job.games), hold_replays=True) as table:
        for scheduled in task.job.games:
            relative = replay_path(scheduled.game_id, task.kind, task.compress)
            result = table.play(scheduled.game_id, scheduled.seating, scheduled.seed, league / relative)
            if task.keep_results:
                kept.append(result)
            rows.append(
                GameRow(
                    game_id=scheduled.game_id,
                    players=tuple(result.players),
                    scores=tuple(result.scores),
                    places=tuple(result.placements),
                    forfeited=tuple(result.forfeited),
                    stats=_by_seat(result.statistics, len(result.players)),
                    rounds=result.rounds,
                    moves=result.moves,
                    adjudicated=result.adjudicated,
                    replay=relative,
                    faults=tuple(FaultRow(f.seat, f.bot, f.kind, f.detail) for f in result.faults),
                )
            )
        timing = tuple((name, player.timing) for name, player in table.players.items())
    # leaving the with block wrote the job's replays (held until then); they reach the disk
    # before the league records the job as done (one sync a job, not an fsync a game:
    # that cost more than the rest of the referee's work); a shipped job's, at home
    if not task.ship:
        sync_filesystem(league)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return JobOutcome(task.job.job_id, tuple(rows), rss, timing, tuple(kept))


# -- executors -------------------------------------------------------------------------


def _init_worker(cores: Any, league_pid: int, temp_root: str | None = None) -> None:
    """Pin this worker to one core, and make it die with the league process.

    Pinning: the referee's bots inherit the affinity, and a pipe round trip costs
    ~6 µs within a core but 33–46 µs across cores.
    """
    if cores is not None:  # one entry per worker: get() does not block
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cores.get()})
    worker_signals(_kill_bots)
    threading.Thread(target=_watch, args=(league_pid, temp_root), name="league-watch", daemon=True).start()


def _kill_bots() -> None:
    """Kill this worker's bots and remove their private temp folders."""
    for pid in children_of(os.getpid()):
        kill_tree(pid)  # bots are session leaders: their group and descendants too
    for tmp in list(TEMP_FOLDERS):
        shutil.rmtree(tmp, ignore_errors=True)


def _watch(league_pid: int, temp_root: str | None) -> None:
    """Wait for the league process to die, then kill this worker's bots and exit.

    Needed after a ``kill -9`` of the league: a pool worker blocks forever reading
    its task pipe (it holds both ends; so does the forkserver's liveness pipe), and
    an orphaned worker would keep writing replays that a resumed run rewrites.
    """
    try:
        fd = os.pidfd_open(league_pid)
        select.select([fd], [], [])  # readable once the process has exited
    except (OSError, AttributeError):  # already gone, or no pidfd (old kernel, not Linux)
        while pid_alive(league_pid):
            time.sleep(0.5)
    with contextlib.suppress(Exception):
        _kill_bots()
        if temp_root is not None:  # the league died: nobody else removes the run's folder
            shutil.rmtree(temp_root, ignore_errors=True)
    os._exit(1)


def local_executor(workers: int, temp_root: str | None = None) -> Executor:
    """A process pool of ``workers`` (forkserver), each pinned to a core, round-robin."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    try:
        available = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux: no pinning
        available = []
    cores: Any = None
    if available:
        cores = context.SimpleQueue()
        for index in range(workers):
            cores.put(available[index % len(available)])
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_init_worker,
        initargs=(cores, os.getpid(), temp_root),
    )


@contextlib.contextmanager
def open_executor(
    jobs: int, cluster: str | None, temp_root: str | None = None, bots: Sequence[BotSpec] = ()
) -> Iterator[tuple[Executor, int]]:
    """Yield (executor, slots): a local pool, or a Dask cluster's executor for ``cluster``.

    On a cluster the sealed ``bots``' snapshots are sent to its workers first
    (harness.league.ship). Raises HarnessError when dask is not installed, the
    scheduler cannot be reached, or a bot is not sealed.
    """
    if cluster is None:
        executor = local_executor(jobs, temp_root)
        try:
            yield executor, jobs
        except BaseException:  # interrupted, or a job failed: stop the running jobs now
            stop_workers(executor)
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
        return
    try:
        # Any-typed: distributed ships no type hints.
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise HarnessError(
            "--cluster needs dask: pip install 'llama-harness[dask]' (on every worker too)"
        ) from None
    try:
        client = distributed.Client(cluster, timeout="10s")
    except (OSError, TimeoutError) as err:
        raise HarnessError(f"--cluster {cluster!r}: cannot reach the Dask scheduler ({err})") from None
    except (TypeError, ValueError) as err:  # e.g. tls:// without a certificate: "TLS expects a `ssl_context`"
        raise HarnessError(f"--cluster {cluster!r}: {err}") from None
    try:
        slots = max(1, sum(client.nthreads().values()))
        if bots:
            ship.register(client, bots)
        executor = client.get_executor(pure=False)
        try:
            yield executor, slots
        finally:
            executor.shutdown(wait=False)
    finally:
        client.close()


def job_task(
    config: LeagueConfig,
    job: Job,
    folder: Path,
    wrapper: Wrapper | None,
    cluster: str | None,
    temp_root: str | None,
    secret: str,
    keep_results: bool = False,
) -> JobTask:
    """What a worker needs to play ``job`` of ``config``'s league in ``folder``.

    On a cluster the workers resolve the sandbox themselves (their machines may differ).
    The task carries its games' bot seeds, hashed here from ``secret``, never the secret.
    """
    specs = {bot.name: bot for bot in config.bots}
    return JobTask(
        job=job,
        bots=tuple(specs[name] for name in job.bots),
        rules=dict(config.rules),
        clock=Clock(startup=config.startup_time, move=config.move_time),
        wrapper=None if cluster else wrapper,
        sandbox=config.sandbox if cluster else None,
        limits=dict(config.limits),
        runtimes=config.runtimes,
        league=str(folder),
        temp_root=temp_root,
        bot_seeds=tuple(
            tuple(bot_seed(secret, game.game_id, seat) for seat in range(len(game.seating))) for game in job.games
        ),
        game=config.game,
        kind=config.kind,
        compress=config.compress,
        keep_results=keep_results,
        ship=cluster is not None,
    )
