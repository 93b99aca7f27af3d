"""League files and flags: overrides, defaults, and one-line errors for bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.league.config import DEFAULT_GAMES, Overrides, resolve


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('bots = ["a", "b"]\ntable_size = 9\n', "table_size: 9 is outside what L.L.A.M.A. seats (2-6 players)"),
        ('bots = ["a", "b"]\ngames = "many"\n', "games: Input should be a valid integer"),
        ('bots = ["a", "b"]\ncolour = "red"\n', "colour: Extra inputs are not permitted"),
        ("table_size = 3\n", "bots: Field required"),
        ('bots = ["a", "b"]\n[rules]\nvariant = "chess"\n', "rules: variant: 'chess' is not one of"),
        ('bots = ["a", "b"]\ntable_size = 3\n', "table_size: 3 must be 2-2 for 2 bots"),
        ('bots = ["a", "b"\n', "not valid TOML"),
    ],
)
def test_bad_league_file_is_one_line_naming_file_and_field(
    tmp_path: Path, bots: Callable[[list[str]], Path], body: str, field: str
) -> None:
    folder = bots(["a", "b"])
    league = folder / "league.toml"
    league.write_text(body)
    code, output = run("league", str(league), "--out", str(tmp_path / "out"))
    assert code == 2
    assert output.count("\n") == 1, output
    assert output.startswith(f"error: {league}: ")
    assert field in output


def test_missing_bot_folder_in_league_file(bots: Callable[[list[str]], Path], tmp_path: Path) -> None:
    folder = bots(["a", "b"])
    league = folder / "league.toml"
    league.write_text('bots = ["a", "nope"]\n')
    code, output = run("league", str(league), "--out", str(tmp_path / "out"))
    assert code == 2 and "nope: bot folder does not exist" in output and output.count("\n") == 1


def test_folder_without_bots_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, output = run("league", str(tmp_path / "empty"))
    assert (
        code == 2
        and output == f"error: {tmp_path / 'empty'}: no bot folders (subfolders with a bot.toml) inside\n"
    )


def test_flags_override_the_file_and_defaults_fill_the_rest(bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b", "c"])
    league = folder / "league.toml"
    league.write_text(
        'bots = "."\ngames = 30\nseed = 5\nduplicate = false\nmove_time = 0.5\n'
        '[rules]\nvariant = "komary"\nend_score = 30\n'
    )
    config = resolve(league, Overrides(games=60, rules={"end_score": 20}))
    assert config.names == ["a", "b", "c"]
    assert (config.games, config.seed, config.duplicate, config.table_size) == (60, 5, False, 3)
    assert config.rules == {"variant": "komary", "end_score": 20}
    assert config.move_time == 0.5 and config.startup_time == 10.0
    plain = resolve(folder, Overrides())
    assert plain.table_size == 3 and plain.duplicate and plain.games == DEFAULT_GAMES and plain.seed is None


def test_ratings_of_a_damaged_database_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "league.db").write_bytes(b"this is not sqlite" * 100)
    code, output = run("ratings", str(tmp_path))
    assert code == 2 and output.startswith(f"error: {tmp_path / 'league.db'}: not a readable league database")
    assert output.count("\n") == 1


def test_ratings_needs_a_league_folder(tmp_path: Path) -> None:
    code, output = run("ratings", str(tmp_path))
    assert (code, output) == (2, f"error: {tmp_path}: not a league folder (no league.db)\n")


def test_bad_anchor(tmp_path: Path) -> None:
    code, output = run("ratings", str(tmp_path), "--anchor", "random")
    assert code == 2 and "--anchor 'random': expected BOT=RATING" in output


def test_a_bad_bot_limits_table_is_refused_before_any_game(
    bots: Callable[[list[str]], Path], tmp_path: Path
) -> None:
    folder = bots(["a", "b"])
    with (folder / "a" / "bot.toml").open("a") as fh:
        fh.write("[limits]\nmemory_mb = -3\n")
    code, output = run("league", str(folder), "--out", str(tmp_path / "out"))
    assert code == 2
    assert output.count("\n") == 1, output
    assert "bot 'a'" in output and "memory_mb" in output
    assert not (tmp_path / "out").exists()


def test_games_are_bounded(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    folder = bots(["a", "b"])
    code, output = run("league", str(folder), "--games", "5000000000", "--out", str(tmp_path / "out"))
    assert code == 2 and "5000000000 is not in the range" in output
    league = folder / "league.toml"
    league.write_text('bots = ["a", "b"]\ngames = 5000000000\n')
    code, output = run("league", str(league), "--out", str(tmp_path / "out"))
    assert (
        code == 2
        and output.count("\n") == 1
        and "games: Input should be less than or equal to 1000000000" in output
    )
