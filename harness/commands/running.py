"""Running a league or a match from the command line: the start line and the progress display."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click

from harness.league.config import LeagueConfig
from harness.league.interrupts import Interrupted
from harness.league.loop import LeagueRun, run_league
from harness.league.progress import Progress
from harness.league.runner import JobOutcome
from harness.league.store import DB_NAME, Store


def run_with_progress(
    config: LeagueConfig,
    out: Path,
    *,
    cluster: str | None = None,
    force: bool = False,
    standings: Callable[[Path], None],
) -> LeagueRun:
    """Run ``config`` in ``out`` showing progress on stderr (in place on a terminal, lines otherwise).

    On Ctrl-C or SIGTERM: print the standings so far with ``standings`` and exit 130 / 143.
    """
    progress: Progress | None = None

    def started(store: Store) -> None:
        nonlocal progress
        done, total = store.counts()
        progress = Progress(sys.stderr, total, done)
        for game in store.games():
            progress.tally.add_stored(game)
        where = f"the Dask cluster at {cluster}" if cluster else f"{config.jobs} local worker(s)"
        resumed = f", {done} already played" if done else ""
        if store.revised:
            click.echo(f"{config.kind} revised: {store.revised}", err=True)
        click.echo(f"{config.kind}: {len(config.bots)} bots, {total} games{resumed}, on {where}", err=True)

    def listener(outcome: JobOutcome) -> None:
        if progress is not None:
            progress.update(outcome.games)

    try:
        try:
            return run_league(config, out, cluster=cluster, force=force, listener=listener, started=started)
        finally:
            if progress is not None:
                progress.finish()
    except Interrupted as stop:
        stopped(config, out, stop, standings)
        raise AssertionError("unreachable") from None


def stopped(
    config: LeagueConfig, out: Path, stop: Interrupted, standings: Callable[[Path], None], kind: str | None = None
) -> NoReturn:
    """Say how far the run got, print the standings so far, and exit 128 + the signal."""
    folder = out.resolve()
    done = total = 0
    if (folder / DB_NAME).is_file():
        with Store.open_league(folder) as store:
            done, total = store.counts()
    click.echo(
        f"{kind or config.kind} interrupted by {stop.name}: {done} of {total} games recorded; "
        "run the same command to resume",
        err=True,
    )
    if done:
        standings(folder)
    sys.exit(stop.exit_code)
