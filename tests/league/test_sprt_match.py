"""``match A B [FIELD...] --sprt``: deal groups until the test decides, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from league.conftest import ROOT, cli, standings

STRONG, RANDOM, HEURISTIC = (ROOT / "sample_bots" / name for name in ("strong", "random", "heuristic"))


def _summary(out: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((out / "summary.json").read_text())
    return data


@pytest.mark.slow
def test_strong_against_random_stops_with_h1(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = cli("match", STRONG, RANDOM, "--sprt", "0,100", "--games", "400", "--sandbox", "none", "--out", out)
    assert "sprt H1: strong is stronger than random" in done.stdout
    sprt: dict[str, object] = _summary(out)["sprt"]  # type: ignore[assignment]
    assert sprt["result"] == "H1"
    # the SPRT's bound or, for a pair this lopsided, the bettor against H0 stopped it
    assert sprt["llr"] >= sprt["upper"] or sprt["log_wealth"][0] >= sprt["log_wealth_bound"][0]  # type: ignore[index,operator]
    assert 0 < sprt["games"] <= 60  # type: ignore[operator]
    assert sprt["games"] <= sprt["games_played"] <= 400  # type: ignore[operator]
    low, high = sprt["elo_ci95"]  # type: ignore[misc]
    assert low < sprt["elo"]  # type: ignore[operator]
    assert high is None or sprt["elo"] < high  # no upper bound when random won no group
    # every game is in the league store: the ratings read it
    data = standings(out)
    assert data["games"] == sprt["games_played"]
    assert data["bots"][0]["name"] == "strong"


def test_two_copies_of_a_bot_never_end_in_h1(tmp_path: Path) -> None:
    out = tmp_path / "m"
    cli("match", RANDOM, RANDOM, "--sprt", "0,10", "--games", "40", "--sandbox", "none", "--out", out)
    sprt: dict[str, object] = _summary(out)["sprt"]  # type: ignore[assignment]
    assert _summary(out)["bots"] == ["random", "random#2"]
    assert sprt["result"] in ("H0", "inconclusive")
    assert sprt["games"] <= 40


@pytest.mark.slow
def test_with_a_field_at_the_table(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = cli(
        "match", STRONG, RANDOM, HEURISTIC, "--sprt", "0,150", "--games", "300", "--sandbox", "none", "--out", out
    )
    sprt: dict[str, object] = _summary(out)["sprt"]  # type: ignore[assignment]
    assert sprt["result"] == "H1", done.stdout
    assert sprt["games"] % 6 == 0  # whole deal groups of 3 bots: 6 seatings
    assert "with heuristic" in done.stderr


def test_bad_sprt_arguments_are_one_line_errors(tmp_path: Path) -> None:
    for args, message in (
        (["--sprt", "10,0"], "ELO0 < ELO1"),
        (["--sprt", "zero,ten"], "expected ELO0,ELO1"),
        (["--sprt", "0,10", "--alpha", "0.9"], "--alpha"),
        (["--sprt", "0,10", "--games", "1"], "a deal group of 2 bots has 2 games"),
    ):
        done = cli("match", RANDOM, STRONG, *args, "--out", tmp_path / "bad", check=False)
        assert done.returncode == 2, done
        assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


@pytest.mark.slow
def test_an_sprt_match_plays_the_game_it_names(tmp_path: Path) -> None:
    out = tmp_path / "m"
    bots = [ROOT / "sample_bots" / name for name in ("llama_llama_heuristic", "llama_llama_random")]
    cli("match", *bots, "--game", "llama-llama", "--sprt", "0,200", "--games", "12", "--sandbox", "none", "--out", out)
    replays = sorted((out / "replays").rglob("*.jsonl"))
    assert replays
    for replay in replays:
        assert json.loads(replay.read_text().splitlines()[0])["game"] == "llama-llama"
    assert standings(out)["faults"] == []  # the bots got the game they play
