"""Llama Llama end to end: leagues of the sample bots at 2, 3 and 4 seats, every replay verified.

Real bot processes, the real league runner and results store, real replay files: the
same path a user takes from the README.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main

ROOT = Path(__file__).parents[2]
BOTS = ("llama_llama_random", "llama_llama_heuristic", "llama_llama_node")


def cli(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture(scope="module")
def bot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three Llama Llama sample bots and two L.L.A.M.A. ones, in one folder."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the JavaScript sample bot needs it)")
    folder = tmp_path_factory.mktemp("bots")
    for name in (*BOTS, "random", "heuristic"):
        shutil.copytree(ROOT / "sample_bots" / name, folder / name)
    return folder


@pytest.mark.parametrize("seats", [2, 3])
def test_a_league_of_the_sample_bots_completes_and_every_replay_verifies(
    bot_dir: Path, tmp_path: Path, seats: int
) -> None:
    out = tmp_path / f"league-{seats}"
    cli(
        "league",
        str(bot_dir),
        "--game",
        "llama-llama",
        "--games",
        "6",
        "--table-size",
        str(seats),
        "--jobs",
        "2",
        "--sandbox",
        "none",
        "--out",
        str(out),
    )
    _check(out, seats, {"ll-random", "ll-heuristic", "ll-node"})


def test_a_four_seat_league_file_with_self_play_completes_and_verifies(bot_dir: Path, tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(
        'game = "llama-llama"\n'
        f'bots = ["{bot_dir}/llama_llama_random", "{bot_dir}/llama_llama_heuristic", '
        f'"{bot_dir}/llama_llama_node", "{bot_dir}/llama_llama_heuristic"]\n'
        'table_size = 4\ngames = 8\njobs = 2\nsandbox = "none"\n'
        "[rules]\nend_score = 120\n"
    )
    out = tmp_path / "league-4"
    cli("league", str(league), "--out", str(out))
    _check(out, 4, {"ll-random", "ll-heuristic", "ll-node", "ll-heuristic#2"})


def _check(out: Path, seats: int, entrants: set[str]) -> None:
    replays = sorted((out / "replays").rglob("*.jsonl*"))
    assert len(replays) >= 6
    for replay in replays:
        assert "ok" in cli("replay", "--verify", str(replay))
        if replay.suffix == ".jsonl":
            header = json.loads(replay.read_text().splitlines()[0])
            assert header["game"] == "llama-llama" and len(header["players"]) == seats
            assert len(header["options"]["card_set"]["cards"]) == 32  # the replay alone re-checks it
    with sqlite3.connect(out / "league.db") as db:
        names = {row[0] for row in db.execute("select distinct bot from seats")}
    assert names == entrants  # the L.L.A.M.A. bots in the folder stay out


def test_a_match_replays_in_words_verifies_and_names_a_tampered_record(bot_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "match"
    bots = [str(bot_dir / name) for name in BOTS]
    cli("match", "--game", "llama-llama", *bots, "--games", "3", "--out", str(out), "--sandbox", "none")
    replay = sorted((out / "replays").glob("game-*.jsonl*"))[0]
    table = cli("replay", str(replay))
    assert "Llama Llama" in table and "── round 1 ends: " in table and "game over after" in table
    assert "the dummy" in table  # three players: one dummy hand, played at random
    seat = cli("replay", str(replay), "--seat", "1")
    assert "as seen by" in seat and "chooses a goal card" in seat and "the dummy:" not in seat
    records = [json.loads(line) for line in replay.read_text().splitlines()]
    index = next(i for i, r in enumerate(records) if r["type"] == "pass")
    moved = records[index]["moves"][0]["cards"]
    moved[0] = next(c for c in range(1, 33) if c not in moved)  # one card of one pass changed
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in records))
    err = cli("replay", "--verify", str(bad), code=1)
    assert f"record {index + 1}: pass " in err and "but the rules give" in err


def test_a_bad_card_set_is_one_line_and_nothing_is_played(bot_dir: Path, tmp_path: Path) -> None:
    cards = tmp_path / "cards.toml"
    text = (ROOT / "harness/games/llama_llama/default.toml").read_text()
    cards.write_text(text.replace('letters = "AAB"', 'letters = "A"', 1))
    out = tmp_path / "match"
    bots = [str(bot_dir / name) for name in BOTS[:2]]
    err = cli("match", "--game", "llama-llama", "--card-set", str(cards), *bots, "--out", str(out), code=2)
    assert err.count("\n") == 1 and "cards[2] (id 3).bottom.letters" in err and str(cards) in err
    assert not (out / "replays").exists() or not any((out / "replays").iterdir())
    good = tmp_path / "mine.toml"
    good.write_text(text.replace('name = "stand-in"', 'name = "mine"'))
    cli("match", "--game", "llama-llama", "--card-set", str(good), *bots, "--games", "1", "--out", str(out))
    header = json.loads(sorted((out / "replays").glob("game-*.jsonl"))[0].read_text().splitlines()[0])
    assert (
        header["options"]["card_set"]["name"] == "mine"
    )  # the whole set, inline: the replay alone re-checks
