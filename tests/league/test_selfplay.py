"""Self-play: one bot folder taking several seats of a match or entries of a league."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from league.conftest import cli, db_rows, standings

FAST = ("--sandbox", "none", "--jobs", "2")


@pytest.mark.slow
def test_a_match_of_a_bot_against_itself_names_the_copies(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b"])
    out = tmp_path / "out"
    done = cli("match", folder / "a", folder / "a", folder / "b", "-n", "6", "--out", out, "--sandbox", "none")
    assert "a#2" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert sorted(summary["bots"]) == ["a", "a#2", "b"]
    assert all(row["games"] == 6 for row in summary["bots"].values())
    # each copy its own process, log and seat in the replays
    assert (out / "logs" / "a.stderr.log").is_file() and (out / "logs" / "a#2.stderr.log").is_file()
    header = json.loads(next((out / "replays").rglob("*.jsonl")).read_text().splitlines()[0])
    assert sorted(p["name"] for p in header["players"]) == ["a", "a#2", "b"]


@pytest.mark.slow
def test_a_league_file_listing_a_bot_twice_rates_each_entry_stably(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c"])
    league = tmp_path / "league.toml"
    league.write_text('bots = ["bots/a", "bots/b", "bots/a", "bots/c", "./bots/a"]\ntable_size = 3\n')
    out = tmp_path / "out"
    cli("league", league, "--games", "60", "--out", out, *FAST)
    names = sorted(bot["name"] for bot in standings(out)["bots"])
    assert names == ["a", "a#2", "a#3", "b", "c"]
    assert db_rows(out, "SELECT name, folder FROM bots WHERE name LIKE 'a%' ORDER BY name") == [
        (name, str((folder / "a").resolve())) for name in ("a", "a#2", "a#3")
    ]
    played = {row[0] for row in db_rows(out, "SELECT DISTINCT bot FROM seats")}
    assert played == {"a", "a#2", "a#3", "b", "c"}
    # the same command names them the same way: a resume, not a changed league
    again = cli("league", league, "--games", "60", "--out", out, *FAST)
    assert "0 games played" in again.stderr


def test_two_folders_with_one_name_are_still_refused(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    clash = tmp_path / "elsewhere" / "a"
    clash.parent.mkdir()
    (folder / "a").rename(clash)
    bots(["a"])
    done = cli("match", folder / "a", clash, "--out", tmp_path / "out", "--sandbox", "none", check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("error: two bots are named 'a'") and done.stderr.count("\n") == 1
