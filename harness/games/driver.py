"""The conformance suite's driver: one game played through the referee, every call checked.

:class:`Driver` seats scripted players (:class:`_Scripted`, a seeded choice among each
turn's ``legal``; one may fault) at :func:`harness.referee.play_game`, with the game's
state wrapped in :class:`_Checked`: every call the referee makes is checked against the
contract (docs/games.md) and passed on. The suite itself is :mod:`harness.games.conformance`.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from harness.errors import BotFault, FaultKind
from harness.games.base import IllegalAction, InvalidReply


class ConformanceError(AssertionError):
    """A game broke the interface contract; the message names the game, seed and step."""


Timeline = list[tuple[int | None, dict[str, Any]]]  # (None, record) or (seat, message to it)

# what the contract asks of a registry entry and of its states (checked first, by name)
GAME_MEMBERS = (
    "name", "title", "min_players", "max_players", "options_model", "wire", "viewer_js", "opponents",
    "parse_options", "new_game", "final", "hello_fields", "auditor", "statistics", "render_text",
    "positions", "action_label",
)  # fmt: skip
STATE_MEMBERS = (
    "players", "round", "begin", "acting", "turn", "legal_actions", "parse_action", "forced_action",
    "apply", "deal",
)  # fmt: skip


@dataclass
class Playout:
    """One seeded random game: its header, every record and every message, in order.

    The timeline holds the replay's records and the game's messages to each seat (its
    turns and notices; ``game_start`` and ``game_end`` are the referee's own). ``deals``:
    what ``deal()`` said at the start of each round, by round.
    """

    game: str
    players: int
    seed: int
    header: dict[str, Any] = field(default_factory=dict)
    timeline: Timeline = field(default_factory=list)
    state: Any = None
    steps: int = 0
    decisions: int = 0
    deals: dict[int, Any] = field(default_factory=dict)

    @property
    def records(self) -> list[dict[str, Any]]:
        return [item for seat, item in self.timeline if seat is None]

    def lines(self) -> list[str]:
        """The playout as JSON lines (the golden file's form): the header, then the timeline."""
        out = [json.dumps({"record": self.header}, sort_keys=True)]
        for seat, item in self.timeline:
            entry = {"record": item} if seat is None else {"seat": seat, "message": item}
            out.append(json.dumps(entry, sort_keys=True))
        return out


def fail(where: str, problem: str) -> NoReturn:
    raise ConformanceError(f"{where}: {problem}")


def json_copy(value: Any) -> Any:
    # a JSON round trip: what a bot or a replay file would really hold
    return json.loads(json.dumps(value))


def _fingerprint(state: Any) -> bytes:
    return pickle.dumps(state)


def _mutations(wire: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Replies near a legal one: a field dropped, retyped, out of range, duplicated, emptied."""
    for key, value in wire.items():
        dropped = {k: v for k, v in wire.items() if k != key}
        yield dropped
        bad: list[Any] = ["nonsense", None, True, 3.5, {"x": 1}]
        if isinstance(value, int) and not isinstance(value, bool):
            bad += [value + 1000, -1, 0, str(value)]
        if isinstance(value, list):
            bad += [[], value + value[:1], [*value[1:], 999], [str(v) for v in value], value[:-1]]
        if isinstance(value, str):
            bad += [value.upper() + "X", 5]
        for other in bad:
            yield {**wire, key: other}


def _wire(action: Any) -> dict[str, Any]:
    return dict(action.wire())


def require(game: Any) -> None:
    """Raise ConformanceError naming every member of the contract ``game`` or its state lacks."""
    name = getattr(game, "name", type(game).__name__)
    missing = [member for member in GAME_MEMBERS if not hasattr(game, member)]
    if missing:
        fail(str(name), f"the game lacks {', '.join(missing)} (see docs/games.md)")
    state = game.new_game(game.parse_options({}), game.min_players, 0)
    missing = [member for member in STATE_MEMBERS if not hasattr(state, member)]
    if missing:
        fail(str(name), f"its state lacks {', '.join(missing)} (see docs/games.md)")


class _Checked:
    """The game's state as the referee sees it in the suite: every call checked, then passed on."""

    def __init__(self, driver: Driver, state: Any) -> None:
        self.driver, self.inner = driver, state
        self.players = state.players
        self.round = state.round

    def _deal(self) -> None:
        self.round = self.inner.round
        self.driver.out.deals.setdefault(self.round, copy.deepcopy(self.inner.deal()))

    def begin(self) -> Any:
        outcome = self.inner.begin()
        self._deal()
        return outcome

    def acting(self) -> tuple[int, ...]:
        driver, state = self.driver, self.inner
        acting = tuple(state.acting())
        where = driver.where()
        if list(acting) != sorted(set(acting)) or not all(0 <= s < self.players for s in acting):
            fail(where, f"acting() must be ascending seats, got {acting!r}")
        for seat in acting:
            legal = list(state.legal_actions(seat))
            if not legal:
                fail(where, f"seat {seat} acts but has no legal action")
            forced = state.forced_action(seat)
            if driver.check and forced not in legal:
                fail(where, f"the forced action {forced} of seat {seat} is not legal")
        return acting

    def turn(self, seat: int) -> dict[str, Any]:
        body = self.inner.turn(seat)
        where = self.driver.where()
        if not body or next(iter(body)) != "seat" or body["seat"] != seat:
            fail(where, f"turn(seat) must begin with 'seat': {seat}")
        self.driver.out.decisions += 1
        if self.driver.check:
            self.driver.check_parsing(seat, list(self.inner.legal_actions(seat)), body, where)
        return dict(body)

    def legal_actions(self, seat: int) -> Any:
        return self.inner.legal_actions(seat)

    def parse_action(self, seat: int, reply: Mapping[str, Any]) -> Any:
        return self.inner.parse_action(seat, reply)

    def forced_action(self, seat: int) -> Any:
        return self.inner.forced_action(seat)

    def apply(self, actions: Sequence[Any]) -> Any:
        driver = self.driver
        where = driver.where()
        acting = tuple(self.inner.acting())
        if driver.check:
            driver.check_illegal_apply(acting, list(actions), where)
        outcome = self.inner.apply(actions)
        if len(outcome.actions) != len(acting):
            fail(where, f"{len(outcome.actions)} action records for {len(acting)} acting seats")
        driver.seen.extend(actions)
        del driver.seen[:-64]
        driver.out.steps += 1
        if driver.out.steps > 100_000:
            fail(where, "the game does not end")
        self._deal()
        return outcome

    def deal(self) -> Any:
        return self.inner.deal()


class _CheckedGame:
    """The game as the referee sees it in the suite: its results from the state under the checks."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def final(self, state: _Checked, forfeited: Sequence[bool]) -> Any:
        return self.game.final(state.inner, forfeited)

    def statistics(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        return dict(self.game.statistics(records))


class _Scripted:
    """A seat's player in the suite: answers each turn with a seeded choice from its ``legal``.

    Its ``fault_at``-th turn times out (the referee records the fault and forces the seat).
    """

    def __init__(self, driver: Driver, seat: int, fault_at: int | None) -> None:
        self.driver, self.seat, self.fault_at = driver, seat, fault_at
        self.name, self.version = f"player{seat}", "1"
        self.turns = 0
        self._turn: dict[str, Any] = {}

    def begin(self, game_start: dict[str, Any]) -> None:
        pass  # the referee's own message: not the game's to check

    def notify(self, message: dict[str, Any]) -> None:
        if message["type"] != "game_end":  # the referee's own, built from final()
            self.driver.send(self.seat, message)

    def send_turn(self, turn: dict[str, Any]) -> None:
        self.turns += 1
        turn["id"] = self.turns  # as BotSession numbers them on the wire
        self._turn = turn
        self.driver.send(self.seat, turn)

    def receive(self) -> tuple[dict[str, Any], float]:
        if self.turns == self.fault_at:
            raise BotFault("a scripted fault", FaultKind.TIMEOUT)
        return {
            "type": "action",
            "id": self._turn["id"],
            **self.driver.policy.choice(self._turn["legal"]),
        }, 0.0

    def faulted(self) -> str:
        return ""


class Driver:
    """Plays one game through the referee (:func:`harness.referee.play_game`), checking the contract."""

    def __init__(
        self,
        game: Any,
        options: Any,
        players: int,
        seed: int,
        policy: random.Random,
        auditor: Any,
        check: bool,
    ) -> None:
        self.game, self.players, self.seed = game, players, seed
        self.policy, self.auditor, self.check = policy, auditor, check
        self.out = Playout(game.name, players, seed)
        self.probe = random.Random(seed)
        self.seen: list[Any] = []  # actions met earlier: candidates for an illegal apply
        self.options = options
        self.state: Any = None  # the game's own state, once made

    def where(self) -> str:
        return f"{self.game.name} players={self.players} seed={self.seed} step {self.out.steps + 1}"

    def write(self, record: dict[str, Any]) -> None:
        """The referee's sink: every replay record, in order (header first)."""
        record = json_copy(record)
        if record.get("type") == "header":
            self.out.header = record
            return
        record.pop("ms", None)  # the players' answer times: not the game's, and not repeatable
        self.out.timeline.append((None, record))
        if self.auditor is not None:
            self.auditor.record(record)

    def send(self, seat: int, message: dict[str, Any]) -> None:
        message = json_copy(message)
        self.out.timeline.append((seat, message))
        if self.auditor is not None:
            problem = self.auditor.message(seat, message)
            if problem:
                fail(
                    f"{self.game.name} players={self.players} seed={self.seed} after step {self.out.steps}",
                    f"message to seat {seat} leaks: {problem}: {message}",
                )

    def run(self, faults: Mapping[int, int]) -> Playout:
        from harness.protocol.build import header_fields
        from harness.referee import play_game
        from harness.replay.records import REPLAY_FORMAT

        game, players = self.game, self.players
        self.state = game.new_game(self.options, players, self.seed)
        state = _Checked(self, self.state)
        seated = [_Scripted(self, seat, faults.get(seat)) for seat in range(players)]
        header = {
            "type": "header",
            "format": REPLAY_FORMAT,
            **header_fields(game, self.options),
            "seed": self.seed,
        }
        header["match"] = 1
        try:
            play_game(_CheckedGame(game), state, seated, self, header=header, game_no=1, seeds=[0] * players)  # type: ignore[arg-type]
        except ConformanceError:
            raise
        except Exception as err:  # the game's own bug, named where it happened
            fail(self.where(), f"the game raised {type(err).__name__}: {err}")
        self.out.state = state.inner
        return self.out

    def check_parsing(self, seat: int, legal: list[Any], turn: Mapping[str, Any], where: str) -> None:
        state = self.state
        before = _fingerprint(state)
        wires = [_wire(action) for action in legal]
        if wires != json_copy(turn["legal"]):
            fail(
                where,
                f"turn['legal'] of seat {seat} differs from legal_actions(): {turn['legal']} vs {wires}",
            )
        for action, wire in zip(legal, wires, strict=True):
            parsed = state.parse_action(seat, {"type": "action", "id": 1, **wire})
            if parsed != action:
                fail(where, f"{wire} parses to {parsed}, not to the legal {action}")
        sample = self.probe.choice(wires)  # its own generator: checking must not change the play
        for reply in _mutations(sample):
            try:
                parsed = state.parse_action(seat, {"type": "action", "id": 1, **reply})
            except (IllegalAction, InvalidReply):
                continue
            except Exception as err:
                fail(where, f"parse_action({reply}) raised {type(err).__name__}: {err}")
            if parsed not in legal:
                fail(where, f"the mutated reply {reply} parses to {parsed}, which is not legal")
        if _fingerprint(state) != before:
            fail(where, "parse_action changed the state")

    def check_illegal_apply(self, acting: Sequence[int], chosen: list[Any], where: str) -> None:
        state = self.state
        for index, seat in enumerate(acting):
            legal = state.legal_actions(seat)
            foreign = next((a for a in reversed(self.seen) if a not in legal), None)
            if foreign is None:
                continue
            before = _fingerprint(state)
            joint = list(chosen)
            joint[index] = foreign
            try:
                state.apply(joint)
            except IllegalAction:
                pass
            else:
                fail(where, f"apply() took {foreign}, which is not legal for seat {seat}")
            if _fingerprint(state) != before:
                fail(where, "a refused apply() changed the state")
            return


__all__ = [
    "GAME_MEMBERS",
    "STATE_MEMBERS",
    "ConformanceError",
    "Driver",
    "Playout",
    "fail",
    "json_copy",
    "require",
]
