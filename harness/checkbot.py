"""``check-bot``: the conformance checker a bot author runs before submitting a bot.

It builds the bot, checks the handshake, feeds it scripted positions (the edge cases
of the rules in docs/rules.md, with messages built exactly as the referee builds
them), checks that it tolerates unknown fields and message types, plays a few games
against the sample bots, and reports its move times. Each check yields a :class:`Check`; the CLI prints
one line per check.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.bots.manifest import BotSpec, load_bot
from harness.bots.process import LOG_CAP, BotProcess
from harness.bots.snapshot import remove_tree
from harness.checkbot_text import (
    build_failure,
    explain,
    legal_text,
    log_tail,
)
from harness.errors import BotFault, FaultKind, HarnessError
from harness.games import DEFAULT_GAME, get_game
from harness.games.base import Game, GameState, IllegalAction, InvalidReply, Position
from harness.league.matches import run_match
from harness.limits import merge_limits
from harness.match import SNAPSHOTS, Clock, MatchConfig, TableSettings, build_bot
from harness.protocol import build
from harness.protocol.session import EXITED_AFTER_END, BotSession, invalid_reply
from harness.sandbox import check_bots, hiding
from harness.sandbox_types import Wrapper

AFTER_END = "keeps reading after game_end"

@dataclass(frozen=True)
class Check:
    """The outcome of one check: ``ok``, and for a failure a reason a bot author understands."""

    name: str
    ok: bool
    reason: str = ""

    def line(self) -> str:
        if self.ok:
            return f"PASS {self.name}" + (f" ({self.reason})" if self.reason else "")
        return f"FAIL {self.name}: {self.reason}"


@dataclass(frozen=True)
class Settings:
    clock: Clock = field(default_factory=Clock)
    wrapper: Wrapper | None = None
    opponents: tuple[Path, ...] = ()
    games: int = 3
    seed: int = 0
    out: Path | None = None  # keep logs and replays here (else a temp folder)
    game: str = DEFAULT_GAME

    @property
    def game_entry(self) -> Game[Any, Any]:
        return get_game(self.game)


# -- scripted positions ----------------------------------------------------------------


def hello_message(seat: int, players: int, games: int, clock: Clock, game: str = DEFAULT_GAME) -> dict[str, Any]:
    """The hello the referee sends, with the game's default rules."""
    entry = get_game(game)
    options = entry.parse_options({})
    return build.game_hello(
        entry, options, seat=seat, players=players, games=games, startup=clock.startup, move=clock.move
    )


def game_end_message(game: Game[Any, Any], state: GameState[Any], game_no: int) -> dict[str, Any]:
    """A game cut short after the scripted position (adjudicated)."""
    forfeited = [False] * state.players
    final = dataclasses.replace(game.final(state, forfeited), adjudicated=True)
    return build.game_end_message(game_no, final, forfeited)


# -- talking to the bot -----------------------------------------------------------------


class _Bot:
    """One running copy of the bot, started on demand; records each answer's time."""

    def __init__(self, spec: BotSpec, settings: Settings, logs: Path) -> None:
        self.spec = spec
        self.settings = settings
        self.log = logs / f"{spec.name}.check.stderr.log"
        self.tmp = Path(tempfile.mkdtemp(prefix=f"llama-check-{spec.name}-"))
        self.proc: BotProcess | None = None
        self.session: BotSession | None = None
        self.times: list[float] = []

    def hello(self, position: Position, games: int, seat: int | None = None) -> dict[str, Any]:
        """The hello for a process that will play ``position`` first."""
        seat = position.seat if seat is None else seat
        return hello_message(seat, position.state.players, games, self.settings.clock, self.settings.game)

    def start(self, hello: dict[str, Any]) -> tuple[str, str]:
        wrapper = self.settings.wrapper(self.spec, self.tmp) if self.settings.wrapper else []
        self.proc = BotProcess(self.spec, self.log, self.tmp, wrapper=wrapper)
        clock = self.settings.clock
        self.session = BotSession(self.proc, startup=clock.startup, move=clock.move)
        reply = self.session.handshake(hello)
        return reply.name, reply.version

    def notify(self, message: dict[str, Any]) -> None:
        assert self.session is not None  # start() succeeded
        self.session.notify(message)

    def ask(self, turn: dict[str, Any]) -> dict[str, Any]:
        assert self.session is not None  # start() succeeded
        reply, elapsed = self.session.ask(turn)
        self.times.append(elapsed)
        return reply

    def fail(self, fault: BotFault) -> str:
        tail = self.proc.stderr_tail() if self.proc else ""
        partial = self.proc.reader.partial() if self.proc else 0
        self.stop()
        return explain(fault, tail, self.log, partial)

    def stop(self) -> None:
        if self.proc is not None:
            if self.session is not None:
                with contextlib.suppress(BotFault):
                    self.session.notify({"type": "shutdown"})
            self.proc.close(grace=0.3)
        self.proc = self.session = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _position(bot: _Bot, position: Position, game_no: int, extra: dict[str, Any] | None = None) -> Check:
    name = f"position: {position.name}"
    state, seat, game = position.state, position.seat, bot.settings.game_entry
    extra = extra or {}
    turn = build.turn_message(game_no, state.turn(seat))
    legal = list(position.legal)
    start = {
        "type": "game_start",
        "game": game_no,
        "seat": seat,
        "players": state.players,
        "seed": game_no,
    }
    try:
        bot.notify({**start, **extra})
        for notice in position.notices:
            bot.notify({"type": notice["type"], "game": game_no, **notice, **extra})
        wire = bot.ask({**turn, **extra})
    except BotFault as fault:
        return Check(name, False, bot.fail(fault))
    try:
        action = state.parse_action(seat, wire)
    except InvalidReply as err:
        return Check(name, False, bot.fail(invalid_reply(wire, str(err))))
    except IllegalAction as err:
        bot.stop()
        return Check(name, False, f"answered an illegal move: {err} (legal here: {legal_text(legal)})")
    # the other seats acting at once (a simultaneous position) take the referee's forced action
    state.apply([action if other == seat else state.forced_action(other) for other in state.acting()])
    try:
        bot.notify(game_end_message(game, state, game_no))
    except BotFault as fault:
        return Check(name, False, bot.fail(fault))
    return Check(name, True, f"{game.action_label(action)}; legal: {legal_text(legal)}")


def _after_end(bot: _Bot, wait: float = 0.5) -> Check:
    """After a game_end the bot must go on reading: a match sends the next game_start."""
    assert bot.proc is not None  # the position before passed
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if bot.proc.exited():
            bot.stop()  # restarted for the next position
            return Check(AFTER_END, False, EXITED_AFTER_END)
        time.sleep(0.01)
    return Check(AFTER_END, True)


def _attempt(bot: _Bot, index: int, game_no: int, games: int) -> Check:
    """One position (a fresh copy), restarting the bot first if a fault stopped it."""
    position = bot.settings.game_entry.positions()[index]
    if bot.session is None:
        try:
            bot.start(bot.hello(position, games))
        except BotFault as fault:
            return Check(f"position: {position.name}", False, f"restart failed: {bot.fail(fault)}")
    return _position(bot, position, game_no)


def _positions(spec: BotSpec, settings: Settings, logs: Path, times: list[float]) -> Iterator[Check]:
    """The handshake, then every scripted position, restarting the bot after a fault."""
    bot = _Bot(spec, settings, logs)
    positions = settings.game_entry.positions()
    games = len(positions)
    try:
        try:
            name, version = bot.start(bot.hello(positions[0], games))
        except BotFault as fault:
            yield Check("handshake", False, bot.fail(fault))
            for position in positions:
                yield Check(f"position: {position.name}", False, "not tried: the handshake failed")
            return
        yield Check("handshake", True, f"name {name!r}, version {version!r}")
        told: Check | None = None  # whether it keeps reading after game_end, once known
        for index in range(games):
            if told is not None and not told.ok:
                bot.stop()  # it exits after game_end: each position gets a fresh process
            check = _attempt(bot, index, index + 1, games)
            if not check.ok and EXITED_AFTER_END in check.reason:
                # the fault is the previous game's: say so once, and try this position again
                if told is None:
                    told = Check(AFTER_END, False, EXITED_AFTER_END)
                    yield told
                check = _attempt(bot, index, index + 1, games)
            yield check
            if check.ok and told is None:  # once, after the first position that passes
                told = _after_end(bot)
                yield told
        bot.stop()
        # unknown fields and message types: a fresh process, every message with extras
        extra = {"x_future_field": {"note": "ignore fields you do not know"}}
        first = settings.game_entry.positions()[0]
        try:
            bot.start({**bot.hello(first, 1, seat=0), **extra})
            bot.notify({"type": "x_announcement", "text": "ignore message types you do not know"})
        except BotFault as fault:
            yield Check("unknown fields and messages", False, bot.fail(fault))
            return
        check = _position(bot, first, 1, extra)
        yield dataclasses.replace(
            check, name="unknown fields and messages", reason="" if check.ok else check.reason
        )
    finally:
        bot.close()
        times.extend(bot.times)


# -- games against the sample bots ----------------------------------------------------


def default_opponents(game: str = DEFAULT_GAME) -> tuple[Path, ...]:
    """The bots ``game`` names as check-bot's opponents (``Game.opponents``) that are here."""
    return get_game(game).opponents()


def _games(spec: BotSpec, settings: Settings, out: Path, times: list[float]) -> Iterator[Check]:
    name = f"games against {', '.join(p.name for p in settings.opponents) or 'sample bots'}"
    if not settings.opponents:
        yield Check(
            name,
            False,
            f"no opponents: none of the bots {settings.game} plays against is here; pass --opponent DIR",
        )
        return
    try:
        opponents = [load_bot(folder) for folder in settings.opponents]
    except HarnessError as err:
        yield Check(name, False, f"opponent: {err}")
        return
    taken = {spec.name}
    for index, other in enumerate(opponents):
        while other.name in taken:  # checking a sample bot against itself: rename the copy
            other = dataclasses.replace(other, name=f"{other.name}-opponent")
        opponents[index] = other
        taken.add(other.name)
    game = settings.game_entry
    table = TableSettings(
        game=game.name,
        options=game.parse_options({}),
        clock=settings.clock,
        logs=out / "logs",
        wrapper=settings.wrapper,
    )
    try:
        result = run_match(MatchConfig((spec, *opponents), settings.games, settings.seed, out, table))
    except HarnessError as err:
        yield Check(name, False, str(err))
        return
    mine = [f for f in result.faults if f["bot"] == spec.name]
    if mine:
        first = mine[0]
        fault = BotFault(first["detail"], FaultKind(first["kind"]))
        log = Path(first["log"])
        replay = _reproduce_hint(first["replay"], first["seat"], spec.origin)
        told = explain(fault, log_tail(log), log, then=replay)
        yield Check(name, False, f"{len(mine)} fault(s) in {result.games} games; first, game {first['game']}: {told}")
    else:
        tally = result.tallies[spec.name]
        yield Check(name, True, f"{result.games} games, {tally.wins:g} won, no faults")
    for replay in result.replays:
        times.extend(_replay_times(Path(replay), spec.name))


def _reproduce_hint(replay: str, seat: int, folder: Path) -> str:
    from harness.replay.reproduce import replay_command

    command = replay_command(replay, seat, folder)
    return f"; replay that turn: {command}" if command else ""


def _replay_times(path: Path, name: str) -> list[float]:
    times: list[float] = []
    seats: set[int] = set()
    with contextlib.suppress(OSError, ValueError), open(path, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record.get("type") == "header":
                seats = {i for i, p in enumerate(record.get("players", [])) if p.get("name") == name}
            elif record.get("type") == "action" and record.get("seat") in seats and "ms" in record:
                times.append(record["ms"] / 1000.0)
    return times


def _move_times(times: list[float], limit: float) -> Check:
    name = "move times"
    if not times:
        return Check(name, False, "no move was answered, so there is nothing to time")
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    text = (
        f"median {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms over {len(ordered)} moves; limit {limit * 1000:.0f} ms"
    )
    if p99 > 0.8 * limit:
        return Check(name, False, f"{text}: too close to the limit, the bot will time out under load")
    return Check(name, True, text)


def _stderr(logs: Sequence[Path]) -> Check:
    sizes = [log.stat().st_size if log.exists() else 0 for log in logs]
    if max(sizes) >= LOG_CAP:
        cap = LOG_CAP >> 20
        return Check(
            "stderr volume",
            False,
            f"wrote over {cap} MiB to stderr in a few games; the harness keeps only the first "
            f"{cap} MiB of a bot's stderr per match, so log less",
        )
    return Check("stderr volume", True, f"{sum(sizes)} bytes")


# -- the whole run ----------------------------------------------------------------------


def check_bot(folder: Path, settings: Settings) -> Iterator[Check]:
    """Run every check on the bot in ``folder``, yielding each result as it is known."""
    times: list[float] = []  # answer times, positions and games
    try:
        spec = load_bot(folder)
        merge_limits({}, spec.limits, spec.name)
    except HarnessError as err:
        yield Check("manifest", False, str(err))
        return
    if settings.game not in spec.games:
        yield Check("manifest", False, f"bot {spec.name!r} does not play {settings.game}: add it to games in bot.toml")
        return
    yield Check("manifest", True, f"bot {spec.name!r} version {spec.version!r}")
    own_out = settings.out is None
    failed = False
    out = Path(tempfile.mkdtemp(prefix="llama-check-")) if settings.out is None else settings.out
    # what match and league hide: the output folder and every bot's folder
    hidden = hiding(settings.wrapper, out, spec.folder, *settings.opponents)
    settings = dataclasses.replace(settings, wrapper=hidden)
    try:
        logs = out / "logs"
        built = spec.build
        try:  # the bot runs from its sealed snapshot, as in a league
            spec = build_bot(spec, logs, wrapper=settings.wrapper, store=out / SNAPSHOTS)
        except HarnessError as err:
            if not built:
                yield Check("folder", False, str(err))
                return
            own_out = False  # keep the build log for the author to read
            yield Check("build", False, build_failure(str(err), logs / f"{spec.name}.build.log"))
            return
        if built:
            yield Check("build", True, " ".join(built))
        try:  # a program or #! interpreter outside the sandbox's view: say so, not a crash
            check_bots(settings.wrapper, [spec])
        except HarnessError as err:
            yield Check("sandbox", False, str(err))
            return
        checks = list(_positions(spec, settings, logs, times))
        failed = not all(check.ok for check in checks)
        yield from checks
        if not checks[0].ok:
            yield Check("games", False, "not tried: the handshake failed")
            return
        for check in _games(spec, settings, out, times):
            failed |= not check.ok
            yield check
        yield _stderr([logs / f"{spec.name}.check.stderr.log", logs / f"{spec.name}.stderr.log"])
        yield _move_times(times, settings.clock.move)
    finally:
        if own_out:
            # its snapshots are read-only; the logs (and replays) a FAIL line names are kept
            remove_tree(out / SNAPSHOTS if failed else out)


__all__ = [
    "Check",
    "Settings",
    "check_bot",
    "default_opponents",
    "explain",
    "hello_message",
]
