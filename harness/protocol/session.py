"""The protocol session with one bot: handshake, turns, notifications (turns to several at once: :mod:`harness.protocol.gather`).

It talks to a :class:`Transport` (a real process, or a scripted fake in tests) and
turns everything the bot does wrong into a :class:`BotFault` of the right kind, with a
detail that points at the cause (a time-out says how late the bot was, a line that
answers a notification says so, an exit after ``game_end`` is named as that). The
session checks the envelope of an action reply (a JSON object, ``type`` "action", the
``id`` of the turn); the fields of the action are the game's to check.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json, to_json

from harness.errors import BotCrashed, BotFault, BotTimeout, FaultKind, one_line
from harness.jsonlines import FAST, NEWLINE, dumps_line, slow_line
from harness.protocol.framing import LineReader
from harness.protocol.messages import HelloReply
from harness.timing import Timing

_HELLO = TypeAdapter(HelloReply)

# appended to a crash of a bot that got game_end and then stopped (it is not done yet)
EXITED_AFTER_END = "the process exited after game_end; keep reading until shutdown"
NO_REPLY_NEEDED = "notifications need no reply: write only the hello reply and one action per turn"
# seconds past a deadline spent telling a slow bot from a silent one (a fault costs them)
_MIN_GRACE, _MAX_GRACE = 1.0, 2.0
_MAX_PEEK = 0.5  # seconds spent looking for the real reply behind a stray line


def encode(message: dict[str, Any]) -> bytes:
    """One JSON line, compact, UTF-8."""
    return dumps_line(message)


class Transport(Protocol):
    def send(self, data: bytes, deadline: float) -> None: ...

    def readline(self, deadline: float) -> bytes: ...


def _describe(line: bytes, err: ValidationError) -> BotFault:
    """Classify a reply that failed validation: MALFORMED (not JSON) or INVALID."""
    shown = line[:200].decode("utf-8", "backslashreplace")
    # pydantic's own parse decides, not json.loads: that one accepts a BOM or UTF-16
    # and raises RecursionError on a line of 100k '[' (a harness crash, not a fault)
    if any(e["type"] == "json_invalid" for e in err.errors()):
        return BotFault(_not_json(shown, str(err)), FaultKind.MALFORMED)
    problems = one_line(err)
    return BotFault(f"reply {shown!r} does not validate: {problems}", FaultKind.INVALID)


def _not_json(shown: str, problem: str) -> str:
    """The fault text of an unparsable line: valid JSON nested too deep is called that."""
    if "recursion limit exceeded" in problem:
        return f"a JSON line nested too deep (arrays or objects within each other past the parser's limit): {shown!r}"
    return f"not a JSON line: {shown!r}"


def invalid_reply(reply: Any, problem: str) -> BotFault:
    """The fault of a reply whose fields are wrong (``problem`` names the field)."""
    shown = to_json(reply)[:200].decode("utf-8", "backslashreplace")
    return BotFault(f"reply {shown!r} does not validate: {problem}", FaultKind.INVALID)


class BotSession:
    """Protocol v1 with one bot, over ``transport``, with deadlines in seconds."""

    def __init__(
        self, transport: Transport, *, startup: float, move: float, timing: Timing | None = None
    ) -> None:
        self.transport = transport
        self.timing = timing  # where ask() counts move times and time-outs (the bot's, over games)
        self._add_ms = None if timing is None else timing.moves.add
        self.startup = startup
        self.move = move
        self.last_id = 0
        self.stale = 0  # late replies to earlier turns, discarded
        self.since: list[str] = []  # types of the notifications sent since the last turn
        self._after_end = 0  # bytes sent since the last game_end
        self.started = 0.0  # when the current turn was sent
        self.deadline = 0.0  # and when its reply is due
        self._notices: list[str] = []  # the notifications sent before the current turn
        self._hold = False  # in a simultaneous game's steps (set by gathered()): notifications wait for the turn
        self._held = b""  # the notifications held, written with the next turn (see notify)
        # a process transport's own line reader, read directly by ask() (one layer less)
        self._reader: LineReader | None = getattr(transport, "reader", None)
        self._explain: Callable[[BotFault], BotFault] = getattr(transport, "explain", _as_is)
        self._fd: int | None = getattr(transport, "stdin_fd", None)  # and its input pipe, written directly
        if not hasattr(transport, "explain"):
            self._reader = self._fd = None

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
        """Send a message that expects no reply.

        Between a simultaneous step's replies (once :func:`harness.protocol.gather.gather` has read this bot's)
        and the bot's next turn, a notification is held and written with that turn in
        one write: the same bytes in the same order, one wake-up of the bot instead of
        one per message (a step sends ~9). game_end and shutdown are never held: they
        are written at once, after what is held, and end the holding until the next
        gather (so game_start and a game's first notices go at once, as in a sequential game).
        """
        try:
            data = FAST(message, option=NEWLINE)  # encode(), inlined
        except TypeError:
            data = slow_line(message)
        kind = message.get("type")
        if self._hold:
            if kind != "game_end" and kind != "shutdown":
                self._held += data
                self.since.append(str(kind))
                return
            self._hold = False
            if self._held:
                data, self._held = self._held + data, b""
        self._send_line(data, None)
        self.since.append(str(kind))
        self._after_end = 0 if kind == "game_end" else self._after_end + len(data)

    def _send_line(self, data: bytes, deadline: float | None) -> None:
        """Write ``data`` whole: straight into a process's pipe, else (or when it is full) the transport's way.

        ``deadline``: for the transport's wait for room; None: a move limit from now.
        """
        written, fd = 0, self._fd
        if fd is not None:
            try:
                written = os.write(fd, data)
            except OSError:  # full, or closed: the general way waits for room, or words it
                written = 0
        if written == len(data):
            return
        try:
            self.transport.send(data[written:] if written else data, deadline or time.monotonic() + self.move)
        except BotCrashed as err:
            raise self._crashed(err) from None
        except BotTimeout as err:
            raise self._unread(err) from None

    def send_turn(self, turn: dict[str, Any]) -> None:
        """Number ``turn`` (its ``id``) and send it; the move deadline starts now."""
        self.last_id += 1
        turn["id"] = self.last_id
        self.started = start = time.monotonic()
        self.deadline = start + self.move
        try:
            data = FAST(turn, option=NEWLINE)  # encode(), inlined: four turns a simultaneous step
        except TypeError:
            data = slow_line(turn)
        if self._held:  # the notifications since the last step go with it (see notify)
            data, self._held = self._held + data, b""
        self._send_line(data, self.deadline)
        self._after_end += len(data)
        self._notices = self.since  # cleared once the turn is answered

    def receive(self, line: bytes | None = None) -> tuple[dict[str, Any], float]:
        """Wait for the reply to the turn sent last; return it (a dict) and the seconds it took.

        A late reply to an earlier turn (smaller id) is discarded, never taken as this
        turn's answer. Raises BotFault on timeout, EOF, bad JSON, or a bad envelope.
        ``line`` is the bot's next line when it has been read already.
        """
        while True:
            if line is None:
                line = self.read_line()
            try:
                data = from_json(line)
            except ValueError:
                data = None
            # the common case in full here; anything else (stale, bad) the slow way
            if type(data) is dict and data.get("type") == "action":
                ident = data.get("id")
                if type(ident) is int and ident == self.last_id:
                    if self.since:
                        self.since = []
                    return data, time.monotonic() - self.started
            reply = self.next_reply(line)
            if reply is not None:
                return reply, time.monotonic() - self.started
            line = None

    def ask(self, turn: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """Send a turn and wait for its reply: :meth:`send_turn` then :meth:`receive`.

        The referee's inner loop: the common case (the pipe takes the turn, the next
        line is its reply) runs here without the layers of the general one. The move's
        time, or its time-out, is counted in :attr:`timing`.
        """
        try:
            self.last_id = ident = self.last_id + 1
            turn["id"] = ident
            self.started = start = time.monotonic()
            self.deadline = deadline = start + self.move
            try:
                data = FAST(turn, option=NEWLINE)  # encode(), inlined
            except TypeError:
                data = slow_line(turn)
            if self._held:  # held after a simultaneous step (see notify)
                data, self._held = self._held + data, b""
            transport = self.transport
            written, fd = 0, self._fd
            if fd is not None:  # _send_line(), inlined: straight into a process's pipe
                try:
                    written = os.write(fd, data)
                except OSError:
                    written = 0
            size = len(data)
            if written != size:
                self._send_line(data[written:] if written else data, deadline)
            self._after_end += size
            self._notices = self.since
            reader = self._reader
            try:
                line = transport.readline(deadline) if reader is None else reader.readline(deadline)
            except BotFault as err:
                raise self._worded(err if reader is None else self._explain(err)) from None
            try:
                reply = from_json(line)
            except ValueError:
                return self._received(self.receive(line))
            if type(reply) is dict and reply.get("type") == "action":
                answers = reply.get("id")
                if type(answers) is int and answers == ident:  # not a bool: true is no turn id
                    if self.since:
                        self.since = []
                    elapsed = time.monotonic() - start
                    if self._add_ms is not None:
                        self._add_ms(elapsed * 1000.0)
                    return reply, elapsed
            return self._received(self.receive(line))
        except BotFault as fault:
            if self.timing is not None and fault.kind is FaultKind.TIMEOUT:
                self.timing.timeouts += 1
            raise

    def count(self, result: Result) -> None:
        """Count a reply's time, or a time-out, in :attr:`timing` (gather's replies; ask counts its own)."""
        if self.timing is None:
            return
        if isinstance(result, BotFault):
            self.timing.timeouts += result.kind is FaultKind.TIMEOUT
        else:
            self.timing.moves.add(result[1] * 1000.0)

    def gathered(self, result: Result) -> None:
        """A simultaneous step read this bot's reply (or fault): count it, and hold notifications until the next turn (see :meth:`notify`)."""
        self._hold = self._fd is not None  # a process's pipe: written directly, so worth holding for
        if type(result) is tuple and self._add_ms is not None:
            self._add_ms(result[1] * 1000.0)  # count(), inlined for the common case
        else:
            self.count(result)

    def _received(self, result: tuple[dict[str, Any], float]) -> tuple[dict[str, Any], float]:
        """A reply that came the general way, its time counted."""
        self.count(result)
        return result

    def read_line(self) -> bytes:
        """The next line of the bot, before the current turn's deadline (faults worded)."""
        try:
            return self.transport.readline(self.deadline)
        except BotFault as err:
            raise self._worded(err) from None

    def _worded(self, err: BotFault) -> BotFault:
        """The fault of a failed read of the current turn's reply, worded to point at the cause."""
        if isinstance(err, BotTimeout):
            turn_id = self.last_id
            what = f"the reply to turn {turn_id}"
            return self._late(what, "move", self.move, self.started, self.deadline, turn_id == 1)
        if isinstance(err, BotCrashed):
            return self._crashed(err)
        return err

    def next_reply(self, line: bytes) -> dict[str, Any] | None:
        """The reply ``line`` holds if it answers the current turn; None for a stale one."""
        try:
            reply = self.take(line)
        except BotFault as fault:
            raise self._stray(fault, line, self._notices, self.last_id, self.deadline) from None
        if reply is not None and self.since:
            self.since = []
        return reply

    def take(self, line: bytes) -> dict[str, Any] | None:
        """Check the envelope of ``line``: the reply if it answers the current turn, None if stale."""
        try:
            data = from_json(line)
        except ValueError as err:
            # pydantic-core's parser decides, not json.loads: that one accepts a BOM or
            # UTF-16 and raises RecursionError on a line of 100k '['
            shown = line[:200].decode("utf-8", "backslashreplace")
            raise BotFault(_not_json(shown, str(err)), FaultKind.MALFORMED) from None
        turn_id = self.last_id
        if type(data) is dict:
            ident = data.get("id")
            if type(ident) is int and ident > 0:  # not a bool: true is no turn id
                if ident < turn_id:
                    self.stale += 1
                    return None
                if data.get("type") == "action":
                    if ident == turn_id:
                        return data
                    raise BotFault(
                        f"reply id {ident} answers no turn (expected {turn_id})", FaultKind.INVALID
                    )
        raise _envelope_fault(line, data)

    # -- faults that point at the cause ------------------------------------------------

    def _late(
        self, what: str, clock: str, limit: float, start: float, deadline: float, first: bool
    ) -> BotFault:
        """A time-out: wait a little past the deadline to tell a slow bot from a silent one.

        A bot that was starved of CPU by a busy machine, where bots have no per-bot CPU
        control, is told so instead of being told to warm up (a process transport's
        ``busy_note``; the CPU is read here, at the time-out, never per move).
        """
        grace = min(max(limit, _MIN_GRACE), _MAX_GRACE)
        sample = getattr(self.transport, "cpu_sample", None)
        before = sample() if sample is not None and clock != "start-up" else None  # start-up: its whole life
        note = getattr(self.transport, "busy_note", None)
        try:
            self.transport.readline(deadline + grace)
        except BotCrashed as err:
            ended = self._crashed(BotFault(err.detail))
            return BotTimeout(f"no reply within the {limit:.2f} s {clock} limit, then {ended.detail}")
        except BotFault:
            hint = "write one line per reply and flush stdout after it"
            if first:
                hint += "; if it starts slowly, warm up before the hello reply"
            hint = (note and note(before)) or hint
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
        hint = (note and note(before)) or hint
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
                data = from_json(self.transport.readline(end))
            except (BotFault, ValueError):
                continue
            if type(data) is dict and data.get("type") == "action" and data.get("id") == turn_id:
                shown = line[:200].decode("utf-8", "backslashreplace")
                after = ", ".join(dict.fromkeys(notices))
                return BotFault(
                    f"a line that answers no turn arrived before the reply to turn {turn_id}, "
                    f"after {after}: {shown!r}; {NO_REPLY_NEEDED}",
                    fault.kind,
                )
        return fault


def _as_is(fault: BotFault) -> BotFault:
    return fault


def _envelope_fault(line: bytes, data: Any) -> BotFault:
    shown = line[:200].decode("utf-8", "backslashreplace")
    if type(data) is not dict:
        problem = "(top): Input should be an object"
    elif data.get("type") != "action":
        problem = "type: Input should be 'action'" if "type" in data else "type: Field required"
    elif "id" not in data:
        problem = "id: Field required"
    elif type(data["id"]) is not int:
        problem = "id: Input should be a valid integer"
    else:
        problem = "id: Input should be greater than or equal to 1"
    return BotFault(f"reply {shown!r} does not validate: {problem}", FaultKind.INVALID)


Result = tuple[dict[str, Any], float] | BotFault


__all__ = [
    "EXITED_AFTER_END",
    "NO_REPLY_NEEDED",
    "BotSession",
    "Result",
    "Transport",
    "encode",
    "invalid_reply",
]
