"""Information isolation for Llama Llama: what each seat may know, rebuilt from the replay records.

The conformance suite feeds every record to :class:`Auditor` as it is written and asks
it about every message to a seat. A message must fit the closed wire models (no unknown
field can smuggle a card), its ``hand`` must be the seat's own, and every card id it
names must be one the seat may know this round: the hand it was dealt, the cards it
received, and the goals revealed. Never another hand, a dummy's hand, a face-down goal
or what passed between others.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import ValidationError

from harness.errors import one_line
from harness.games.llama_llama.wire import TO_BOT

CARD_KEYS = frozenset({"hand", "goal", "card", "cards", "passed", "received", "goals"})


def card_ids(value: Any, key: str | None = None) -> Iterator[int]:
    """Every card id named anywhere in a message (the values of card-holding fields)."""
    if isinstance(value, dict):
        for child, item in value.items():
            yield from card_ids(item, child)
    elif isinstance(value, list):
        for item in value:
            yield from card_ids(item, key)
    elif key in CARD_KEYS and isinstance(value, int) and not isinstance(value, bool):
        yield value


class Auditor:
    """The hidden truth of one game, and the check of each message against it."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.round = 0
        self.hands: list[list[int]] = []
        self.displays: list[int] = []
        self.owners: list[int] = []
        self.revealed = 0
        self.goal: list[int | None] = [None] * players
        self.knowable: dict[int, list[set[int]]] = {}  # round -> by seat

    def record(self, record: Mapping[str, Any]) -> None:
        kind = record["type"]
        if kind == "round_start":
            self.round = record["round"]
            self.hands = [list(hand) for hand in record["hands"]]
            self.displays, self.owners, self.revealed = [], [], 0
            self.goal = [None] * self.players
            self.knowable[self.round] = [set(self.hands[seat]) for seat in range(self.players)]
        elif kind == "action":
            seat = record["seat"]
            chosen = [record["card"]] if record["action"] == "goal" else record["cards"]
            for card in chosen:
                self.hands[seat].remove(card)
            if record["action"] == "goal":
                self.goal[seat] = record["card"]
        elif kind == "goals":
            self.displays, self.owners = list(record["displays"]), list(record["owners"])
            for holder in range(self.players, len(self.hands)):
                self.hands[holder].remove(record["chosen"][holder])
        elif kind == "reveal":
            self.revealed = record["display"]
            for known in self.knowable[self.round]:
                known.add(record["card"])
        elif kind == "pass":
            # the players' cards land first; then each dummy passes on from its grown hand
            for move in sorted(record["moves"], key=lambda m: m["by"] >= self.players):
                if move["by"] >= self.players:
                    for card in move["cards"]:
                        self.hands[move["by"]].remove(card)
                self.hands[move["to"]].extend(move["cards"])
                if move["to"] < self.players:
                    self.knowable[self.round][move["to"]].update(move["cards"])

    def message(self, seat: int, message: Mapping[str, Any]) -> str | None:
        try:
            TO_BOT.validate_python(message)
        except ValidationError as err:
            return f"not a closed {message.get('type')!r} message: {one_line(err, 2)}"
        if message["type"] in ("hello", "game_start", "game_end", "shutdown"):
            return None  # the card set in hello is public: every face, no position
        round_no = message.get("round", self.round)
        known = self.knowable.get(round_no, [set()] * self.players)[seat]
        named = set(card_ids(message))
        secret = sorted(named - known)
        if secret:
            return f"cards {secret} which seat {seat} cannot know in round {round_no}"
        if round_no != self.round:
            return None
        if "hand" in message and message["hand"] != sorted(self.hands[seat]):
            return f"hand {message['hand']} is not seat {seat}'s {sorted(self.hands[seat])}"
        if "displays" in message:
            for index, shown in enumerate(message["displays"]):
                truth = self.displays[index] if index < self.revealed else None
                if shown["goal"] != truth:
                    return f"display {index + 1} shows {shown['goal']!r} but the truth is {truth!r} face up"
        mine = message.get("goal_display")
        if mine is not None and self.owners and self.owners[mine - 1] != seat:
            return f"goal_display {mine} holds holder {self.owners[mine - 1]}'s goal, not seat {seat}'s"
        if (
            message.get("goal") is not None
            and message["type"] != "reveal"
            and message["goal"] != self.goal[seat]
        ):
            return f"goal {message['goal']} is not seat {seat}'s goal {self.goal[seat]}"
        return None


__all__ = ["CARD_KEYS", "Auditor", "card_ids"]
