"""The referee's one loop on a simultaneous game: every acting seat asked at once, one joint action."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import copy_bot, fault_bot, time_limit
from simultaneous_game import PICK

from harness import games
from harness.bots.manifest import load_bot
from harness.errors import BotFault, FaultKind
from harness.match import Clock, Table, TableSettings
from harness.referee import play_game


class Sink(list[dict[str, Any]]):
    def write(self, record: dict[str, Any]) -> None:
        self.append(record)


class FakePlayer:
    """A Player that picks at random among ``turn["legal"]`` and keeps every message."""

    def __init__(self, name: str, seed: int) -> None:
        self.name, self.version = name, "1"
        self.rng = random.Random(seed)
        self.turns = 0
        self.messages: list[dict[str, Any]] = []
        self.turn: dict[str, Any] = {}

    def begin(self, game_start: dict[str, Any]) -> None:
        self.messages.append(game_start)

    def notify(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.turns += 1
        turn["id"] = self.turns
        self.turn = turn
        self.messages.append(turn)

    def receive(self) -> tuple[dict[str, Any], float]:
        return {"type": "action", "id": self.turns, **self.rng.choice(self.turn["legal"])}, 0.001

    def faulted(self) -> str:
        return ""


class Liar(FakePlayer):
    """Answers a pick the rules forbid on its ``bad``-th turn."""

    def __init__(self, name: str, bad: int, reply: dict[str, Any]) -> None:
        super().__init__(name, 1)
        self.bad, self.reply = bad, reply

    def receive(self) -> tuple[dict[str, Any], float]:
        if self.turns == self.bad:
            return {"type": "action", "id": self.turns, **self.reply}, 0.001
        return super().receive()


def play(players: list[Any]) -> tuple[Any, Sink]:
    sink = Sink()
    state = PICK.new_game(PICK.parse_options({}), len(players), 1)
    header = {"type": "header", "game": "pick", "options": {"steps": 3}, "seed": 1, "match": 1}
    result = play_game(PICK, state, players, sink, header=header, game_no=1, seeds=[0] * len(players))
    return result, sink


def test_every_seat_acts_at_once_and_notices_stay_private() -> None:
    players = [FakePlayer(f"p{s}", s) for s in range(3)]
    result, sink = play(players)
    kinds = [r["type"] for r in sink]
    # per step: the three action records, then the game's reveal
    assert kinds == ["header", "start"] + ["action"] * 3 + ["reveal"] + ["action"] * 3 + ["reveal"] + [
        "action"
    ] * 3 + ["reveal", "game_end"]
    reveals = [r["picks"] for r in sink if r["type"] == "reveal"]
    for seat, player in enumerate(players):
        turns = [m for m in player.messages if m["type"] == "turn"]
        assert [t["step"] for t in turns] == [1, 2, 3] and all(t["seat"] == seat for t in turns)
        picked = [m for m in player.messages if m["type"] == "picked"]
        assert picked == [{"type": "picked", "game": 1, "yours": picks[seat]} for picks in reveals]
    assert result.scores == [sum(p[s] for p in reveals) for s in range(3)]
    assert result.moves == 9 and result.statistics == {"reveals": [3.0]}


@pytest.mark.parametrize(
    ("reply", "kind"), [({"pick": 7}, "illegal"), ({"pick": "1"}, "invalid"), ({}, "invalid")]
)
def test_a_bad_reply_forces_that_seat_only(reply: dict[str, Any], kind: str) -> None:
    players = [FakePlayer("p0", 0), Liar("liar", 2, reply), FakePlayer("p2", 2)]
    result, sink = play(players)
    faults = [r for r in sink if r["type"] == "fault"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(1, kind)]
    actions = [r for r in sink if r["type"] == "action"]
    assert [(a["seat"], a.get("forced", False)) for a in actions[3:6]] == [(0, False), (1, True), (2, False)]
    assert actions[4]["pick"] == 0  # the forced pick
    assert result.forfeited == [False, True, False]
    # the faulted seat gets nothing more: no notice of the step it faulted in
    assert [m["type"] for m in players[1].messages].count("picked") == 1


def test_a_fault_while_sending_a_turn_forces_the_seat() -> None:
    class Deaf(FakePlayer):
        def send_turn(self, turn: dict[str, Any]) -> None:
            raise BotFault("stdin closed (Broken pipe)", FaultKind.CRASH)

    result, sink = play([FakePlayer("p0", 0), Deaf("deaf", 1)])
    assert [(r["seat"], r["kind"]) for r in sink if r["type"] == "fault"] == [(1, "crash")]
    assert result.forfeited == [False, True] and result.placements[1] == 2


def _received(log: Path) -> list[float]:
    return [float(t) for t in re.findall(r"turn at ([0-9.]+)", log.read_text())]


def test_bot_processes_think_in_parallel_each_under_its_own_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(games.REGISTRY, "pick", PICK)
    bots = [
        load_bot(
            copy_bot(
                Path(__file__).parent / "bots" / "slow",
                tmp_path / f"s{i}",
                name=f"s{i}",
                env={"SLOW_MS": "300"},
            )
        )
        for i in range(3)
    ]
    hang = load_bot(fault_bot(tmp_path, "hang"))
    settings = TableSettings("pick", PICK.parse_options({}), Clock(10.0, 1.0), tmp_path / "logs")
    with time_limit(60), Table([*bots, hang], settings, games=1) as table:
        result = table.play(1, [b.name for b in [*bots, hang]], 1, tmp_path / "g1.jsonl")
    assert [(f.seat, f.kind) for f in result.faults] == [(3, "timeout")]
    # every slow bot got each step's turn before any of them had answered it (300 ms each)
    received = [_received(tmp_path / "logs" / f"s{i}.stderr.log") for i in range(3)]
    assert all(len(times) == 3 for times in received)
    for step in range(3):
        at = [times[step] for times in received]
        assert max(at) - min(at) < 0.2, at
    # step 1 costs one bot's 300 ms, not three; step 2 (the hang bot's 2nd turn) costs
    # its 1 s deadline and the 1 s the session waits past it to tell slow from silent,
    # during which the others' 300 ms pass: not 2 s + 3 x 300 ms
    first, second = received[0][1] - received[0][0], received[0][2] - received[0][1]
    assert 0.3 <= first < 0.6 and 2.0 <= second < 2.5, received
