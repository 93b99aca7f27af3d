"""``check-bot``: its scripted positions are right, sample bots pass, hostile bots fail with a reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.checkbot import (
    Settings,
    check_bot,
    game_end_message,
    hello_message,
)
from harness.cli import main
from harness.games.llama import LLAMA_GAME
from harness.games.llama.positions import SCENARIOS, prepare
from harness.games.llama.wire import TO_BOT
from harness.match import Clock
from harness.protocol.build import turn_message
from harness.sandbox import resolve_sandbox

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"
HOSTILE = ROOT / "tests" / "hostile" / "bots"

# hostile bot → a phrase its failure reasons must contain
REASONS = {
    "alloc_10g": "memory",  # MemoryError (address-space limit) or "its 128 MB memory limit" (cgroup)
    "bad_utf8": "not a JSON line",
    "crash_mid": "boom on turn 3",
    "crash_start": "giving up at once",
    "fill_tmp": "OSError",
    "fork_bomb": "s move limit",
    "hang": "no reply within the 0.30 s move limit",
    "huge_line": "exceeds 1048576 bytes",
    "illegal": "answered an illegal move",
    "late": "over the 0.30 s move limit",
    "network": "Connection refused|Address family not supported",  # no sandbox | no TCP in it (seccomp)
    "no_flush": "flush stdout",
    "not_json": "not a JSON line",
    "setsid_child": "crash",
    "snoop": "SNOOP TOTAL 0",
    "stderr_flood": "stderr",
    "unsolicited": "a line that answers no turn arrived before the reply",
    "wrong_shape": "does not validate",
}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario_is_the_position_it_claims(scenario) -> None:  # type: ignore[no-untyped-def]
    state, notice = prepare(scenario)
    assert [str(a) for a in state.legal_actions()] == list(scenario.legal)
    turn = turn_message(1, state.turn(scenario.seat))
    turn["id"] = 1
    clock = Clock()
    for message in (hello_message(scenario.seat, 3, 7, clock), {**notice, "game": 1}, turn):
        TO_BOT.validate_python(message)  # exactly what the referee may send
    state.apply([state.legal_actions()[0]])
    TO_BOT.validate_python(game_end_message(LLAMA_GAME, state, 1))


def test_edge_cases_are_covered() -> None:
    by_name = {s.name: prepare(s)[0] for s in SCENARIOS}
    assert [str(a) for a in by_name["only quit is legal"].legal_actions()] == ["quit"]
    assert by_name["empty stock"].view(1)["stock"] == 0
    assert "draw" not in {str(a) for a in by_name["last player left in the round (no draw)"].legal_actions()}
    assert by_name["a Llama on top"].discard == 7
    assert by_name["a 6 on top"].discard == 6
    assert by_name["one card left"].view(0)["hand"] == [3]


def _available(name: str) -> bool:
    needs = {"node": ["node"], "c": ["make", "cc"]}.get(name, ["python3"])
    return (SAMPLES / name / "bot.toml").is_file() and all(shutil.which(tool) for tool in needs)


SAMPLE_NAMES = [p.name for p in sorted(SAMPLES.iterdir()) if (p / "bot.toml").is_file()]


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_bot_passes(name: str, tmp_path: Path) -> None:
    if not _available(name):
        pytest.skip(f"the tools sample bot {name!r} needs are not installed")
    folder = tmp_path / name
    shutil.copytree(SAMPLES / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    result = CliRunner().invoke(main, ["check-bot", str(folder), "--games", "3"])
    lines = result.output.splitlines()
    assert result.exit_code == 0, result.output
    assert all(line.startswith("PASS ") for line in lines[:-1]), result.output
    assert any(line.startswith("PASS move times (median") for line in lines)
    assert len(lines) >= 13


@pytest.mark.parametrize("bot", sorted(REASONS))
def test_hostile_bot_fails_with_a_reason(bot: str) -> None:
    if bot == "snoop" and shutil.which("bwrap") is None:
        pytest.skip("without bubblewrap the snooping bot finds the replays and plays on")
    # a short clock only for the bots whose fault is a time-out: under load, a short
    # clock would turn another bot's crash (alloc_10g, fill_tmp) into a time-out
    timed = bot in {"hang", "late", "no_flush", "fork_bomb"}
    settings = Settings(
        clock=Clock(startup=3.0, move=0.3) if timed else Clock(startup=60.0, move=30.0),
        wrapper=resolve_sandbox("auto"),
        opponents=(SAMPLES / "random",),
        games=1,
    )
    checks = list(check_bot(HOSTILE / bot, settings))
    failed = [c for c in checks if not c.ok]
    assert failed, [c.line() for c in checks]
    assert all(c.reason for c in failed)
    assert any(phrase in c.reason for c in failed for phrase in REASONS[bot].split("|")), [c.line() for c in failed]


def test_exit_code_and_one_line_per_check(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["check-bot", str(HOSTILE / "illegal"), "-n", "1", "--opponent", str(SAMPLES / "random")]
    )
    assert result.exit_code == 1
    assert all(line.startswith(("PASS ", "FAIL ")) for line in result.output.splitlines()[:-1])
    assert "FAIL position: only quit is legal: answered an illegal move" in result.output


def test_missing_bot_and_missing_opponent(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check-bot", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert result.output.startswith("FAIL manifest: ") and "does not exist" in result.output
    result = CliRunner().invoke(
        main, ["check-bot", str(SAMPLES / "random"), "-n", "1", "--opponent", str(tmp_path / "gone")]
    )
    assert result.exit_code == 1
    assert "FAIL games against gone: opponent: " in result.output


def test_default_opponents_are_found_beside_the_package_or_in_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness import checkbot
    from harness.games import samples

    monkeypatch.setattr(samples, "SAMPLE_BOTS", (tmp_path / "nowhere", Path("sample_bots")))
    monkeypatch.chdir(tmp_path)
    assert checkbot.default_opponents() == ()
    for name in ("random", "heuristic"):  # the default game's (LlamaGame.opponents)
        (tmp_path / "sample_bots" / name).mkdir(parents=True)
        (tmp_path / "sample_bots" / name / "bot.toml").write_text("")
    found = checkbot.default_opponents()
    assert [p.name for p in found] == ["random", "heuristic"]
