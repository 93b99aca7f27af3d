"""``llama-harness match``: a match between bots, as many as the game seats."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from harness.bots.manifest import load_bot
from harness.commands.common import collect_rules, friendly, rules_options
from harness.commands.sprt import sprt_match, sprt_options
from harness.errors import HarnessError
from harness.games import DEFAULT_GAME, get_game
from harness.seeds import is_secret, seed_warning


class _Seed(click.ParamType):  # type: ignore[type-arg]  # generic only in newer click
    """A seed: an integer ≥ 0, or a secret as a match's summary.json keeps it."""

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
    help="Explicit seed (a number, or the secret from a summary.json): reproducible, and guessable "
    "[default: a secret drawn for this match, kept in its output folder].",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("match-out"),
    show_default=True,
    help="Folder for replays, logs and summary.json.",
)
@click.option("--gzip", "compress", is_flag=True, help="Write replays as .jsonl.gz.")
@click.option(
    "--sandbox",
    type=click.Choice(["auto", "bwrap", "none"]),
    default="auto",
    show_default=True,
    help="Confine bots with bubblewrap (auto: when installed). See docs/sandbox.md.",
)
@sprt_options
@rules_options
@friendly
def match(
    bots: tuple[Path, ...],
    games: int | None,
    seed: int | str | None,
    out: Path,
    compress: bool,
    sandbox: str,
    move_time: float | None,
    startup_time: float | None,
    sprt: str | None,
    alpha: float,
    beta: float,
    jobs: int | None,
    **rules: Any,
) -> None:
    """Play GAMES games between BOT folders (as many as the game seats), seats rotating; print a result table.

    With --sprt ELO0,ELO1: play deal groups until a sequential test decides whether the
    first bot is stronger than the second by ELO1 (H1) or by ELO0 at most (H0).
    """
    if sprt is not None:
        sprt_match(bots, sprt, alpha, beta, games, seed, out, sandbox, jobs, move_time, startup_time, rules)
        return
    games = 10 if games is None else games
    from harness.limits import merge_limits
    from harness.match import Clock, MatchConfig, TableSettings, run_match
    from harness.replay.reproduce import replay_command
    from harness.sandbox import hiding, resolve_sandbox

    game = get_game(rules.pop("game", None) or DEFAULT_GAME)
    from harness.league.config import entrants

    specs = tuple(entrants([load_bot(folder) for folder in bots]))
    for spec in specs:
        if game.name not in spec.games:
            raise HarnessError(
                f"bot {spec.name!r} does not play {game.name} (its bot.toml says games = {list(spec.games)})"
            )
    if not game.min_players <= len(specs) <= game.max_players:
        raise HarnessError(f"a match needs {game.min_players}-{game.max_players} bots, got {len(specs)}")
    options = game.parse_options(collect_rules(rules))
    clock = Clock(startup=startup_time or 10.0, move=move_time or 1.0)
    wrapper = hiding(resolve_sandbox(sandbox), out, *(spec.folder for spec in specs))
    for spec in specs:  # a bad [limits] table is bad input: say so before any game
        merge_limits({}, spec.limits, spec.name)
    out.mkdir(parents=True, exist_ok=True)
    settings = TableSettings(
        game=game.name,
        options=options,
        clock=clock,
        logs=out / "logs",
        wrapper=wrapper,
    )
    if seed is not None:
        click.echo(seed_warning(seed), err=True)
    config = MatchConfig(specs, games, seed, out, settings, compress)
    started = time.monotonic()

    def progress(game_no: int, _: object) -> None:
        if sys.stderr.isatty():
            click.echo(f"\rgame {game_no}/{games}", err=True, nl=game_no == games)

    result = run_match(config, progress)
    elapsed = time.monotonic() - started
    click.echo(f"{result.games} games in {elapsed:.1f} s · replays in {out / 'replays'}")
    width = max(len(spec.name) for spec in specs)
    click.echo(
        f"{'bot':<{width}}  {'games':>5}  {'wins':>7}  {'win %':>6}  {'mean score':>10}  {'faults':>6}"
    )
    ranked = sorted(result.tallies.items(), key=lambda kv: (-kv[1].wins, kv[1].score_sum))
    for name, tally in ranked:
        share = 100.0 * tally.wins / tally.games if tally.games else 0.0
        mean = tally.score_sum / tally.games if tally.games else 0.0
        click.echo(
            f"{name:<{width}}  {tally.games:>5}  {tally.wins:>7.2f}  {share:>5.1f}%  {mean:>10.2f}  {tally.faults:>6}"
        )
    folders = {spec.name: spec.folder for spec in specs}
    for fault in result.faults[:20]:
        command = replay_command(fault["replay"], fault["seat"], folders[fault["bot"]])
        click.echo(
            f"fault: game {fault['game']}: {fault['bot']} (seat {fault['seat']}) "
            f"{fault['kind']}: {fault['detail']} · log {fault['log']}"
            + (f" · replay that turn: {command}" if command else "")
        )
    if len(result.faults) > 20:
        click.echo(f"... {len(result.faults) - 20} more faults in {out / 'summary.json'}")
