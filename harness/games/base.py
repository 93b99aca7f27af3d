"""The interface through which the referee, replays, check-bot and the league reach a game.

A game is a :class:`Game` registered in ``harness.games.REGISTRY``; its states follow
:class:`GameState`. One turn model covers both kinds of game: at each step a state
names the seats that act now (one seat, or several deciding at once), and takes their
joint action atomically. Nothing outside the game's package knows its rules, its wire
fields or its replay records.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, TypeAdapter


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
    each with its ``type``. ``notices``: private ``(seat, message)`` pairs, in order;
    each message has its ``type`` first (the referee adds ``game`` after it).
    """

    actions: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    notices: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


class Action(Protocol):
    def wire(self) -> dict[str, object]: ...


class GameOptions(Protocol):
    def to_dict(self) -> dict[str, object]: ...


class GameState(Protocol):
    """One game, mutated in place. Pure: no I/O, no clock, randomness from the seed."""

    players: int
    scores: list[int]
    round: int
    over: bool
    adjudicated: bool

    def begin(self) -> Outcome: ...

    def acting(self) -> Sequence[int]: ...

    def turn(self, seat: int) -> dict[str, Any]: ...

    def legal_actions(self, seat: int) -> Sequence[Any]: ...

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> Any: ...

    def forced_action(self, seat: int) -> Any: ...

    def apply(self, actions: Sequence[Any]) -> Outcome: ...

    def view(self, seat: int) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Position:
    """A state a bot must handle (check-bot): ``seat`` is to act in ``state``.

    ``notices`` are the messages the seat gets before its turn (as the referee sends
    them, without ``game``); ``legal`` the labels of the legal actions (a self-check).
    """

    name: str
    seat: int
    state: GameState
    notices: tuple[dict[str, Any], ...]
    legal: tuple[str, ...]


@dataclass(frozen=True)
class Wire:
    """A game's pydantic models: for its published JSON Schemas and to read its replays.

    ``to_bot``/``from_bot``: the union types of every message the referee sends a bot
    of this game and of every reply (envelope included). ``records``: the union of its
    replay records (header, fault and game_end included; ``harness.replay.records.record_union``).
    """

    to_bot: Any
    from_bot: Any
    records: Any

    @cached_property
    def records_adapter(self) -> TypeAdapter[Any]:
        """The validator of the game's replay lines (built once)."""
        return TypeAdapter(self.records)


class Game(Protocol):
    """A registry entry (``harness.games.REGISTRY``): everything the harness knows of a game."""

    name: str  # on the wire, in replay headers, league files and bot manifests
    title: str
    min_players: int
    max_players: int
    higher_wins: bool  # the ranking direction of scores (placements come from placements())
    options_model: type[BaseModel]
    wire: Wire
    # the game's renderer for the HTML replay viewer (window.gameViewer; see
    # harness/games/llama/viewer.js)
    viewer_js: Path

    def parse_options(self, raw: Mapping[str, object]) -> Any: ...

    def new_game(self, options: Any, players: int, seed: int) -> GameState: ...

    def placements(self, state: Any, forfeited: Sequence[bool]) -> list[int]: ...

    def hello_fields(self, options: Any) -> dict[str, Any]: ...

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]: ...

    def render_text(self, records: Sequence[Any], seat: int | None) -> Iterator[str]: ...

    def positions(self) -> Sequence[Position]: ...

    def action_label(self, action: Any) -> str: ...


__all__ = [
    "Action",
    "BadOptions",
    "Game",
    "GameOptions",
    "GameState",
    "IllegalAction",
    "InvalidReply",
    "Outcome",
    "Position",
    "Wire",
]
