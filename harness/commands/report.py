"""``llama-harness report``: the league report as one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path

import click

from harness.commands.common import friendly
from harness.errors import HarnessError


@click.command("report")
@click.argument("league_dir", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The page to write [default: LEAGUE_DIR/report.html, or EXPORT.html beside an export]; "
    "faulted games' viewers go beside it.",
)
@friendly
def report(league_dir: Path, out: Path | None) -> None:
    """Write an HTML report of the league in LEAGUE_DIR (or in an export of one): standings, charts, faults."""
    from harness.html.report import write_report

    if league_dir.is_file():
        click.echo(f"wrote {_export_report(league_dir, out)}")
        return
    if not league_dir.is_dir():
        raise HarnessError(f"{str(league_dir)!r}: no such league folder")
    click.echo(f"wrote {write_report(league_dir, out)}")


def _export_report(file: Path, out: Path | None) -> Path:
    """The report of an export: its league folder rebuilt in a temporary folder, reported as a league's."""
    from harness.export.archive import is_export
    from harness.export.league import exported_league
    from harness.files import check_output
    from harness.html.report import write_report

    if not is_export(file):
        raise HarnessError(f"{file}: not a league folder or an export (llama-harness export)")
    out = out if out is not None else file.with_name(file.name.rsplit(".", 1)[0] + ".html")
    check_output(out)  # before any work: a FIFO or a device is refused, never replaced
    with exported_league(file) as folder:
        return write_report(folder, out)
