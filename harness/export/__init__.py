"""One-file exports of a league or match: a ZIP of its replays with an index, and CSV/PGN tables.

``write_export`` makes the archive (:mod:`harness.export.archive` says why ZIP),
``open_export`` reads it back for ``replay`` and ``report``; ``write_table`` writes the
results for spreadsheets (CSV) and other rating tools (PGN) from a folder or an export.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from harness.errors import HarnessError
from harness.export.archive import Export, ExportWriter, dumps, is_export, open_export
from harness.export.collect import collect
from harness.export.model import INDEX_NAME, ExportGame, ExportHeader
from harness.export.tables import render_csv, render_pgn

Format = Literal["zip", "csv", "pgn"]


def write_export(folder: Path, out: Path) -> tuple[Path, int]:
    """Write every finished game of the league in ``folder`` into the export ``out``; return it and the games.

    Atomic (``out.part``, then a rename). Raises HarnessError when ``folder`` is not a
    league folder, a replay cannot be read, or ``out`` is a FIFO, a device or a folder.
    """
    source = collect(folder)
    writer = ExportWriter(out)
    entries: list[bytes] = [dumps(source.header)]
    try:
        count = 0
        for game, text in source.games:
            writer.add(game.replay, text)
            entries.append(dumps(game))
            count += 1
        writer.add_lines(INDEX_NAME, iter(entries))
        return writer.commit(), count
    except BaseException:
        writer.discard()
        raise


def _results(source: Path) -> tuple[ExportHeader, list[ExportGame]]:
    """The header and games of a league folder or of an export file."""
    if source.is_dir():
        collected = collect(source)
        return collected.header, [game for game, _ in collected.games]
    with open_export(source) as export:
        return export.header, list(export.games)


def write_table(source: Path, out: Path, fmt: Format) -> tuple[Path, int]:
    """Write the results of ``source`` (a league folder or an export) as CSV or PGN; return the file and games.

    Atomic (:func:`harness.files.write_output`). Raises HarnessError for a source that
    is neither, a replay that cannot be read, or an output that is a FIFO, a device or a folder.
    """
    from harness.files import check_output, write_output

    check_output(out)  # before any work: a FIFO or a device is refused, never replaced
    header, games = _results(source)
    if fmt == "csv":
        text = render_csv(games)
    elif fmt == "pgn":
        text = render_pgn(header, games)
    else:
        raise HarnessError(f"--format {fmt!r}: a table is csv or pgn")
    return write_output(out, text), len(games)


__all__ = [
    "Export",
    "Format",
    "is_export",
    "open_export",
    "write_export",
    "write_table",
]
