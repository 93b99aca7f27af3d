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
    import re
    import tempfile

    from harness.export import is_export, open_export
    from harness.export.league import rebuild
    from harness.files import check_output
    from harness.html.report import write_report

    if not is_export(file):
        raise HarnessError(f"{file}: not a league folder or an export (llama-harness export)")
    out = out if out is not None else file.with_name(file.name.rsplit(".", 1)[0] + ".html")
    check_output(out)  # before any work: a FIFO or a device is refused, never replaced
    with open_export(file) as export, tempfile.TemporaryDirectory(prefix="llama-export-") as tmp:
        source = export.header.source
        # the report is titled by its folder's name: the league's, when it is a plain name
        name = source if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", source) else "export"
        folder = rebuild(export, Path(tmp) / name)
        return write_report(folder, out)
