"""The ``llama-harness`` command: thin click wrappers over the library.

Every error a user can cause reaches them as one line and a non-zero exit code.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from harness.bots.manifest import check_names, load_bot
from harness.errors import HarnessError
from harness.games import BadOptions, get_game

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def friendly(func: F) -> F:
    """Turn HarnessError (and a few OS errors) into one line on stderr and exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except HarnessError as err:
            fail(str(err))
        except BadOptions as err:
            fail(f"rules option {err}")
        except KeyboardInterrupt:
            fail("interrupted")
        except OSError as err:
            fail(f"{err.filename or ''}: {err.strerror or err}".lstrip(": "))

    return wrapper  # type: ignore[return-value]


def rules_options(func: F) -> F:
    """The rules options and time limits shared by ``match`` and ``league``."""
    decorators = [
        click.option(
            "--variant",
            type=click.Choice(["standard", "komary"]),
            default=None,
            help="Rules variant [default: standard].",
        ),
        click.option(
            "--next-starter",
            type=click.Choice(["ender", "last_play", "rotate"]),
            default=None,
            help="Who starts rounds after the first [default: ender].",
        ),
        click.option(
            "--end-score",
            type=click.IntRange(min=1),
            default=None,
            help="A game ends when a score reaches this [default: 40].",
        ),
        click.option(
            "--max-rounds",
            type=click.IntRange(min=1),
            default=None,
            help="Round cap; a game that reaches it is adjudicated [default: 50].",
        ),
        click.option(
            "--move-time",
            type=click.FloatRange(min=0.001),
            default=None,
            help="Seconds a bot has for each move (wall clock) [default: 1].",
        ),
        click.option(
            "--startup-time",
            type=click.FloatRange(min=0.001),
            default=None,
            help="Seconds a bot has to start and answer hello [default: 10].",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def collect_rules(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop the rules options that were given on the command line."""
    keys = ("variant", "next_starter", "end_score", "max_rounds")
    return {key: value for key in keys if (value := kwargs.pop(key, None)) is not None}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="llama-harness")
def main() -> None:
    """Referee, replays, leagues and ratings for L.L.A.M.A. bots."""


@main.command()
@click.argument("bots", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--games", "-n", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
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
@rules_options
@friendly
def match(
    bots: tuple[Path, ...],
    games: int,
    seed: int,
    out: Path,
    compress: bool,
    sandbox: str,
    move_time: float | None,
    startup_time: float | None,
    **rules: Any,
) -> None:
    """Play GAMES games between 2-6 BOT folders, seats rotating; print a result table."""
    from harness.limits import merge_limits
    from harness.match import Clock, MatchConfig, TableSettings, run_match
    from harness.sandbox import resolve_sandbox

    game = get_game("llama")
    specs = tuple(load_bot(folder) for folder in bots)
    check_names(list(specs))
    if not game.min_players <= len(specs) <= game.max_players:
        raise HarnessError(f"a match needs {game.min_players}-{game.max_players} bots, got {len(specs)}")
    options = game.parse_options(collect_rules(rules))
    clock = Clock(startup=startup_time or 10.0, move=move_time or 1.0)
    wrapper = resolve_sandbox(sandbox)
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
    for fault in result.faults[:20]:
        click.echo(
            f"fault: game {fault['game']}: {fault['bot']} (seat {fault['seat']}) "
            f"{fault['kind']}: {fault['detail']} · log {fault['log']}"
        )
    if len(result.faults) > 20:
        click.echo(f"... {len(result.faults) - 20} more faults in {out / 'summary.json'}")


@main.command()
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


@main.command()
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


from harness.commands.league import league, ratings  # noqa: E402

main.add_command(league)
main.add_command(ratings)


from harness.commands.report import report  # noqa: E402

main.add_command(report)


from harness.commands.checkbot import check_bot  # noqa: E402

main.add_command(check_bot)
