"""``replay --verify`` of an export: every game re-checked by the rules, and against its index line.

A game of an export verifies when its replay verifies (as a replay file does) and the
index says what the replay says: the bots by seat, and the scores, places and
forfeits of its ``game_end``; so results edited in the index are found too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from harness.errors import HarnessError
from harness.export.archive import Export
from harness.export.model import ExportGame


@dataclass(frozen=True)
class GameVerdict:
    name: str  # FILE[game N]
    records: int
    problem: str | None  # None: the game verifies

    def line(self) -> str:
        return f"{self.name}: {self.problem}" if self.problem else f"{self.name}: ok ({self.records} records)"


def index_problem(game: ExportGame, records: list[object]) -> str | None:
    """How the index line of ``game`` disagrees with its replay's records, or None."""
    header = records[0]
    players = [p.name for p in getattr(header, "players", [])]
    bots = [seat.bot for seat in game.seats]
    if players != bots:
        return f"index: the seats are {bots}, the replay's players {players}"
    end = next((r for r in reversed(records) if getattr(r, "type", None) == "game_end"), None)
    if end is None:
        return "the replay has no game_end record"
    for field, mine in (
        ("scores", [s.score for s in game.seats]),
        ("placements", [s.place for s in game.seats]),
        ("forfeited", [s.forfeited for s in game.seats]),
    ):
        theirs = list(getattr(end, field))
        if theirs != mine:
            return f"index: {field} {mine}, the replay's game_end says {theirs}"
    return None


def verify_game(export: Export, game: ExportGame) -> GameVerdict:
    """Read, re-simulate and compare one game; a damaged game is a problem, not an error."""
    from harness.replay.io import read_replay
    from harness.replay.verify import verify

    name = export.name_of(game)
    try:
        records = read_replay(name, export.replay_text(game))
    except HarnessError as err:
        text = str(err)
        return GameVerdict(name, 0, text.removeprefix(f"{name}:").removeprefix(f"{export.path}:").lstrip() or text)
    problem = verify(records)
    if problem is not None:
        return GameVerdict(name, len(records), str(problem))
    return GameVerdict(name, len(records), index_problem(game, records))


def verify_export(export: Export, games: tuple[ExportGame, ...] | None = None) -> Iterator[GameVerdict]:
    """A verdict per game of ``export`` (or of ``games``), in index order."""
    for game in export.games if games is None else games:
        yield verify_game(export, game)


__all__ = ["GameVerdict", "index_problem", "verify_export", "verify_game"]
