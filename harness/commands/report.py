"""``llama-harness report``: the league report as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.common import friendly
from harness.errors import HarnessError


@click.command("report")
@click.argument("league_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The page to write [default: LEAGUE_DIR/report.html]; faulted games' viewers go beside it.",
)
@friendly
def report(league_dir: Path, out: Path | None) -> None:
    """Write an HTML report of the league in LEAGUE_DIR: standings, charts, faults."""
    from harness.html.report import write_report

    if not league_dir.is_dir():
        raise HarnessError(f"{str(league_dir)!r}: no such league folder")
    click.echo(f"wrote {write_report(league_dir, out)}")
