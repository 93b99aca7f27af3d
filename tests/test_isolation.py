"""Information isolation: every message to a seat holds only what that seat may see.

Over many random games (hypothesis), recording players and the replay sink share one
timeline, so each message is audited against the true hidden state at the moment it
was sent, by the game's own auditor (the conformance suite's, harness/games/llama/audit.py):
it must fit the closed wire schema (no unknown field can smuggle a card), its ``hand``
must be the seat's own hand, counts must be counts, no draw event may name the card
drawn, and no other seat's hand, drawn card or the stock order may appear anywhere in
it. Here the faults of random seats are in play too, and each draw is checked against
the top of the stock.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import BotFault, FaultKind
from harness.games.llama import LLAMA_GAME
from harness.games.llama.audit import Auditor
from harness.referee import play_game
from harness.replay.records import REPLAY_FORMAT

Timeline = list[tuple[str, int, dict[str, Any]]]  # ("record", -1, r) or ("message", seat, m)


class Recorder:
    """A seat that plays at random and logs every message it receives on the shared timeline."""

    def __init__(self, seat: int, timeline: Timeline, seed: int, fault_at: int | None) -> None:
        self.name = f"seat{seat}"
        self.version = "1"
        self.seat = seat
        self.timeline = timeline
        self.rng = random.Random(seed)
        self.fault_at = fault_at
        self.turns = 0
        self._legal: list[dict[str, Any]] = []

    def _keep(self, message: dict[str, Any]) -> None:
        self.timeline.append(("message", self.seat, json.loads(json.dumps(message))))

    def begin(self, game_start: dict[str, Any]) -> None:
        self._keep(game_start)

    def notify(self, message: dict[str, Any]) -> None:
        self._keep(message)

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.turns += 1
        turn["id"] = self.turns
        self._keep(turn)
        self._legal = turn["legal"]

    def receive(self) -> tuple[dict[str, Any], float]:
        if self.turns == self.fault_at:
            raise BotFault("no reply in time", FaultKind.TIMEOUT)
        return {"type": "action", "id": self.turns, **self.rng.choice(self._legal)}, 0.001

    def faulted(self) -> str:
        return ""


def learn(auditor: Auditor, record: dict[str, Any]) -> None:
    """Feed a replay record to the auditor, checking that a draw took the top of the stock."""
    if record["type"] == "action" and record["action"] == "draw":
        assert record["drawn"] == auditor.stock[0], record
    auditor.record(record)


def audit(auditor: Auditor, seat: int, message: dict[str, Any]) -> None:
    problem = auditor.message(seat, message)
    assert problem is None, (seat, problem, message)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**32),
    variant=st.sampled_from(["standard", "komary"]),
    next_starter=st.sampled_from(["ender", "last_play", "rotate"]),
    end_score=st.integers(min_value=10, max_value=40),
    fault=st.one_of(st.none(), st.tuples(st.integers(0, 5), st.integers(1, 30))),
)
def test_no_message_reveals_hidden_cards(
    players: int, seed: int, variant: str, next_starter: str, end_score: int, fault: tuple[int, int] | None
) -> None:
    options = LLAMA_GAME.parse_options({"variant": variant, "next_starter": next_starter, "end_score": end_score})
    state = LLAMA_GAME.new_game(options, players, seed)
    timeline: Timeline = []
    seats = [
        Recorder(s, timeline, seed + s, fault[1] if fault and fault[0] == s else None) for s in range(players)
    ]

    class Sink:
        def write(self, record: dict[str, Any]) -> None:
            timeline.append(("record", -1, json.loads(json.dumps(record))))

    header = {"type": "header", "format": REPLAY_FORMAT, "game": "llama", "variant": variant,
              "options": options.to_dict(), "seed": seed, "match": 1}
    play_game(LLAMA_GAME, state, seats, Sink(), header=header, game_no=1, seeds=list(range(players)))

    auditor = LLAMA_GAME.auditor(players)  # the conformance suite's, through the real referee
    audited = 0
    for what, seat, item in timeline:
        if what == "record":
            learn(auditor, item)
        else:
            audit(auditor, seat, item)
            audited += 1
    assert audited > players  # the audit saw the game, not just its start


def test_audit_catches_a_leak() -> None:
    """The audit itself fails on a message that shows another hand or the card drawn."""
    auditor = LLAMA_GAME.auditor(2)
    auditor.record({"type": "round_start", "hands": [[1, 2, 3, 4, 5, 6], [7, 7, 1, 1, 2, 2]], "stock": [3, 4, 5, 6, 1]})
    players = [{"cards": 6, "quit": False, "score": 0}] * 2
    turn = {"type": "turn", "id": 1, "game": 1, "round": 1, "seat": 0, "hand": [1, 2, 3, 4, 5, 6],
            "discard": 1, "stock": 5, "players": players, "legal": [{"action": "quit"}], "events": []}
    audit(auditor, 0, turn)  # the honest message passes
    leaks = [
        {**turn, "hand": [1, 1, 2, 2, 7, 7]},  # seat 1's hand
        {**turn, "events": [{"seat": 1, "action": "draw", "card": 3}]},  # the card drawn
        {**turn, "stock": [3, 4, 5, 6, 1]},  # the stock order
        {**turn, "hands": [[1, 2, 3, 4, 5, 6]]},  # a smuggled field
    ]
    for leak in leaks:
        assert auditor.message(0, leak) is not None, f"the audit missed {leak}"
