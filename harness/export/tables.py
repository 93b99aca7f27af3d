"""An export's results as tables for other tools: CSV for spreadsheets, PGN for Ordo and BayesElo.

CSV: one row per game and seat (RFC 4180, a header row). PGN: one "game" per pair of
seats at a table, White the lower seat, the result by the pair's placements (the better
place wins, the same place is a draw; a forfeited seat is placed last). A two-player
game is one PGN game; a table of k players gives k(k-1)/2, which are not independent
games: a rating tool reading them counts each table k-1 times per bot, so its error
bars come out too narrow (``ratings`` accounts for that; its intervals are
cluster-robust).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from itertools import combinations

from harness.export.model import ExportGame, ExportHeader

CSV_COLUMNS = (
    "game",
    "deal_group",
    "seat",
    "bot",
    "score",
    "place",
    "forfeited",
    "faults",
    "fault_kinds",
    "time_ms",
    "moves",
)


def render_csv(games: Iterable[ExportGame]) -> str:
    """One row per game and seat, in game and seat order, under a header row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for game in games:
        for seat in game.seats:
            writer.writerow(
                (
                    game.game,
                    game.deal_group,
                    seat.seat,
                    seat.bot,
                    seat.score,
                    seat.place,
                    int(seat.forfeited),
                    len(seat.faults),
                    " ".join(fault.kind for fault in seat.faults),
                    f"{seat.time_ms:.3f}",
                    seat.moves,
                )
            )
    return out.getvalue()


def _tag(value: str) -> str:
    # PGN string escapes: a backslash and a quote are escaped with a backslash
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def pgn_result(white_place: int, black_place: int) -> str:
    """The PGN result token of a pair: the better (lower) place wins; the same place is a draw."""
    if white_place < black_place:
        return "1-0"
    if white_place > black_place:
        return "0-1"
    return "1/2-1/2"


def render_pgn(header: ExportHeader, games: Iterable[ExportGame]) -> str:
    """A PGN game (the seven-tag roster and the result) per pair of seats of every game."""
    parts = []
    for game in games:
        for white, black in combinations(game.seats, 2):
            result = pgn_result(white.place, black.place)
            tags = (
                ("Event", header.source),
                ("Site", "llama-harness"),
                ("Date", "????.??.??"),
                ("Round", str(game.game)),
                ("White", white.bot),
                ("Black", black.bot),
                ("Result", result),
            )
            parts.append("".join(f"[{key} {_tag(value)}]\n" for key, value in tags) + f"\n{result}\n\n")
    return "".join(parts)


__all__ = ["CSV_COLUMNS", "pgn_result", "render_csv", "render_pgn"]
