"""Reading a league or match folder for an export: its results, each game's replay and time used.

The results come from the league's database (one read transaction: a league still
running is exported as it stood), each game's replay from its file; the replay gives
what the database does not keep per game: each seat's thinking time and moves.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.export.model import (
    EXPORT_FORMAT,
    EXPORT_VERSION,
    MEMBER_PATTERN,
    ExportBot,
    ExportFault,
    ExportGame,
    ExportHeader,
    ExportSeat,
)
from harness.files import read_capped
from harness.replay.io import MAX_REPLAY, iter_records_of

_MEMBER = re.compile(MEMBER_PATTERN)


@dataclass(frozen=True)
class Source:
    """What an export is made of: its header, and the games with their replays' text, in game order."""

    header: ExportHeader
    games: Iterator[tuple[ExportGame, bytes]]


def member_name(relative: str, game_id: int) -> str:
    """The archive member of a replay: its path in the league (``.gz`` dropped: the ZIP compresses)."""
    name = relative.removesuffix(".gz")
    return name if _MEMBER.match(name) else f"replays/game-{game_id:06d}.jsonl"


def _text(path: Path) -> bytes:
    """A replay file's text (decompressed, capped); raise HarnessError naming the file."""
    data = read_capped(path, MAX_REPLAY, "a replay")
    if path.suffix != ".gz":
        return data
    try:
        text = gzip.GzipFile(fileobj=io.BytesIO(data)).read(MAX_REPLAY + 1)
    except (OSError, EOFError, zlib.error) as err:
        raise HarnessError(f"{path}: cannot read replay: {err}") from None
    if len(text) > MAX_REPLAY:
        raise HarnessError(f"{path}: over {MAX_REPLAY >> 20} MiB of records: not a replay")
    return text


def _seat_use(name: str, text: bytes, seats: int) -> tuple[list[float], list[int]]:
    """Each seat's thinking time (ms) and moves, from its replay's action records."""
    time_ms, moves = [0.0] * seats, [0] * seats
    for _, record in iter_records_of(name, text):
        if record.type == "action" and not record.forced and record.seat < seats:
            time_ms[record.seat] += record.ms or 0.0
            moves[record.seat] += 1
    return [round(ms, 3) for ms in time_ms], moves


def collect(folder: Path) -> Source:
    """The export of the league or match in ``folder``; raise HarnessError when it is not one.

    The games are read lazily: a replay that cannot be read raises HarnessError naming
    it when its turn comes.
    """
    from harness.league.store import Store

    store = Store.open_league(folder)
    try:
        db = store.db
        db.execute("BEGIN")  # one snapshot of a league that may be writing
        config = store.meta("config") or {}
        identity = store.meta("identity") or {}
        decisions = store.meta("decisions")
        bots = [ExportBot(name=n, version=v, digest=d) for n, v, d in db.execute("SELECT name, version, digest FROM bots ORDER BY name")]
        revisions = store.revisions()
        timing = {name: json.loads(t.to_json()) for name, t in sorted(store.timing().items())}
        rows = db.execute(
            "SELECT r.game_id, g.cluster, r.rounds, r.moves, r.adjudicated, r.replay FROM results r "
            "JOIN games g ON g.game_id = r.game_id ORDER BY r.game_id"
        ).fetchall()
        stored = {game.game_id: game for game in store.games()}
        faults: dict[tuple[int, int], list[ExportFault]] = {}
        for fault in store.faults():
            faults.setdefault((fault["game"], fault["seat"]), []).append(
                ExportFault(kind=str(fault["kind"]), detail=str(fault["detail"]))
            )
        db.execute("COMMIT")
    except sqlite3.Error as err:
        store.close()
        raise store.damaged(str(err)) from None
    except BaseException:
        store.close()
        raise
    store.close()
    header = ExportHeader(
        type="export",
        format=EXPORT_FORMAT,
        version=EXPORT_VERSION,
        source=folder.resolve().name,
        game=str(config.get("game") or identity.get("game") or "llama"),
        games=len(rows),
        bots=bots,
        config=config,
        identity=identity,
        revisions=revisions,
        decisions=decisions if isinstance(decisions, dict) else None,
        timing=timing,
    )
    return Source(header, _games(folder, rows, stored, faults))


def _games(
    folder: Path, rows: list[Any], stored: dict[int, Any], faults: dict[tuple[int, int], list[ExportFault]]
) -> Iterator[tuple[ExportGame, bytes]]:
    for game_id, cluster, rounds, moves, adjudicated, relative in rows:
        game = stored.get(game_id)
        if game is None:
            raise HarnessError(f"{folder / 'league.db'}: game {game_id} has a result but no seats")
        path = folder / str(relative)
        text = _text(path)
        time_ms, seat_moves = _seat_use(str(path), text, len(game.players))
        seats = [
            ExportSeat(
                seat=seat,
                bot=game.players[seat],
                score=game.scores[seat],
                place=game.places[seat],
                forfeited=game.forfeited[seat],
                faults=faults.get((game_id, seat), []),
                time_ms=time_ms[seat],
                moves=seat_moves[seat],
                stats=dict(game.stats[seat]),
            )
            for seat in range(len(game.players))
        ]
        entry = ExportGame(
            type="game",
            game=game_id,
            deal_group=str(cluster),
            replay=member_name(str(relative), game_id),
            rounds=rounds,
            moves=moves,
            adjudicated=bool(adjudicated),
            seats=seats,
        )
        yield entry, text


__all__ = ["Source", "collect", "member_name"]
