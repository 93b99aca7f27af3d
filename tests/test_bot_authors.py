"""What a bot author sees: check-bot names the cause of the usual mistakes, CRLF is fine.

The three broken bots in tests/bots/ make one typical mistake each (a warm-up done at
the first turn, an exit after game_end, a line written for each notification); each
check-bot run must print the message that names it. A failed build shows its log.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import TEST_BOTS, invoke, random_bot, time_limit

from harness.bots.manifest import load_bot
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, TableSettings, run_match
from harness.replay.io import read_replay
from harness.replay.verify import verify

SAMPLE_RANDOM = Path(__file__).resolve().parents[1] / "sample_bots" / "random"

# broken bot → (a line check-bot must print, as a regular expression; a phrase it must not print)
BROKEN = {
    "slow_first_move": (
        r"FAIL position: first turn: timeout: the reply to turn 1 came after 0\.\d\d s, over the "
        r"0\.30 s move limit: warm up \(load, compile, JIT\) before the hello reply, not at the first turn",
        "flush stdout",
    ),
    "exits_after_end": (
        r"FAIL keeps reading after game_end: the process exited after game_end; keep reading until shutdown",
        "FAIL position",  # every position passes: the exits are restarted, not blamed on them
    ),
    "answers_notices": (
        r"FAIL position: first turn: invalid: a line that answers no turn arrived before the reply to "
        r"turn 1, after game_start, round_start: '\{\"type\": \"ok\", \"got\": \"game_start\"\}'; "
        r"notifications need no reply",
        "does not validate",
    ),
}


@pytest.mark.parametrize("bot", sorted(BROKEN))
def test_check_bot_names_the_mistake(bot: str) -> None:
    wanted, unwanted = BROKEN[bot]
    with time_limit(120):
        result = invoke(
            "check-bot", TEST_BOTS / bot, "--move-time", "0.3", "-n", "1", "--opponent", SAMPLE_RANDOM
        )
    assert result.exit_code == 1, result.output
    assert re.search(f"^{wanted}", result.output, re.MULTILINE), result.output
    assert unwanted not in result.output, result.output


def test_an_exit_after_game_end_is_named_in_a_match_too(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    specs = (load_bot(TEST_BOTS / "exits_after_end"), load_bot(random_bot(bots, "r1")))
    out = tmp_path / "out"
    settings = TableSettings(
        "llama", LLAMA_GAME.parse_options({"end_score": 20}), Clock(10.0, 2.0), out / "logs"
    )
    with time_limit(60):
        result = run_match(MatchConfig(specs, 2, 1, out, settings))
    (fault,) = result.faults
    assert (fault["bot"], fault["game"], fault["kind"]) == ("exits_after_end", 2, "crash")
    assert fault["detail"].endswith(": the process exited after game_end; keep reading until shutdown")


def test_crlf_line_endings_are_accepted(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    specs = (load_bot(TEST_BOTS / "crlf"), load_bot(random_bot(bots, "r1")))
    out = tmp_path / "out"
    settings = TableSettings(
        "llama", LLAMA_GAME.parse_options({"end_score": 20}), Clock(10.0, 2.0), out / "logs"
    )
    with time_limit(60):
        result = run_match(MatchConfig(specs, 2, 7, out, settings))
    assert result.faults == []
    replays = [read_replay(path) for path in result.replays]
    assert all(verify(records) is None for records in replays)
    # the CRLF bot really moved: unforced actions with a time, in both seats it held
    moves = [r for records in replays for r in records if r.type == "action" and r.ms is not None]
    assert {r.seat for r in moves} == {0, 1}


def test_a_failed_build_shows_the_end_of_its_log_and_keeps_it(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "broken"\ncommand = ["./bot"]\n'
        'build = ["sh", "-c", "for i in $(seq 1 40); do echo line $i; done; '
        "echo 'bot.c:3:1: error: expected declaration' >&2; exit 2\"]\n"
    )
    with time_limit(60):
        result = invoke("check-bot", folder, "--sandbox", "none")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    fail = next(i for i, line in enumerate(lines) if line.startswith("FAIL build: "))
    assert "build failed with exit 2" in lines[fail] and "the log is kept" in lines[fail]
    shown = lines[fail + 1 : fail + 16]
    assert shown[-1] == "    | bot.c:3:1: error: expected declaration"
    assert shown[0] == "    | line 27" and all(line.startswith("    | ") for line in shown)
    found = re.search(r"\(log: (\S+)\)", lines[fail])
    assert found, lines[fail]
    log = Path(found.group(1))
    assert log.is_file() and "expected declaration" in log.read_text()
    shutil.rmtree(log.parent.parent)  # check-bot's own temporary folder, kept for the author


def test_check_bot_prints_the_command_that_replays_the_faulty_turn(tmp_path: Path) -> None:
    out = tmp_path / "check"
    with time_limit(120):
        result = invoke(
            "check-bot", TEST_BOTS / "crash_mid", "-n", "1", "--opponent", SAMPLE_RANDOM, "--out", out
        )
    (line,) = [x for x in result.output.splitlines() if x.startswith("FAIL games against random")]
    found = re.search(
        r"replay that turn: (llama-harness replay (\S+) --at (\d+) --seat (\d+) --bot (\S+)); its stderr ends with", line
    )
    assert found, line
    _, replay, at, seat, bot = found.groups()
    assert Path(replay).is_file() and Path(bot) == TEST_BOTS / "crash_mid"
    again = invoke("replay", replay, "--at", at, "--seat", seat, "--bot", bot, "--sandbox", "none")
    assert "crash_mid: giving up now" in again.stdout, again.output


@pytest.mark.skipif(
    shutil.which("java") is None or shutil.which("javac") is None, reason="no JDK installed (java, javac)"
)
@pytest.mark.slow
def test_a_jvm_bot_with_the_documented_flags_passes_check_bot(tmp_path: Path) -> None:
    # docs/protocol.md, Runtimes: with these flags the JVM builds, starts and plays under
    # the default limits, a memory cgroup or (without one) 2 GiB of private memory per process
    folder = shutil.copytree(TEST_BOTS / "java_bot", tmp_path / "java_bot")
    with time_limit(180):
        result = invoke("check-bot", folder, "-n", "1", "--opponent", SAMPLE_RANDOM)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith("is ready")


def test_a_match_names_the_command_that_replays_a_faulty_turn(tmp_path: Path) -> None:
    from helpers import fault_bot

    bots = tmp_path / "bots"
    illegal = fault_bot(bots, "illegal")
    with time_limit(120):
        result = invoke("match", illegal, random_bot(bots, "r1"), "-n", "1", "--out", tmp_path / "out")
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("fault: ")]
    found = re.search(
        r" · replay that turn: llama-harness replay (\S+) --at (\d+) --seat (\d+) --bot (\S+)$", line
    )
    assert found, line
    replay, at, seat, bot = found.groups()
    assert Path(bot) == illegal
    again = invoke("replay", replay, "--at", at, "--seat", seat, "--bot", bot, "--sandbox", "none")
    lines = again.stdout.splitlines()
    assert any(x.startswith("recorded: a fault: illegal: illegal move") for x in lines), again.output
    assert any(x.startswith("bot:      not legal here: ") for x in lines), again.output
