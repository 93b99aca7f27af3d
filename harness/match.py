"""Matches: a set of bots, long-lived processes, many games with rotating seats.

:class:`Table` owns one process per bot for its whole life (starting a Python bot
costs ~25 ms; a move ~10 µs) and restarts a bot after a fault. The league plays its
jobs at a :class:`Table`; a match is the league's fixed schedule of one table
(:func:`harness.league.matches.run_match`, which takes a :class:`MatchConfig`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.bots.build import seal_bot
from harness.bots.manifest import BotSpec
from harness.bots.process import BotProcess, become_subreaper
from harness.errors import BotFault, FaultKind, HarnessError
from harness.games import Game, get_game
from harness.protocol.build import game_hello, header_fields
from harness.protocol.session import BotSession
from harness.referee import GameResult, play_game
from harness.replay.io import ReplayWriter
from harness.replay.records import REPLAY_FORMAT
from harness.sandbox_types import Wrapper
from harness.seeds import bot_seed
from harness.timing import Timing

# The bots' private temp folders alive in this process: a worker that must exit at
# once (its league was killed) removes them on the way out.
TEMP_FOLDERS: set[Path] = set()

# Bytes of finished games' replays a table holds before it writes them (Table.flush).
HELD_REPLAYS = 1 << 20



@dataclass(frozen=True)
class Clock:
    """Wall-clock deadlines, in seconds."""

    startup: float = 10.0
    move: float = 1.0


@dataclass(frozen=True)
class TableSettings:
    game: str
    options: Any
    clock: Clock = Clock()
    logs: Path = Path("logs")
    wrapper: Wrapper | None = None
    temp_root: Path | None = None  # the bots' private temp folders go in here (default: TMPDIR)
    # game number -> each seat's own seed (harness.seeds.bot_seed, hashed from the league's
    # secret by the league process: the secret itself never reaches a worker)
    bot_seeds: Mapping[int, Sequence[int]] = field(default_factory=dict)


def hello_for(
    game: Game[Any, Any], options: Any, *, seat: int, players: int, games: int, clock: Clock
) -> dict[str, Any]:
    """The first message a bot process gets (in a match, and when a decision is reproduced)."""
    return game_hello(
        game, options, seat=seat, players=players, games=games, startup=clock.startup, move=clock.move
    )


class BotPlayer:
    """A bot process and its protocol session; started on first use, restarted after a fault."""

    def __init__(self, spec: BotSpec, settings: TableSettings, games: int) -> None:
        self.spec = spec
        self.name = spec.name
        self.version = spec.version
        self.settings = settings
        self.games = games
        self.log_path = settings.logs / f"{spec.name}.stderr.log"
        self._tmp = Path(tempfile.mkdtemp(prefix=f"llama-{spec.name}-", dir=settings.temp_root))
        TEMP_FOLDERS.add(self._tmp)
        self.proc: BotProcess | None = None
        self.session: BotSession | None = None
        self.starts = 0
        self.timing = Timing()

    def _start(self, seat: int, players: int) -> BotSession:
        clock = self.settings.clock
        wrapper = self.settings.wrapper(self.spec, self._tmp) if self.settings.wrapper else []
        self.starts += 1
        started = time.monotonic()
        self.proc = BotProcess(self.spec, self.log_path, self._tmp, wrapper=wrapper)
        session = BotSession(self.proc, startup=clock.startup, move=clock.move, timing=self.timing)
        game = get_game(self.settings.game)
        try:
            reply = session.handshake(
                hello_for(game, self.settings.options, seat=seat, players=players, games=self.games, clock=clock)
            )
        except BotFault as fault:  # a bot that dies at start-up: say what it was allowed
            note = self.proc.limits_note()
            if note not in fault.detail:  # a crash under rlimits names them already
                fault.detail = f"{fault.detail} ({note})"
            raise
        self.timing.startup(time.monotonic() - started)  # process start + hello handshake
        self.version = reply.version
        self.session = session
        return session

    def begin(self, game_start: dict[str, Any]) -> None:
        session = self.session or self._start(game_start["seat"], game_start["players"])
        session.notify(game_start)

    def notify(self, message: dict[str, Any]) -> None:
        assert self.session is not None  # begin() succeeded, else the seat is forced
        self.session.notify(message)

    def send_turn(self, turn: dict[str, Any]) -> None:
        assert self.session is not None  # begin() succeeded, else the seat is forced
        self.session.send_turn(turn)

    def receive(self) -> tuple[dict[str, Any], float]:
        assert self.session is not None  # begin() succeeded, else the seat is forced
        try:
            reply, elapsed = self.session.receive()
        except BotFault as fault:
            self.timing.timeouts += fault.kind == FaultKind.TIMEOUT
            raise
        self.timing.move(elapsed)  # the time the replay records as ``ms``
        return reply, elapsed

    def faulted(self) -> str:
        """Stop the process after a fault (it restarts at the next game); return its stderr tail."""
        tail = ""
        if self.proc is not None:
            tail = self.proc.stderr_tail()
            self.proc.close()
        self.proc = self.session = None
        return tail

    def close(self) -> None:
        """Send shutdown, give the bot a moment to exit, then kill whatever remains."""
        if self.proc is not None and self.session is not None:
            with contextlib.suppress(BotFault):
                self.session.notify({"type": "shutdown"})
            self.proc.close(grace=0.5)
        elif self.proc is not None:
            self.proc.close()
        self.proc = self.session = None
        shutil.rmtree(self._tmp, ignore_errors=True)
        TEMP_FOLDERS.discard(self._tmp)


class Table:
    """Bots that play games together, each process living as long as the table."""

    def __init__(
        self, bots: Sequence[BotSpec], settings: TableSettings, games: int, *, hold_replays: bool = False
    ) -> None:
        become_subreaper()
        self.settings = settings
        self.game = get_game(settings.game)
        self.players = {bot.name: BotPlayer(bot, settings, games) for bot in bots}
        self.games = games
        # with hold_replays, the games played whose replays are not written yet (see flush)
        self._hold = hold_replays
        self._finished: list[ReplayWriter] = []
        self._held = 0  # bytes those replays hold

    def play(self, game_no: int, seating: Sequence[str], seed: int, replay: Path) -> GameResult:
        """Play one game with bots named in ``seating`` (by seat); write the replay atomically.

        With ``hold_replays`` the replay is written at the next :meth:`flush` (or on a
        clean exit from the ``with`` block), not before this returns.
        """
        seated = [self.players[name] for name in seating]
        state = self.game.new_game(self.settings.options, len(seated), seed)
        writer = ReplayWriter(replay)
        # from the secret, never from the deal: a bot's seed tells it nothing of the cards
        seeds = self._seeds(game_no, len(seated))
        header = {
            "type": "header",
            "format": REPLAY_FORMAT,
            **header_fields(self.game, self.settings.options),
            "seed": seed,
            "match": game_no,
            # what a seat's hello and game_start held, so that a decision can be reproduced
            "match_games": self.games,
            "bot_seeds": seeds,
        }
        try:
            result = play_game(self.game, state, seated, writer, header=header, game_no=game_no, seeds=seeds)
        except BaseException:
            writer.discard()
            raise
        if not self._hold:
            writer.commit()
            return result
        self._finished.append(writer)
        self._held += writer.held()
        if self._held >= HELD_REPLAYS:
            self.flush()
        return result

    def _seeds(self, game_no: int, players: int) -> list[int]:
        """The bots' own seeds of game ``game_no``, as the league hashed them from its secret.

        A table of the library's own (no seeds for this game) hashes them from the public
        secret ``''``, as it always did. Raises HarnessError for seeds of another table size.
        """
        seeds = self.settings.bot_seeds.get(game_no)
        if seeds is None:
            return [bot_seed("", game_no, seat) for seat in range(players)]
        if len(seeds) != players:
            raise HarnessError(f"game {game_no}: {len(seeds)} bot seeds for its {players} seats")
        return list(seeds)

    def flush(self) -> None:
        """Write the replays held since the last flush (each atomically); nothing without ``hold_replays``.

        A table made with ``hold_replays`` keeps each game's replay in memory until then
        (up to ``HELD_REPLAYS`` bytes in all): creating a file can cost more than a
        game's moves, and in a burst the filesystem's code and data stay in the cache.
        The league holds them, and flushes at the end of every job, before it syncs the
        disk and records the job's results.
        """
        finished, self._finished, self._held = self._finished, [], 0
        for index, writer in enumerate(finished):
            try:
                writer.commit()
            except BaseException:
                for rest in finished[index + 1 :]:
                    rest.discard()
                raise

    def close(self) -> None:
        for player in self.players.values():
            player.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        try:
            if kind is None:
                self.flush()
        finally:
            self.close()


SNAPSHOTS = "bots"  # a league or match folder's snapshot store, beside its logs


def build_bot(
    bot: BotSpec, logs: Path, timeout: float = 600.0, wrapper: Wrapper | None = None, store: Path | None = None
) -> BotSpec:
    """``bot`` sealed: built (if it has a build) on a copy of its folder, running from its snapshot.

    The snapshot goes in ``store`` (default: ``bots`` beside ``logs``). A build is the
    bot author's code too: it runs like the bot (explicit environment, its own session,
    the sandbox and limits of ``wrapper``), and one that overruns ``timeout`` is killed
    with all it started. Raises HarnessError naming the bot (see harness.bots.build.seal_bot).
    """
    return seal_bot(bot, store or logs.parent / SNAPSHOTS, logs, wrapper=wrapper, timeout=timeout)


@dataclass
class BotTally:
    games: int = 0
    wins: float = 0.0  # a shared win counts 1/k
    score_sum: int = 0
    faults: int = 0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "games": self.games,
            "wins": round(self.wins, 3),
            "win_share": round(self.wins / self.games, 4) if self.games else 0.0,
            "mean_score": round(self.score_sum / self.games, 2) if self.games else 0.0,
            "faults": self.faults,
        }


@dataclass
class MatchResult:
    tallies: dict[str, BotTally]
    faults: list[dict[str, Any]] = field(default_factory=list)
    replays: list[str] = field(default_factory=list)
    games: int = 0


def seating_for(bots: Sequence[str], game_index: int) -> list[str]:
    """Rotate seats: over len(bots) games each bot sits in each seat once."""
    n = len(bots)
    return [bots[(seat + game_index) % n] for seat in range(n)]


@dataclass(frozen=True)
class MatchConfig:
    bots: tuple[BotSpec, ...]
    games: int
    seed: int | str | None  # None: a fresh secret; else an explicit seed (see harness.seeds)
    out: Path
    settings: TableSettings
    compress: bool = False
    jobs: int = 1
    force: bool = False  # discard another match's results in ``out``


SECRET_FILE = "secret"


def keep_secret(path: Path, secret: str) -> None:
    """Write ``secret`` to ``path``, readable by its owner only (a file of an older harness is tightened)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secret + "\n")


def __getattr__(name: str) -> Any:
    """``harness.match.run_match``, the name older code imports: now :func:`harness.league.matches.run_match`.

    Looked up on first use, by name: the table layer imports nothing of the league (a
    match is the league's fixed schedule of one table). Raises AttributeError for any other name.
    """
    if name == "run_match":
        return getattr(importlib.import_module("harness.league.matches"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
