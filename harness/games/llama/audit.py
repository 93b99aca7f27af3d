"""Information isolation for L.L.A.M.A.: each message to a seat against the truth of the replay.

The conformance suite (harness.games.conformance) feeds every replay record to
:class:`Auditor` as it is written and asks it about every message to a seat. A message
must fit the closed wire models (no unknown field can smuggle a card), its ``hand`` must
be the seat's own, card counts must be counts, no draw event may name the card drawn,
and no other seat's hand or the stock order may appear anywhere in it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from harness.errors import one_line
from harness.games.llama.wire import TO_BOT

_PUBLIC_LISTS = ("hand", "scores", "penalties", "returned", "placements")


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


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Auditor:
    """The hidden state rebuilt from the records (hands, stock order), and the audit of a message."""

    def __init__(self, players: int) -> None:
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.stock: list[int] = []  # top first

    def record(self, record: Mapping[str, Any]) -> None:
        if record["type"] == "round_start":
            self.hands = [list(hand) for hand in record["hands"]]
            self.stock = list(record["stock"])
        elif record["type"] == "action":
            seat = record["seat"]
            if record["action"] == "play":
                self.hands[seat].remove(record["card"])
            elif record["action"] == "draw":
                self.stock.pop(0)
                self.hands[seat].append(record["drawn"])

    def message(self, seat: int, message: Mapping[str, Any]) -> str | None:
        try:
            TO_BOT.validate_python(message)  # closed models: an extra field is refused
        except ValidationError as err:
            return f"not a closed {message.get('type')!r} message: {one_line(err, 2)}"
        pairs = _walk(message)
        keys = {key for key, _ in pairs}
        smuggled = keys & {"hands", "drawn", "deck", "stock_order"}
        if smuggled:
            return f"hidden fields {sorted(smuggled)}"
        for key, value in pairs:
            if key == "stock" and value != len(self.stock):
                return f"stock {value!r} is not the count {len(self.stock)}"
            if key == "hand" and sorted(value) != sorted(self.hands[seat]):
                return f"hand {value} is not seat {seat}'s {sorted(self.hands[seat])}"
            if key == "events":
                for event in value:
                    if event["action"] == "draw" and set(event) != {"seat", "action"}:
                        return f"a draw event names its card: {event}"
        if message["type"] in ("turn", "round_start"):
            counts = [entry["cards"] for entry in message["players"]]
            if counts != [len(hand) for hand in self.hands]:
                return f"card counts {counts} but the hands hold {[len(h) for h in self.hands]}"
        text = _compact(message)
        public = {_compact(value) for key, value in pairs if key in _PUBLIC_LISTS}
        for start in range(len(self.stock) - 3):  # the stock order, as any run of 4+ cards
            run = _compact(self.stock[start : start + 4])[1:-1]
            if run in text and not any(run in shown for shown in public):
                return f"the stock order {run} appears"
        own = sorted(self.hands[seat])
        for other, hand in enumerate(self.hands):
            shown = f'"hand":{_compact(sorted(hand))}' in text
            if other != seat and len(hand) >= 2 and sorted(hand) != own and shown:
                return f"seat {other}'s hand appears"
        return None


__all__ = ["Auditor"]
