"""League benchmarks: throughput with 1 and 2 workers, rating 100,000 stored games, flat memory.

Run as ``python bench/league.py`` from the repository root (about two minutes).
Figures go to stdout; see docs/league.md for the numbers measured on the reference box.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.league.config import Overrides, resolve  # noqa: E402
from harness.league.runner import JobOutcome, run_league  # noqa: E402
from harness.league.schedule import make_schedule  # noqa: E402
from harness.league.standings import render, report_data  # noqa: E402
from harness.league.store import DB_NAME, GameRow, Store  # noqa: E402

SAMPLE_BOTS = ROOT / "sample_bots"


def throughput(work: Path, jobs: int, games: int) -> float:
    """Games per second of a fresh league of the sample bots with ``jobs`` workers."""
    config = resolve(SAMPLE_BOTS, Overrides(games=games, jobs=jobs, seed=1))
    started = time.perf_counter()
    run = run_league(config, work / f"throughput-{jobs}")
    return run.played / (time.perf_counter() - started)


def fit_time(work: Path, games: int) -> tuple[float, float, float]:
    """Seconds to store, to rate (table) and to build report data for ``games`` synthetic games."""
    names = [f"bot{i}" for i in range(8)]
    strength = {name: 200.0 * i for i, name in enumerate(names)}
    rng = random.Random(5)
    jobs = make_schedule(names, 4, games, seed=5)
    folder = work / "synthetic"
    folder.mkdir()
    started = time.perf_counter()
    with Store(folder / DB_NAME) as store:
        store.create({"synthetic": True}, {"synthetic": True}, [(n, "-", "-", "1") for n in names], jobs)
        for job in jobs:
            rows = []
            for game in job.games:
                # Plackett-Luce-ish: sort by strength plus noise
                noisy = {n: strength[n] + rng.gauss(0, 400) for n in game.seating}
                order = sorted(game.seating, key=lambda n: -noisy[n])
                places = tuple(order.index(n) + 1 for n in game.seating)
                rows.append(
                    GameRow(
                        game.game_id, game.seating, tuple(10 * p for p in places), places,
                        (False,) * 4, tuple(5 * p for p in places), 5, 60, False, "-",
                    )
                )
            store.commit_job(job.job_id, rows)
    stored = time.perf_counter() - started
    started = time.perf_counter()
    render(folder, "table")
    table = time.perf_counter() - started
    started = time.perf_counter()
    report_data(folder)
    report = time.perf_counter() - started
    return stored, table, report


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
    parser.add_argument("--fit-games", type=int, default=100_000)
    parser.add_argument("--memory-games", type=int, default=400, help="the short league; the long one is 10x")
    parser.add_argument("--memory-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        bots, out, games = args.memory_child
        memory_child(Path(bots), Path(out), int(games))
        return
    with tempfile.TemporaryDirectory(prefix="llama-bench-") as tmp:
        work = Path(tmp)
        print(f"league throughput, sample bots ({', '.join(p.name for p in sorted(SAMPLE_BOTS.iterdir()))}),"
              f" {args.games} games, table of 4, duplicate deals:")
        one = throughput(work, 1, args.games)
        print(f"  --jobs 1: {one:7.1f} games/s")
        two = throughput(work, 2, args.games)
        print(f"  --jobs 2: {two:7.1f} games/s   ratio {two / one:.2f}x")
        stored, table, report = fit_time(work, args.fit_games)
        print(f"ratings of {args.fit_games:,} stored games (8 bots, tables of 4):")
        print(f"  store them: {stored:.1f} s · ratings table (load + fit + sequential): {table:.2f} s"
              f" · report data (+ crosstable, 16 refits): {report:.2f} s")
        print("peak memory (main: VmHWM, workers: ru_maxrss), league of 5 fast random bots, --jobs 2:")
        for games in (args.memory_games, 10 * args.memory_games):
            figures = memory(work, games)
            print(f"  {games:6d} games: main {figures['main_kib'] / 1024:6.1f} MiB,"
                  f" worker {figures['worker_kib'] / 1024:6.1f} MiB")


if __name__ == "__main__":
    main()
