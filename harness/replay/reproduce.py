"""Reproduce one decision offline: what a seat received up to its N-th turn, and a bot's answer.

The input is rebuilt from the replay alone by running the referee's own game loop
(:func:`harness.referee.play_game`) with stand-in players that answer with the
recorded actions and fault where the replay says they faulted: every message comes
from the code that sent it in the match, for every registered game. The seat's
messages (hello, game_start, notices, turns) are kept up to its N-th turn; then the
bot in a folder is started as a fresh process, as a match starts it, and fed them.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.bots.manifest import load_bot
from harness.bots.process import BotProcess
from harness.bots.snapshot import remove_tree
from harness.errors import BotFault, FaultKind, HarnessError
from harness.fault_text import explain
from harness.games import IllegalAction, InvalidReply, get_game
from harness.match import Clock, build_bot, hello_for
from harness.protocol.session import BotSession, encode
from harness.referee import play_game
from harness.replay.io import read_replay
from harness.replay.records import FaultRecord, Record
from harness.replay.verify import verify
from harness.sandbox import check_bots, hiding
from harness.sandbox_types import Wrapper

_ENVELOPE = {"type", "seat", "forced", "ms"}  # an action record's fields that are the referee's


class _Reached(Exception):
    """The watched seat got its N-th turn: the input is complete."""


@dataclass
class Input:
    """The messages one seat received up to its N-th decision, and what it answered then."""

    seat: int
    decision: int
    messages: list[dict[str, Any]]
    recorded: dict[str, Any] | None  # the recorded action's fields (outcome fields included)
    recorded_ms: float | None
    record: int  # 1-based number of the recorded action (or fault) in the replay
    notes: list[str] = field(default_factory=list)  # where the input may differ from the match's
    state: Any = None  # the game at that decision, to read replies with
    fault: FaultRecord | None = None  # the fault the seat committed at this turn instead

    def action(self, fields: dict[str, Any]) -> str:
        """A reply's action as the rules read it now ("play 5"), or why it is not one."""
        try:
            return str(self.state.parse_action(self.seat, {"type": "action", "id": 0, **fields}))
        except (IllegalAction, InvalidReply) as err:
            return f"not legal here: {err}"

    def jsonl(self) -> bytes:
        """The input as JSON lines, byte for byte as the referee writes them."""
        return b"".join(encode(message) for message in self.messages)


class _Follow:
    """The referee's replay sink: checks each record it writes against the replay, in order."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = records
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        want = self.records[self.count] if self.count < len(self.records) else None
        if want is None or want.type != record["type"] or getattr(want, "seat", None) != record.get("seat"):
            got = f"{record['type']} (seat {record.get('seat')})"
            raise HarnessError(f"record {self.count + 1}: the referee writes {got} here, the replay does not")
        self.count += 1

    def next_fault(self, seat: int) -> FaultRecord | None:
        """The fault the replay records next, when it is this seat's."""
        record = self.records[self.count] if self.count < len(self.records) else None
        return record if isinstance(record, FaultRecord) and record.seat == seat else None


class _Stand:
    """A seat played from the replay: its recorded replies, its recorded faults."""

    def __init__(
        self,
        seat: int,
        name: str,
        version: str,
        follow: _Follow,
        replies: deque[Record],
        startup: set[int],
        state: Any,
    ) -> None:
        self.seat, self.name, self.version = seat, name, version
        self.follow = follow
        self.state = state
        self.replies = replies
        self.startup = startup  # seats whose fault came at game_start
        self.tail = ""
        self.turns = 0
        self.received: list[dict[str, Any]] | None = None  # kept for the watched seat only
        self.stop_at = 0

    def _fault_here(self) -> None:
        fault = self.follow.next_fault(self.seat)
        if fault is not None:
            self.tail = fault.stderr
            raise BotFault(fault.detail, FaultKind(fault.kind))

    def _got(self, message: dict[str, Any]) -> None:
        if self.received is not None:
            self.received.append(message)

    def begin(self, game_start: dict[str, Any]) -> None:
        if self.seat in self.startup:  # held by the referee: written after the header
            self.startup.discard(self.seat)
            fault = next(r for r in self.follow.records if isinstance(r, FaultRecord) and r.seat == self.seat)
            self.tail = fault.stderr
            raise BotFault(fault.detail, FaultKind(fault.kind))
        self._got(dict(game_start))

    def notify(self, message: dict[str, Any]) -> None:
        # a fault recorded next came at this notice, or at the seat's coming turn when it acts
        # next: the records cannot tell the two apart, so it is taken at the turn
        if self.seat not in self.state.acting():
            self._fault_here()
        self._got(dict(message))

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.turns += 1  # numbered as a fresh process's session numbers them
        self._got({**turn, "id": self.turns})
        if self.turns == self.stop_at:  # sent, even when the bot faulted at this turn
            raise _Reached
        self._fault_here()

    def receive(self) -> tuple[dict[str, Any], float]:
        self._fault_here()
        record = self.replies.popleft()
        fields = {k: v for k, v in _fields(record).items() if k not in _ENVELOPE}
        ms = getattr(record, "ms", None)
        return {"type": "action", "id": self.turns, **fields}, (ms or 0.0) / 1000.0

    def faulted(self) -> str:
        return self.tail


def _fields(record: BaseModel) -> dict[str, Any]:
    return {k: v for k, v in record.model_dump(mode="json").items() if v is not None}


def mine_of(records: Sequence[Record], seat: int) -> list[tuple[int, Record]]:
    """The seat's decisions: (1-based record number, record) of its unforced actions."""
    return [
        (index, r)
        for index, r in enumerate(records, 1)
        if r.type == "action" and getattr(r, "seat", None) == seat and not getattr(r, "forced", False)
    ]


def _options(header: Any) -> dict[str, object]:
    raw: Any = header.options
    return dict(raw.model_dump(mode="json") if isinstance(raw, BaseModel) else raw)


def rebuild(records: Sequence[Record], seat: int, decision: int) -> Input:
    """The messages ``seat`` received up to its ``decision``-th turn (1-based), from the replay.

    Raise HarnessError when the replay does not verify or the seat made fewer decisions.
    """
    header: Any = records[0]  # any game's header model: read by field, not by class
    if header.type != "header":
        raise HarnessError("not a replay (the first record is not a header)")
    problem = verify(records)
    if problem is not None:
        raise HarnessError(f"cannot rebuild the input of a replay that does not verify: {problem}")
    players = len(header.players)
    if not 0 <= seat < players:
        raise HarnessError(f"--seat {seat}: the game has seats 0-{players - 1}")
    mine = mine_of(records, seat)
    fault = next(
        ((i, r) for i, r in enumerate(records, 1) if isinstance(r, FaultRecord) and r.seat == seat), None
    )
    made = f"seat {seat} ({header.players[seat].name}) made {len(mine)} decisions in this game"
    if not 1 <= decision <= len(mine) + (fault is not None):
        also = ", then faulted at its next turn" if fault is not None else ""
        raise HarnessError(f"--at {decision}: {made}{also}")
    game = get_game(header.game)
    options = game.parse_options(_options(header))
    state = game.new_game(options, players, header.seed)
    follow = _Follow(records)
    startup: set[int] = set()
    for record in records[1:]:
        if not isinstance(record, FaultRecord):
            break
        startup.add(record.seat)
    stands = []
    for s, info in enumerate(header.players):
        replies: deque[Record] = deque(r for index, r in mine_of(records, s))
        stands.append(_Stand(s, info.name, info.version, follow, replies, startup, state))
    watched = stands[seat]
    watched.stop_at = decision
    watched.received = []
    notes = []
    seeds = getattr(header, "bot_seeds", None)
    if seeds is None:
        notes.append("the replay records no bot seeds: game_start.seed is 0")
        seeds = [0] * players
    games = getattr(header, "match_games", None)
    if games is None:
        notes.append(f"the replay records no match length: hello.games is {header.match}, the game's number")
        games = header.match
    rest = {k: v for k, v in header.model_dump(mode="json").items() if k != "players"}
    try:
        play_game(game, state, stands, follow, header=rest, game_no=header.match, seeds=seeds)
    except _Reached:
        pass
    else:  # only past the last decision: the fault came with a notice, not at a turn
        assert fault is not None
        raise HarnessError(
            f"--at {decision}: {made}; its fault ({fault[1].kind}) came at a notification, not at a turn"
        )
    hello = hello_for(game, options, seat=seat, players=players, games=games, clock=Clock())
    given = Input(
        seat=seat,
        decision=decision,
        messages=[hello, *watched.received],
        recorded=None,
        recorded_ms=None,
        record=0,
        notes=notes,
        state=state,
    )
    if decision > len(mine):  # the turn at which it faulted
        assert fault is not None
        given.record, given.fault = fault
        return given
    given.record, action = mine[decision - 1]
    given.recorded = {k: v for k, v in _fields(action).items() if k not in _ENVELOPE}
    given.recorded_ms = getattr(action, "ms", None)
    return given


def rebuild_file(path: Path, seat: int, decision: int, data: bytes | None = None) -> Input:
    """:func:`rebuild` for a replay file (``data``: its text, a game of an export); errors name the file."""
    records = read_replay(path, data)
    try:
        return rebuild(records, seat, decision)
    except HarnessError as err:
        raise HarnessError(f"{path}: {err}") from None


# -- feeding a bot -----------------------------------------------------------------------


@dataclass
class Answer:
    """What the bot did with the input: its reply to each turn (or its fault), and its stderr."""

    replies: list[tuple[int, dict[str, Any] | None, float | None]]  # (turn id, fields, seconds)
    fault: BotFault | None
    stderr: str


def feed(
    folder: Path,
    given: Input,
    *,
    clock: Clock | None = None,
    wrapper: Wrapper | None = None,
    hide: Sequence[Path] = (),
) -> Answer:
    """Start the bot in ``folder`` as a fresh process (built first if it has a build) and feed it.

    As in a match, the bot does not see its log, nor ``hide`` (the replay's folder), nor
    the league folder holding it (:func:`league_folders`). Raises HarnessError when the
    bot's folder holds one of them (the bot would see it).
    """
    clock = clock or Clock()
    spec = load_bot(folder)
    hide = list(dict.fromkeys(hidden for path in hide for hidden in (Path(path).resolve(), *league_folders(path))))
    mine = Path(spec.folder).resolve()
    for hidden in hide:
        if hidden.is_relative_to(mine):
            raise HarnessError(
                f"--bot {folder}: holds {hidden}, a folder of the replay's league (its secret and "
                "results), which the bot could read; copy the bot or the replay elsewhere"
            )
    work = Path(tempfile.mkdtemp(prefix=f"llama-reproduce-{spec.name}-"))
    try:
        logs = work / "logs"
        logs.mkdir()
        wrapper = hiding(wrapper, logs, *hide)
        spec = build_bot(spec, logs, wrapper=wrapper, store=work / "bots")  # run from its snapshot
        check_bots(wrapper, [spec])
        tmp = work / "tmp"
        tmp.mkdir()
        log = logs / f"{spec.name}.stderr.log"
        proc = BotProcess(spec, log, tmp, wrapper=wrapper(spec, tmp) if wrapper else [])
        replies: list[tuple[int, dict[str, Any] | None, float | None]] = []
        fault: BotFault | None = None
        try:
            session = BotSession(proc, startup=clock.startup, move=clock.move)
            session.handshake(dict(given.messages[0]))
            for message in given.messages[1:]:
                if message["type"] == "turn":
                    reply, elapsed = session.ask({**message})
                    fields = {k: v for k, v in reply.items() if k not in ("type", "id")}
                    replies.append((message["id"], fields, elapsed))
                else:
                    session.notify(dict(message))
        except BotFault as err:
            fault = err
        finally:
            if fault is None:
                with contextlib.suppress(BotFault):
                    session.notify({"type": "shutdown"})
            proc.close(grace=0.5)
        stderr = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        return Answer(replies, fault, stderr)
    finally:
        remove_tree(work)  # its snapshot is read-only


# the files that make a folder a league's: its results (and secret), the secret itself
LEAGUE_MARKS = ("league.db", "secret", "summary.json")


def league_folders(path: Path) -> list[Path]:
    """The folders around ``path`` (a replay or its folder) that a bot fed from it must not see.

    The folder holding the ``replays/`` it lies in (a league or match folder), and every
    ancestor holding a league's database or secret, innermost first (never ``/``).
    """
    start = Path(path).resolve()
    found: list[Path] = []
    for folder in (start, *start.parents):
        if folder == folder.parent:
            break
        if folder.name == "replays":
            found.append(folder.parent)
        if any((folder / mark).exists() for mark in LEAGUE_MARKS):
            found.append(folder)
    return list(dict.fromkeys(found))


# -- what the author reads ------------------------------------------------------------


def replay_command(replay: str | Path, seat: int, folder: Path) -> str | None:
    """The command that replays into a bot the turn at which it faulted (None: not at a turn)."""
    try:
        records = read_replay(replay)
        decision = len(mine_of(records, seat)) + 1
        rebuild(records, seat, decision)
    except HarnessError:  # the fault came at a notification: there is no turn to replay
        return None
    return f"llama-harness replay {replay} --at {decision} --seat {seat} --bot {folder}"


def summary(file: Path, given: Input) -> list[str]:
    """What is replayed: the decision, its record, the messages the bot is sent."""
    counts: dict[str, int] = {}
    for message in given.messages:
        counts[message["type"]] = counts.get(message["type"], 0) + 1
    sent = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    lines = [
        f"{file}: seat {given.seat}, decision {given.decision} (record {given.record}): the bot is sent {sent}"
    ]
    return lines + [f"note: {note}" for note in given.notes]


def verdict(given: Input, answer: Answer) -> list[str]:
    """The turn, the bot's answer beside the recorded one, and the bot's stderr."""
    if given.fault is not None:
        recorded = f"a fault: {given.fault.kind}: {given.fault.detail}"
    else:
        recorded = given.action(given.recorded or {})
    took = f" in {given.recorded_ms:.2f} ms" if given.recorded_ms is not None else ""
    lines = [f"turn:     {_compact(given.messages[-1])}"]
    if len(answer.replies) == sum(m["type"] == "turn" for m in given.messages):
        _, fields, elapsed = answer.replies[-1]
        mine = given.action(fields or {})
        lines.append(f"bot:      {mine} in {(elapsed or 0.0) * 1000:.2f} ms   {_compact(fields)}")
        lines.append(f"recorded: {recorded}{took}   → {'the same' if mine == recorded else 'DIFFERENT'}")
    else:
        why = explain(answer.fault) if answer.fault is not None else "no reply"
        lines.append(f"bot:      faulted at turn {len(answer.replies) + 1}: {why}")
        lines.append(f"recorded: {recorded}{took}")
    tail = answer.stderr.rstrip("\n").splitlines()[-20:]
    if not tail:
        return [*lines, "stderr:   (empty)"]
    return [*lines, "stderr (last lines):", *(f"  {line}" for line in tail)]


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


__all__ = ["Answer", "Input", "feed", "league_folders", "rebuild", "rebuild_file", "replay_command", "summary", "verdict"]
