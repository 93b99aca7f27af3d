"""Re-simulate a replay through the rules engine and name the first record that disagrees."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.games import BadOptions, IllegalAction, get_game
from harness.games.base import GameState
from harness.referee import winners
from harness.replay.records import (
    ActionRecord,
    FaultRecord,
    GameEndRecord,
    Header,
    Record,
    RoundEndRecord,
    RoundStartRecord,
)


@dataclass(frozen=True)
class Disagreement:
    index: int  # 1-based record number (= line number of a file without blank lines)
    message: str

    def __str__(self) -> str:
        return f"record {self.index}: {self.message}"


def verify(records: Sequence[Record]) -> Disagreement | None:
    """Return the first record that the rules engine disagrees with, or None if all agree."""
    header = records[0]
    if not isinstance(header, Header):
        return Disagreement(1, "the first record is not a header")
    game = get_game(header.game)
    try:
        options = game.parse_options(header.options.model_dump())
    except BadOptions as err:
        return Disagreement(1, str(err))
    n = len(header.players)
    if not game.min_players <= n <= game.max_players:
        return Disagreement(1, f"{n} players")
    state = game.new_game(options, n, header.seed)
    expected: list[tuple[str, dict[str, object]]] = [
        (state.first_transition.type, state.first_transition.record)
    ]
    forfeited = [False] * n
    ended = False
    for index, record in enumerate(records[1:], 2):
        if ended:
            return Disagreement(index, f"{record.type} after game_end")
        if isinstance(record, FaultRecord):
            if record.seat >= n:
                return Disagreement(index, f"a fault for seat {record.seat} in a {n}-player game")
            forfeited[record.seat] = True
            continue
        if isinstance(record, RoundStartRecord | RoundEndRecord):
            if not expected:
                return Disagreement(index, f"unexpected {record.type}")
            kind, body = expected.pop(0)
            got = record.model_dump(exclude={"type"})
            if kind != record.type or got != body:
                return Disagreement(index, f"{record.type} {got} but the rules give {kind} {body}")
            continue
        if expected:
            return Disagreement(index, f"{record.type} but the rules give {expected[0][0]} first")
        if isinstance(record, ActionRecord):
            problem = _apply(state, record, forfeited, expected)
            if problem:
                return Disagreement(index, problem)
        elif isinstance(record, GameEndRecord):
            problem = _check_end(game.placements, state, record, forfeited)
            if problem:
                return Disagreement(index, problem)
            ended = True
        else:  # a second header, or any record the referee never writes here
            return Disagreement(index, f"unexpected {record.type} record")
    if not ended:
        return Disagreement(len(records) + 1, "the replay ends before game_end")
    return None


def _apply(
    state: GameState,
    record: ActionRecord,
    forfeited: list[bool],
    expected: list[tuple[str, dict[str, object]]],
) -> str | None:
    seat = state.to_move()
    if seat is None:
        return "an action after the game ended"
    if record.seat != seat:
        return f"seat {record.seat} acts but seat {seat} is to move"
    if record.forced and not forfeited[seat]:
        return f"a forced action for seat {seat}, which has no fault"
    if forfeited[seat] and not record.forced:
        return f"seat {seat} acts unforced after its fault"
    try:
        action = state.parse_action(record.model_dump(include={"action", "card"}))
    except IllegalAction as err:
        return f"illegal action for seat {seat}: {err}"
    if record.forced and action != state.forced_action:
        return f"a forced {record.action} for seat {seat}, but the referee forces {state.forced_action}"
    step = state.apply(action)
    got = record.model_dump(include={"action", "card", "drawn"}, exclude_none=True)
    if got != step.record:
        return f"action {got} but the rules give {step.record}"
    expected.extend((t.type, t.record) for t in step.transitions)
    return None


def _check_end(
    placements_of: Callable[[Sequence[int], Sequence[bool]], list[int]],
    state: GameState,
    record: GameEndRecord,
    forfeited: list[bool],
) -> str | None:
    if state.to_move() is not None:
        return "game_end while the game goes on"
    want_placements = placements_of(state.scores, forfeited)
    won = winners(want_placements, forfeited)
    want = {
        "scores": state.scores,
        "winners": won,
        "placements": want_placements,
        "forfeited": forfeited,
        "adjudicated": state.adjudicated,
        "rounds": state.round,
    }
    got = record.model_dump(exclude={"type"})
    if got != want:
        return f"game_end {got} but the rules give {want}"
    return None
