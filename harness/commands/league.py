"""The ``league`` and ``ratings`` commands: thin click wrappers over :mod:`harness.league`."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import click

from harness.commands.common import (
    FiniteFloat,
    collect_rules,
    friendly,
    rules_options,
    runtime_option,
    trust_bots_option,
)
from harness.errors import HarnessError
from harness.league.config import MAX_GAMES


def _anchor(value: str | None) -> tuple[str, float] | None:
    """Parse ``BOT=RATING``; raise HarnessError quoting a bad value."""
    if value is None:
        return None
    name, sep, rating = value.partition("=")
    try:
        number = float(rating)
    except ValueError:
        number = float("nan")
    if not (sep and name) or not math.isfinite(number):
        raise HarnessError(f"--anchor {value!r}: expected BOT=RATING, e.g. random=1000")
    return name, number


@click.command("league")
@click.argument("bots", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--games",
    "-n",
    type=click.IntRange(min=1, max=MAX_GAMES),
    default=None,
    help="Target number of games, rounded up to whole deal groups [default: 1000].",
)
@click.option(
    "--table-size",
    "-k",
    type=click.IntRange(min=2),
    default=None,
    help="Seats per table, within the game's bounds [default: 4, or all bots when fewer].",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Explicit seed: every deal reproducible from it, and guessable [default: a secret, kept in the league's database].",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Games played at once [default: the number of cores].",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("league-out"),
    show_default=True,
    help="League folder: results database, replays, logs.",
)
@click.option(
    "--duplicate/--no-duplicate",
    default=None,
    help="Duplicate deals: every bot holds every hand of a deal group [default: on].",
)
@click.option(
    "--cluster",
    metavar="tls://HOST:PORT",
    default=None,
    help="Run the jobs on this Dask scheduler instead of local processes (tls:// with --tls-*: see docs/league.md).",
)
@click.option(
    "--tls-ca-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --cluster tls://...: the CA certificate(s) the scheduler's certificate is checked against (PEM).",
)
@click.option(
    "--tls-cert",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --cluster tls://...: this client's certificate (PEM).",
)
@click.option(
    "--tls-key",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="With --cluster tls://...: this client's private key (PEM), unless --tls-cert holds it.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["auto", "bwrap", "none"]),
    default=None,
    help="Bot sandbox [default: auto].",
)
@click.option(
    "--force",
    is_flag=True,
    help="If the config or a bot changed under --out, discard its results and start over.",
)
@click.option(
    "--gauntlet",
    "gauntlet",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="NEW",
    help="A gauntlet: this new bot (repeat for more) plays against BOTS as a fixed field, one new bot "
    "a table; ratings anchored to the field (its mean is 1500).",
)
@click.option(
    "--until-decided",
    is_flag=True,
    help="Play until every adjacent pair of the ranking is decided (sequential tests), or --games; "
    "new deal groups go to the tables holding undecided pairs.",
)
@click.option(
    "--confidence",
    type=FiniteFloat(0.5, 0.999),
    default=0.95,
    show_default=True,
    help="--until-decided: chance that every decided pair is in the right order.",
)
@click.option(
    "--margin",
    type=FiniteFloat(0.0, 1000.0),
    default=None,
    help="--until-decided: a pair shown to differ by less than this many Elo is decided as equal "
    "within ±margin (too close to call) and stops needing games; 0 never calls a tie "
    "[default: 30].",
)
@rules_options
@runtime_option
@trust_bots_option
@friendly
def league(
    bots: Path,
    games: int | None,
    table_size: int | None,
    seed: int | None,
    jobs: int | None,
    out: Path,
    duplicate: bool | None,
    cluster: str | None,
    tls_ca_file: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    sandbox: Any,
    runtimes: tuple[str, ...],
    force: bool,
    gauntlet: tuple[Path, ...],
    until_decided: bool,
    confidence: float,
    margin: float | None,
    move_time: float | None,
    startup_time: float | None,
    **rules: Any,
) -> None:
    """Play a league between the bots in BOTS and print Elo ratings.

    BOTS is a folder of bot folders (each with a bot.toml) or a league file (.toml).
    Run the same command again to resume an interrupted league.
    """
    from harness.commands.running import run_with_progress
    from harness.league.cluster_tls import use_tls
    from harness.league.config import Overrides, resolve
    from harness.league.standings import render

    plain = use_tls(cluster, tls_ca_file, tls_cert, tls_key)  # before any bot is built
    if plain is not None:
        click.echo(plain, err=True)

    config = resolve(
        bots,
        Overrides(
            games=games,
            table_size=table_size,
            seed=seed,
            jobs=jobs,
            duplicate=duplicate,
            move_time=move_time,
            startup_time=startup_time,
            sandbox=sandbox,
            runtimes=runtimes,
            game=rules.pop("game", None),
            rules=collect_rules(rules),
            gauntlet=gauntlet,
        ),
    )
    if config.seed is not None:
        from harness.seeds import seed_warning

        click.echo(seed_warning(config.seed), err=True)
    began = time.monotonic()
    if margin is not None and not until_decided:
        raise HarnessError("--margin needs --until-decided")
    if until_decided:
        from harness.ratings.decide import DEFAULT_MARGIN

        _until_decided(config, out, cluster, force, confidence, DEFAULT_MARGIN if margin is None else margin)
        return
    run = run_with_progress(
        config, out, cluster=cluster, force=force, standings=lambda folder: click.echo(render(folder, "table"), nl=False)
    )
    elapsed = time.monotonic() - began
    click.echo(f"{run.played} games played in {elapsed:.1f} s ({run.total} in the league)", err=True)
    click.echo(render(run.folder, "table"), nl=False)
    from harness.html.report import write_report

    report = write_report(run.folder)
    click.echo(f"league folder: {run.folder} (replays in {run.folder / 'replays'}, results in league.db)")
    click.echo(f"report: {report}")
    click.echo(f"ratings again: llama-harness ratings {run.folder}")


def _until_decided(config: Any, out: Path, cluster: str | None, force: bool, confidence: float, margin: float) -> None:
    """``league --until-decided``: see harness.league.decided (the same command resumes it)."""
    from harness.commands.running import stopped
    from harness.league.decided import run_until_decided
    from harness.league.interrupts import Interrupted
    from harness.league.progress import Progress
    from harness.league.runner import JobOutcome
    from harness.league.standings import render
    from harness.league.store import Store

    if not config.duplicate:
        raise HarnessError("--until-decided needs duplicate deals (no --no-duplicate)")
    progress: Progress | None = None

    def started(store: Store) -> None:
        nonlocal progress
        done = store.counts()[0]
        progress = Progress(sys.stderr, config.games, done)
        resumed = f", {done} already played" if done else ""
        where = f"the Dask cluster at {cluster}" if cluster else f"{config.jobs} local worker(s)"
        click.echo(
            f"league until decided: {len(config.bots)} bots, at most {config.games} games{resumed}, on {where}",
            err=True,
        )

    def listener(outcome: JobOutcome) -> None:
        if progress is not None:
            progress.update(outcome.games)

    began = time.monotonic()
    try:
        try:
            run, ranking = run_until_decided(
                config,
                out,
                confidence=confidence,
                margin=margin,
                listener=listener,
                force=force,
                started=started,
                cluster=cluster,
            )
        finally:
            if progress is not None:
                progress.finish()
    except Interrupted as stop:
        stopped(config, out, stop, lambda folder: click.echo(render(folder, "table"), nl=False))
    verdict = "decided" if ranking.done() else "not decided within --games"
    if ranking.done() and ranking.tied():
        verdict = f"decided (every adjacent pair ordered or equal within ±{margin:g} Elo)"
    click.echo(f"{run.played} games played in {time.monotonic() - began:.1f} s ({run.recorded} in all): {verdict}", err=True)
    click.echo(render(run.folder, "table"), nl=False)
    from harness.html.report import write_report

    click.echo(f"league folder: {run.folder} · report: {write_report(run.folder)}")
    click.echo(f"ratings again: llama-harness ratings {run.folder}")


@click.command("ratings")
@click.argument("league_dir", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True
)
@click.option(
    "--anchor", metavar="BOT=RATING", default=None, help="Pin this bot's rating (default: the mean is 1500)."
)
@friendly
def ratings(league_dir: Path, fmt: str, anchor: str | None) -> None:
    """Print the ratings of a league folder (also while the league is running), or of an export of one."""
    from harness.league.standings import render

    if league_dir.is_file():  # an export (llama-harness export): its league rebuilt for the while
        from harness.export.league import exported_league

        with exported_league(league_dir) as folder:
            click.echo(render(folder, fmt, _anchor(anchor)), nl=False)
        return
    click.echo(render(league_dir, fmt, _anchor(anchor)), nl=False)
