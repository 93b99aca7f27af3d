"""League benchmarks: throughput with 1 and 2 workers, rating 100,000 and 1,000,000 stored games, flat memory.

Run as ``python bench/league.py`` from the repository root (about three minutes; ``--fit-only``
for the ratings figures alone).
Figures go to stdout; see docs/league.md for the numbers measured on the reference box.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.league.config import Overrides, resolve  # noqa: E402
from harness.league.loop import run_league  # noqa: E402
from harness.league.runner import JobOutcome  # noqa: E402
from harness.league.schedule import iter_schedule  # noqa: E402
from harness.league.store import DB_NAME, Store  # noqa: E402

SAMPLE_BOTS = ROOT / "sample_bots"


def throughput(work: Path, jobs: int, games: int) -> float:
    """Games per second of a fresh league of the sample bots with ``jobs`` workers."""
    config = resolve(SAMPLE_BOTS, Overrides(games=games, jobs=jobs, seed=1))
    started = time.perf_counter()
    run = run_league(config, work / f"throughput-{jobs}")
    return run.played / (time.perf_counter() - started)


def synthetic_store(folder: Path, games: int) -> float:
    """Store ``games`` synthetic games (8 bots, tables of 4, duplicate deals); return the seconds taken.

    Places: strength + noise (bots 200 Elo-ish apart). Written with one transaction
    rather than job by job, so that a million games take a few tens of seconds.
    """
    names = [f"bot{i}" for i in range(8)]
    strength = np.arange(8) * 200.0
    rng = np.random.default_rng(5)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    with Store(folder / DB_NAME) as store:
        store.create(
            {"synthetic": True}, {"synthetic": True}, [(n, "-", "-", "1") for n in names],
            iter_schedule(names, 4, games, seed=5),
        )
        seatings = store.db.execute("SELECT game_id, seating FROM games ORDER BY game_id").fetchall()
        index = {n: i for i, n in enumerate(names)}
        bots = np.array([[index[n] for n in json.loads(seating)] for _, seating in seatings])
        noisy = strength[bots] + rng.normal(0, 400, size=bots.shape)
        places = (np.argsort(np.argsort(-noisy, axis=1), axis=1) + 1).tolist()
        with store.db:
            store.db.executemany(
                "INSERT INTO results VALUES (?, 5, 60, 0, '-')", ((g,) for g, _ in seatings)
            )
            store.db.executemany(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?, 0)",
                (
                    (g, seat, names[int(bots[i, seat])], 10 * p[seat], p[seat])
                    for i, ((g, _), p) in enumerate(zip(seatings, places, strict=True))
                    for seat in range(4)
                ),
            )
            store.db.execute("UPDATE jobs SET done = 1")
    return time.perf_counter() - started


def rate(folder: Path, fmt: str) -> dict[str, float]:
    """Run ``llama-harness ratings`` on ``folder`` in a child: wall and CPU seconds, peak RSS (MiB)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "harness", "ratings", str(folder), "--format", fmt], stdout=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak RSS
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if child.returncode:
        raise SystemExit(f"ratings {folder} failed with exit code {child.returncode}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024}


def fit_time(work: Path, games: int) -> tuple[float, dict[str, float], dict[str, float]]:
    """Store ``games`` synthetic games, then rate them (table) and build the report data (json)."""
    folder = work / f"synthetic-{games}"
    stored = synthetic_store(folder, games)
    return stored, rate(folder, "table"), rate(folder, "json")


def schedule_memory(games: int) -> tuple[int, float]:
    """Jobs and peak traced MiB of making a ``games``-game schedule lazily (30 bots, tables of 4)."""
    tracemalloc.start()
    count = sum(1 for _ in iter_schedule([f"b{i:02d}" for i in range(30)], 4, games, seed=1))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return count, peak / 2**20


def make_fast_bots(folder: Path, count: int) -> Path:
    for index in range(count):
        target = folder / f"r{index}"
        shutil.copytree(SAMPLE_BOTS / "random", target, ignore=shutil.ignore_patterns("__pycache__"))
        text = (target / "bot.toml").read_text().replace('name = "random"', f'name = "r{index}"')
        (target / "bot.toml").write_text(text)
    return folder


def memory_child(bots: Path, out: Path, games: int) -> None:
    """(child process) Run a league; print the peak RSS of the main process and of the workers."""
    peak_worker = 0

    def listener(outcome: JobOutcome) -> None:
        nonlocal peak_worker
        peak_worker = max(peak_worker, outcome.worker_rss_kib)

    config = resolve(bots, Overrides(games=games, jobs=2, sandbox="none"))
    run_league(config, out, listener=listener)
    # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across execve, so a child would report
    # its parent's peak (the 100,000-game fit) instead of its own.
    status = Path("/proc/self/status").read_text()
    main = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
    print(json.dumps({"games": games, "main_kib": main, "worker_kib": peak_worker}))


def memory(work: Path, games: int) -> dict[str, int]:
    bots = work / "fast-bots"
    if not bots.exists():
        make_fast_bots(bots, 5)
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(bots), str(work / f"mem-{games}"), str(games)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=320, help="games per throughput run")
    parser.add_argument("--fit-games", type=int, default=1_000_000, help="the big store (also a tenth of it)")
    parser.add_argument("--memory-games", type=int, default=400, help="the short league; the long one is 10x")
    parser.add_argument("--memory-child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--fit-only", action="store_true", help="only the ratings and schedule figures")
    args = parser.parse_args()
    if args.memory_child:
        bots, out, games = args.memory_child
        memory_child(Path(bots), Path(out), int(games))
        return
    with tempfile.TemporaryDirectory(prefix="llama-bench-") as tmp:
        work = Path(tmp)
        print(f"league throughput, sample bots ({', '.join(p.name for p in sorted(SAMPLE_BOTS.iterdir()))}),"
              f" {args.games} games, table of 4, duplicate deals:")
        if not args.fit_only:
            one = throughput(work, 1, args.games)
            print(f"  --jobs 1: {one:7.1f} games/s")
            two = throughput(work, 2, args.games)
            print(f"  --jobs 2: {two:7.1f} games/s   ratio {two / one:.2f}x")
        for games in (args.fit_games // 10, args.fit_games):
            stored, table, report = fit_time(work, games)
            print(f"ratings of {games:,} stored games (8 bots, tables of 4; store them: {stored:.0f} s):")
            for label, got in (("table (read + fit + sequential)", table), ("json (+ cross table, 16 refits)", report)):
                print(f"  {label}: {got['wall']:.2f} s wall, {got['cpu']:.2f} s CPU, peak {got['rss_mib']:.0f} MiB")
        jobs, peak = schedule_memory(args.fit_games)
        print(f"schedule of {args.fit_games:,} games made lazily (30 bots): {jobs} jobs, peak {peak:.1f} MiB traced")
        if args.fit_only:
            return
        print("peak memory (main: VmHWM, workers: ru_maxrss), league of 5 fast random bots, --jobs 2:")
        for games in (args.memory_games, 10 * args.memory_games):
            figures = memory(work, games)
            print(f"  {games:6d} games: main {figures['main_kib'] / 1024:6.1f} MiB,"
                  f" worker {figures['worker_kib'] / 1024:6.1f} MiB")


if __name__ == "__main__":
    main()
