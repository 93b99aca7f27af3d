"""The third game: rock-paper-scissors (tests/games/rps), registered by the tests alone.

It lives in one package in the test tree and goes through everything a game goes
through, from the command line: the conformance suite, check-bot (its opponents come
from the game), a match with its own rules options, and replay (text, HTML, --verify,
--at). Nothing in the harness names it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import copy_bot, invoke, one_error
from third_game import RPS

from harness.games import BUILT_IN, GAMES_ENV, REGISTRY
from harness.games.conformance import check_game

BOT = RPS / "bots" / "rps_random"


def rps_bot(dest: Path, name: str) -> Path:
    """A copy of the rps sample bot (copy_bot writes name, version and command only)."""
    folder = copy_bot(BOT, dest / name, name=name)
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text() + 'games = ["rps"]\n')
    return folder


def test_the_tests_register_it_and_the_harness_does_not_ship_it() -> None:
    assert "rps" in REGISTRY and "rps" not in BUILT_IN
    assert type(REGISTRY["rps"]).__module__.startswith("llama_harness_game_")
    harness = Path(__file__).resolve().parents[2] / "harness"
    assert not any("rps" in path.read_text(encoding="utf-8") for path in harness.rglob("*.py"))


def test_it_conforms() -> None:
    report = check_game(REGISTRY["rps"], games=6, options=({}, {"variant": "lizard-spock", "rounds": 2}))
    assert report.games == 6 and report.decisions >= 6 * 2 * 2


def test_a_process_started_with_the_variable_knows_it_and_a_bad_entry_is_a_warning(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    code = "from harness.games import REGISTRY; print(sorted(REGISTRY))"
    run = subprocess.run(
        [sys.executable, "-c", code], env={**env, GAMES_ENV: str(RPS)}, capture_output=True, text=True
    )
    assert run.stdout.strip() == "['llama', 'llama-llama', 'rps']" and run.stderr == ""
    run = subprocess.run(
        [sys.executable, "-c", code], env={**env, GAMES_ENV: str(tmp_path)}, capture_output=True, text=True
    )
    assert run.stdout.strip() == "['llama', 'llama-llama']"
    assert run.stderr == f"warning: {GAMES_ENV}: {tmp_path}: not a game package (no __init__.py)\n"


def test_check_bot_plays_the_sample_bot_against_the_games_own_opponents(tmp_path: Path) -> None:
    bot = rps_bot(tmp_path, "mine")
    result = invoke("check-bot", bot, "-n", "2", "--sandbox", "none", "--move-time", "10")
    assert result.exit_code == 0, result.output
    assert "PASS position: round 3, after a loss and a draw" in result.output
    assert "PASS games against rps_random (2 games" in result.output


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A match of two rps bots: the lizard-spock variant (a flag L.L.A.M.A. has too), 3 rounds."""
    root = tmp_path_factory.mktemp("rps-match")
    bots = [rps_bot(root, name) for name in ("ann", "bob")]
    out = root / "out"
    result = invoke(
        "match", *bots, "--game", "rps", "--variant", "lizard-spock", "--rule", "rounds=3",
        "-n", "2", "--out", out, "--sandbox", "none", "--move-time", "10",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_a_match_plays_with_the_games_own_options(match: Path) -> None:
    replays = sorted(match.rglob("*.jsonl"))
    assert len(replays) == 2
    lines = [json.loads(line) for line in replays[0].read_text().splitlines()]
    assert lines[0]["game"] == "rps" and lines[0]["options"] == {"rounds": 3, "variant": "lizard-spock"}
    assert [line["round"] for line in lines if line["type"] == "throws"] == [1, 2, 3]
    assert lines[-1]["type"] == "game_end" and lines[-1]["rounds"] == 3


def test_its_replays_verify_render_and_rebuild(match: Path, tmp_path: Path) -> None:
    replay = sorted(match.rglob("*.jsonl"))[0]
    assert invoke("replay", "--verify", match).stdout == "2 replays: 2 ok, 0 bad\n"
    text = invoke("replay", replay)
    assert text.exit_code == 0 and "rock-paper-scissors (lizard-spock, 3 rounds)" in text.stdout
    assert "round 3: " in text.stdout and "game over after 3 rounds" in text.stdout
    page = tmp_path / "game.html"
    result = invoke("replay", replay, "--html", page)
    assert result.exit_code == 0, result.output
    assert "window.gameViewer" in page.read_text() and "rps-score" in page.read_text()
    dump = invoke("replay", replay, "--at", 2, "--seat", 1, "--dump", "-")
    assert dump.exit_code == 0, dump.output
    messages = [json.loads(line) for line in dump.stdout.splitlines()]
    assert messages[0]["type"] == "hello" and messages[0]["game"] == "rps"
    assert [m["type"] for m in messages[1:]] == ["game_start", "turn", "revealed", "turn"]
    assert messages[-1]["round"] == 2 and messages[2]["seat"] == 1


def test_a_bad_rules_option_names_the_key_and_the_game(tmp_path: Path) -> None:
    bots = [rps_bot(tmp_path, name) for name in ("ann", "bob")]
    base = ("match", *bots, "--game", "rps", "--out", tmp_path / "o", "--sandbox", "none")
    one_error(invoke(*base, "--rule", "rounds=0"), "rules option of rps: ", "rounds")
    one_error(invoke(*base, "--rule", "pieces=3"), "rules option of rps: ", "pieces")
    one_error(invoke(*base, "--variant", "komary"), "rules option of rps: ", "variant")
    one_error(invoke(*base, "--end-score", "30"), "rules option of rps: ", "end_score")
    one_error(invoke(*base, "--rule", "rounds=2", "--rule", "rounds"), "--rule 'rounds' is not KEY=VALUE")
    assert not (tmp_path / "o").exists()


def test_a_league_of_it_runs_and_its_replays_verify(tmp_path: Path) -> None:
    folder = tmp_path / "bots"
    for name in ("ann", "bob", "cy"):
        rps_bot(folder, name)
    out = tmp_path / "league"
    result = invoke(
        "league", folder, "--game", "rps", "--rule", "rounds=2", "--games", "6", "--jobs", "1",
        "--out", out, "--sandbox", "none", "--move-time", "10",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert invoke("replay", "--verify", out).stdout == "6 replays: 6 ok, 0 bad\n"
    header = json.loads(sorted(out.rglob("*.jsonl"))[0].read_text().splitlines()[0])
    assert header["game"] == "rps" and header["options"] == {"rounds": 2, "variant": "classic"}
