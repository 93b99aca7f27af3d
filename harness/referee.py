"""The referee: plays one game between seated players, validating every move.

Game-agnostic: it reaches the rules only through :mod:`harness.games.base`. What a
seat receives is the game's (``turn(seat)``, the notices of each outcome, built from
the seat's view); the referee frames it (``game_start``, ``game_end``, ``game``, ``id``)
and writes every record of the replay. A bot's fault is recorded, the seat's remaining turns
are played by the referee (``forced``), and the bot forfeits the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.errors import BotFault, FaultKind
from harness.games.base import Game, GameState, IllegalAction, InvalidReply, Outcome
from harness.protocol.build import game_end_message, game_end_record, turn_message, winners
from harness.protocol.gather import gather
from harness.protocol.session import BotSession, Result, invalid_reply


class Player(Protocol):
    """A seat's occupant, as the referee sees it. Methods raise BotFault."""

    name: str
    version: str

    def begin(self, game_start: dict[str, Any]) -> None: ...

    def notify(self, message: dict[str, Any]) -> None: ...

    def send_turn(self, turn: dict[str, Any]) -> None: ...

    def receive(self) -> tuple[dict[str, Any], float]:
        """The reply to the turn sent last (a dict, envelope checked) and the seconds it took."""
        ...

    def faulted(self) -> str:
        """Stop the bot after a fault; return the tail of its stderr."""
        ...


def win_shares(placements: Sequence[int], forfeited: Sequence[bool]) -> list[float]:
    """Each seat's share of the win: 1/k for each of k winners, else 0."""
    won = winners(placements, forfeited)
    return [1.0 / len(won) if seat in won else 0.0 for seat in range(len(placements))]


class Sink(Protocol):
    def write(self, record: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Fault:
    seat: int
    bot: str
    kind: str
    detail: str
    stderr: str = ""


@dataclass
class GameResult:
    """The outcome of one game, by seat."""

    players: list[str]
    scores: list[int]
    placements: list[int]
    winners: list[int]
    forfeited: list[bool]
    adjudicated: bool
    rounds: int
    moves: int
    faults: list[Fault] = field(default_factory=list)
    statistics: dict[str, list[float]] = field(default_factory=dict)  # the game's, by seat


class _Held:
    """Holds records until the header is written (start-up faults come before it)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(record)

    def release(self, sink: Sink) -> Sink:
        for record in self.records:
            sink.write(record)
        return sink


@dataclass
class _Table:
    players: Sequence[Player]
    sink: Any  # a Sink, or _Held before the header is written
    forced: list[bool]
    faults: list[Fault] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)  # the game's records, for statistics

    def fault(self, seat: int, err: BotFault | IllegalAction) -> None:
        kind = err.kind.value if isinstance(err, BotFault) else FaultKind.ILLEGAL.value
        detail = err.detail if isinstance(err, BotFault) else f"illegal move: {err}"
        self.faulted(seat, kind, detail)

    def faulted(self, seat: int, kind: str, detail: str) -> None:
        player = self.players[seat]
        tail = player.faulted()
        self.forced[seat] = True
        self.faults.append(Fault(seat, player.name, kind, detail, tail))
        self.sink.write({"type": "fault", "seat": seat, "kind": kind, "detail": detail, "stderr": tail})

    def tell(self, seat: int, message: dict[str, Any]) -> None:
        if self.forced[seat]:
            return
        try:
            self.players[seat].notify(message)
        except BotFault as err:
            self.fault(seat, err)

    def emit(
        self, outcome: Outcome, game_no: int, acting: Sequence[int], timing: Sequence[float | None]
    ) -> None:
        """Write an outcome's action records, then its records; then send its notices."""
        write = self.sink.write
        forced = self.forced
        for seat, body, elapsed in zip(acting, outcome.actions, timing, strict=True):
            record: dict[str, Any] = {"type": "action", "seat": seat, **body}
            if forced[seat]:
                record["forced"] = True
            if elapsed is not None:
                record["ms"] = int(elapsed * 1e6 + 0.5) / 1000.0
            write(record)
        for record in outcome.records:
            write(record)
        self.kept.extend(outcome.records)
        for seat, message in outcome.notices:
            if not forced[seat]:
                self.tell(seat, {"type": message["type"], "game": game_no, **message})


def play_game(
    game: Game[Any, Any],
    state: GameState[Any],
    players: Sequence[Player],
    sink: Sink,
    *,
    header: dict[str, Any],
    game_no: int,
    seeds: Sequence[int],
) -> GameResult:
    """Play ``state`` to the end with ``players`` by seat, writing every record to ``sink``.

    ``header`` is the replay header without ``players`` (added here, after the
    handshakes). ``seeds`` are the per-seat seeds for the bots' own randomness. At each
    step every acting seat that has not faulted gets its turn at once; the replies are
    collected together, each under its own deadline, and the joint action is applied
    atomically (a faulted seat's part is the game's forced action).
    """
    n = state.players
    table = _Table(players, _Held(), [False] * n)
    for seat, player in enumerate(players):
        try:
            player.begin(
                {
                    "type": "game_start",
                    "game": game_no,
                    "seat": seat,
                    "players": n,
                    "seed": seeds[seat],
                }
            )
        except BotFault as err:
            table.fault(seat, err)
    # the header goes first, and names the versions the bots gave in their handshake
    sink.write({**header, "players": [{"name": p.name, "version": p.version} for p in players]})
    table.sink = table.sink.release(sink)
    forced = table.forced
    moves = 0
    table.emit(state.begin(), game_no, (), ())
    asks = [_asker(player) for player in players]
    write = sink.write
    # bound once: looked up at every decision otherwise
    now_acting, turn_of, parse, apply = state.acting, state.turn, state.parse_action, state.apply
    while acting := now_acting():
        if len(acting) == 1:  # one seat: the referee's inner loop, where every call counts
            seat = acting[0]
            action: Any = None
            elapsed: float | None = None
            if not forced[seat]:
                reply: Any = None
                try:
                    # turn_message(), inlined
                    reply, elapsed = asks[seat]({"type": "turn", "id": 0, "game": game_no, **turn_of(seat)})
                    action = parse(seat, reply)
                except (BotFault, InvalidReply, IllegalAction) as err:
                    _record_fault(table, seat, reply, err)
                if action is None:
                    elapsed = None
            if action is None:
                action = state.forced_action(seat)
            outcome = apply((action,))
            moves += 1
            if outcome.records or outcome.notices:
                table.emit(outcome, game_no, acting, (elapsed,))
                continue
            move: dict[str, Any] = {"type": "action", "seat": seat, **outcome.actions[0]}  # most moves
            if forced[seat]:
                move["forced"] = True
            if elapsed is not None:
                move["ms"] = int(elapsed * 1e6 + 0.5) / 1000.0  # ms to the µs; round() costs twice this
            write(move)
            continue
        actions, timing = _together(state, table, game_no, acting)
        moves += len(acting)
        table.emit(state.apply(actions), game_no, acting, timing)
    final = game.final(state, forced)
    sink.write(game_end_record(final, forced))
    ending = game_end_message(game_no, final, forced)
    for seat in range(n):
        if forced[seat]:
            continue
        try:
            players[seat].notify(dict(ending))
        except BotFault as err:
            # the game is decided and its replay complete (a fault record after game_end
            # would not verify): the fault goes to the results only, the placements stand,
            # and the bot is stopped so that it restarts for the next game
            tail = players[seat].faulted()
            detail = f"after the game ended: {err.detail}"
            table.faults.append(Fault(seat, players[seat].name, err.kind.value, detail, tail))
    return GameResult(
        players=[p.name for p in players],
        scores=list(final.scores),
        placements=list(final.placements),
        winners=winners(final.placements, forced),
        forfeited=list(forced),
        adjudicated=final.adjudicated,
        rounds=final.rounds,
        moves=moves,
        faults=table.faults,
        statistics=game.statistics(table.kept),
    )


def _together(
    state: GameState[Any], table: _Table, game_no: int, acting: Sequence[int]
) -> tuple[list[Any], list[float | None]]:
    """A simultaneous step: every acting seat gets its turn, then the replies are gathered at once."""
    players, forced, turn_of = table.players, table.forced, state.turn
    asked = []
    for seat in acting:
        if not forced[seat]:
            try:
                players[seat].send_turn(turn_message(game_no, turn_of(seat)))
                asked.append(seat)
            except BotFault as err:
                table.fault(seat, err)
    replies = dict(zip(asked, _collect([players[seat] for seat in asked]), strict=True))
    parse = state.parse_action
    actions: list[Any] = []
    timing: list[float | None] = []
    for seat in acting:
        action: Any = None
        elapsed: float | None = None
        result = replies.get(seat)
        if type(result) is tuple:  # a reply: the game's to parse (_parse(), inlined)
            reply, elapsed = result
            try:
                action = parse(seat, reply)
            except (InvalidReply, IllegalAction) as err:
                _record_fault(table, seat, reply, err)
                elapsed = None
        elif result is not None:
            action, elapsed = _parse(state, table, seat, result)  # a fault, recorded there
        actions.append(state.forced_action(seat) if action is None else action)
        timing.append(elapsed)
    return actions, timing


def _asker(player: Player) -> Callable[[dict[str, Any]], tuple[dict[str, Any], float]]:
    """How to ask ``player`` for a move: a turn and its reply in one call.

    A bot process's own session is asked directly (``BotSession.ask``, which counts the
    bot's timing itself); any other player is sent the turn, then asked for the reply.
    """
    session = getattr(player, "session", None)
    if isinstance(session, BotSession) and session.timing is not None:
        return session.ask

    def send_receive(turn: dict[str, Any]) -> tuple[dict[str, Any], float]:
        player.send_turn(turn)
        return player.receive()

    return send_receive


def _parse(state: GameState[Any], table: _Table, seat: int, result: Result) -> tuple[Any, float | None]:
    """The game's action from a seat's reply; (None, None) after a fault, which is recorded."""
    if isinstance(result, BotFault):
        table.fault(seat, result)
        return None, None
    reply, elapsed = result
    try:
        return state.parse_action(seat, reply), elapsed
    except (InvalidReply, IllegalAction) as err:
        _record_fault(table, seat, reply, err)
    return None, None


def _record_fault(table: _Table, seat: int, reply: Any, err: BotFault | InvalidReply | IllegalAction) -> None:
    """Record a seat's fault: its bot's, or a reply the game refused (malformed, or illegal now)."""
    table.fault(seat, invalid_reply(reply, str(err)) if isinstance(err, InvalidReply) else err)


def _collect(players: Sequence[Player]) -> list[Result]:
    """The replies of ``players`` to the turns just sent: together when they all run over pipes."""
    sessions = [getattr(player, "session", None) for player in players]
    if all(isinstance(session, BotSession) for session in sessions):
        return gather([s for s in sessions if isinstance(s, BotSession)])
    results: list[Result] = []
    for player in players:
        try:
            results.append(player.receive())
        except BotFault as err:
            results.append(err)
    return results


__all__ = ["Fault", "GameResult", "Player", "Sink", "play_game", "win_shares", "winners"]
