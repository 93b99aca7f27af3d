"""``replay`` for many files and for people: folders and globs, --html with --verify, --step, damage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import invoke, one_error

from harness.commands.replay import STEP_PROMPT
from harness.games.llama.records import RoundEndRecord
from harness.replay.batch import expand, verify_many
from harness.replay.io import read_replay
from harness.replay.render import render


@pytest.fixture
def games(tmp_path: Path, play_fake) -> list[Path]:  # type: ignore[no-untyped-def]
    """Four good replays (one gzipped) in a league-like folder tree."""
    paths = []
    for number in range(4):
        suffix = ".jsonl.gz" if number == 3 else ".jsonl"
        path = tmp_path / "league" / "replays" / f"{number // 2:03d}" / f"game-{number:06d}{suffix}"
        play_fake(path, players=3, seed=40 + number, faults={1: 3} if number == 1 else None)
        paths.append(path)
    return paths


def _tamper(path: Path) -> None:
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    end["scores"][0] += 1
    path.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")


def test_verify_a_folder_lists_each_bad_file_and_a_total(games: list[Path], tmp_path: Path) -> None:
    league = tmp_path / "league"
    assert invoke("replay", "--verify", league).stdout == "4 replays: 4 ok, 0 bad\n"
    _tamper(games[0])
    cut = games[2].with_name("game-000009.jsonl")
    cut.write_bytes(games[2].read_bytes()[:300])
    (league / "notes.txt").write_text("not a replay, not looked at\n")
    result = invoke("replay", "--verify", league)
    assert result.exit_code == 1
    assert result.stdout == "5 replays: 3 ok, 2 bad\n"
    bad = result.stderr.splitlines()
    assert len(bad) == 2
    assert bad[0].startswith(f"{games[0]}: record ") and "game_end" in bad[0]
    assert bad[1].startswith(f"{cut}: ") and "bad record" in bad[1]


def test_verify_takes_globs_and_several_paths(games: list[Path], tmp_path: Path) -> None:
    league = tmp_path / "league"
    result = invoke("replay", "--verify", f"{league}/replays/000/*.jsonl", games[3])
    assert (result.exit_code, result.stdout) == (0, "3 replays: 3 ok, 0 bad\n")
    result = invoke("replay", "--verify", f"{league}/**/*.jsonl*")
    assert result.stdout == "4 replays: 4 ok, 0 bad\n"
    one_error(invoke("replay", "--verify", f"{league}/*.nothing"), "no replay file matches")
    (tmp_path / "empty").mkdir()
    one_error(invoke("replay", "--verify", tmp_path / "empty"), "no replay files")


def test_the_pool_gives_the_same_verdicts_in_the_same_order(games: list[Path], tmp_path: Path) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for number in range(80):  # above the size where a pool is used
        shutil.copy(games[number % 3], many / f"game-{number:06d}.jsonl")
    _tamper(many / "game-000041.jsonl")
    paths = expand([many])
    alone = list(verify_many(paths, jobs=1))
    pooled = list(verify_many(paths, jobs=2))
    assert pooled == alone
    assert [v.path.name for v in pooled if v.problem] == ["game-000041.jsonl"]


def test_verify_with_html_does_both_for_one_file_and_refuses_many(games: list[Path], tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    result = invoke("replay", "--verify", games[0], "--html", page)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith(f"{games[0]}: ok (")
    assert page.is_file() and f"wrote {page}" in result.stdout
    one_error(invoke("replay", "--verify", tmp_path / "league", "--html", page), "--html", "one replay file")
    _tamper(games[1])
    page.unlink()
    result = invoke("replay", "--verify", games[1], "--html", page)
    assert result.exit_code == 1 and not page.exists()


def test_step_prompts_and_quits_on_q(games: list[Path]) -> None:
    from click.testing import CliRunner

    from harness.cli import main

    whole = invoke("replay", games[0]).stdout
    result = CliRunner().invoke(main, ["replay", str(games[0]), "--step"], input="\n\nq\n")
    assert result.exit_code == 0, result.output
    assert result.stderr == STEP_PROMPT * 3
    blocks = list(render(read_replay(games[0])))
    assert result.stdout == "".join(block + "\n" for block in blocks[:3])  # q after the third
    # Enter all the way (or end of input) shows everything
    to_the_end = CliRunner().invoke(main, ["replay", str(games[0]), "--step"], input="\n" * 10_000)
    assert to_the_end.stdout == whole


def test_a_round_end_is_said_in_words(games: list[Path]) -> None:
    records = read_replay(games[0])
    names = [p.name for p in records[0].players]  # type: ignore[union-attr]
    text = invoke("replay", games[0]).stdout
    ends = [r for r in records if isinstance(r, RoundEndRecord)]
    assert ends
    for end in ends:
        block = text.split(f"── round {end.round} ends\n", 1)[1].splitlines()[: len(names)]
        for seat, line in enumerate(block):
            returned = f", returns {end.returned[seat]}" if end.returned[seat] else ""
            assert line == f"   {names[seat]}: {end.penalties[seat]} penalty{returned} → {end.scores[seat]}"


def test_a_truncated_replay_shows_what_it_holds_then_one_error(games: list[Path], tmp_path: Path) -> None:
    data = games[0].read_bytes()
    lines = data.splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    keep = len(lines) // 2
    cut.write_bytes(b"".join(lines[:keep]) + lines[keep][:20])  # cut inside line keep + 1
    result = invoke("replay", cut)
    line = one_error(result, str(cut), f":{keep + 1}:")
    whole = invoke("replay", games[0]).stdout.split("\n")
    shown = result.stdout.rstrip("\n").split("\n")
    assert shown == whole[: len(shown)] and len(shown) > 10  # the records before the damage
    assert line.startswith("error: ")
    # cut at a line end: everything is shown, then why it is incomplete
    cut.write_bytes(b"".join(lines[:keep]))
    one_error(invoke("replay", cut), str(cut), "ends before game_end")


def test_a_tampered_replay_is_shown_up_to_the_disagreement(games: list[Path], tmp_path: Path) -> None:
    lines = games[0].read_text().splitlines()
    index = next(i for i, text in enumerate(lines) if json.loads(text)["type"] == "round_end")
    end = json.loads(lines[index])
    end["scores"][0] += 5
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:index], json.dumps(end), *lines[index + 1 :]]) + "\n")
    result = invoke("replay", bad)
    one_error(result, str(bad), f"record {index + 1}: round_end")
    assert "round 1 ends" not in result.stdout and "round 1 ·" in result.stdout
