"""A conformance suite for any registered game, shipped as library code (as PettingZoo's api_test).

Seeded random playouts run through the referee's own loop
(:func:`harness.referee.play_game`) with scripted players, the state wrapped so that
every call is checked. It checks first that the game has every member of the
contract (docs/games.md), then at every step that:

- the legal actions, ``parse_action`` and ``apply`` agree: every legal action's wire
  form parses back to it, a mutated reply either raises IllegalAction/InvalidReply or
  names a legal action, an action that is not legal makes ``apply`` raise
  IllegalAction, and none of these change the state;
- the forced action of every acting seat is legal;
- no message to a seat holds what it may not see (the game's isolation auditor, fed the
  replay records as the truth);
- the same seed gives the same game, byte for byte;
- the duplicate-deal contract: a round's deal (``deal()``) is the same for the same
  seed and round, whatever the players did;
- the records alone re-play to the same records, and a replay file written by the
  harness's writer reads back and passes ``replay --verify``'s checker, which names a
  tampered line (the replay → verify round trip).

``python -m harness.games.conformance`` runs it for every registered game;
``--regenerate`` rewrites the golden playthrough files (review their diff).
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import random
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from harness.errors import BotFault, FaultKind
from harness.games.base import IllegalAction, InvalidReply

GOLDEN = Path("tests/games/golden")


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


def _fail(where: str, problem: str) -> NoReturn:
    raise ConformanceError(f"{where}: {problem}")


def _copy(value: Any) -> Any:
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
        _fail(str(name), f"the game lacks {', '.join(missing)} (see docs/games.md)")
    state = game.new_game(game.parse_options({}), game.min_players, 0)
    missing = [member for member in STATE_MEMBERS if not hasattr(state, member)]
    if missing:
        _fail(str(name), f"its state lacks {', '.join(missing)} (see docs/games.md)")


class _Checked:
    """The game's state as the referee sees it in the suite: every call checked, then passed on."""

    def __init__(self, driver: _Driver, state: Any) -> None:
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
            _fail(where, f"acting() must be ascending seats, got {acting!r}")
        for seat in acting:
            legal = list(state.legal_actions(seat))
            if not legal:
                _fail(where, f"seat {seat} acts but has no legal action")
            forced = state.forced_action(seat)
            if driver.check and forced not in legal:
                _fail(where, f"the forced action {forced} of seat {seat} is not legal")
        return acting

    def turn(self, seat: int) -> dict[str, Any]:
        body = self.inner.turn(seat)
        where = self.driver.where()
        if not body or next(iter(body)) != "seat" or body["seat"] != seat:
            _fail(where, f"turn(seat) must begin with 'seat': {seat}")
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
            _fail(where, f"{len(outcome.actions)} action records for {len(acting)} acting seats")
        driver.seen.extend(actions)
        del driver.seen[:-64]
        driver.out.steps += 1
        if driver.out.steps > 100_000:
            _fail(where, "the game does not end")
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

    def __init__(self, driver: _Driver, seat: int, fault_at: int | None) -> None:
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


class _Driver:
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
        record = _copy(record)
        if record.get("type") == "header":
            self.out.header = record
            return
        record.pop("ms", None)  # the players' answer times: not the game's, and not repeatable
        self.out.timeline.append((None, record))
        if self.auditor is not None:
            self.auditor.record(record)

    def send(self, seat: int, message: dict[str, Any]) -> None:
        message = _copy(message)
        self.out.timeline.append((seat, message))
        if self.auditor is not None:
            problem = self.auditor.message(seat, message)
            if problem:
                _fail(
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
            _fail(self.where(), f"the game raised {type(err).__name__}: {err}")
        self.out.state = state.inner
        return self.out

    def check_parsing(self, seat: int, legal: list[Any], turn: Mapping[str, Any], where: str) -> None:
        state = self.state
        before = _fingerprint(state)
        wires = [_wire(action) for action in legal]
        if wires != _copy(turn["legal"]):
            _fail(
                where,
                f"turn['legal'] of seat {seat} differs from legal_actions(): {turn['legal']} vs {wires}",
            )
        for action, wire in zip(legal, wires, strict=True):
            parsed = state.parse_action(seat, {"type": "action", "id": 1, **wire})
            if parsed != action:
                _fail(where, f"{wire} parses to {parsed}, not to the legal {action}")
        sample = self.probe.choice(wires)  # its own generator: checking must not change the play
        for reply in _mutations(sample):
            try:
                parsed = state.parse_action(seat, {"type": "action", "id": 1, **reply})
            except (IllegalAction, InvalidReply):
                continue
            except Exception as err:
                _fail(where, f"parse_action({reply}) raised {type(err).__name__}: {err}")
            if parsed not in legal:
                _fail(where, f"the mutated reply {reply} parses to {parsed}, which is not legal")
        if _fingerprint(state) != before:
            _fail(where, "parse_action changed the state")

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
                _fail(where, f"apply() took {foreign}, which is not legal for seat {seat}")
            if _fingerprint(state) != before:
                _fail(where, "a refused apply() changed the state")
            return


def _game_end(game: Any, state: Any, forfeited: Sequence[bool]) -> dict[str, Any]:
    """The referee's game_end record for a finished ``state``."""
    from harness.protocol.build import game_end_record

    return game_end_record(game.final(state, forfeited), forfeited)


def playout(
    game: Any,
    players: int,
    seed: int,
    *,
    options: Mapping[str, object] | None = None,
    policy_seed: int = 0,
    faults: Mapping[int, int] | None = None,
    check: bool = True,
) -> Playout:
    """Play one seeded random game of ``game`` through the referee; with ``check``, verify the contract.

    ``faults``: seat → the number of its turn at which it faults (forced from then on).
    Raise ConformanceError naming the step where the game broke the contract.
    """
    parsed = game.parse_options(dict(options or {}))
    auditor = game.auditor(players) if check else None
    driver = _Driver(game, parsed, players, seed, random.Random(policy_seed), auditor, check)
    return driver.run(faults or {})


def replay_check(game: Any, out: Playout) -> None:
    """Re-play ``out``'s records from its header alone; raise ConformanceError at the first disagreement."""
    header = out.header
    state = game.new_game(game.parse_options(header["options"]), len(header["players"]), header["seed"])
    records = [record for record in out.records if record["type"] != "fault"]  # faults: the referee's
    expected = [_copy(r) for r in state.begin().records]
    index = 0

    def take(want: dict[str, Any]) -> None:
        nonlocal index
        got = records[index] if index < len(records) else None
        if got != want:
            _fail(f"{out.game} seed={out.seed} record {index + 1}", f"{got} but the rules give {want}")
        index += 1

    for want in expected:
        take(want)
    while acting := tuple(state.acting()):
        actions = []
        bodies = []
        for seat in acting:
            record = records[index] if index < len(records) else {}
            if record.get("type") != "action" or record.get("seat") != seat:
                _fail(f"{out.game} seed={out.seed} record {index + 1}", f"{record} but seat {seat} acts")
            fields = {k: v for k, v in record.items() if k not in ("type", "seat", "forced", "ms")}
            try:
                action = state.parse_action(seat, fields)
            except (IllegalAction, InvalidReply) as err:
                _fail(f"{out.game} seed={out.seed} record {index + 1}", f"not a legal action: {err}")
            if record.get("forced") and action != state.forced_action(seat):
                _fail(
                    f"{out.game} seed={out.seed} record {index + 1}",
                    "a forced action the referee would not play",
                )
            actions.append(action)
            bodies.append(record)
            index += 1
        outcome = state.apply(actions)
        index -= len(acting)
        for seat, body, record in zip(acting, outcome.actions, bodies, strict=True):
            want = {"type": "action", "seat": seat, **_copy(body)}
            if record.get("forced"):
                want["forced"] = True
            take(want)
        for want in outcome.records:
            take(_copy(want))
    forfeited = [False] * len(header["players"])
    for record in records:
        if record.get("type") == "action" and record.get("forced"):
            forfeited[record["seat"]] = True
    take(_copy(_game_end(game, state, forfeited)))
    if index != len(records):
        _fail(f"{out.game} seed={out.seed}", f"{len(records) - index} records after game_end")


def file_round_trip(game: Any, out: Playout, folder: Path) -> None:
    """Write ``out`` with the replay writer, read it back and verify it; a tampered record must be named.

    Two tamperings, neither assuming a record of the game's: a score of ``game_end`` one
    point off, and (for a game with records of its own) its last such record dropped.
    Raise ConformanceError if the file does not verify, or if verify misses a tampering.
    """
    from harness.replay.io import ReplayWriter, read_replay  # the harness's own files, not the rules'
    from harness.replay.verify import verify

    rows = [out.header, *out.records]
    path = folder / f"{out.game}-{out.players}p-{out.seed}.jsonl"
    writer = ReplayWriter(path)
    for row in rows:
        writer.write(row)
    writer.commit()
    try:
        problem = verify(read_replay(path))
    except Exception as err:
        _fail(
            f"{out.game} seed={out.seed}", f"its replay file does not read back: {type(err).__name__}: {err}"
        )
    if problem is not None:
        _fail(f"{out.game} seed={out.seed}", f"its replay file does not verify: {problem}")
    end = len(rows) - 1
    scored = _copy(rows)
    scored[end]["scores"][0] += 1
    tamperings = [(scored, end, "a game_end score one point off")]
    own = [i for i, row in enumerate(rows) if row["type"] not in ("header", "action", "fault", "game_end")]
    if own:
        dropped = _copy(rows)
        del dropped[own[-1]]
        tamperings.append((dropped, own[-1], f"its last {rows[own[-1]]['type']} record dropped"))
    for number, (tampered, index, what) in enumerate(tamperings):
        bad = folder / f"{out.game}-{out.players}p-{out.seed}-tampered{number}.jsonl"
        bad.write_text("".join(json.dumps(row) + "\n" for row in tampered), encoding="utf-8")
        problem = verify(read_replay(bad))
        if problem is None or problem.index != index + 1:
            _fail(f"{out.game} seed={out.seed}", f"verify gave {problem} for line {index + 1}: {what}")


@dataclass(frozen=True)
class Report:
    """What :func:`check_game` ran: games, steps, decisions and the random-playout speed."""

    game: str
    games: int
    steps: int
    decisions: int
    seconds: float
    games_per_second: float  # unchecked random playouts, the rules engine alone

    def __str__(self) -> str:
        return (
            f"{self.game}: {self.games} checked games ({self.steps} steps, {self.decisions} decisions) "
            f"in {self.seconds:.1f} s; {self.games_per_second:.0f} random playouts/s unchecked"
        )


def check_game(
    game: Any,
    *,
    games: int = 12,
    seed: int = 0,
    options: Sequence[Mapping[str, object]] = ({},),
) -> Report:
    """Run the whole suite on ``game``: its members, checked playouts at every player count,
    determinism, duplicate deals, replay.

    Raise ConformanceError at the first broken rule of the contract.
    """
    start = time.perf_counter()
    require(game)
    counts = range(game.min_players, game.max_players + 1)
    steps = decisions = played = 0
    for index in range(games):
        players = counts[index % len(counts)]
        raw = options[index % len(options)]
        faults = {index % players: 3 + index % 5} if index % 3 == 2 else {}
        first = playout(game, players, seed + index, options=raw, policy_seed=index, faults=faults)
        again = playout(
            game, players, seed + index, options=raw, policy_seed=index, faults=faults, check=False
        )
        if first.lines() != again.lines():
            diff = next(
                (i for i, (a, b) in enumerate(zip(first.lines(), again.lines(), strict=False)) if a != b),
                min(len(first.lines()), len(again.lines())),
            )
            _fail(f"{game.name} seed={seed + index}", f"the same seed gave another game (line {diff + 1})")
        other = playout(game, players, seed + index, options=raw, policy_seed=index + 7919, check=False)
        for round_no in sorted(first.deals.keys() & other.deals.keys()):
            if first.deals[round_no] != other.deals[round_no]:
                _fail(
                    f"{game.name} seed={seed + index} round {round_no}",
                    "the deal differs when the players play otherwise: a round's deal must depend "
                    f"only on the seed and the round ({first.deals[round_no]!r} vs {other.deals[round_no]!r})",
                )
        replay_check(game, first)
        with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
            file_round_trip(game, first, Path(folder))
        steps, decisions, played = steps + first.steps, decisions + first.decisions, played + 1
    checked = time.perf_counter() - start
    return Report(game.name, played, steps, decisions, checked, speed(game, seconds=0.5))


def speed(game: Any, seconds: float = 1.0, seed: int = 0) -> float:
    """Random playouts per second of the rules engine alone (no checks, no messages)."""
    options = game.parse_options({})
    counts = list(range(game.min_players, game.max_players + 1))
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds or done == 0:
        state = game.new_game(options, counts[done % len(counts)], seed + done)
        state.begin()
        while acting := state.acting():
            state.apply([rng.choice(state.legal_actions(seat)) for seat in acting])
        done += 1
    return done / elapsed


# -- golden playthroughs --------------------------------------------------------------------


def golden_playout(game: Any) -> Playout:
    """The golden game of ``game``: 3 players (or the nearest count), seed 7, seat 1 faults on its 4th turn."""
    players = min(max(3, game.min_players), game.max_players)
    return playout(game, players, 7, policy_seed=7, faults={1: 4}, check=False)


def golden_path(folder: Path, name: str) -> Path:
    return folder / f"{name}.jsonl"


def golden_text(game: Any) -> str:
    return "\n".join(golden_playout(game).lines()) + "\n"


def regenerate(folder: Path, games: Sequence[Any]) -> list[Path]:
    """Rewrite the golden playthrough file of each game in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for game in games:
        path = golden_path(folder, game.name)
        path.write_text(golden_text(game), encoding="utf-8")
        written.append(path)
    return written


def _games(names: Sequence[str]) -> list[Any]:
    from harness.games import REGISTRY  # here, not at import: the registry imports every game

    return [REGISTRY[name] for name in (names or sorted(REGISTRY))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.games.conformance", description=__doc__.split("\n")[0]
    )
    parser.add_argument("games", nargs="*", help="game names (default: every registered game)")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the golden playthrough files")
    parser.add_argument("--golden", type=Path, default=GOLDEN, help=f"golden folder [default: {GOLDEN}]")
    parser.add_argument("--games-per", type=int, default=12, help="checked games per game [default: 12]")
    args = parser.parse_args(argv)
    try:
        games = _games(args.games)
    except KeyError as err:
        print(f"error: unknown game {err}", file=sys.stderr)
        return 2
    if args.regenerate:
        for path in regenerate(args.golden, games):
            print(f"wrote {path}")
        return 0
    status = 0
    for game in games:
        try:
            print(check_game(game, games=args.games_per))
        except ConformanceError as err:
            print(f"FAIL {err}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
