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
- the records alone re-play to the same records (``replay --verify``'s checker), and a
  replay file written by the harness's writer reads back and passes it, which names a
  tampered line (the replay → verify round trip).

``python -m harness.games.conformance`` runs it for every registered game;
``--regenerate`` rewrites the golden playthrough files (review their diff).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.games.driver import ConformanceError, Driver, Playout, fail, json_copy, require

GOLDEN = Path("tests/games/golden")


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
    driver = Driver(game, parsed, players, seed, random.Random(policy_seed), auditor, check)
    return driver.run(faults or {})


def replay_check(game: Any, out: Playout) -> None:
    """Re-check ``out``'s records from its header alone, as ``replay --verify`` does a file.

    Each record must fit the game's replay models; then :func:`harness.replay.verify.verify`
    re-plays them. Raise ConformanceError naming the first record that disagrees.
    """
    from pydantic import ValidationError

    from harness.errors import one_line
    from harness.replay.verify import verify

    rows = []
    for index, row in enumerate([out.header, *out.records], 1):
        try:
            rows.append(game.wire.records_adapter.validate_python(row))
        except ValidationError as err:
            fail(f"{out.game} seed={out.seed} record {index}", f"not a legal record: {one_line(err)}")
    problem = verify(rows)
    if problem is not None:
        fail(f"{out.game} seed={out.seed}", str(problem))


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
        fail(
            f"{out.game} seed={out.seed}", f"its replay file does not read back: {type(err).__name__}: {err}"
        )
    if problem is not None:
        fail(f"{out.game} seed={out.seed}", f"its replay file does not verify: {problem}")
    end = len(rows) - 1
    scored = json_copy(rows)
    scored[end]["scores"][0] += 1
    tamperings = [(scored, end, "a game_end score one point off")]
    own = [i for i, row in enumerate(rows) if row["type"] not in ("header", "action", "fault", "game_end")]
    if own:
        dropped = json_copy(rows)
        del dropped[own[-1]]
        tamperings.append((dropped, own[-1], f"its last {rows[own[-1]]['type']} record dropped"))
    for number, (tampered, index, what) in enumerate(tamperings):
        bad = folder / f"{out.game}-{out.players}p-{out.seed}-tampered{number}.jsonl"
        bad.write_text("".join(json.dumps(row) + "\n" for row in tampered), encoding="utf-8")
        problem = verify(read_replay(bad))
        if problem is None or problem.index != index + 1:
            fail(f"{out.game} seed={out.seed}", f"verify gave {problem} for line {index + 1}: {what}")


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
            fail(f"{game.name} seed={seed + index}", f"the same seed gave another game (line {diff + 1})")
        other = playout(game, players, seed + index, options=raw, policy_seed=index + 7919, check=False)
        for round_no in sorted(first.deals.keys() & other.deals.keys()):
            if first.deals[round_no] != other.deals[round_no]:
                fail(
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


__all__ = [
    "ConformanceError",
    "Playout",
    "Report",
    "check_game",
    "file_round_trip",
    "golden_path",
    "golden_playout",
    "golden_text",
    "main",
    "playout",
    "regenerate",
    "replay_check",
    "require",
    "speed",
]

if __name__ == "__main__":
    sys.exit(main())
