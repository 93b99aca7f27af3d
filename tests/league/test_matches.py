"""Matches on the league machinery: a verdict, ratings and report on a match folder, resume, refusals."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import without_warnings

from league.conftest import cli, db_rows

FAST = ("--sandbox", "none", "--jobs", "2")


@pytest.mark.slow
def test_two_bots_get_a_cutechess_verdict_and_the_folder_is_a_league_folder(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b"])
    out = tmp_path / "out"
    done = cli("match", folder / "a", folder / "b", "-n", "40", "--seed", "5", "--out", out, *FAST)
    score = re.search(r"^Score of a vs b: (\d+) - (\d+) - (\d+)  \[(\d\.\d{3})\] 40$", done.stdout, re.M)
    assert score, done.stdout
    wins, losses, draws = map(int, score.groups()[:3])
    assert wins + losses + draws == 40
    assert float(score.group(4)) == round((wins + draws / 2) / 40, 3)
    elo = re.search(r"^Elo difference: ([+-]\d+\.\d) ± (\d+\.\d) \(95%\), LOS: (\d+\.\d)%$", done.stdout, re.M)
    assert elo, done.stdout
    summary = json.loads((out / "summary.json").read_text())
    verdict = summary["verdict"]
    assert (verdict["wins"], verdict["losses"], verdict["draws"]) == (wins, losses, draws)
    assert verdict["elo_diff"] == float(elo.group(1)) and verdict["ci95"] == float(elo.group(2)) > 0
    assert 0 <= verdict["los"] <= 100 and (verdict["los"] > 50) == (verdict["elo_diff"] > 0)
    # progress as plain lines without a terminal
    assert any(line.startswith("40/40 games") for line in done.stderr.splitlines())
    assert "\r" not in done.stderr
    # ratings and report read the match folder like a league folder
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    assert data["games"] == 40 and {bot["name"] for bot in data["bots"]} == {"a", "b"}
    assert data["config"]["kind"] == "match"
    report = cli("report", out)
    assert (out / "report.html").is_file() and "report.html" in report.stdout
    # replays one per game, named as a match always named them
    assert sorted(p.name for p in (out / "replays").iterdir()) == [f"game-{i:05d}.jsonl" for i in range(1, 41)]

    # the same command again: nothing to play, the same verdict
    again = cli("match", folder / "a", folder / "b", "-n", "40", "--seed", "5", "--out", out, *FAST)
    assert "40 already played" in again.stderr
    assert score.group(0) in again.stdout and elo.group(0) in again.stdout


def test_more_bots_get_the_ratings_table(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b", "c"])
    out = tmp_path / "out"
    done = cli("match", folder / "a", folder / "b", folder / "c", "-n", "12", "--out", out, *FAST)
    assert "Elo ratings: 12 games" in done.stdout and "±95%" in done.stdout
    assert json.loads((out / "summary.json").read_text())["verdict"] is None


def test_a_match_folder_holds_one_match(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b", "c"])
    out = tmp_path / "match-out"
    cli("match", folder / "a", folder / "b", "-n", "4", "--out", out, *FAST)
    for args, why in (
        ([folder / "a", folder / "c", "-n", "4"], "holds another match (bots: ['a', 'b'] -> ['a', 'c'])"),
        ([folder / "a", folder / "b", "-n", "8"], "holds another match (games: 4 -> 8)"),
        ([folder / "a", folder / "b", "-n", "4", "--end-score", "30"], "holds another match (rules:"),
    ):
        refused = cli("match", *args, "--out", out, *FAST, check=False)
        assert refused.returncode == 2 and len(without_warnings(refused.stderr)) == 1, refused.stderr
        assert why in refused.stderr
        assert "run it with another --out, or add --force to discard its results" in refused.stderr
    league = cli("league", folder, "--out", out, *FAST, check=False)
    assert league.returncode == 2 and "holds a match, not a league" in league.stderr
    forced = cli("match", folder / "a", folder / "c", "-n", "6", "--out", out, *FAST, "--force")
    assert "6 games in" in forced.stdout
    assert db_rows(out, "SELECT DISTINCT bot FROM seats ORDER BY bot") == [("a",), ("c",)]
    assert len(list((out / "replays").iterdir())) == 6
    assert sorted(json.loads((out / "summary.json").read_text())["bots"]) == ["a", "c"]


def test_a_folder_of_an_older_match_is_refused(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    out = tmp_path / "old"
    (out / "replays").mkdir(parents=True)
    (out / "replays" / "game-00001.jsonl").write_text("{}\n")
    (out / "summary.json").write_text("{}\n")
    refused = cli("match", folder / "a", folder / "b", "-n", "2", "--out", out, *FAST, check=False)
    assert refused.returncode == 2 and len(without_warnings(refused.stderr)) == 1, refused.stderr
    assert "holds replays and summary.json of another match or league but no results database" in refused.stderr
    cli("match", folder / "a", folder / "b", "-n", "2", "--out", out, *FAST, "--force")
    assert sorted(p.name for p in (out / "replays").iterdir()) == ["game-00001.jsonl", "game-00002.jsonl"]
