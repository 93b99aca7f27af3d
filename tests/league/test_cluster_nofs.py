"""A league on Dask workers that share no filesystem with the league machine.

A real scheduler and two real ``dask worker`` processes, each worker in its own
bubblewrap mount namespace with an empty tmpfs over the league machine's folder (the
bots and every ``--out``): a worker cannot see a bot's folder or the league folder,
so the league runs only if the snapshots travel to the workers and the replays come
back (harness.league.ship).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import scaled

from harness.league.ship import cached as cached_digests
from league.conftest import cli, db_rows, make_bots, standings

ARGS = ["--table-size", "3", "--seed", "5", "--sandbox", "auto", "--move-time", "30", "--startup-time", "60"]


@dataclass
class Farm:
    address: str
    home: Path  # hidden from the workers: bots and league folders go here
    client: Any  # a distributed.Client of the test's own, to look at and kill workers
    scheduler_file: Path


def _start_worker(name: str, scheduler_file: Path, home: Path, log: Path) -> subprocess.Popen[bytes]:
    argv = [
        "bwrap", "--bind", "/", "/", "--tmpfs", str(home), "--die-with-parent", "--",
        sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
        "--nthreads", "1", "--name", name, "--host", "127.0.0.1", "--no-dashboard",
    ]  # fmt: skip
    with open(log, "ab") as err:
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Farm]:
    """A scheduler and two workers (each with a nanny) that cannot see ``home``."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: the workers' own mount namespaces need it")
    from distributed import Client

    base = tmp_path_factory.mktemp("cluster")
    home = base / "home"
    home.mkdir()
    scheduler_file = base / "scheduler.json"
    logs = base / "logs"
    logs.mkdir()
    processes: list[subprocess.Popen[bytes]] = []
    with open(logs / "scheduler.log", "ab") as err:
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                 "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
            )
        )  # fmt: skip
    try:
        deadline = time.monotonic() + scaled(120)
        while not scheduler_file.exists():
            assert time.monotonic() < deadline, (logs / "scheduler.log").read_text()
            time.sleep(0.2)
        time.sleep(0.5)  # the file is written whole, but give it a moment
        processes += [_start_worker(f"w{i}", scheduler_file, home, logs / f"w{i}.log") for i in (1, 2)]
        client = Client(scheduler_file=str(scheduler_file), timeout="60s")
        try:
            client.wait_for_workers(2, timeout=scaled(180))
            yield Farm(client.scheduler.address, home, client, scheduler_file)
        finally:
            client.close()
    finally:
        for process in reversed(processes):
            with _quiet():
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with _quiet():
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _quiet() -> Any:
    import contextlib

    return contextlib.suppress(ProcessLookupError, PermissionError)


def _sees(farm: Farm, path: Path) -> dict[str, bool]:
    """Whether each worker sees ``path`` (asked on the worker itself)."""
    return dict(farm.client.run(functools.partial(os.path.exists, str(path))))


def _complete(out: Path) -> int:
    """Check that every finished game is recorded once and its replay is in ``out`` and verifies; return games."""
    (games, distinct), = db_rows(out, "SELECT count(*), count(DISTINCT game_id) FROM results")
    (scheduled,), = db_rows(out, "SELECT count(*) FROM games")
    assert games == distinct == scheduled > 0
    (timing, pairs), = db_rows(out, "SELECT count(*), count(DISTINCT job_id || ' ' || bot) FROM timing")
    assert timing == pairs > 0  # no job's timing recorded twice
    replays = [row[0] for row in db_rows(out, "SELECT replay FROM results")]
    assert all((out / r).is_file() for r in replays)
    assert not list((out / "replays").rglob("*.part"))
    verify = cli("replay", "--verify", out / "replays", check=False)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    return int(games)


@pytest.mark.slow
def test_a_league_on_workers_that_cannot_see_its_folders_equals_the_local_league(farm: Farm) -> None:
    folder = make_bots(farm.home / "bots1", ["a", "b", "c"])
    local, remote = farm.home / "local1", farm.home / "remote1"
    assert _sees(farm, folder) == dict.fromkeys(_sees(farm, folder), False) and len(_sees(farm, folder)) == 2
    cli("league", folder, "--out", local, "--jobs", "2", "--games", "30", *ARGS, timeout=600)
    done = cli("league", folder, "--out", remote, "--cluster", farm.address, "--games", "30", *ARGS, timeout=600)
    assert f"on the Dask cluster at {farm.address}" in done.stderr
    assert _complete(remote) == 30
    assert standings(remote) == standings(local)
    # the workers saw neither the league folder nor the bots, and wrote nothing there
    assert not any(_sees(farm, remote).values())
    # each worker's cache holds snapshots by digest (unpacked there, not in --out)
    digests = {row[0] for row in db_rows(remote, "SELECT digest FROM bots")}
    cached = farm.client.run(cached_digests)
    assert any(cached.values()) and all(set(found) <= digests for found in cached.values())
    # a bot changed between two runs is refused, as on the local pool
    (folder / "a" / "bot.py").write_text((folder / "a" / "bot.py").read_text() + "\n# changed\n")
    again = cli("league", folder, "--out", remote, "--cluster", farm.address, "--games", "30", *ARGS, check=False)
    errors = [line for line in again.stderr.splitlines() if line.startswith("error: ")]
    assert again.returncode == 2 and len(errors) == 1 and "bot 'a' changed" in errors[0], again.stderr
    assert _complete(remote) == 30


def _results(out: Path) -> int:
    try:
        with sqlite3.connect(f"{(out / 'league.db').as_uri()}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM results").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_a_worker_killed_mid_league_loses_nothing_and_records_nothing_twice(farm: Farm) -> None:
    folder = make_bots(farm.home / "bots2", ["a", "b", "c", "d"])
    local, remote = farm.home / "local2", farm.home / "remote2"
    games = ["--games", "240"]
    cli("league", folder, "--out", local, "--jobs", "2", *games, *ARGS, timeout=900)
    league = subprocess.Popen(
        [sys.executable, "-m", "harness", "league", str(folder), "--out", str(remote), "--cluster", farm.address,
         *games, *ARGS],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + scaled(600)
        while _results(remote) == 0 and league.poll() is None:
            assert time.monotonic() < deadline, "the league recorded no game"
            time.sleep(0.05)
        before = _results(remote)
        pids = farm.client.run(os.getpid)  # the worker processes (their nannies restart them)
        victim = sorted(pids)[0]
        os.kill(pids[victim], signal.SIGKILL)
        _, err = league.communicate(timeout=max(900, scaled(900)))
    finally:
        if league.poll() is None:
            league.kill()
            league.wait()
    assert league.returncode == 0, err
    assert 0 < before < 240, f"the worker was killed with {before} of 240 games recorded: not mid-league"
    assert _complete(remote) == 240
    assert standings(remote) == standings(local)
    farm.client.wait_for_workers(2, timeout=scaled(180))  # the nanny brought it back

