"""What a cluster's job carries and brings back (harness.league.ship), without a cluster.

The snapshots a worker gets are verified and refused on the wrong platform; the tasks
pickled for a worker hold no secret; a shipped job's replays are written into the
league folder by the league process, once.
"""

from __future__ import annotations

import gzip
import pickle
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.bots.packing import pack
from harness.errors import HarnessError
from harness.league.config import LeagueConfig, Overrides, resolve
from harness.league.opening import fixed, open_store, sealed
from harness.league.runner import JobOutcome, job_task
from harness.league.ship import Shipped, SnapshotPlugin, native, record, shipments, this_platform
from harness.league.store import GameRow, Store
from league.conftest import make_bots


@pytest.fixture
def league(tmp_path: Path) -> Iterator[tuple[LeagueConfig, Store, Path]]:
    """A created league of three sample bots (sealed, scheduled, nothing played)."""
    folder = make_bots(tmp_path / "bots", ["a", "b", "c"])
    out = tmp_path / "out"
    out.mkdir()
    config = sealed(resolve(folder, Overrides(games=6, table_size=3, sandbox="none")), out, None)
    store, _ = open_store(config, out, False, fixed(config))
    with store:
        yield config, store, out


def _plugin(snapshots: dict[str, Shipped], cache: Path) -> SnapshotPlugin:
    plugin = pickle.loads(pickle.dumps(SnapshotPlugin(snapshots)))  # as Dask hands it over
    plugin.setup(SimpleNamespace(local_directory=str(cache), address="tcp://10.0.0.9:4711"))
    return plugin


def test_no_task_for_a_worker_holds_the_secret(league: tuple[LeagueConfig, Store, Path]) -> None:
    cloudpickle = pytest.importorskip("cloudpickle", reason="cloudpickle (Dask's serializer) is not installed")
    config, store, out = league
    secret = store.secret()
    assert len(secret) == 64
    tasks = [job_task(config, job, out, None, "tls://scheduler:8786", None, secret) for job in store.iter_pending()]
    assert tasks and all(task.ship and task.wrapper is None for task in tasks)
    for task in tasks:
        for data in (pickle.dumps(task), cloudpickle.dumps(task)):
            assert secret.encode() not in data and bytes.fromhex(secret) not in data
        assert all(len(seeds) == 3 for seeds in task.bot_seeds)  # each game's own seeds instead
    plugin = pickle.dumps(SnapshotPlugin(shipments(config.bots)))
    assert secret.encode() not in plugin and bytes.fromhex(secret) not in plugin


def test_a_worker_unpacks_each_snapshot_once_and_verifies_it(
    league: tuple[LeagueConfig, Store, Path], tmp_path: Path
) -> None:
    config, _, _ = league
    plugin = _plugin(shipments(config.bots), tmp_path / "cache")
    bot = config.bots[0]
    folder = plugin.folder(bot)
    assert folder == tmp_path / "cache" / "llama-snapshots" / bot.snapshot
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in bot.folder.iterdir())
    assert plugin.folder(bot) == folder  # reused
    # bytes that are another snapshot's are refused, naming the digest
    other = config.bots[1]
    wrong = {bot.snapshot: Shipped(str(bot.snapshot), pack(other.folder), None)}
    with pytest.raises(HarnessError, match=rf"^snapshot {str(bot.snapshot)[:12]}: the bytes received are snapshot"):
        _plugin(wrong, tmp_path / "cache2").folder(bot)
    with pytest.raises(HarnessError, match=r"^bot 'a': its snapshot was not sent to worker tcp://10\.0\.0\.9:4711$"):
        _plugin({}, tmp_path / "cache3").folder(bot)


def test_a_snapshot_of_native_code_is_refused_on_another_platform_in_one_line(
    league: tuple[LeagueConfig, Store, Path], tmp_path: Path
) -> None:
    config, _, _ = league
    bot = config.bots[0]
    assert not native(bot.folder)  # a Python bot runs anywhere
    assert shipments([bot])[str(bot.snapshot)].platform is None
    foreign = {str(bot.snapshot): Shipped(str(bot.snapshot), pack(bot.folder), "plan9-mips")}
    with pytest.raises(HarnessError) as caught:
        _plugin(foreign, tmp_path / "cache").folder(bot)
    assert str(caught.value) == (
        f"bot 'a': its snapshot holds native code for plan9-mips; worker tcp://10.0.0.9:4711 is {this_platform()}"
    )
    assert not (tmp_path / "cache" / "llama-snapshots" / str(bot.snapshot)).exists()


def test_an_executable_program_makes_a_snapshot_native(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "main.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-o", str(folder / "bot"), str(folder / "main.c")], check=True)
    assert native(folder)
    (folder / "bot").unlink()
    (folder / "bot").write_text("#!/bin/sh\n")
    (folder / "bot").chmod(0o755)
    assert not native(folder)


def _row(game_id: int, replay: str) -> GameRow:
    return GameRow(game_id, ("a", "b", "c"), (1, 2, 3), (1, 2, 3), (False,) * 3, ({}, {}, {}), 4, 40, False, replay)


def test_a_shipped_job_is_written_into_the_league_folder_once(league: tuple[LeagueConfig, Store, Path]) -> None:
    _, store, out = league
    job = next(store.iter_pending())
    replays = [f"replays/000/game-{g.game_id:06d}.jsonl" for g in job.games]
    texts = [f'{{"type":"header","game":{g.game_id}}}\n'.encode() for g in job.games]
    outcome = JobOutcome(
        job.job_id,
        tuple(_row(g.game_id, r) for g, r in zip(job.games, replays, strict=True)),
        files=tuple((r, zlib.compress(t, 1)) for r, t in zip(replays, texts, strict=True)),
        logs=(("a.stderr.log", zlib.compress(b"hello from a\n")),),
    )
    assert record(store, out, outcome)
    assert [(out / r).read_bytes() for r in replays] == texts
    assert (out / "logs" / "a.stderr.log").read_bytes() == b"hello from a\n"
    assert not list(out.rglob("*.part"))
    # the same job again (a worker that came back): recorded once, its replays kept
    again = JobOutcome(job.job_id, outcome.games, files=tuple((r, zlib.compress(b"other\n")) for r in replays))
    assert not record(store, out, again)
    assert not store.commit_job(job.job_id, outcome.games)
    assert [(out / r).read_bytes() for r in replays] == texts
    assert store.counts()[0] == len(job.games)


def test_gz_replays_come_back_as_they_are_and_paths_stay_inside(league: tuple[LeagueConfig, Store, Path]) -> None:
    _, store, out = league
    first, second = list(store.iter_pending())[:2]
    gz = f"replays/000/game-{first.games[0].game_id:06d}.jsonl.gz"
    data = gzip.compress(b'{"type":"header"}\n')
    rows = tuple(_row(g.game_id, gz) for g in first.games)
    assert record(store, out, JobOutcome(first.job_id, rows, files=((gz, data),)))
    assert gzip.decompress((out / gz).read_bytes()) == b'{"type":"header"}\n'
    bad = JobOutcome(second.job_id, (), files=(("../escape.jsonl", zlib.compress(b"x")),))
    with pytest.raises(HarnessError, match=r"^job \d+: a replay path '\.\./escape\.jsonl' outside the league folder$"):
        record(store, out, bad)
    assert not (out.parent / "escape.jsonl").exists() and not store.job_done(second.job_id)
    damaged = JobOutcome(second.job_id, (), files=(("replays/x.jsonl", b"not zlib"),))
    with pytest.raises(HarnessError, match=r"^job \d+: replay replays/x\.jsonl came back damaged"):
        record(store, out, damaged)
