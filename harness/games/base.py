"""The contract through which the referee, replays, check-bot and the league reach a game.

A game is a :class:`Game` registered in ``harness.games.REGISTRY``; its states follow
:class:`GameState`. One turn model covers both kinds of game: at each step a state
names the seats that act now (one seat, or several deciding at once), and takes their
joint action atomically. Nothing outside the game's package knows its rules, its wire
fields or its replay records. docs/games.md is this contract in prose; the conformance
suite (:mod:`harness.games.conformance`) checks it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, TypeAdapter

# A JSON object as it goes on the wire or into a replay (what a bot or a file holds).
Message = dict[str, Any]


class IllegalAction(ValueError):
    """A well-formed action that the rules do not allow now."""


class BadOptions(ValueError):
    """A rules option that does not exist or has a bad value."""


class InvalidReply(ValueError):
    """A reply of the wrong shape for this game: a field missing or of the wrong type."""


class Action(Protocol):
    """A game's action: its wire form is the fields of a bot's reply (after ``type``, ``id``)."""

    def wire(self) -> dict[str, object]: ...


class GameOptions(Protocol):
    """A game's parsed rules options: ``to_dict()`` is what hello and the replay header carry."""

    def to_dict(self) -> dict[str, object]: ...


A = TypeVar("A", bound=Action)
O = TypeVar("O", bound=GameOptions)  # noqa: E741 (the options type, as in the docs)
A_co = TypeVar("A_co", bound=Action, covariant=True)


@dataclass(slots=True)
class Outcome:
    """What the start of a game or one joint action did, for the referee to write and send.

    ``actions``: one replay body per acting seat (the action's wire fields plus what the
    rules revealed), in the order of ``acting()``. ``records``: further replay records,
    each with its ``type``. ``notices``: private ``(seat, message)`` pairs, in order;
    each message has its ``type`` first (the referee adds ``game`` after it).
    """

    actions: list[Message] = field(default_factory=list)
    records: list[Message] = field(default_factory=list)
    notices: list[tuple[int, Message]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Final:
    """How a finished game came out, by seat: the typed data ``game_end`` is rendered from.

    ``scores``: the game's own figure per seat (its direction is the game's business:
    ``placements`` rank them). ``placements``: 1 = first, ties share, forfeited seats last.
    ``adjudicated``: ended by a cap, not by the rules. ``rounds``: the rounds played
    (a game without rounds says 1).
    """

    scores: list[int]
    placements: list[int]
    adjudicated: bool = False
    rounds: int = 1


class GameState(Protocol[A]):
    """One game, mutated in place. Pure: no I/O, no clock; chance only from the seed it was made with."""

    players: int

    def begin(self) -> Outcome:
        """Start the game: the opening records (the deal) and notices (each seat's start)."""
        ...

    def acting(self) -> Sequence[int]:
        """The seats that act now, ascending; empty once the game is over."""
        ...

    def turn(self, seat: int) -> Message:
        """The body of ``seat``'s turn after ``type``, ``id``, ``game``: ``seat`` first, ``legal`` in it."""
        ...

    def legal_actions(self, seat: int) -> Sequence[A]:
        """The actions ``seat`` may take now, in the order of the turn's ``legal``."""
        ...

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> A:
        """A reply's fields as an action; raise InvalidReply (wrong shape) or IllegalAction (forbidden now)."""
        ...

    def forced_action(self, seat: int) -> A:
        """What a faulted ``seat`` plays now: legal and deterministic."""
        ...

    def apply(self, actions: Sequence[A]) -> Outcome:
        """Apply the joint action, one per seat of ``acting()`` in order, atomically (IllegalAction: no change)."""
        ...

    def deal(self) -> object:
        """What chance dealt for the current round: equal for equal (seed, round), whatever was played.

        The duplicate-deal contract (docs/games.md); a game without chance returns None.
        """
        ...


class Auditor(Protocol):
    """A game's isolation auditor: tracks the hidden truth from the replay records, audits each message."""

    def record(self, record: Mapping[str, Any]) -> None: ...

    def message(self, seat: int, message: Mapping[str, Any]) -> str | None:
        """Return what ``message`` reveals that ``seat`` may not see, or None."""
        ...


@dataclass(frozen=True)
class Position:
    """A state a bot must handle (check-bot): ``seat`` is to act in ``state``.

    ``notices`` are the messages the seat gets before its turn (as the referee sends
    them, without ``game``); ``legal`` the labels of the legal actions (a self-check).
    """

    name: str
    seat: int
    state: GameState[Any]  # any game's state: check-bot only passes it back to the game
    notices: tuple[Message, ...]
    legal: tuple[str, ...]


@dataclass(frozen=True)
class Wire:
    """A game's pydantic models: for its published JSON Schemas and to read its replays.

    ``to_bot``/``from_bot``: the union types of every message the referee sends a bot
    of this game and of every reply (envelope included). ``records``: the union of its
    replay records (header, fault and game_end included; build it with
    ``harness.replay.records.record_union``).
    """

    # union types as values (``A | B``): typing has no type for "a type expression"
    to_bot: Any
    from_bot: Any
    records: Any

    @cached_property
    def records_adapter(self) -> TypeAdapter[Any]:
        """The validator of the game's replay lines (built once)."""
        return TypeAdapter(self.records)


class Game(Protocol[A, O]):
    """A registry entry (``harness.games.REGISTRY``): everything the harness knows of a game.

    Generic over the game's action type ``A`` and options type ``O``.
    """

    name: str  # on the wire, in replay headers, league files and bot manifests
    title: str
    min_players: int
    max_players: int
    options_model: type[BaseModel]  # the options' fields: the CLI's --rule keys and flags
    wire: Wire
    # the game's renderer for the HTML replay viewer (window.gameViewer; see
    # harness/games/llama/viewer.js)
    viewer_js: Path

    def opponents(self) -> tuple[Path, ...]:
        """The bot folders check-bot plays a bot against (each a bot.toml that plays this game)."""
        ...

    def parse_options(self, raw: Mapping[str, object]) -> O:
        """The options from a mapping (a league's [rules], a header's options); BadOptions naming the key."""
        ...

    def new_game(self, options: O, players: int, seed: int) -> GameState[A]:
        """A fresh state; its chance comes from ``seed`` alone."""
        ...

    def final(self, state: GameState[A], forfeited: Sequence[bool]) -> Final:
        """The result of a finished ``state`` (forfeited seats placed last)."""
        ...

    def hello_fields(self, options: O) -> Message:
        """The game's fields of ``hello`` and of the replay header, after ``game``."""
        ...

    def auditor(self, players: int) -> Auditor:
        """A fresh isolation auditor for a game of ``players`` (the conformance suite's)."""
        ...

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per-seat figures from the game's own records, for the league store."""
        ...

    def render_text(self, records: Sequence[Any], seat: int | None) -> Iterator[str]:
        """A replay's records (the game's models) as text blocks, all of it or what ``seat`` saw."""
        ...

    def positions(self) -> Sequence[Position]:
        """The edge cases check-bot feeds a bot (fresh states on every call)."""
        ...

    def action_label(self, action: A) -> str:
        """An action as people read it ("play 3")."""
        ...


__all__ = [
    "Action",
    "Auditor",
    "BadOptions",
    "Final",
    "Game",
    "GameOptions",
    "GameState",
    "IllegalAction",
    "InvalidReply",
    "Message",
    "Outcome",
    "Position",
    "Wire",
]
