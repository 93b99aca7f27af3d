"""A 100-bot league on a local two-worker Dask cluster against the local pool.

Run as ``python bench/cluster.py [--bots 100] [--games 2000]`` from the repository
root. The bots are self-play copies of the Python sample bots (random, heuristic,
strong, in turn), at tables of 4, duplicate deals, in the bubblewrap sandbox. Each
league runs in a child process (its own peak RSS, VmHWM). The cluster is a real
``dask scheduler`` and two ``dask worker --nthreads 1`` processes on this machine
(they see the same disk, but the league ships the snapshots and gets the replays back
as it does for workers that share nothing). Printed: games/s of each, the ratio, the
peak RSS of the league process, the scheduler and a worker, and the bytes crossing the
wire per game (pickled tasks out, pickled outcomes back, snapshots once).
Figures in docs/league.md.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.bots.packing import pack  # noqa: E402
from harness.league import runner  # noqa: E402
from harness.league.config import Overrides, resolve  # noqa: E402
from harness.league.loop import run_league  # noqa: E402
from harness.league.runner import JobOutcome, JobTask  # noqa: E402

SAMPLES = ("random", "heuristic", "strong")


def make_bots(folder: Path, count: int) -> Path:
    """``count`` copies of the Python sample bots, each under its own name."""
    for index in range(count):
        sample = SAMPLES[index % len(SAMPLES)]
        target = folder / f"{sample}{index:03d}"
        shutil.copytree(ROOT / "sample_bots" / sample, target, ignore=shutil.ignore_patterns("__pycache__"))
        text = (target / "bot.toml").read_text().replace(f'name = "{sample}"', f'name = "{target.name}"')
        (target / "bot.toml").write_text(text)
    return folder


def vm_hwm(pid: int) -> int:
    """Peak resident KiB of process ``pid`` (0 if gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)


def child(bots: Path, out: Path, games: int, cluster: str | None) -> None:
    """(child process) Play the league; print games/s, peak RSS, bytes of tasks and outcomes."""
    sizes = {"tasks": 0, "outcomes": 0, "replays": 0, "jobs": 0}
    dispatch = runner._dispatch

    def counting(executor: Any, tasks: Iterator[JobTask], window: int) -> Iterator[JobOutcome]:
        def measured() -> Iterator[JobTask]:
            for task in tasks:
                sizes["tasks"] += len(pickle.dumps(task))
                sizes["jobs"] += 1
                yield task

        yield from dispatch(executor, measured(), window)

    def listener(outcome: JobOutcome) -> None:
        sizes["outcomes"] += len(pickle.dumps(outcome))
        sizes["replays"] += sum(len(data) for _, data in (*outcome.files, *outcome.logs))

    runner._dispatch = counting  # type: ignore[assignment]
    config = resolve(bots, Overrides(games=games, jobs=2, seed=7, table_size=4))
    started = time.perf_counter()
    run = run_league(config, out, cluster=cluster, listener=listener)
    wall = time.perf_counter() - started
    print(json.dumps({"games": run.played, "wall": wall, "rate": run.played / wall, "main_kib": vm_hwm(os.getpid()), **sizes}))


def league(work: Path, bots: Path, games: int, name: str, cluster: str | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(bots), str(work / name), str(games), cluster or ""],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"the {name} league failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def start_cluster(work: Path) -> tuple[str, list[subprocess.Popen[bytes]], Any]:
    from distributed import Client

    file = work / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    common: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True, "env": env}
    processes = [
        subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                          "--no-dashboard", "--scheduler-file", str(file)], **common)
    ]  # fmt: skip
    while not file.exists():
        time.sleep(0.2)
    time.sleep(0.5)
    for index in range(2):
        processes.append(
            subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(file),
                              "--nthreads", "1", "--name", f"w{index}", "--host", "127.0.0.1", "--no-dashboard",
                              "--no-nanny"], **common)
        )  # fmt: skip
    client = Client(scheduler_file=str(file), timeout="60s")
    client.wait_for_workers(2, timeout=300)
    return client.scheduler.address, processes, client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        bots, out, games, cluster = args.child
        child(Path(bots), Path(out), int(games), cluster or None)
        return
    with tempfile.TemporaryDirectory(prefix="llama-bench-cluster-") as tmp:
        work = Path(tmp)
        bots = make_bots(work / "bots", args.bots)
        print(f"{args.bots} bots (copies of {', '.join(SAMPLES)}), {args.games} games, tables of 4, bubblewrap; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        local = league(work, bots, args.games, "local")
        print(f"  local pool, 2 workers: {local['rate']:6.1f} games/s ({local['games']} games, {local['wall']:.0f} s);"
              f" league process peak {local['main_kib'] / 1024:.0f} MiB")
        address, processes, client = start_cluster(work)
        try:
            pids = client.run(os.getpid)
            remote = league(work, bots, args.games, "cluster", address)
            worker = max(vm_hwm(pid) for pid in pids.values())
            scheduler = vm_hwm(processes[0].pid)
        finally:
            client.close()
            for process in processes:
                os.killpg(process.pid, signal.SIGTERM)
            for process in processes:
                process.wait()
        games = max(1, remote["games"])
        print(f"  Dask, 2 workers:       {remote['rate']:6.1f} games/s ({remote['games']} games, {remote['wall']:.0f} s);"
              f" ratio {remote['rate'] / local['rate']:.2f}x the local pool")
        print(f"  peak RSS: league process {remote['main_kib'] / 1024:.0f} MiB, scheduler {scheduler / 1024:.0f} MiB,"
              f" worker {worker / 1024:.0f} MiB")
        print(f"  over the wire per game: task {remote['tasks'] / games:.0f} B out, outcome {remote['outcomes'] / games:.0f} B"
              f" back (of which replays + logs {remote['replays'] / games:.0f} B, zlib); {remote['jobs']} jobs")
        store = work / "cluster" / "bots"
        snapshots = sum(len(pack(p)) for p in store.iterdir() if p.is_dir() and not p.name.startswith("."))
        print(f"  snapshots, once per worker: {snapshots / 1024:.0f} KiB for {args.bots} bots")


if __name__ == "__main__":
    main()
