"""``league --until-decided``: plays until the ranking is decided or --games, through the CLI."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import without_warnings

from league.conftest import ROOT, cli, db_rows


@pytest.mark.slow
def test_a_decided_pair_stops_the_league_early(tmp_path: Path) -> None:
    folder = tmp_path / "bots"
    for name in ("strong", "random"):
        shutil.copytree(ROOT / "sample_bots" / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    done = cli("league", folder, "--until-decided", "--games", "400", "--sandbox", "none", "--out", out, timeout=300)
    assert "decided" in done.stderr and "not decided" not in done.stderr, done.stderr
    assert "every adjacent pair of the ranking is decided" in done.stdout
    assert "decided: strong > random" in done.stdout
    played = db_rows(out, "SELECT count(*) FROM results")[0][0]
    assert 0 < played < 400
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    assert data["decisions"]["done"] is True
    assert data["decisions"]["decided"][0]["better"] == "strong"
    # the same command on the finished run resumes it: nothing left to play, the same verdict
    again = cli("league", folder, "--until-decided", "--games", "400", "--sandbox", "none", "--out", out)
    assert f"{played} already played" in again.stderr and "0 games played" in again.stderr, again.stderr
    assert "decided: strong > random" in again.stdout
    assert db_rows(out, "SELECT count(*) FROM results")[0][0] == played
    # another run in the folder is refused, in one line naming what differs
    other = cli("league", folder, "--until-decided", "--games", "800", "--out", out, check=False)
    assert other.returncode == 2 and len(without_warnings(other.stderr)) == 1, other.stderr
    assert "holds another run (games: 400 -> 800)" in other.stderr


@pytest.mark.slow
def test_identical_bots_play_to_the_budget_undecided(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b", "c"])
    out = tmp_path / "out"
    done = cli("league", folder, "--until-decided", "--games", "96", "--sandbox", "none", "--out", out, timeout=300)
    assert "not decided within --games" in done.stderr
    assert "not decided:" in done.stdout
    assert db_rows(out, "SELECT count(*) FROM results")[0][0] == 96  # whole groups of 6 (tables of 3)


def test_until_decided_refuses_plain_deals(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    done = cli("league", bots(["a", "b"]), "--until-decided", "--no-duplicate", "--out", tmp_path / "o", check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "duplicate" in done.stderr, done.stderr


@pytest.mark.slow
def test_a_league_until_decided_runs_on_a_dask_cluster(tmp_path: Path) -> None:
    from distributed import LocalCluster

    folder = tmp_path / "bots"
    for name in ("strong", "random"):
        shutil.copytree(ROOT / "sample_bots" / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        done = cli(
            "league", folder, "--until-decided", "--games", "400", "--sandbox", "none", "--out", out,
            "--cluster", cluster.scheduler_address, timeout=300,
        )
    assert f"on the Dask cluster at {cluster.scheduler_address}" in done.stderr
    assert "decided: strong > random" in done.stdout
    played = db_rows(out, "SELECT count(*) FROM results")[0][0]
    assert 0 < played < 400
    assert db_rows(out, "SELECT count(*) FROM jobs WHERE done = 0")[0][0] == 0


@pytest.mark.slow
def test_a_league_until_decided_plays_the_game_it_names(tmp_path: Path) -> None:
    folder = tmp_path / "bots"
    for name in ("llama_llama_heuristic", "llama_llama_random"):
        shutil.copytree(ROOT / "sample_bots" / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    cli("league", folder, "--game", "llama-llama", "--until-decided", "--games", "24", "--sandbox", "none", "--out", out)
    replays = sorted((out / "replays").rglob("*.jsonl"))
    assert replays
    assert {json.loads(replay.read_text().splitlines()[0])["game"] for replay in replays} == {"llama-llama"}
    assert db_rows(out, "SELECT count(*) FROM faults")[0][0] == 0
