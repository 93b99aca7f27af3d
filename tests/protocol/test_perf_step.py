"""A simultaneous step over real pipes: gather's reading of replies, and notifications held for the next turn."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.bots.manifest import load_bot
from harness.bots.process import BotProcess
from harness.errors import BotFault, FaultKind
from harness.protocol.gather import gather
from harness.protocol.session import BotSession
from harness.timing import Timing

HELLO = {"type": "hello", "protocol": 1, "game": "llama-llama", "seat": 0}

# Logs every read of stdin (the message types it held) to reads.jsonl in its folder, and
# answers turn N as REPLIES says: "ok", "split" (the line in two writes), "stale" (a late
# reply to turn 1 and the real one in one write), "bad" (an object that is no action).
BOT = """
import json, os, sys, time
REPLIES = json.loads(os.environ.get("REPLIES", "{}"))
log = open("reads.jsonl", "a", buffering=1)
out = sys.stdout.buffer
buf = b""
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    buf += chunk
    lines = buf.split(b"\\n")
    buf = lines.pop()
    msgs = [json.loads(line) for line in lines]
    log.write(json.dumps([m["type"] for m in msgs]) + "\\n")
    for msg in msgs:
        if msg["type"] == "hello":
            out.write(b'{"type":"hello","name":"step"}\\n'); out.flush()
        elif msg["type"] == "turn":
            how = REPLIES.get(str(msg["id"]), "ok")
            line = json.dumps({"type": "action", "id": msg["id"], "action": "goal", "card": 1}).encode() + b"\\n"
            if how == "split":
                out.write(line[:9]); out.flush(); time.sleep(0.05); out.write(line[9:]); out.flush()
            elif how == "stale":
                out.write(b'{"type":"action","id":1,"action":"goal","card":1}\\n' + line); out.flush()
            elif how == "bad":
                out.write(b'{"type":"action","action":"goal"}\\n'); out.flush()
            else:
                out.write(line); out.flush()
        elif msg["type"] == "shutdown":
            sys.exit(0)
"""


def _bot(folder: Path, replies: dict[int, str] | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(textwrap.dedent(BOT))
    plan = json.dumps({str(turn): how for turn, how in (replies or {}).items()})
    (folder / "bot.toml").write_text(
        f'name = "{folder.name}"\ncommand = [{json.dumps(sys.executable)}, "bot.py"]\n'
        f"[env]\nREPLIES = {json.dumps(plan)}\n"  # a JSON string is a TOML basic string here
    )
    return folder


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[tuple[BotSession, Path]]]:
    """Two bot processes, handshaken: the second answers turn 2 split and turn 3 behind a stale line."""
    procs, out = [], []
    for name, replies in (("a", {}), ("b", {2: "split", 3: "stale", 4: "bad"})):
        folder = _bot(tmp_path / name, replies)
        proc = BotProcess(load_bot(folder), tmp_path / f"{name}.log", tmp_path / f"{name}-tmp")
        procs.append(proc)
        session = BotSession(proc, startup=30.0, move=30.0, timing=Timing())
        session.handshake(dict(HELLO))
        out.append((session, folder))
    try:
        yield out
    finally:
        for proc in procs:
            proc.close()


def _reads(folder: Path) -> list[list[str]]:
    path = folder / "reads.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _wait_for(folder: Path, kind: str, times: int = 1) -> list[list[str]]:
    """The bot's reads once ``times`` of them held ``kind`` (generous: the machine may be loaded)."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        reads = _reads(folder)
        if sum(kind in read for read in reads) >= times:
            return reads
        time.sleep(0.02)
    raise AssertionError(f"{folder.name} never read {kind} {times} times: {_reads(folder)}")


def _step(sessions: list[BotSession]) -> list[object]:
    for session in sessions:
        session.send_turn({"type": "turn", "id": 0, "game": 1})
    return list(gather(sessions))


def test_gather_reads_whole_split_and_stale_replies_and_counts_each_time(
    started: list[tuple[BotSession, Path]],
) -> None:
    sessions = [session for session, _ in started]
    took = []
    for ident in (1, 2, 3):
        results = _step(sessions)
        for result in results:
            assert isinstance(result, tuple), result
            reply, elapsed = result
            assert reply["id"] == ident and elapsed >= 0.0
        took.append(results[1][1])  # type: ignore[index]
    assert took[1] >= 0.05  # turn 2 came in two writes 50 ms apart: its time runs to the second
    assert sessions[1].stale == 1  # turn 3's stale line was discarded, not a fault
    for session in sessions:
        assert session.timing is not None and session.timing.moves.n == 3
    a, b = _step(sessions)
    assert isinstance(a, tuple) and isinstance(b, BotFault)
    assert b.kind is FaultKind.INVALID and "id: Field required" in b.detail


def test_notifications_after_a_step_go_with_the_next_turn_in_one_write(
    started: list[tuple[BotSession, Path]],
) -> None:
    (session, folder), _ = started
    session.notify({"type": "game_start", "game": 1})  # not held: no simultaneous step yet
    _wait_for(folder, "game_start")
    assert isinstance(gather_one(session), tuple)
    session.notify({"type": "reveal", "game": 1})
    session.notify({"type": "passed", "game": 1})
    time.sleep(0.2)
    assert not any("reveal" in read for read in _reads(folder))  # held
    assert isinstance(gather_one(session), tuple)
    reads = _wait_for(folder, "reveal")
    assert ["reveal", "passed", "turn"] in reads  # the same messages, in order, in one read
    # game_end is written at once with what is held, and ends the holding
    session.notify({"type": "round_end", "game": 1})
    session.notify({"type": "game_end", "game": 1})
    assert ["round_end", "game_end"] in _wait_for(folder, "game_end")
    session.notify({"type": "game_start", "game": 2})
    assert _wait_for(folder, "game_start", times=2)[-1] == ["game_start"]
    assert session.since == ["round_end", "game_end", "game_start"]


def gather_one(session: BotSession) -> object:
    session.send_turn({"type": "turn", "id": 0, "game": 1})
    (result,) = gather([session])
    return result
