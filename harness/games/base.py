"""The small interface through which the referee, replays and ratings reach a game.

A game is a :class:`Game` (options, a new state, placements) and its states follow
:class:`GameState`. Nothing outside ``harness/games`` knows the rules of a game, so a
second game plugs in by adding a package here and registering it in ``REGISTRY``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


class IllegalAction(ValueError):
    """A well-formed action that the rules do not allow now."""


class BadOptions(ValueError):
    """A rules option that does not exist or has a bad value."""


class InvalidReply(ValueError):
    """A reply of the wrong shape for this game: a field missing or of the wrong type."""


@dataclass(slots=True)
class Outcome:
    """What the start of a game or one joint action did, for the referee to write and send.

    ``actions``: one replay body per acting seat (the action's wire fields plus what the
    rules revealed), in the order of ``acting()``. ``records``: further replay records,
    each with its ``type``. ``notices``: private ``(seat, message)`` pairs, in order.
    """

    actions: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    notices: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Transition:
    """A change of phase (``round_start``, ``round_end``) as a replay record body."""

    type: str
    record: dict[str, Any]


@dataclass(slots=True)
class Step:
    """What one action did: its replay fields, its public event, and phase changes."""

    record: dict[str, Any]
    public: dict[str, Any]
    transitions: list[Transition] = field(default_factory=list)


class Action(Protocol):
    def wire(self) -> dict[str, object]: ...


class GameOptions(Protocol):
    def to_dict(self) -> dict[str, object]: ...


class GameState(Protocol):
    players: int
    scores: list[int]
    round: int
    over: bool
    adjudicated: bool
    public: list[dict[str, Any]]
    first_transition: Transition

    def to_move(self) -> int | None: ...

    def legal_actions(self) -> Sequence[Action]: ...

    def legal_wire(self) -> Sequence[dict[str, object]]: ...

    def parse_action(self, data: Mapping[str, Any]) -> Action: ...

    @property
    def forced_action(self) -> Action: ...

    def apply(self, action: Any) -> Step: ...

    def view(self, seat: int) -> dict[str, Any]: ...

    def round_start_notice(self, seat: int) -> dict[str, Any]: ...


class Game(Protocol):
    name: str
    min_players: int
    max_players: int

    def parse_options(self, raw: Mapping[str, object]) -> GameOptions: ...

    def new_game(self, options: Any, players: int, seed: int) -> GameState: ...

    def placements(self, scores: Sequence[int], forfeited: Sequence[bool]) -> list[int]: ...
