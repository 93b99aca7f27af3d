"""What a seat may know in rock-paper-scissors: never the other's throw before both are in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from harness.errors import one_line

from .wire import TO_BOT


class Auditor:
    """Follows the replay records; a message must fit the closed models and reveal only rounds played."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.played: list[list[str]] = []  # the throws of each round once both are in

    def record(self, record: Mapping[str, Any]) -> None:
        if record["type"] == "throws":
            self.played.append(list(record["throws"]))

    def message(self, seat: int, message: Mapping[str, Any]) -> str | None:
        try:
            TO_BOT.validate_python(dict(message))
        except ValidationError as err:
            return f"not a closed {message.get('type')!r} message: {one_line(err)}"
        if message["type"] == "revealed":
            done = len(self.played)
            if message["round"] > done or message["throws"] != self.played[message["round"] - 1]:
                return f"throws of round {message['round']}, which is not over (rounds over: {done})"
        if message["type"] == "turn" and message["round"] != len(self.played) + 1:
            return f"a turn of round {message['round']} after {len(self.played)} rounds"
        return None
