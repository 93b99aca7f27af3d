"""Real bot processes that misbehave, one kind each (tests/bots/*), through run_match.

Each match seats the fault bot with two random bots for two games. The fault bot
misbehaves in game 1 only; the fault must be recorded with the right kind, the seat
forced to quit and placed last, game 2 must be normal, every replay must verify, and
no process of any bot may be left.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import bot_processes, fault_bot, no_bot_processes_left, pid_alive, random_bot, time_limit

from harness.bots.manifest import load_bot
from harness.games.llama import LLAMA_GAME
from harness.games.llama.records import ActionRecord, FaultRecord, GameEndRecord, Header, Record
from harness.match import Clock, MatchConfig, MatchResult, TableSettings, run_match
from harness.referee import GameResult
from harness.replay.io import read_replay
from harness.replay.verify import verify

FAST = 0.5  # move time for bots that hang: the one wait costs this much (plus 1 s of grace)


@dataclass
class Run:
    result: MatchResult
    games: list[GameResult]
    summary: dict[str, Any]
    replays: list[list[Record]]
    bots: Path
    logs: Path
    name: str  # the fault bot's name


def play(
    tmp_path: Path, kind: str, *, move: float = 5.0, games: int = 2, env: dict[str, str] | None = None
) -> Run:
    bots = tmp_path / "bots"
    folder = fault_bot(bots, kind)
    if env:
        from helpers import copy_bot

        folder = copy_bot(folder, bots / f"{kind}-env", env=env)
    specs = tuple(load_bot(p) for p in (folder, random_bot(bots, "r1"), random_bot(bots, "r2")))
    out = tmp_path / "out"
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({"end_score": 25}),
        clock=Clock(startup=10.0, move=move),
        logs=out / "logs",
    )
    done: list[GameResult] = []
    with time_limit(60):
        result = run_match(MatchConfig(specs, games, 11, out, settings), lambda _, r: done.append(r))
    summary = json.loads((out / "summary.json").read_text())
    replays = [read_replay(path) for path in summary["replays"]]
    return Run(result, done, summary, replays, bots, out / "logs", specs[0].name)


def check_fault(run: Run, kind: str, game: int = 1) -> FaultRecord:
    """The fault bot faulted once, in ``game``, with ``kind``; everything else is normal."""
    assert [(f["game"], f["bot"], f["kind"]) for f in run.summary["faults"]] == [(game, run.name, kind)]
    assert run.summary["bots"][run.name]["faults"] == 1
    assert run.summary["games"] == len(run.replays) == len(run.games)
    fault_record: FaultRecord | None = None
    for number, (records, result) in enumerate(zip(run.replays, run.games, strict=True), 1):
        assert verify(records) is None, f"game {number}: {verify(records)}"
        header = records[0]
        assert isinstance(header, Header)
        seat = [p.name for p in header.players].index(run.name)
        end = records[-1]
        assert isinstance(end, GameEndRecord)
        faults = [r for r in records if isinstance(r, FaultRecord)]
        mine = [r for r in records if isinstance(r, ActionRecord) and r.seat == seat]
        if number != game:  # unaffected
            assert faults == [] and result.faults == []
            assert not any(r.forced for r in records if isinstance(r, ActionRecord))
            assert end.forfeited == [False] * len(header.players)
            continue
        assert [(f.seat, f.kind) for f in faults] == [(seat, kind)]
        assert [(f.seat, f.bot, f.kind) for f in result.faults] == [(seat, run.name, kind)]
        at = records.index(faults[0])
        before = [r for r in mine if records.index(r) < at]
        after = [r for r in mine if records.index(r) > at]
        assert not any(r.forced for r in before)
        assert after and all(r.forced and r.action == "quit" and r.ms is None for r in after)
        others = [r for r in records if isinstance(r, ActionRecord) and r.seat != seat]
        assert not any(r.forced for r in others)
        assert end.forfeited == [s == seat for s in range(len(header.players))]
        assert result.forfeited == end.forfeited
        assert seat not in end.winners
        assert end.placements[seat] > max(p for s, p in enumerate(end.placements) if s != seat)
        fault_record = faults[0]
    assert fault_record is not None
    assert no_bot_processes_left(run.bots), bot_processes(run.bots)
    return fault_record


def test_crash_before_hello_then_a_normal_restart(tmp_path: Path) -> None:
    run = play(tmp_path, "crash_start")
    fault = check_fault(run, "crash")
    assert "exiting before hello" in fault.stderr
    # no action of the seat reached the bot: every one is forced
    seat = [p.name for p in run.replays[0][0].players].index(run.name)  # type: ignore[union-attr]
    mine = [r for r in run.replays[0] if isinstance(r, ActionRecord) and r.seat == seat]
    assert mine and all(r.forced for r in mine)
    assert run.replays[0].index(next(r for r in run.replays[0] if isinstance(r, FaultRecord))) == 1


def test_crash_at_every_start_faults_every_game(tmp_path: Path) -> None:
    run = play(tmp_path, "crash_start", games=3, env={"CRASH_ALWAYS": "1"})
    assert [(f["game"], f["kind"]) for f in run.summary["faults"]] == [
        (1, "crash"),
        (2, "crash"),
        (3, "crash"),
    ]
    for records in run.replays:
        assert verify(records) is None
        end = records[-1]
        assert isinstance(end, GameEndRecord) and sum(end.forfeited) == 1
    assert no_bot_processes_left(run.bots)


def test_no_hello_before_the_startup_deadline_is_a_timeout(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    mute = bots / "mute"
    mute.mkdir(parents=True)
    (mute / "bot.toml").write_text('name = "mute"\ncommand = ["sleep", "3600"]\n')
    out = tmp_path / "out"
    settings = TableSettings(
        "llama", LLAMA_GAME.parse_options({}), Clock(startup=1.0, move=5.0), out / "logs"
    )
    with time_limit(60):
        result = run_match(
            MatchConfig((load_bot(mute), load_bot(random_bot(bots, "r1"))), 1, 1, out, settings)
        )
    assert [(f["bot"], f["kind"]) for f in result.faults] == [("mute", "timeout")]
    assert "handshake: no reply within the 1.00 s start-up limit" in result.faults[0]["detail"]
    assert verify(read_replay(result.replays[0])) is None
    assert no_bot_processes_left(bots)


def test_crash_mid_game(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "crash_mid"), "crash")
    assert "giving up now" in fault.stderr


def test_hang_times_out(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "hang", move=FAST), "timeout")
    assert "no reply within the 0.50 s move limit, nor 1.00 s later" in fault.detail


def test_not_json_is_malformed(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "not_json"), "malformed")
    assert "I draw a card" in fault.detail


def test_invalid_utf8_is_malformed(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "bad_utf8"), "malformed")
    assert "\\xe9" in fault.detail


def test_valid_json_of_the_wrong_shape_is_invalid(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "wrong_shape"), "invalid")
    assert "action" in fault.detail


def test_a_card_not_in_hand_is_illegal(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "illegal"), "illegal")
    assert "not in hand" in fault.detail


def test_a_line_over_one_mib_is_malformed(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "huge_line"), "malformed")
    assert "exceeds" in fault.detail
    assert len(fault.detail) < 1000


def test_a_reply_left_in_the_buffer_times_out(tmp_path: Path) -> None:
    check_fault(play(tmp_path, "no_flush", move=FAST), "timeout")


def test_an_unsolicited_line_is_invalid(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "unsolicited"), "invalid")
    assert "thinking hard" in fault.detail


def test_a_late_reply_is_a_timeout_and_never_answers_the_next_turn(tmp_path: Path) -> None:
    run = play(tmp_path, "late_reply", move=FAST)
    check_fault(run, "timeout")
    # the bot was stopped and restarted: game 2 has the same seat's moves all unforced
    seat = [p.name for p in run.replays[1][0].players].index(run.name)  # type: ignore[union-attr]
    mine = [r for r in run.replays[1] if isinstance(r, ActionRecord) and r.seat == seat]
    assert mine and not any(r.forced for r in mine)


def test_a_setsid_grandchild_holding_stdout_is_killed(tmp_path: Path) -> None:
    (tmp_path / "pids").mkdir()
    run = play(tmp_path, "setsid_child", move=FAST, env={"PID_DIR": str(tmp_path / "pids")})
    # the bot exited but its grandchild still holds stdout: no EOF, so the deadline decides
    check_fault(run, "crash")
    pids = [int(p.read_text()) for p in (tmp_path / "pids").glob("grandchild-*.pid")]
    assert len(pids) == 2  # one per start: game 1, and the restart for game 2
    assert not any(pid_alive(pid) for pid in pids)


def test_a_stderr_flood_neither_deadlocks_nor_fills_the_disk(tmp_path: Path) -> None:
    run = play(tmp_path, "stderr_flood")
    assert run.summary["faults"] == []
    assert all(verify(records) is None for records in run.replays)
    log = (run.logs / f"{run.name}.stderr.log").read_bytes()
    assert (1 << 20) <= len(log) <= (1 << 20) + 200
    assert log.rstrip().endswith(b"[harness: stderr log capped here; the rest was discarded]")
    assert log.count(b"capped here") == 1
    assert no_bot_processes_left(run.bots)


def test_endless_stderr_while_hanging_is_a_timeout_not_a_livelock(tmp_path: Path) -> None:
    fault = check_fault(play(tmp_path, "stderr_forever", move=FAST), "timeout")
    assert "still thinking" in fault.stderr
    assert len(fault.stderr) <= 4096


def test_duplicate_replies_are_discarded_without_a_fault(tmp_path: Path) -> None:
    run = play(tmp_path, "duplicate")
    assert run.summary["faults"] == []
    assert all(verify(records) is None for records in run.replays)
    assert no_bot_processes_left(run.bots)


@pytest.mark.parametrize("kind", ["hang", "crash_mid"])
def test_faults_in_a_gzip_match_leave_valid_replays(tmp_path: Path, kind: str) -> None:
    # a different path through the writer: the fault record goes into a .gz replay
    bots = tmp_path / "bots"
    specs = tuple(load_bot(p) for p in (fault_bot(bots, kind), random_bot(bots, "r1")))
    out = tmp_path / "out"
    settings = TableSettings("llama", LLAMA_GAME.parse_options({}), Clock(10.0, FAST), out / "logs")
    with time_limit(60):
        result = run_match(MatchConfig(specs, 1, 3, out, settings, compress=True))
    assert [f["kind"] for f in result.faults] == ["timeout" if kind == "hang" else "crash"]
    (path,) = result.replays
    assert path.endswith(".jsonl.gz")
    assert verify(read_replay(path)) is None
    assert no_bot_processes_left(bots)


class _Fake:
    """A Player without a process: plays the first legal action; fails on one message type."""

    def __init__(self, name: str, fail_on: str | None = None) -> None:
        self.name, self.version, self.fail_on, self.stopped = name, "1", fail_on, 0

    def begin(self, game_start: dict[str, Any]) -> None:
        self.notify(game_start)

    def notify(self, message: dict[str, Any]) -> None:
        if message["type"] == self.fail_on:
            from harness.errors import BotCrashed

            raise BotCrashed("stdin closed (Broken pipe)")

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.legal = turn["legal"]

    def receive(self) -> tuple[dict[str, Any], float]:
        return {"type": "action", "id": 1, **self.legal[0]}, 0.001

    def faulted(self) -> str:
        self.stopped += 1
        return "tail"


@pytest.mark.parametrize("fail_on", ["game_start", "round_start", "round_end", "game_end"])
def test_a_fault_while_being_told_something(fail_on: str) -> None:
    from harness.games.llama.records import RECORD
    from harness.referee import play_game

    class Sink(list[dict[str, Any]]):
        def write(self, record: dict[str, Any]) -> None:
            self.append(record)

    options = LLAMA_GAME.parse_options({})
    header = {
        "type": "header",
        "format": 1,
        "game": "llama",
        "variant": "standard",
        "options": options.to_dict(),
        "seed": 5,
        "match": 1,
    }
    sink = Sink()
    players = [_Fake("a", fail_on), _Fake("b")]
    result = play_game(
        LLAMA_GAME, LLAMA_GAME.new_game(options, 2, 5), players, sink, header=header, game_no=1, seeds=[1, 2]
    )
    records = [RECORD.validate_json(json.dumps(r)) for r in sink]
    assert verify(records) is None
    assert players[0].stopped == 1 and players[1].stopped == 0
    if fail_on == "game_end":
        # the game was over: the fault is in the results, the bot is stopped (it restarts
        # next game), the placements and the replay stay as they were
        assert [(f.seat, f.kind, f.stderr) for f in result.faults] == [(0, "crash", "tail")]
        assert result.faults[0].detail.startswith("after the game ended: ")
        assert result.forfeited == [False, False] == sink[-1]["forfeited"]
        assert sink[-1]["type"] == "game_end"
    else:
        assert [(f.seat, f.kind, f.stderr) for f in result.faults] == [(0, "crash", "tail")]
        assert result.forfeited == [True, False] == sink[-1]["forfeited"]
