"""An export as a league folder again: the results database rebuilt from its index, for ``report``.

The report reads a league folder (its ``league.db``, and the replays of faulted games
for their viewer pages); an export holds the same results in its index. The folder
made here has a database with those results (no secret: the export has none), and the
replays of the games that faulted, so the report of an export is the report of the
league it came from.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

from harness.errors import HarnessError
from harness.export.archive import Export
from harness.export.model import INDEX_NAME, ExportGame
from harness.league.schedule import Job, ScheduledGame
from harness.league.store import DB_NAME, FaultRow, GameRow, Store
from harness.timing import Timing

MAX_FAULTED = 200  # replays of faulted games written for viewer pages (the report's own cap)


def rebuild(export: Export, folder: Path) -> Path:
    """Write the league folder of ``export`` into ``folder`` (which must be empty); return it.

    Raises HarnessError when the index does not make a league (a seat of a bot it does
    not list, a timing that is not valid) or a faulted game's replay cannot be read.
    """
    header = export.header
    names = sorted({bot.name for bot in header.bots} | {s.bot for g in export.games for s in g.seats})
    folder.mkdir(parents=True, exist_ok=True)
    store = Store(folder / DB_NAME)
    try:
        games = tuple(
            ScheduledGame(g.game, tuple(s.bot for s in g.seats), 0, g.deal_group) for g in export.games
        )
        bots = {bot.name: bot for bot in header.bots}
        rows = [
            (name, "", bots[name].digest if name in bots else "", bots[name].version if name in bots else "")
            for name in names
        ]
        identity = dict(header.identity) or {"bots": names}
        store.create(identity, dict(header.config), rows, iter([Job(0, tuple(names), games)]))
        store.commit_job(0, [_row(g) for g in export.games], _timing(export))
        if header.decisions is not None:
            store.set_meta("decisions", header.decisions)
        if header.revisions:
            with store.db:  # the league's own revisions, in place of the one create() records
                store.db.execute("DELETE FROM revisions")
                store.db.executemany(
                    "INSERT INTO revisions VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            int(r.get("revision", i)),
                            json.dumps(r.get("bots", [])),
                            int(r.get("games", 0)),
                            int(r.get("first_job", 0)),
                            str(r.get("change", "")),
                            str(r.get("at") or ""),
                        )
                        for i, r in enumerate(header.revisions)
                    ],
                )
    finally:
        store.close()
    faulted = [g for g in export.games if any(s.faults for s in g.seats)][:MAX_FAULTED]
    for game in faulted:
        target = folder / game.replay
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(export.replay_text(game))
    return folder


def _row(game: ExportGame) -> GameRow:
    return GameRow(
        game_id=game.game,
        players=tuple(s.bot for s in game.seats),
        scores=tuple(s.score for s in game.seats),
        places=tuple(s.place for s in game.seats),
        forfeited=tuple(s.forfeited for s in game.seats),
        stats=tuple(dict(s.stats) for s in game.seats),
        rounds=game.rounds,
        moves=game.moves,
        adjudicated=game.adjudicated,
        replay=game.replay,
        faults=tuple(FaultRow(s.seat, s.bot, f.kind, f.detail) for s in game.seats for f in s.faults),
    )


def _timing(export: Export) -> list[tuple[str, Timing]]:
    out = []
    for name, data in sorted(export.header.timing.items()):
        try:
            out.append((name, Timing.from_json(json.dumps(data))))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise HarnessError(f"{export.path}: index: timing of {name!r} is not valid") from None
    return out


@contextlib.contextmanager
def exported_league(file: Path) -> Iterator[Path]:
    """The export ``file`` as a league folder (temporary, removed on leaving), for ``report`` and ``ratings``.

    The folder is named as the exported one was, when that is a plain name: a report
    is titled by its folder. Raises HarnessError when ``file`` is not an export.
    """
    from harness.export.archive import is_export, open_export

    if not is_export(file):
        raise HarnessError(f"{file}: not a league folder or an export (llama-harness export)")
    with open_export(file) as export, tempfile.TemporaryDirectory(prefix="llama-export-") as tmp:
        source = export.header.source
        name = source if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", source) else "export"
        try:
            yield rebuild(export, Path(tmp) / name)
        except (TypeError, ValueError, KeyError, AttributeError, sqlite3.Error) as err:
            # the index passed its schema, but its config or revisions are not what a
            # league stores (a hand-made or hostile export): one line, not a traceback
            raise HarnessError(
                f"{file}: {INDEX_NAME}: not a league's results ({type(err).__name__}: {err})"
            ) from None


__all__ = ["exported_league", "rebuild"]
