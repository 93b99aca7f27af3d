"""The protocol session with one bot: handshake, turns, notifications.

It talks to a :class:`Transport` (a real process, or a scripted fake in tests) and
turns everything the bot does wrong into a :class:`BotFault` of the right kind.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json, to_json

from harness.errors import BotFault, FaultKind, one_line
from harness.protocol.messages import ActionReply, HelloReply

_ACTION = TypeAdapter(ActionReply)
_HELLO = TypeAdapter(HelloReply)


def encode(message: dict[str, Any]) -> bytes:
    """One JSON line, compact, UTF-8 (pydantic-core's serializer: ~5x faster than json)."""
    return to_json(message) + b"\n"


class Transport(Protocol):
    def send(self, data: bytes, deadline: float) -> None: ...

    def readline(self, deadline: float) -> bytes: ...


def _describe(line: bytes, err: ValidationError) -> BotFault:
    """Classify a reply that failed validation: MALFORMED (not JSON) or INVALID."""
    shown = line[:200].decode("utf-8", "backslashreplace")
    # pydantic's own parse decides, not json.loads: that one accepts a BOM or UTF-16
    # and raises RecursionError on a line of 100k '[' (a harness crash, not a fault)
    if any(e["type"] == "json_invalid" for e in err.errors()):
        return BotFault(f"not a JSON line: {shown!r}", FaultKind.MALFORMED)
    problems = one_line(err)
    return BotFault(f"reply {shown!r} does not validate: {problems}", FaultKind.INVALID)


class BotSession:
    """Protocol v1 with one bot, over ``transport``, with deadlines in seconds."""

    def __init__(self, transport: Transport, *, startup: float, move: float) -> None:
        self.transport = transport
        self.startup = startup
        self.move = move
        self.last_id = 0
        self.stale = 0  # late replies to earlier turns, discarded

    def handshake(self, hello: dict[str, Any]) -> HelloReply:
        """Send hello and return the bot's reply; raise BotFault if it does not come right."""
        deadline = time.monotonic() + self.startup
        try:
            self.transport.send(encode(hello), deadline)
            line = self.transport.readline(deadline)
            return _HELLO.validate_json(line)
        except BotFault as err:
            err.detail = f"handshake: {err.detail}"
            raise
        except ValidationError as err:
            fault = _describe(line, err)
            fault.detail = f"handshake: {fault.detail}"
            raise fault from None

    def notify(self, message: dict[str, Any]) -> None:
        """Send a message that expects no reply."""
        self.transport.send(encode(message), time.monotonic() + self.move)

    def ask(self, turn: dict[str, Any]) -> tuple[ActionReply, float]:
        """Send a turn, return the reply to it and the seconds it took.

        A late reply to an earlier turn (smaller id) is discarded, never taken as this
        turn's answer. Raises BotFault on timeout, EOF, bad JSON, or a bad reply.
        """
        self.last_id += 1
        turn["id"] = turn_id = self.last_id
        start = time.monotonic()
        deadline = start + self.move
        self.transport.send(encode(turn), deadline)
        while True:
            line = self.transport.readline(deadline)
            try:
                reply = _ACTION.validate_json(line)
            except ValidationError as err:
                fault = _describe(line, err)
                if fault.kind is FaultKind.INVALID and _is_stale(line, turn_id):
                    self.stale += 1
                    continue
                raise fault from None
            if reply.id == turn_id:
                return reply, time.monotonic() - start
            if reply.id < turn_id:
                self.stale += 1
                continue
            raise BotFault(f"reply id {reply.id} answers no turn (expected {turn_id})", FaultKind.INVALID)


def _is_stale(line: bytes, turn_id: int) -> bool:
    data = from_json(line)  # parses: the line failed validation, not JSON parsing
    ident = data.get("id") if isinstance(data, dict) else None
    return type(ident) is int and 0 < ident < turn_id  # not a bool: true is no turn id


__all__ = ["BotSession", "Transport", "encode"]
