"""Running a league: jobs dispatched through a ``concurrent.futures.Executor``, results to SQLite.

A job runs in a worker with one :class:`harness.match.Table` (the bots live for the
whole job), writes its replays into the league folder and returns picklable
:class:`GameRow` results. The main process is the only writer of the store and commits
each finished job in one transaction, so killing the league at any moment loses at
most the unfinished jobs, which the same command replays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import importlib
import multiprocessing
import os
import resource
import select
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import Any

from harness.bots.build import seal_bots
from harness.bots.manifest import BotSpec
from harness.bots.process import become_subreaper, children_of, kill_tree, pid_alive
from harness.bots.snapshot import SnapshotStore, remove_tree
from harness.errors import HarnessError
from harness.games import DEFAULT_GAME, get_game
from harness.league import ship
from harness.league.config import LeagueConfig
from harness.league.interrupts import interruptible, stop_workers, worker_signals
from harness.league.outfolder import check_out
from harness.league.revisions import Revision, fixed_change, plan
from harness.league.schedule import Job, iter_gauntlet, iter_schedule, match_schedule
from harness.league.store import DB_NAME, FaultRow, GameRow, Store, locked
from harness.match import (
    SECRET_FILE,
    SNAPSHOTS,
    TEMP_FOLDERS,
    Clock,
    Table,
    TableSettings,
    Wrapper,
    keep_secret,
)
from harness.referee import GameResult
from harness.replay.io import sync_filesystem
from harness.sandbox import check_bots, hiding, resolve_sandbox
from harness.seeds import bot_seed, new_secret, seed_secret
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


# -- the league ------------------------------------------------------------------------


@dataclass(frozen=True)
class LeagueRun:
    folder: Path
    total: int  # scheduled games
    resumed: int  # games already recorded when this run started
    played: int  # games played by this run


Listener = Callable[[JobOutcome], None]


def prepare(
    config: LeagueConfig, folder: Path, force: bool, wrapper: Wrapper | None = None
) -> tuple[Store, Iterator[Job]]:
    """Build the bots, open or create the store, and return it with the jobs still to play.

    Raises HarnessError when the config or a bot changed under an existing league
    folder (unless ``force``: then its results and replays are discarded).
    """
    folder.mkdir(parents=True, exist_ok=True)
    # each bot sealed (a no-op for a config _run sealed), one build per folder; the
    # digests are the snapshots': what runs is what was measured
    bots = seal_bots(config.bots, folder / SNAPSHOTS, folder / LOGS, wrapper)
    digests = {bot.name: bot.digest() for bot in bots}
    identity = config.identity()
    store = _open_store(folder, force)
    try:
        fresh = store.is_new()
        rows = [(b.name, str(b.origin), digests[b.name], b.version) for b in bots]
        if not fresh:
            problem, revision = _compare(store, identity, digests)
            if problem and not force:
                raise HarnessError(
                    f"{folder}: {problem}; run it with another --out, "
                    f"or add --force to discard its results and start over"
                )
            if problem:
                shutil.rmtree(folder / REPLAYS, ignore_errors=True)
                fresh = True
            elif revision is not None:
                store.extend(identity, config.to_dict(), rows, revision.cancel, revision.jobs, revision.describe())
        if fresh:
            _no_strangers(folder, force)
            # the deals come from the league's secret: drawn once, kept in the store, reused on resume
            secret = _secret_for(config)
            store.create(identity, config.to_dict(), rows, _schedule(config, secret), secret=secret)
    except BaseException:
        store.close()
        raise
    # the stored schedule is the league's: a resume plays it as stored, read in chunks
    return store, store.iter_pending()


def sealed(config: LeagueConfig, folder: Path, wrapper: Wrapper | None) -> LeagueConfig:
    """``config`` with every bot running from its snapshot in the league folder (built first).

    Raises HarnessError naming the bot whose folder or build cannot be sealed.
    """
    for stale in SnapshotStore(folder / SNAPSHOTS).staged():  # left by a killed run (we hold the lock)
        remove_tree(stale)
    bots = seal_bots(config.bots, folder / SNAPSHOTS, folder / LOGS, wrapper)
    # a built program, or its #! interpreter, outside the sandbox's view (the others are checked before the build)
    check_bots(wrapper, [bot for bot in bots if bot.build])
    return dataclasses.replace(config, bots=bots)


def _secret_for(config: LeagueConfig) -> str:
    """A new league's secret: drawn, or the public one its explicit seed stands for."""
    return new_secret() if config.seed is None else seed_secret(config.seed)


def _schedule(config: LeagueConfig, secret: str) -> Iterator[Job]:
    if config.kind == "match":
        return iter(match_schedule(config.names, config.games, secret))
    seed = config.seed if isinstance(config.seed, int) else 0  # orders the tables; the deals come from the secret
    if config.gauntlet:
        return iter_gauntlet(config.gauntlet, config.field_names, config.table_size, config.games, seed, secret)
    return iter_schedule(config.names, config.table_size, config.games, seed, config.duplicate, secret)


def _no_strangers(folder: Path, force: bool) -> None:
    """Refuse to start in a folder holding replays or a summary that no results database describes.

    (A match folder of an older harness, or files put there by hand.) ``force`` discards them.
    """
    strangers = [p for p in (folder / REPLAYS, folder / "summary.json") if p.exists()]
    if strangers and not force:
        raise HarnessError(
            f"{folder}: holds {' and '.join(p.name for p in strangers)} of another match or league "
            "but no results database; run it with another --out, or add --force to discard them"
        )
    shutil.rmtree(folder / REPLAYS, ignore_errors=True)
    (folder / "summary.json").unlink(missing_ok=True)


def _open_store(folder: Path, force: bool) -> Store:
    """Open the league's database; with ``force``, move a damaged one aside and start anew."""
    path = folder / DB_NAME
    try:
        store = Store(path)
        try:
            store.is_new()
        except HarnessError:
            store.close()
            raise
        return store
    except HarnessError:
        if not force:
            raise
    for suffix in ("", "-wal", "-shm"):
        damaged = path.with_name(path.name + suffix)
        if damaged.exists():
            damaged.replace(damaged.with_name(damaged.name + ".damaged"))
    shutil.rmtree(folder / REPLAYS, ignore_errors=True)
    return Store(path)


def _compare(store: Store, new: dict[str, Any], digests: dict[str, str]) -> tuple[str | None, Revision | None]:
    """(why the stored league cannot become this one, or None; the revision that does it, if any)."""
    old = store.meta("identity") or {}
    secretless = store.secret_problem()
    if secretless is not None:
        return secretless, None
    if "match" in (old.get("kind"), new["kind"]):
        return _another_match(old, new, store.bot_digests(), digests), None
    problem = fixed_change(old, new)
    if problem:
        return f"{problem} since this league started", None
    stored = store.bot_digests()
    for name, digest in digests.items():
        if name in stored and stored[name] != digest:
            return f"bot {name!r} changed (its folder's files differ) since this league started", None
    try:
        return None, plan(store, new)
    except ValueError as err:
        return str(err), None


def _another_match(old: dict[str, Any], new: dict[str, Any], stored: dict[str, str], digests: dict[str, str]) -> str | None:
    """A match folder holds one match: say how the stored one differs from this one, or None."""
    if old.get("kind", "league") != new["kind"]:
        return f"holds a {old.get('kind', 'league')}, not a {new['kind']}"
    for key in new:
        if key != "schedule" and old.get(key) != new[key]:
            return f"holds another match ({key}: {old.get(key)!r} -> {new[key]!r})"
    for name, digest in digests.items():
        if stored.get(name) != digest:
            return f"holds a match of another version of bot {name!r} (its folder's files differ)"
    return None


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
) -> LeagueRun:
    """Play the league's unfinished jobs and commit each one as it finishes.

    ``wrapper`` (None: none) replaces the sandbox that ``config.sandbox`` names (the
    library's matches); ``keep_results`` sends the referee's results to ``listener`` too.
    Raises HarnessError for a changed league, an unavailable sandbox or cluster, or a
    worker that died (the same command resumes).
    """
    check_out(folder, config.bots)
    folder = folder.resolve()
    if isinstance(wrapper, EllipsisType):
        # Resolved here once: a bad mode or limit fails before any game, and warns once.
        wrapper = hiding(
            resolve_sandbox(config.sandbox, config.limits, config.runtimes), folder, *(bot.folder for bot in config.bots)
        )
        check_bots(wrapper, config.bots)
    with interruptible(), locked(folder):
        return _run(config, folder, wrapper, cluster, force, listener, started, keep_results)


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


def _run(
    config: LeagueConfig,
    folder: Path,
    wrapper: Wrapper | None,
    cluster: str | None,
    force: bool,
    listener: Listener | None,
    started: Callable[[Store], None] | None,
    keep_results: bool = False,
) -> LeagueRun:
    config = sealed(config, folder, wrapper)
    store, pending = prepare(config, folder, force, wrapper)
    with store:
        if config.kind == "match":  # a match keeps its secret beside its results too, before any game
            keep_secret(folder / SECRET_FILE, store.secret())
        resumed, total = store.counts()
        left = store.pending_jobs()
        if started is not None:
            started(store)
        # one parent for every bot's private temp folder of this run (a cluster's
        # workers use their own machine's)
        temp_root = None if cluster or not left else tempfile.mkdtemp(prefix="llama-league-")
        secret = store.secret()  # never '': a database without its secret is refused
        tasks = (
            job_task(config, job, folder, wrapper, cluster, temp_root, secret, keep_results) for job in pending
        )
        played = 0
        if left:
            # bots of a worker that dies (OOM killer) re-parent to us: swept at the end
            become_subreaper()
            try:
                with open_executor(min(config.jobs, left), cluster, temp_root, config.bots) as (executor, slots):
                    for outcome in _dispatch(executor, tasks, 2 * slots):
                        if ship.record(store, folder, outcome):
                            played += len(outcome.games)
                            if listener is not None:
                                listener(outcome)
            except BaseException:
                # the replays the stopped jobs were writing: a resume writes them again
                for part in (folder / REPLAYS).rglob("*.part"):
                    part.unlink(missing_ok=True)
                raise
            finally:
                _sweep_orphans()
                if temp_root is not None:
                    shutil.rmtree(temp_root, ignore_errors=True)
    return LeagueRun(folder, total, resumed, played)


def _sweep_orphans() -> None:
    """Kill bots orphaned by a dead worker: our children in another session (bots only)."""
    mine = os.getsid(0)
    for pid in children_of(os.getpid()):
        with contextlib.suppress(OSError):
            if os.getsid(pid) != mine:
                kill_tree(pid)


def _dispatch(executor: Executor, tasks: Iterator[JobTask], window: int) -> Iterator[JobOutcome]:
    """Submit tasks keeping at most ``window`` in flight (memory stays flat); yield outcomes."""
    running: dict[Future[JobOutcome], int] = {}
    try:
        for task in tasks:
            while len(running) >= window:
                yield from _collect(running)
            running[executor.submit(run_job, task)] = task.job.job_id
        while running:
            yield from _collect(running)
    finally:
        for future in running:
            future.cancel()


def _collect(running: dict[Future[JobOutcome], int]) -> Iterator[JobOutcome]:
    finished, _ = wait(running, return_when=FIRST_COMPLETED)
    for future in finished:
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
