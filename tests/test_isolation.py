"""Information isolation: every message to a seat holds only what that seat may see.

Over many random games (hypothesis), recording players and the replay sink share one
timeline, so each message is audited against the true hidden state at the moment it
was sent: it must fit the closed wire schema (no unknown field can smuggle a card),
its ``hand`` must be the seat's own hand, counts must be counts, no draw event may
name the card drawn, and no other seat's hand, drawn card or the stock order may
appear anywhere in it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import BotFault, FaultKind
from harness.games.llama import LLAMA_GAME
from harness.games.llama.wire import TO_BOT
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


class Truth:
    """The hidden state, rebuilt from the replay records as they are written."""

    def __init__(self, players: int) -> None:
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stock: list[int] = []  # top first

    def apply(self, record: dict[str, Any]) -> None:
        if record["type"] == "round_start":
            self.hands = [list(hand) for hand in record["hands"]]
            self.stock = list(record["stock"])
        elif record["type"] == "action":
            seat = record["seat"]
            if record["action"] == "play":
                self.hands[seat].remove(record["card"])
            elif record["action"] == "draw":
                assert record["drawn"] == self.stock.pop(0)
                self.hands[seat].append(record["drawn"])


def _walk(value: Any) -> list[tuple[str, Any]]:
    """Every (key, value) pair anywhere in a JSON value."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((key, item))
            found.extend(_walk(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_walk(item))
    return found


def audit(seat: int, message: dict[str, Any], truth: Truth) -> None:
    """Fail if ``message`` to ``seat`` reveals anything ``seat`` may not see."""
    TO_BOT.validate_python(message)  # closed models: extra fields are refused
    kind = message["type"]
    pairs = _walk(message)
    keys = {key for key, _ in pairs}
    assert not keys & {"hands", "drawn", "deck", "stock_order"}, (seat, message)
    for key, value in pairs:
        if key == "stock":
            assert value == len(truth.stock), "stock must be a count"
        if key == "hand":
            assert sorted(value) == sorted(truth.hands[seat]), (seat, message)
        if key == "events":
            for event in value:
                if event["action"] == "draw":
                    assert set(event) == {"seat", "action"}, event  # never the card drawn
    if kind in ("turn", "round_start"):
        counts = [entry["cards"] for entry in message["players"]]
        assert counts == [len(hand) for hand in truth.hands]
    text = json.dumps(message, separators=(",", ":"))
    if len(truth.stock) >= 4:  # the stock order, as any run of 4+ cards, appears nowhere
        for start in range(len(truth.stock) - 3):
            run = json.dumps(truth.stock[start : start + 4], separators=(",", ":"))[1:-1]
            assert run not in text or _own_coincidence(run, message, truth, seat), (seat, run, message)
    for other, hand in enumerate(truth.hands):
        if other != seat and len(hand) >= 2 and sorted(hand) != sorted(truth.hands[seat]):
            shown = json.dumps(sorted(hand), separators=(",", ":"))
            assert f'"hand":{shown}' not in text, (seat, other, message)


def _own_coincidence(run: str, message: dict[str, Any], truth: Truth, seat: int) -> bool:
    """A run of stock cards may match the seat's own hand or a public list by chance."""
    public = {
        json.dumps(value, separators=(",", ":"))
        for key, value in _walk(message)
        if key in ("hand", "scores", "penalties", "returned", "placements")
    }
    return any(run in text for text in public)


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

    truth = Truth(players)
    audited = 0
    for what, seat, item in timeline:
        if what == "record":
            truth.apply(item)
        else:
            audit(seat, item, truth)
            audited += 1
    assert audited > players  # the audit saw the game, not just its start


def test_audit_catches_a_leak() -> None:
    """The audit itself fails on a message that shows another hand or the card drawn."""
    truth = Truth(2)
    truth.apply({"type": "round_start", "hands": [[1, 2, 3, 4, 5, 6], [7, 7, 1, 1, 2, 2]], "stock": [3, 4, 5, 6, 1]})
    players = [{"cards": 6, "quit": False, "score": 0}] * 2
    turn = {"type": "turn", "id": 1, "game": 1, "round": 1, "seat": 0, "hand": [1, 2, 3, 4, 5, 6],
            "discard": 1, "stock": 5, "players": players, "legal": [{"action": "quit"}], "events": []}
    audit(0, turn, truth)  # the honest message passes
    leaks = [
        {**turn, "hand": [1, 1, 2, 2, 7, 7]},  # seat 1's hand
        {**turn, "events": [{"seat": 1, "action": "draw", "card": 3}]},  # the card drawn
        {**turn, "stock": [3, 4, 5, 6, 1]},  # the stock order
        {**turn, "hands": [[1, 2, 3, 4, 5, 6]]},  # a smuggled field
    ]
    for leak in leaks:
        try:
            audit(0, leak, truth)
        except (AssertionError, ValueError):
            continue
        raise AssertionError(f"the audit missed {leak}")
