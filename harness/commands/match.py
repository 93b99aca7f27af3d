"""``llama-harness match``: a match between bots (as many as the game seats), on the league machinery."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

from harness.bots.manifest import load_bot
from harness.commands.common import (
    check_rules,
    collect_rules,
    friendly,
    rules_options,
    runtime_option,
    trust_bots_option,
)
from harness.commands.sprt import sprt_match, sprt_options
from harness.errors import HarnessError
from harness.games import DEFAULT_GAME, get_game
from harness.seeds import is_secret, seed_warning
from harness.terminal import inline


class _Seed(click.ParamType):  # type: ignore[type-arg]  # generic only in newer click
    """A seed: an integer ≥ 0, or a secret as a match's ``secret`` file keeps it."""

    name = "seed"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        text = str(value).strip()
        if is_secret(text):
            return text
        if text.isdigit():
            return int(text)
        self.fail(f"{value!r} is neither a whole number ≥ 0 nor a secret (32-128 hex digits)", param, ctx)


SEED = _Seed()


@click.command()
@click.argument("bots", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--games",
    "-n",
    type=click.IntRange(min=1),
    default=None,
    help="Games to play [default: 10; with --sprt the most to play, default 20000].",
)
@click.option(
    "--seed",
    type=SEED,
    default=None,
    help="Explicit seed (a number, or the secret from a match folder's secret file): reproducible, and guessable "
    "[default: a secret drawn for this match, kept in its output folder].",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("match-out"),
    show_default=True,
    help="Match folder: results database, replays, logs, summary.json.",
)
@click.option("--gzip", "compress", is_flag=True, help="Write replays as .jsonl.gz.")
@click.option(
    "--sandbox",
    type=click.Choice(["auto", "bwrap", "none"]),
    default="auto",
    show_default=True,
    help="Confine bots with bubblewrap (auto: when installed). See docs/sandbox.md.",
)
@click.option("--force", is_flag=True, help="If --out holds another match, discard it and start over.")
@sprt_options
@rules_options
@runtime_option
@trust_bots_option
@friendly
def match(
    bots: tuple[Path, ...],
    games: int | None,
    seed: int | str | None,
    out: Path,
    compress: bool,
    sandbox: Any,
    runtimes: tuple[str, ...],
    force: bool,
    move_time: float | None,
    startup_time: float | None,
    sprt: str | None,
    alpha: float,
    beta: float,
    jobs: int | None,
    **rules: Any,
) -> None:
    """Play GAMES games between BOT folders (as many as the game seats), seats rotating; print the verdict.

    A BOT folder given twice plays itself (the copies are named NAME, NAME#2, ...).
    Run the same command again to resume an interrupted match.
    With --sprt ELO0,ELO1: play deal groups until a sequential test decides whether the
    first bot is stronger than the second by ELO1 (H1) or by ELO0 at most (H0).
    """
    if sprt is not None:
        sprt_match(
            bots, sprt, alpha, beta, games, seed, out, sandbox, jobs, move_time, startup_time, rules, force, runtimes
        )
        return
    games = 10 if games is None else games
    from harness.commands.running import run_with_progress
    from harness.league.config import default_jobs, entrants
    from harness.league.matches import match_config
    from harness.limits import merge_limits
    from harness.sandbox import check_runtimes

    game = get_game(rules.pop("game", None) or DEFAULT_GAME)
    specs = tuple(entrants([load_bot(folder) for folder in bots]))
    for spec in specs:
        if game.name not in spec.games:
            raise HarnessError(
                f"bot {spec.name!r} does not play {game.name} (its bot.toml says games = {list(spec.games)})"
            )
    if not game.min_players <= len(specs) <= game.max_players:
        raise HarnessError(f"a match needs {game.min_players}-{game.max_players} bots, got {len(specs)}")
    chosen = collect_rules(rules)
    check_rules(game.name, chosen)
    for spec in specs:  # a bad [limits] table is bad input: say so before any game
        merge_limits({}, spec.limits, spec.name)
    config = match_config(
        specs,
        games,
        seed,
        chosen,
        move_time=move_time or 1.0,
        startup_time=startup_time or 10.0,
        jobs=jobs or default_jobs(),
        sandbox=sandbox,
        compress=compress,
        runtimes=check_runtimes([os.path.abspath(path) for path in runtimes], "--runtime"),
        game=game.name,
    )
    if seed is not None:
        click.echo(seed_warning(seed), err=True)
    folders = {spec.name: spec.folder for spec in specs}
    began = time.monotonic()
    run = run_with_progress(
        config, out, force=force, standings=lambda folder: show_match(folder, time.monotonic() - began, folders)
    )
    show_match(run.folder, time.monotonic() - began, folders)


def show_match(folder: Path, elapsed: float, folders: dict[str, Path]) -> None:
    """Write summary.json; print the result table, the verdict, the timing and the faults."""
    from harness.league.matches import write_summary
    from harness.league.standings import render
    from harness.league.verdict import verdict_text
    from harness.replay.reproduce import replay_command

    path = write_summary(folder)
    summary = json.loads(path.read_text())
    click.echo(f"{summary['games']} games in {elapsed:.1f} s · replays in {folder / 'replays'}")
    names = list(summary["bots"])
    width = max(len(name) for name in names)
    click.echo(
        f"{'bot':<{width}}  {'games':>5}  {'wins':>7}  {'win %':>6}  {'mean score':>10}  {'faults':>6}"
    )
    ranked = sorted(summary["bots"].items(), key=lambda kv: (-kv[1]["wins"], kv[1]["mean_score"]))
    for name, row in ranked:
        click.echo(
            f"{name:<{width}}  {row['games']:>5}  {row['wins']:>7.2f}  {100 * row['win_share']:>5.1f}%  "
            f"{row['mean_score']:>10.2f}  {row['faults']:>6}"
        )
    click.echo("")
    if summary["verdict"] is not None:
        click.echo(verdict_text(summary["verdict"]), nl=False)
    else:
        click.echo(render(folder, "table"), nl=False)
    if summary["timing"]:
        from harness.timing import text_cells

        cells = {name: text_cells(timing) for name, timing in summary["timing"].items()}
        columns = list(next(iter(cells.values())))
        click.echo("")
        click.echo(f"{'bot':<{width}}  " + "  ".join(f"{c:>{max(len(c), 9)}}" for c in columns))
        for name, row in cells.items():
            click.echo(f"{name:<{width}}  " + "  ".join(f"{row[c]:>{max(len(c), 9)}}" for c in columns))
    faults = summary["faults"]
    for fault in faults[:20]:
        command = replay_command(fault["replay"], fault["seat"], folders[fault["bot"]]) if fault["bot"] in folders else None
        click.echo(
            inline(  # the detail quotes the bot: one line, whatever it holds
                f"fault: game {fault['game']}: {fault['bot']} (seat {fault['seat']}) "
                f"{fault['kind']}: {fault['detail']} · log {fault['log']}"
                + (f" · replay that turn: {command}" if command else "")
            )
        )
    if len(faults) > 20:
        click.echo(f"... {len(faults) - 20} more faults in {path}")
    click.echo(f"match folder: {folder} · ratings again: llama-harness ratings {folder}")
