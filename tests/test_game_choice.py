"""Which game: a bot's manifest says what it plays, --game picks for match, league and check-bot."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import invoke, one_error, random_bot
from simultaneous_game import PICK

from harness import games
from harness.bots.manifest import load_bot
from harness.errors import HarnessError
from harness.league.config import Overrides, resolve


def plays(folder: Path, *names: str) -> Path:
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + f"games = {list(names)!r}\n".replace("'", '"'))
    return folder


def test_a_bot_plays_llama_unless_its_manifest_says_otherwise(tmp_path: Path) -> None:
    assert load_bot(random_bot(tmp_path, "plain")).games == ("llama",)
    with pytest.raises(HarnessError, match=r"bot\.toml: games: unknown game 'chess' \(known: llama"):
        load_bot(plays(random_bot(tmp_path, "chess"), "chess"))


def test_match_refuses_a_bot_that_does_not_play_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(games.REGISTRY, "pick", PICK)
    picker = plays(random_bot(tmp_path, "picker"), "pick")
    other = random_bot(tmp_path, "other")
    one_error(
        invoke("match", picker, other, "--out", tmp_path / "o", "--sandbox", "none"),
        "'picker' does not play llama",
    )
    result = invoke("match", other, other, "--game", "nope", "--out", tmp_path / "o")
    assert result.exit_code == 2 and "Invalid value for '--game': 'nope' is not a game (known: llama" in result.output


def test_a_rules_option_of_another_game_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(games.REGISTRY, "pick", PICK)
    a, b = (plays(random_bot(tmp_path, name), "pick") for name in ("a", "b"))
    one_error(
        invoke("match", a, b, "--game", "pick", "--variant", "komary", "--out", tmp_path / "o", "--sandbox", "none"),
        "variant",
    )


def test_a_league_folder_takes_the_bots_that_play_its_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(games.REGISTRY, "pick", PICK)
    folder = tmp_path / "bots"
    for name in ("l1", "l2", "l3"):
        random_bot(folder, name)
    for name in ("p1", "p2"):
        plays(random_bot(folder, name), "pick", "llama")
    assert resolve(folder, Overrides()).names == ["l1", "l2", "l3", "p1", "p2"]
    config = resolve(folder, Overrides(game="pick"))
    assert config.names == ["p1", "p2"] and config.game == "pick" and config.identity()["game"] == "pick"
    league = folder / "league.toml"
    league.write_text('bots = "."\ngame = "pick"\ntable_size = 2\n')
    assert resolve(league, Overrides()).names == ["p1", "p2"]
    league.write_text('bots = ["l1", "p1"]\ngame = "pick"\n')
    with pytest.raises(HarnessError, match="bots: 'l1' does not play pick"):
        resolve(league, Overrides())
    league.write_text('bots = "."\ngame = "go"\n')
    with pytest.raises(HarnessError, match=r"league\.toml: game: unknown game 'go'"):
        resolve(league, Overrides())
    league.write_text('bots = "."\ngame = "pick"\ntable_size = 5\n')
    with pytest.raises(HarnessError, match=r"table_size: 5 is outside what Pick seats \(2-4 players\)"):
        resolve(league, Overrides())


def test_check_bot_says_when_a_bot_does_not_play_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(games.REGISTRY, "pick", PICK)
    from harness.checkbot import Settings, check_bot

    checks = list(check_bot(random_bot(tmp_path, "r"), Settings(game="pick")))
    assert [c.line() for c in checks] == ["FAIL manifest: bot 'r' does not play pick: add it to games in bot.toml"]
