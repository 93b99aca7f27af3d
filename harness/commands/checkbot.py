"""The ``check-bot`` command: conformance checks for a bot author, one line per check."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from harness.commands.common import FiniteFloat, friendly, known_game, runtime_option, trust_bots_option
from harness.games import DEFAULT_GAME, REGISTRY
from harness.limits import MAX_SECONDS
from harness.terminal import printable


@click.command("check-bot")
@click.argument("bot_dir", type=click.Path(path_type=Path))
@click.option(
    "--opponent",
    "opponents",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Bot folder to play against (repeatable) [default: the sample bots that play the game].",
)
@click.option(
    "--game",
    default=None,
    callback=known_game,
    help=f"The game the bot is checked at: {', '.join(sorted(REGISTRY))} (its positions, and games "
    f"against the sample bots that play it) [default: the first of the bot's games, else {DEFAULT_GAME}].",
)
@click.option("--games", "-n", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option(
    "--move-time",
    type=FiniteFloat(min=0.001, max=MAX_SECONDS),
    default=1.0,
    show_default=True,
    help="Seconds the bot has for each move.",
)
@click.option(
    "--startup-time",
    type=FiniteFloat(min=0.001, max=MAX_SECONDS),
    default=10.0,
    show_default=True,
    help="Seconds the bot has to start and answer hello.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["auto", "bwrap", "none"]),
    default="auto",
    show_default=True,
    help="Run the bot as the league would (auto: bubblewrap when installed).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Keep logs and replays in this folder [default: a temporary folder, removed].",
)
@runtime_option
@trust_bots_option
@friendly
def check_bot(
    bot_dir: Path,
    opponents: tuple[Path, ...],
    game: str | None,
    games: int,
    seed: int,
    move_time: float,
    startup_time: float,
    sandbox: str,
    out: Path | None,
    runtimes: tuple[str, ...],
) -> None:
    """Check that the bot in BOT_DIR speaks protocol v1: PASS/FAIL per check, exit 0 if all pass."""
    from harness.checkbot import Settings, default_opponents
    from harness.checkbot import check_bot as run_checks
    from harness.match import Clock
    from harness.sandbox import resolve_sandbox

    if game is None:
        game = _own_game(bot_dir)
    settings = Settings(
        clock=Clock(startup=startup_time, move=move_time),
        wrapper=resolve_sandbox(sandbox, None, [os.path.abspath(path) for path in runtimes]),
        opponents=opponents or default_opponents(game),
        games=games,
        game=game,
        seed=seed,
        out=out,
    )
    failed = total = 0
    for check in run_checks(bot_dir, settings):
        total += 1
        failed += not check.ok
        click.echo(printable(check.line()))  # reasons quote the bot
    click.echo(f"{total - failed}/{total} checks passed" + ("" if failed else f": {bot_dir} is ready"))
    sys.exit(1 if failed else 0)


def _own_game(bot_dir: Path) -> str:
    """The first game the bot's manifest names; the default game when it cannot be read (its check says why)."""
    from harness.bots.manifest import load_bot
    from harness.errors import HarnessError

    try:
        return load_bot(bot_dir).games[0]
    except (HarnessError, IndexError):
        return DEFAULT_GAME
