"""The protocol session with one bot: handshake, turns, notifications.

It talks to a :class:`Transport` (a real process, or a scripted fake in tests) and
turns everything the bot does wrong into a :class:`BotFault` of the right kind, with a
detail that points at the cause (a time-out says how late the bot was, a line that
answers a notification says so, an exit after ``game_end`` is named as that).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json, to_json

from harness.errors import BotCrashed, BotFault, BotTimeout, FaultKind, one_line
from harness.protocol.messages import ActionReply, HelloReply

_ACTION = TypeAdapter(ActionReply)
_HELLO = TypeAdapter(HelloReply)

# appended to a crash of a bot that got game_end and then stopped (it is not done yet)
EXITED_AFTER_END = "the process exited after game_end; keep reading until shutdown"
NO_REPLY_NEEDED = "notifications need no reply: write only the hello reply and one action per turn"
# seconds past a deadline spent telling a slow bot from a silent one (a fault costs them)
_MIN_GRACE, _MAX_GRACE = 1.0, 2.0
_MAX_PEEK = 0.5  # seconds spent looking for the real reply behind a stray line


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
        self.since: list[str] = []  # types of the notifications sent since the last turn
        self._after_end = 0  # bytes sent since the last game_end

    def handshake(self, hello: dict[str, Any]) -> HelloReply:
        """Send hello and return the bot's reply; raise BotFault if it does not come right."""
        start = time.monotonic()
        deadline = start + self.startup
        try:
            self.transport.send(encode(hello), deadline)
            try:
                line = self.transport.readline(deadline)
            except BotTimeout:
                raise self._late("the hello reply", "start-up", self.startup, start, deadline, True) from None
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
        data = encode(message)
        try:
            self.transport.send(data, time.monotonic() + self.move)
        except BotCrashed as err:
            raise self._crashed(err) from None
        except BotTimeout as err:
            raise self._unread(err) from None
        self.since.append(str(message.get("type")))
        self._after_end = 0 if message.get("type") == "game_end" else self._after_end + len(data)

    def ask(self, turn: dict[str, Any]) -> tuple[ActionReply, float]:
        """Send a turn, return the reply to it and the seconds it took.

        A late reply to an earlier turn (smaller id) is discarded, never taken as this
        turn's answer. Raises BotFault on timeout, EOF, bad JSON, or a bad reply.
        """
        self.last_id += 1
        turn["id"] = turn_id = self.last_id
        start = time.monotonic()
        deadline = start + self.move
        data = encode(turn)
        try:
            self.transport.send(data, deadline)
        except BotCrashed as err:
            raise self._crashed(err) from None
        except BotTimeout as err:
            raise self._unread(err) from None
        self._after_end += len(data)
        notices = self.since  # cleared once the turn is answered
        while True:
            try:
                line = self.transport.readline(deadline)
            except BotTimeout:
                what = f"the reply to turn {turn_id}"
                raise self._late(what, "move", self.move, start, deadline, turn_id == 1) from None
            except BotCrashed as err:
                raise self._crashed(err) from None
            try:
                reply = _ACTION.validate_json(line)
            except ValidationError as err:
                fault = _describe(line, err)
                if fault.kind is FaultKind.INVALID and _is_stale(line, turn_id):
                    self.stale += 1
                    continue
                raise self._stray(fault, line, notices, turn_id, deadline) from None
            if reply.id == turn_id:
                self.since = []
                return reply, time.monotonic() - start
            if reply.id < turn_id:
                self.stale += 1
                continue
            fault = BotFault(f"reply id {reply.id} answers no turn (expected {turn_id})", FaultKind.INVALID)
            raise self._stray(fault, line, notices, turn_id, deadline)

    # -- faults that point at the cause ------------------------------------------------

    def _late(
        self, what: str, clock: str, limit: float, start: float, deadline: float, first: bool
    ) -> BotFault:
        """A time-out: wait a little past the deadline to tell a slow bot from a silent one."""
        grace = min(max(limit, _MIN_GRACE), _MAX_GRACE)
        try:
            self.transport.readline(deadline + grace)
        except BotCrashed as err:
            ended = self._crashed(BotFault(err.detail))
            return BotTimeout(f"no reply within the {limit:.2f} s {clock} limit, then {ended.detail}")
        except BotFault:
            hint = "write one line per reply and flush stdout after it"
            if first:
                hint += "; if it starts slowly, warm up before the hello reply"
            return BotTimeout(
                f"no reply within the {limit:.2f} s {clock} limit, nor {grace:.2f} s later: {hint}"
            )
        took = time.monotonic() - start
        if clock == "start-up":
            hint = "warm up before the hello reply, but within the start-up limit (--startup-time)"
        elif first:
            hint = "warm up (load, compile, JIT) before the hello reply, not at the first turn"
        else:
            hint = "the limit is wall clock on a shared machine: leave a wide margin"
        return BotTimeout(f"{what} came after {took:.2f} s, over the {limit:.2f} s {clock} limit: {hint}")

    def _unread(self, err: BotFault) -> BotFault:
        """A message the bot did not take in time: its input pipe stayed full."""
        err.detail = (
            f"{err.detail}: a message could not be written within the {self.move:.2f} s move limit; "
            "keep reading stdin, notifications included, even while thinking"
        )
        return err

    def _crashed(self, err: BotFault) -> BotFault:
        """A crash; named as an exit after game_end when the bot read nothing sent after it."""
        if "game_end" in self.since and (self._unread_since_end() or self._exited_cleanly()):
            err.detail = f"{err.detail}: {EXITED_AFTER_END}"
        return err

    def _unread_since_end(self) -> bool:
        """True when the bot's input still holds everything sent after game_end."""
        unread = getattr(self.transport, "unread", None)
        return unread is not None and int(unread()) >= self._after_end

    def _exited_cleanly(self, wait: float = 0.1) -> bool:
        """True when the bot exited with status 0: it meant to stop (an exception would not be 0)."""
        code = getattr(self.transport, "exit_code", None)
        if code is None:
            return False
        end = time.monotonic() + wait  # stdout closes a moment before the exit is reported
        while (status := code()) is None and time.monotonic() < end:
            time.sleep(0.005)
        return bool(status == 0)

    def _stray(
        self, fault: BotFault, line: bytes, notices: list[str], turn_id: int, deadline: float
    ) -> BotFault:
        """A bad line after notifications: if this turn's reply follows it, it answered one of them."""
        if not notices:
            return fault
        end = min(deadline, time.monotonic() + _MAX_PEEK)
        for _ in range(len(notices) + 1):
            try:
                reply = _ACTION.validate_json(self.transport.readline(end))
            except (BotFault, ValidationError):
                continue
            if reply.id == turn_id:
                shown = line[:200].decode("utf-8", "backslashreplace")
                after = ", ".join(dict.fromkeys(notices))
                return BotFault(
                    f"a line that answers no turn arrived before the reply to turn {turn_id}, "
                    f"after {after}: {shown!r}; {NO_REPLY_NEEDED}",
                    fault.kind,
                )
        return fault


def _is_stale(line: bytes, turn_id: int) -> bool:
    data = from_json(line)  # parses: the line failed validation, not JSON parsing
    ident = data.get("id") if isinstance(data, dict) else None
    return type(ident) is int and 0 < ident < turn_id  # not a bool: true is no turn id


__all__ = ["EXITED_AFTER_END", "NO_REPLY_NEEDED", "BotSession", "Transport", "encode"]
