"""The referee: plays one game between seated players, validating every move.

Game-agnostic: it reaches the rules only through :mod:`harness.games.base`. Every
message to a seat is built from ``state.view(seat)`` and the public event log, so no
hidden card can reach a bot. A bot's fault is recorded, the seat's remaining turns
are played by the referee (``forced``), and the bot forfeits the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.errors import BotFault, FaultKind
from harness.games.base import Game, GameState, IllegalAction
from harness.protocol.build import turn_message
from harness.protocol.messages import ActionReply


class Player(Protocol):
    """A seat's occupant, as the referee sees it. Methods raise BotFault."""

    name: str
    version: str

    def begin(self, game_start: dict[str, Any]) -> None: ...

    def notify(self, message: dict[str, Any]) -> None: ...

    def ask(self, turn: dict[str, Any]) -> tuple[ActionReply, float]: ...

    def faulted(self) -> str:
        """Stop the bot after a fault; return the tail of its stderr."""
        ...


def winners(placements: Sequence[int], forfeited: Sequence[bool]) -> list[int]:
    """The seats that share the win: first place and not forfeited."""
    return [seat for seat, place in enumerate(placements) if place == 1 and not forfeited[seat]]


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
    penalties: list[int] = field(default_factory=list)  # sum of round penalties by seat


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

    def fault(self, seat: int, err: BotFault | IllegalAction) -> None:
        kind = err.kind.value if isinstance(err, BotFault) else FaultKind.ILLEGAL.value
        detail = err.detail if isinstance(err, BotFault) else f"illegal move: {err}"
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


def play_game(
    game: Game,
    state: GameState,
    players: Sequence[Player],
    sink: Sink,
    *,
    header: dict[str, Any],
    game_no: int,
    seeds: Sequence[int],
) -> GameResult:
    """Play ``state`` to the end with ``players`` by seat, writing every record to ``sink``.

    ``header`` is the replay header without ``players`` (added here, after the
    handshakes). ``seeds`` are the per-seat seeds for the bots' own randomness.
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
    cursor = [0] * n
    penalties = [0] * n
    moves = 0
    sink.write({"type": "round_start", **state.first_transition.record})
    _announce_round(state, table, game_no)
    while (to_move := state.to_move()) is not None:
        seat = to_move
        events = state.public  # kept: a round's end replaces state.public with a new list
        action: Any = None
        elapsed: float | None = None
        if not table.forced[seat]:
            turn = turn_message(state, game_no, seat, events[cursor[seat] :])
            try:
                reply, elapsed = players[seat].ask(turn)
                action = state.parse_action(_reply_fields(reply))
            except (BotFault, IllegalAction) as err:
                table.fault(seat, err)
                action, elapsed = None, None
        forced = action is None
        if forced:
            action = state.forced_action
        step = state.apply(action)
        moves += 1
        record: dict[str, Any] = {"type": "action", "seat": seat, **step.record}
        if forced:
            record["forced"] = True
        if elapsed is not None:
            record["ms"] = round(elapsed * 1000.0, 3)
        sink.write(record)
        cursor[seat] = len(events)
        for transition in step.transitions:
            body = transition.record
            sink.write({"type": transition.type, **body})
            if transition.type == "round_end":
                for other in range(n):
                    penalties[other] += body["penalties"][other]
                    table.tell(
                        other,
                        {
                            "type": "round_end",
                            "game": game_no,
                            **body,
                            "events": events[cursor[other] :],
                        },
                    )
            elif transition.type == "round_start":
                cursor = [0] * n
                _announce_round(state, table, game_no)
    scores = list(state.scores)
    placements = game.placements(scores, table.forced)
    won = winners(placements, table.forced)
    end = {
        "scores": scores,
        "winners": won,
        "placements": placements,
        "forfeited": list(table.forced),
        "adjudicated": state.adjudicated,
    }
    sink.write({"type": "game_end", **end, "rounds": state.round})
    for seat in range(n):
        if table.forced[seat]:
            continue
        try:
            players[seat].notify({"type": "game_end", "game": game_no, **end})
        except BotFault as err:
            # the game is decided and its replay complete (a fault record after game_end
            # would not verify): the fault goes to the results only, the placements stand,
            # and the bot is stopped so that it restarts for the next game
            tail = players[seat].faulted()
            detail = f"after the game ended: {err.detail}"
            table.faults.append(Fault(seat, players[seat].name, err.kind.value, detail, tail))
    return GameResult(
        players=[p.name for p in players],
        scores=scores,
        placements=placements,
        winners=won,
        forfeited=list(table.forced),
        adjudicated=state.adjudicated,
        rounds=state.round,
        moves=moves,
        faults=table.faults,
        penalties=penalties,
    )


def _announce_round(state: GameState, table: _Table, game_no: int) -> None:
    """Tell every seat how the new round starts, as it sees it."""
    for seat in range(state.players):
        table.tell(seat, {"type": "round_start", "game": game_no, **state.round_start_notice(seat)})


def _reply_fields(reply: ActionReply) -> dict[str, Any]:
    return {"action": reply.action, "card": reply.card}


__all__ = ["Fault", "GameResult", "Player", "Sink", "play_game", "win_shares", "winners"]
