"""Following the README: the quick start's command again after the league grew says what to type."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from helpers import without_warnings

from league.conftest import cli, db_rows

FAST = ("--sandbox", "none", "--jobs", "2", "--table-size", "2")


def test_a_smaller_games_target_on_a_grown_league_names_the_one_to_resume_with(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b"])
    out = tmp_path / "league-out"
    cli("league", folder, "--games", "8", "--out", out, *FAST)  # say, a run with more --games than the default
    again = cli("league", folder, "--games", "4", "--out", out, *FAST, check=False)
    assert again.returncode == 2
    lines = without_warnings(again.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), again.stderr
    assert "games: 8 -> 4" in lines[0] and "(add --games 8 to resume it)" in lines[0]
    # and what it says to type works: a resume that plays nothing and keeps every game
    resumed = cli("league", folder, "--games", "8", "--out", out, *FAST)
    assert "0 games played" in resumed.stderr
    assert db_rows(out, "SELECT count(*) FROM results") == [(8,)]
