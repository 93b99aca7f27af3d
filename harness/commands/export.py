"""``llama-harness export``: a league or match in one file (ZIP of replays + index), or its results as CSV/PGN."""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.common import friendly
from harness.errors import HarnessError

_SUFFIXES = {".csv": "csv", ".pgn": "pgn"}


@click.command("export")
@click.argument("source", type=click.Path(path_type=Path))
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The file to write."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["zip", "csv", "pgn"]),
    default=None,
    help="zip: every game in one file that replay and report read; csv: a row per game and seat; "
    "pgn: a result per pair of seats, for Ordo and BayesElo [default: from --out's suffix, else zip].",
)
@friendly
def export(source: Path, out: Path, fmt: str | None) -> None:
    """Write the games of the league or match in SOURCE into one file (SOURCE may be an export for csv/pgn)."""
    from harness.export import is_export, write_export, write_table

    fmt = fmt or _SUFFIXES.get(out.suffix.lower(), "zip")
    if not source.exists():
        raise HarnessError(f"{source}: no such league or match folder")
    if not source.is_dir():
        if not is_export(source):
            raise HarnessError(f"{source}: neither a league or match folder nor an export")
        if fmt == "zip":
            raise HarnessError(f"{source}: already an export; --format csv or pgn turns it into a table")
    _not_its_own(source, out)
    if fmt == "zip":
        path, games = write_export(source, out)
    else:
        path, games = write_table(source, out, fmt)  # type: ignore[arg-type]
    click.echo(f"wrote {path}: {games} games ({fmt})")


# what a league folder holds that an export must never replace (a file beside them is fine)
_KEPT = ("league.db", "league.db-wal", "league.db-shm", "league.lock", "secret", "summary.json", "report.html")
_KEPT_FOLDERS = ("replays", "bots", "logs")


def _not_its_own(source: Path, out: Path) -> None:
    """Refuse an output that is one of the league folder's own files (its database, a replay)."""
    if not source.is_dir():
        return
    folder, target = source.resolve(), out.resolve()
    if target.parent == folder and target.name in _KEPT:
        raise HarnessError(f"{out}: is the league's own {target.name}: write the export elsewhere")
    if any(target.is_relative_to(folder / name) for name in _KEPT_FOLDERS):
        raise HarnessError(f"{out}: is inside the league's own {target.relative_to(folder).parts[0]}/: write the export elsewhere")
