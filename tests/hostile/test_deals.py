"""Deal secrecy: what a bot receives tells it nothing of a card it has not seen.

The seed_guess bot knows every derivation in the harness's source and tries small
master seeds against its ``game_start.seed``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from harness.bots.manifest import load_bot
from harness.games.llama import LLAMA_GAME
from harness.match import SECRET_FILE, Clock, MatchConfig, TableSettings, run_match
from harness.replay.io import read_replay
from harness.replay.records import Header
from harness.replay.verify import verify
from harness.sandbox import hiding, resolve_sandbox
from harness.seeds import bot_seed, deal_seed, is_secret, seed_secret, seed_warning

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "sample_bots"
BWRAP = shutil.which("bwrap")
MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]


def _match(tmp_path: Path, mode: str, seed: int | str | None, run: str = "a") -> tuple[Path, list[Header]]:
    bots = tmp_path / "bots"
    if not bots.exists():
        shutil.copytree(HERE / "bots" / "seed_guess", bots / "seed_guess")
        shutil.copytree(SAMPLES / "random", bots / "random", ignore=shutil.ignore_patterns("__pycache__"))
    specs = (load_bot(bots / "seed_guess"), load_bot(bots / "random"))
    out = tmp_path / run
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({"end_score": 25}),
        clock=Clock(startup=10.0, move=5.0),
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    result = run_match(MatchConfig(specs, 3, seed, out, settings))
    assert not result.faults, result.faults
    headers = []
    for replay in result.replays:
        records = read_replay(replay)
        assert verify(records) is None  # the header keeps what a re-check needs
        assert isinstance(records[0], Header)
        headers.append(records[0])
    return out, headers


def _guesses(out: Path) -> dict[int, int]:
    """Game → the deal seed the bot worked out."""
    log = (out / "logs" / "seed-guess.stderr.log").read_text()
    return {int(game): int(deal) for _, deal, game in re.findall(r"GUESSED (\d+) DEAL (\d+) GAME (\d+)", log)}


@pytest.mark.parametrize("mode", MODES)
def test_a_bot_cannot_work_out_the_deal_from_its_seed(mode: str, tmp_path: Path) -> None:
    out, headers = _match(tmp_path, mode, None)
    assert _guesses(out) == {}
    secret = (out / SECRET_FILE).read_text().strip()
    assert is_secret(secret) and len(secret) == 64
    assert "secret" not in json.loads((out / "summary.json").read_text())  # kept in files only you read
    # the deals and the bots' seeds are keyed hashes of the secret, the bots' independent of the deal
    assert [h.seed for h in headers] == [deal_seed(secret, n) for n in (1, 2, 3)]


def test_an_explicit_small_seed_is_guessable_and_the_warning_says_so(tmp_path: Path) -> None:
    out, headers = _match(tmp_path, "none", 7)
    assert _guesses(out) == {h.match: h.seed for h in headers}  # the premise of the warning
    warning = seed_warning(7)
    assert warning.startswith("warning: --seed 7:") and "predict every hand" in warning
    assert "\n" not in warning


def test_the_secret_in_the_results_deals_every_game_again(tmp_path: Path) -> None:
    first, headers = _match(tmp_path, "none", None, "a")
    secret = (first / SECRET_FILE).read_text().strip()
    again, replayed = _match(tmp_path, "none", secret, "b")
    assert [h.seed for h in replayed] == [h.seed for h in headers]
    for name in ("game-00001.jsonl", "game-00003.jsonl"):  # every card, every move
        assert _timeless(first / "replays" / name) == _timeless(again / "replays" / name)


def _timeless(replay: Path) -> list[dict[str, object]]:
    """The records of a replay without the answer times."""
    records = [json.loads(line) for line in replay.read_text().splitlines()]
    return [{key: value for key, value in record.items() if key != "ms"} for record in records]


def test_bot_seeds_do_not_follow_from_the_deal_seed() -> None:
    secret = seed_secret(3)
    assert bot_seed(secret, 1, 0) != bot_seed(secret, 1, 1) != bot_seed(seed_secret(4), 1, 1)
    assert all(bot_seed(secret, game, 0) < 1 << 48 for game in range(50))  # protocol v1's range
    assert bot_seed(secret, 1, 0) == bot_seed(secret, 1, 0)


def test_the_commands_warn_about_an_explicit_seed_and_refuse_a_bad_one(tmp_path: Path) -> None:
    from helpers import invoke, random_bot

    bots = [random_bot(tmp_path / "bots", name) for name in ("r1", "r2")]
    seeded = invoke("match", *bots, "--games", "1", "--seed", "7", "--sandbox", "none", "--out", tmp_path / "a")
    assert seeded.exit_code == 0, seeded.output
    assert seed_warning(7) in seeded.stderr.splitlines()
    secret = (tmp_path / "a" / SECRET_FILE).read_text().strip()
    assert secret == "seed:7"
    plain = invoke("match", *bots, "--games", "1", "--sandbox", "none", "--out", tmp_path / "b")
    assert plain.exit_code == 0 and "warning: --seed" not in plain.stderr
    bad = invoke("match", *bots, "--seed", "12ab", "--out", tmp_path / "c")
    assert bad.exit_code == 2 and "neither a whole number" in bad.stderr
    league = invoke(
        "league", tmp_path / "bots", "--games", "2", "--seed", "3", "--jobs", "1", "--sandbox", "none",
        "--out", tmp_path / "league",
    )
    assert league.exit_code == 0, league.output
    assert seed_warning(3) in league.stderr.splitlines()


def test_a_league_keeps_its_secret_and_a_resume_reuses_it(tmp_path: Path) -> None:
    import sqlite3

    from helpers import invoke, random_bot

    for name in ("r1", "r2"):
        random_bot(tmp_path / "bots", name)
    args = ("league", tmp_path / "bots", "--games", "4", "--jobs", "1", "--sandbox", "none", "--out", tmp_path / "lg")
    first = invoke(*args)
    assert first.exit_code == 0 and "warning: --seed" not in first.stderr, first.output

    def stored() -> tuple[str, list[int]]:
        with sqlite3.connect(tmp_path / "lg" / "league.db") as db:
            secret = json.loads(db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0])
            seeds = [row[0] for row in db.execute("SELECT seed FROM games ORDER BY game_id")]
        return secret, seeds

    secret, seeds = stored()
    assert is_secret(secret)
    assert seeds[0] == deal_seed(secret, "group", 0)
    again = invoke(*args)  # the same command: nothing to replay, and no "the schedule changed"
    assert again.exit_code == 0, again.output
    assert stored() == (secret, seeds)
