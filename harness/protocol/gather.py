"""The replies of several bots to the turns just sent to them, read together over their pipes (a simultaneous step).

One ``poll`` over every bot's stdout (and stderr, drained so that a chatty bot never
blocks): the bots think in parallel and a step costs the slowest one's time. Each
reply is checked and worded by its :class:`~harness.protocol.session.BotSession`.
"""

from __future__ import annotations

import select
import time
from collections.abc import Sequence

from pydantic_core import from_json

from harness.errors import BotFault
from harness.protocol.framing import LineReader
from harness.protocol.session import BotSession, Result

_IN = select.POLLIN | select.POLLPRI
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def gather(sessions: Sequence[BotSession]) -> list[Result]:
    """The replies to the turns just sent to ``sessions``, collected at once, each under its own deadline.

    The bots think in parallel: a step costs the slowest one's time, not the sum. A
    transport without a :class:`LineReader` (a scripted fake) is asked in turn. Each
    reply's time runs from its turn's write to the moment its line is read.
    """
    results: list[Result | None] = [None] * len(sessions)
    readers: list[LineReader | None] = [getattr(s.transport, "reader", None) for s in sessions]
    poll = select.poll()
    owner: dict[int, int] = {}
    pending = []
    for index, (session, reader) in enumerate(zip(sessions, readers, strict=True)):
        if reader is None:
            results[index] = _receive(session)
            continue
        pending.append(index)
        owner[reader.fd] = index
        poll.register(reader.fd, _IN)
        for fd in reader.side():
            owner[fd] = index
            poll.register(fd, _IN)
    # settled at first: what is buffered already; then, after each poll, only the bots
    # that wrote (with the line the read brought, if whole) or whose deadline passed
    due: list[tuple[int, bytes | None]] = [
        (index, None) for index in pending if readers[index].ready()  # type: ignore[union-attr]
    ]
    while pending:
        for index, line in due:
            reader = readers[index]
            assert reader is not None
            result = _settle(sessions[index], reader, line)
            if result is not None:
                results[index] = result
                pending.remove(index)
                poll.unregister(reader.fd)
        if not pending:
            break
        left = min(sessions[index].deadline for index in pending) - time.monotonic()
        due = []
        for fd, event in poll.poll(max(left, 0.0) * 1000.0 + 0.5):
            index = owner[fd]
            reader = readers[index]
            assert reader is not None
            if fd == reader.fd:
                due.append((index, reader.take()))
                continue
            drain = reader.side().get(fd)
            if (drain is not None and not drain()) or (event & _GONE and not event & _IN):
                poll.unregister(fd)
                reader.drop_side(fd)
        now = time.monotonic()
        if any(now >= sessions[index].deadline for index in pending):
            seen = {index for index, _ in due}
            due.extend((index, None) for index in pending if index not in seen and now >= sessions[index].deadline)
    done = [result for result in results if result is not None]
    for session, result in zip(sessions, done, strict=True):
        session.gathered(result)  # its time counted; its notifications held until its next turn
    return done


def _receive(session: BotSession) -> Result:
    try:
        return session.receive()
    except BotFault as fault:
        return fault


def _settle(session: BotSession, reader: LineReader, line: bytes | None) -> Result | None:
    """A reply or a fault if one is known without waiting (a buffered line, EOF, the deadline).

    ``line``: the bot's next line, read already (None: look in the buffer).
    """
    try:
        if line is None:
            line = reader.pop()
        while line is not None:
            # the common case in full here (as in receive()); anything else the slow way
            try:
                data = from_json(line)
            except ValueError:
                data = None
            if type(data) is dict and data.get("type") == "action":
                ident = data.get("id")
                if type(ident) is int and ident == session.last_id:  # not a bool: true is no turn id
                    if session.since:
                        session.since = []
                    return data, time.monotonic() - session.started
            reply = session.next_reply(line)
            if reply is not None:
                return reply, time.monotonic() - session.started
            line = reader.pop()
        while reader.ready():  # EOF, or a line over the limit: the session words it
            reply = session.next_reply(session.read_line())
            if reply is not None:
                return reply, time.monotonic() - session.started
        if time.monotonic() >= session.deadline:
            # the session words the time-out (or the crash of a bot that holds stdout open)
            while True:
                reply = session.next_reply(session.read_line())
                if reply is not None:
                    return reply, time.monotonic() - session.started
    except BotFault as fault:
        return fault
    return None


__all__ = ["gather"]
