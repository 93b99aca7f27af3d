"""Reproducing a decision: the input rebuilt from a replay is what the referee sent, message for message."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import copy_bot, invoke, one_error, time_limit

from harness.bots.manifest import load_bot
from harness.errors import BotFault, FaultKind, HarnessError
from harness.games import REGISTRY, get_game
from harness.match import Clock, MatchConfig, TableSettings, hello_for, run_match
from harness.protocol.session import encode
from harness.referee import play_game
from harness.replay.io import ReplayWriter, read_replay
from harness.replay.records import REPLAY_FORMAT
from harness.replay.reproduce import mine_of, rebuild, rebuild_file

RECORDER = Path(__file__).resolve().parents[1] / "protocol" / "wire" / "recorder"


class _Any:
    """A player for any game: a seeded random legal action (from the state), every message kept."""

    def __init__(self, state: Any, seat: int, seed: int, fault_at: int | None) -> None:
        self.name, self.version = f"p{seat}", "1"
        self.state, self.seat = state, seat
        self.rng = random.Random(seed)
        self.fault_at = fault_at
        self.turns = 0
        self.messages: list[dict[str, Any]] = []
        self.reply: dict[str, Any] = {}

    def _keep(self, message: dict[str, Any]) -> None:
        self.messages.append(json.loads(encode(message)))  # what a bot reads on its stdin

    def begin(self, game_start: dict[str, Any]) -> None:
        self._keep(game_start)

    def notify(self, message: dict[str, Any]) -> None:
        self._keep(message)

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.turns += 1
        self._keep({**turn, "id": self.turns})
        action = self.rng.choice(list(self.state.legal_actions(self.seat)))
        self.reply = {"type": "action", "id": self.turns, **action.wire()}

    def receive(self) -> tuple[dict[str, Any], float]:
        if self.turns == self.fault_at:
            raise BotFault("no reply within the 1.00 s move limit", FaultKind.TIMEOUT)
        return self.reply, 0.002

    def faulted(self) -> str:
        return "its stderr"


def _play(game_name: str, path: Path, players: int, seed: int) -> list[_Any]:
    game = get_game(game_name)
    options = game.parse_options({})
    state = game.new_game(options, players, seed)
    seats = [_Any(state, s, seed * 10 + s, 4 if s == 1 else None) for s in range(players)]
    header = {
        "type": "header",
        "format": REPLAY_FORMAT,
        "game": game.name,
        **game.hello_fields(options),
        "options": options.to_dict(),
        "seed": seed,
        "match": 1,
        "match_games": 1,
        "bot_seeds": [seed + s for s in range(players)],
    }
    writer = ReplayWriter(path)
    play_game(game, state, seats, writer, header=header, game_no=1, seeds=header["bot_seeds"])
    writer.commit()
    return seats


@pytest.mark.parametrize("game_name", sorted(REGISTRY))
def test_every_decision_of_every_seat_is_rebuilt_exactly(game_name: str, tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    game = get_game(game_name)
    # a seat more than the fewest where the game seats it (no assumption of seat counts)
    seats = _play(game_name, path, players=min(game.min_players + 1, game.max_players), seed=3)
    records = read_replay(path)
    checked = 0
    for seat, player in enumerate(seats):
        turns = [i for i, m in enumerate(player.messages) if m["type"] == "turn"]
        decisions = len(mine_of(records, seat))
        assert decisions == len(turns) - (seat == 1)  # seat 1 faulted at its 4th turn
        for n in range(1, decisions + 1):
            given = rebuild(records, seat, n)
            hello = hello_for(
                game, game.parse_options({}), seat=seat, players=len(seats), games=1, clock=Clock()
            )
            assert given.messages[0] == hello and given.notes == []
            assert given.messages[1:] == player.messages[: turns[n - 1] + 1]  # message for message
            assert given.fault is None and given.recorded is not None
            checked += 1
    assert checked >= len(seats) + 3  # every seat decided, seat 1 three times before its fault
    # the turn at which seat 1 faulted: its input, and the fault recorded instead of an action
    faulted = seats[1]
    turns = [i for i, m in enumerate(faulted.messages) if m["type"] == "turn"]
    given = rebuild(records, 1, 4)
    assert given.messages[1:] == faulted.messages[: turns[3] + 1]
    assert given.fault is not None and given.fault.kind == "timeout" and given.recorded is None
    with pytest.raises(HarnessError, match="made 3 decisions in this game, then faulted at its next turn"):
        rebuild(records, 1, 5)
    # and from the command line, as JSON lines
    dump = invoke("replay", path, "--at", 4, "--seat", 1, "--dump", "-")
    assert dump.exit_code == 0, dump.output
    assert [json.loads(line) for line in dump.stdout.splitlines()] == given.messages


def _received(log: Path) -> list[str]:
    """What a recorder bot read on its stdin, line by line."""
    return [line[3:] for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("<< ")]


def test_the_input_is_what_real_bots_received_in_a_real_match(tmp_path: Path) -> None:
    bots = [
        copy_bot(RECORDER, tmp_path / "bots" / f"rec{i}", name=f"rec{i}", env=env)
        for i, env in enumerate([{}, {}, {"CHEAT_GAME": "1", "CHEAT_TURN": "3"}])
    ]
    out = tmp_path / "out"
    settings = TableSettings("llama", get_game("llama").parse_options({}), Clock(), out / "logs")
    with time_limit(120):
        run_match(MatchConfig(tuple(load_bot(b) for b in bots), 3, None, out, settings))
    logs = {b.name: _received(out / "logs" / f"{b.name}.stderr.log") for b in bots}
    fresh = exact = 0
    for game_no in (1, 2, 3):
        path = out / "replays" / f"game-{game_no:05d}.jsonl"
        header = read_replay(path)[0]
        for seat, player in enumerate(header.players):  # type: ignore[union-attr]
            lines = logs[player.name]
            decisions = len(mine_of(read_replay(path), seat))
            for n in sorted({1, (decisions + 1) // 2, decisions}):
                given = rebuild_file(path, seat, n)
                mine = [encode(m).decode().rstrip("\n") for m in given.messages]
                start = lines.index(mine[1])  # this game's game_start, as the bot read it
                if lines[start - 1].startswith('{"type":"hello"'):
                    # a process started for this game (the first, or after its fault): byte for byte
                    assert lines[start - 1 : start - 1 + len(mine)] == mine
                    fresh += 1
                else:
                    # a process that played earlier games: its turn ids go on counting
                    got = [json.loads(x) for x in lines[start : start + len(mine) - 1]]
                    first = next(m["id"] for m in got if m["type"] == "turn") - 1
                    for message in got:
                        if message["type"] == "turn":
                            message["id"] -= first
                    assert got == [json.loads(x) for x in mine[1:]]
                exact += 1
    assert fresh >= 4  # game 1 for every seat, and the cheater's restart in game 2
    assert exact >= 20


@pytest.fixture
def played(tmp_path: Path) -> Path:
    bots = [copy_bot(RECORDER, tmp_path / "bots" / f"rec{i}", name=f"rec{i}") for i in range(2)]
    out = tmp_path / "out"
    settings = TableSettings("llama", get_game("llama").parse_options({}), Clock(), out / "logs")
    with time_limit(60):
        run_match(MatchConfig(tuple(load_bot(b) for b in bots), 1, 7, out, settings))  # a fixed deal
    return out / "replays" / "game-00001.jsonl"


def test_dump_writes_the_input_and_a_deterministic_bot_answers_as_recorded(
    played: Path, tmp_path: Path
) -> None:
    dump = tmp_path / "input.jsonl"
    result = invoke("replay", played, "--at", "3", "--seat", "1", "--dump", dump)
    assert result.exit_code == 0, result.output
    assert dump.read_bytes() == rebuild_file(played, 1, 3).jsonl()
    lines = dump.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "hello" and json.loads(lines[-1])["type"] == "turn"
    assert sum(json.loads(line)["type"] == "turn" for line in lines) == 3
    to_stdout = invoke("replay", played, "--at", "3", "--seat", "1", "--dump", "-")
    assert to_stdout.stdout.encode() == dump.read_bytes()
    # the recorder seeds its choices from game_start.seed: fed the same input, it decides the same
    bot = tmp_path / "bots" / "rec1"
    result = invoke("replay", played, "--at", "3", "--seat", "1", "--bot", bot, "--sandbox", "none")
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0].startswith(f"{played}: seat 1, decision 3 (record ")
    assert out[1] == "turn:     " + encode(rebuild_file(played, 1, 3).messages[-1]).decode().strip()
    assert out[2].startswith("bot:      ") and out[3].startswith("recorded: ")
    assert out[3].endswith("→ the same")
    assert out[4] == "stderr (last lines):"
    assert any(line.startswith('  << {"type":"turn","id":3,') for line in out[5:])  # its stderr, shown


def test_a_different_bot_is_compared_with_the_recorded_decision(played: Path) -> None:
    heuristic = Path(__file__).resolve().parents[2] / "sample_bots" / "heuristic"
    records = read_replay(played)
    for n in range(1, len(mine_of(records, 0)) + 1):
        result = invoke("replay", played, "--at", n, "--seat", 0, "--bot", heuristic, "--sandbox", "none")
        assert result.exit_code == 0, result.output
        verdict = result.stdout.splitlines()[3]
        assert verdict.endswith(("→ the same", "→ DIFFERENT"))
        if verdict.endswith("DIFFERENT"):
            return
    pytest.fail("the heuristic bot agreed with the recorder at every decision")


def test_bad_requests_are_one_line_errors(played: Path, tmp_path: Path) -> None:
    decisions = len(mine_of(read_replay(played), 0))
    one_error(
        invoke("replay", played, "--at", decisions + 1, "--seat", 0, "--dump", "-"), f"made {decisions}"
    )
    one_error(invoke("replay", played, "--at", 1, "--dump", "-"), "--at N --seat K")
    one_error(invoke("replay", played, "--at", 1, "--seat", 0), "--bot DIR, --dump FILE")
    one_error(invoke("replay", played, "--at", 1, "--seat", 5, "--dump", "-"), "--seat 5")
    lines = played.read_text().splitlines()
    start = json.loads(lines[1])
    start["discard"] = start["discard"] % 7 + 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(start), *lines[2:]]) + "\n")
    one_error(invoke("replay", bad, "--at", 1, "--seat", 0, "--dump", "-"), str(bad), "does not verify")


def test_the_turn_a_bot_crashed_at_is_replayed_into_it(tmp_path: Path) -> None:
    from helpers import fault_bot, random_bot

    bots = tmp_path / "bots"
    crash = fault_bot(bots, "crash_mid")  # exits with status 3 at its second turn of game 1
    out = tmp_path / "out"
    settings = TableSettings("llama", get_game("llama").parse_options({}), Clock(), out / "logs")
    with time_limit(60):
        result = run_match(
            MatchConfig((load_bot(crash), load_bot(random_bot(bots, "r1"))), 1, 5, out, settings)
        )
    (fault,) = result.faults
    path = Path(fault["replay"])
    n = len(mine_of(read_replay(path), fault["seat"])) + 1
    reproduced = invoke(
        "replay", path, "--at", n, "--seat", fault["seat"], "--bot", crash, "--sandbox", "none"
    )
    assert reproduced.exit_code == 1, reproduced.output
    lines = reproduced.stdout.splitlines()
    # without a memory cgroup (an ordinary user) a crash names the rlimits in force too
    assert re.fullmatch(
        rf"bot:      faulted at turn {n}: crash: end of output \(stdout closed\), exited with status 3 "
        r"(\(under rlimits: .+?; see 'Limits without root' in docs/sandbox\.md\) )?"
        r"\(the bot stopped: read its stderr\)",
        lines[2],
    ), lines[2]
    assert lines[3] == "recorded: a fault: crash: end of output (stdout closed), exited with status 3"
    assert "  crash_mid: giving up now" in lines[4:]
