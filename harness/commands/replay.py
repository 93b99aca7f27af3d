"""``llama-harness replay`` and ``schema``: replay files and the published schemas."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.commands.common import friendly
from harness.errors import HarnessError


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--seat", type=click.IntRange(min=0, max=5), default=None, help="Show only what this seat saw.")
@click.option(
    "--verify",
    is_flag=True,
    help="Re-simulate through the rules; exit 1 at the first disagreement.",
)
@click.option("--step", is_flag=True, help="Wait for Enter between steps.")
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a self-contained HTML viewer of the game to this file.",
)
@friendly
def replay(file: Path, seat: int | None, verify: bool, step: bool, html_out: Path | None) -> None:
    """Show a replay FILE step by step, or check it with --verify."""
    from harness.replay.io import read_replay
    from harness.replay.render import render
    from harness.replay.verify import verify as check

    records = read_replay(file)
    problem = check(records)
    if verify:
        if problem is not None:
            click.echo(f"{file}: {problem}", err=True)
            sys.exit(1)
        click.echo(f"{file}: ok ({len(records)} records)")
        return
    if problem is not None:  # the step-through replays the cards: it needs a sound file
        raise HarnessError(f"{file}: cannot show a replay that does not verify: {problem}")
    players = len(getattr(records[0], "players", []))
    if seat is not None and seat >= players:
        raise HarnessError(f"--seat {seat}: the game has seats 0-{players - 1}")
    if html_out is not None:
        from harness.html.viewer import save_viewer

        click.echo(f"wrote {save_viewer(records, html_out, seat=seat, source=file.name)}")
        return
    for block in render(records, seat):
        click.echo(block)
        if step and sys.stdin.isatty():
            input()


@click.command()
@click.option("--dir", "folder", type=click.Path(path_type=Path), default=Path("schemas"), show_default=True)
@click.option("--check", is_flag=True, help="Exit 1 if the files differ from the models.")
@friendly
def schema(folder: Path, check: bool) -> None:
    """Write the JSON Schemas (protocol, replay, bot.toml) generated from the models."""
    from harness import schema as schemas

    if check:
        stale = schemas.stale(folder)
        if stale:
            click.echo(f"{folder}: stale schemas: {', '.join(stale)} (run: llama-harness schema)", err=True)
            sys.exit(1)
        click.echo(f"{folder}: schemas are up to date")
        return
    for path in schemas.write(folder):
        click.echo(f"wrote {path}")
