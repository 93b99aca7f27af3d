"""``match A B [FIELD...] --sprt ELO0,ELO1``: the options and the run (see harness.league.sprt_run)."""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from harness.commands.common import FiniteFloat, check_rules, collect_rules
from harness.errors import HarnessError

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_MAX_GAMES = 20_000
MAX_ELO = 1000.0  # |ELO0|, |ELO1| at most: beyond it a deal group's expected score is 0 or 1 to 3 digits
# nan and inf refused when parsed; (0, 0.5) checked with --sprt, as one line (harness.ratings.sprt.Bounds)
RATE = FiniteFloat()


def _elo_pair(text: str) -> tuple[float, float]:
    """``ELO0,ELO1`` as two finite numbers, ELO0 < ELO1, both within ±MAX_ELO; ValueError saying what is wrong."""
    parts = text.split(",")
    try:
        elo0, elo1 = (float(part) for part in parts)
    except ValueError:
        raise ValueError(f"{text!r}: expected ELO0,ELO1, e.g. 0,10") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError(f"{text!r}: ELO0 and ELO1 must be finite numbers")
    if not elo0 < elo1:
        raise ValueError(f"{text!r}: needs ELO0 < ELO1")
    if max(abs(elo0), abs(elo1)) > MAX_ELO:
        raise ValueError(f"{text!r}: ELO0 and ELO1 must be within ±{MAX_ELO:g} Elo")
    return elo0, elo1



def sprt_options(func: F) -> F:
    """--sprt, --alpha, --beta and --jobs of the match command."""
    decorators = [
        click.option(
            "--sprt",
            metavar="ELO0,ELO1",
            default=None,
            help="Sequential test: play deal groups until the first bot is shown stronger than the "
            "second by ELO1 (H1) or by ELO0 at most (H0), or --games is reached.",
        ),
        click.option("--alpha", type=RATE, default=0.05, show_default=True, help="--sprt: false H1 rate."),
        click.option("--beta", type=RATE, default=0.05, show_default=True, help="--sprt: false H0 rate."),
        click.option(
            "--jobs", "-j", type=click.IntRange(min=1), default=None, help="Games played at once [default: the number of cores]."
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _bounds(text: str, alpha: float, beta: float) -> Any:
    """The test's bounds; raise HarnessError (one line) for senseless ones. Checked before any folder is touched."""
    from harness.ratings.sprt import Bounds

    try:
        elo0, elo1 = _elo_pair(text)
    except ValueError as err:
        raise HarnessError(f"--sprt {err}") from None
    try:
        return Bounds(elo0, elo1, alpha, beta)
    except ValueError as err:
        raise HarnessError(str(err)) from None


def _elo(value: object) -> str:
    return f"{value:+.1f}" if isinstance(value, float) and math.isfinite(value) else "n/a"


def sprt_match(
    folders: tuple[Path, ...],
    sprt: str,
    alpha: float,
    beta: float,
    games: int | None,
    seed: int | str | None,
    out: Path,
    sandbox: str,
    jobs: int | None,
    move_time: float | None,
    startup_time: float | None,
    rules: dict[str, Any],
    force: bool = False,
    runtimes: tuple[str, ...] = (),
) -> None:
    """Run the test, print its verdict and write ``summary.json`` (``sprt``) into ``out``.

    The same command on ``out`` holding this test cut short resumes it; ``force`` starts over.
    """
    from harness.bots.manifest import load_bot
    from harness.commands.running import stopped
    from harness.games import DEFAULT_GAME, get_game
    from harness.league.config import LeagueConfig, default_jobs, entrants
    from harness.league.interrupts import Interrupted
    from harness.league.progress import sprt_line
    from harness.league.schedule import group_size
    from harness.league.sprt_run import run_sprt
    from harness.league.standings import render
    from harness.limits import merge_limits
    from harness.sandbox import check_runtimes
    from harness.seeds import seed_secret, seed_warning

    bounds = _bounds(sprt, alpha, beta)
    if seed is not None:
        click.echo(seed_warning(seed), err=True)
    game = get_game(rules.pop("game", None) or DEFAULT_GAME)
    specs = tuple(entrants([load_bot(folder) for folder in folders]))
    for spec in specs:
        if game.name not in spec.games:
            raise HarnessError(
                f"bot {spec.name!r} does not play {game.name} (its bot.toml says games = {list(spec.games)})"
            )
    if not max(2, game.min_players) <= len(specs) <= game.max_players:
        raise HarnessError(f"--sprt needs bots A and B (and up to {game.max_players - 2} field bots), got {len(specs)}")
    options = collect_rules(rules)
    check_rules(game.name, options)
    for spec in specs:
        merge_limits({}, spec.limits, spec.name)
    size = group_size(len(specs))
    budget = DEFAULT_MAX_GAMES if games is None else games
    if budget < size:
        raise HarnessError(f"--games {budget}: a deal group of {len(specs)} bots has {size} games")
    config = LeagueConfig(
        bots=specs,
        table_size=len(specs),
        games=budget,
        seed=seed if isinstance(seed, int) else None,
        duplicate=True,
        rules=options,
        move_time=move_time or 1.0,
        startup_time=startup_time or 10.0,
        jobs=jobs or default_jobs(),
        sandbox=sandbox,  # type: ignore[arg-type]
        limits={},
        runtimes=check_runtimes([os.path.abspath(path) for path in runtimes], "--runtime"),
        game=game.name,
    )
    from harness.league.outfolder import check_out

    check_out(out, specs)  # before the test's header line: a refusal is one line
    a, b = specs[0].name, specs[1].name
    click.echo(
        f"sprt: {a} vs {b}" + (f" with {', '.join(s.name for s in specs[2:])}" if len(specs) > 2 else "")
        + f": H0 elo <= {bounds.elo0:g}, H1 elo >= {bounds.elo1:g}, alpha {alpha:g}, beta {beta:g};"
        f" LLR bounds about [{bounds.lower:.2f}, {bounds.upper:.2f}] (at 90% of alpha, beta, moved in by the"
        " expected overshoot), with betting e-processes for pairs far outside them;"
        f" deal groups of {size} games, at most {budget} games",
        err=True,
    )
    started = time.monotonic()
    last = [0.0]
    width = [0]

    def listener(_: object, test: Any) -> None:
        now = time.monotonic()
        if sys.stderr.isatty() or now - last[0] >= 5.0:
            last[0] = now
            end = "\r" if sys.stderr.isatty() else "\n"
            line = sprt_line(len(test.scores), test.games, test.llr, test.bounds.lower, test.bounds.upper)
            if sys.stderr.isatty():  # rewritten in place: never wider than the terminal, no stale tail
                line = line[: shutil.get_terminal_size().columns - 1]
                line, width[0] = line.ljust(width[0]), len(line)
            click.echo(line, err=True, nl=False)
            click.echo(end, err=True, nl=False)

    def opened(store: Any) -> None:
        done = store.counts()[0]
        if done:
            click.echo(f"sprt: resumed, {done} games already played", err=True)

    secret = None if seed is None else seed_secret(seed)
    try:
        result = run_sprt(config, out, bounds, budget, listener, secret, started=opened, force=force)
    except Interrupted as stop:
        stopped(config, out, stop, lambda folder: click.echo(render(folder, "table"), nl=False), kind="sprt match")
    summary = result.summary()
    elapsed = time.monotonic() - started
    interval: Any = summary["elo_ci95"]
    low, high = interval
    verdict = {
        "H1": f"H1: {a} is stronger than {b} (by {bounds.elo1:g} Elo or more at these error rates)",
        "H0": f"H0: {a} is not stronger than {b} by more than {bounds.elo0:g} Elo",
        "inconclusive": f"inconclusive: the budget of {budget} games ran out before the test decided",
    }[str(summary["result"])]
    click.echo(f"sprt {verdict}")
    click.echo(
        f"  LLR {summary['llr']:+.2f} (bounds {summary['lower']:+.2f}, {summary['upper']:+.2f}) after "
        f"{summary['groups']} deal groups, {summary['games']} games ({summary['games_played']} played, "
        f"{elapsed:.1f} s)"
    )
    wealth: Any = summary["log_wealth"]
    limit: Any = summary["log_wealth_bound"]
    click.echo(
        f"  e-processes: log-wealth {wealth[0]:+.2f} against H0, {wealth[1]:+.2f} against H1 (stop at "
        f"{limit[0]:.2f}, {limit[1]:.2f})" + (": they stopped the test" if summary["stopped_by"] == "e-process" else "")
    )
    by = " (stopped by an e-process: far outside the bounds)" if summary["stopped_by"] == "e-process" else ""
    adjusted: Any = summary["elo_adjusted_ci95"]
    adjusted_low, adjusted_high = adjusted
    if summary["stopped_by"] == "e-process":
        click.echo(f"  Elo {a} - {b}: {_elo(summary['elo'])} (95% {_elo(low)} .. {_elo(high)}; fixed-sample){by}")
    else:
        click.echo(
            f"  Elo {a} - {b}, stop-adjusted: {_elo(summary['elo_adjusted'])} (95% {_elo(adjusted_low)} .. "
            f"{_elo(adjusted_high)}; median-unbiased); plain mean of the groups {_elo(summary['elo'])} "
            f"(95% {_elo(low)} .. {_elo(high)}; not adjusted for the stop)"
        )
    data = {
        "bots": [spec.name for spec in specs],
        "sprt": summary,
        "league": "league.db",
    }
    from harness.files import write_output

    write_output(out / "summary.json", json.dumps(data, indent=2, allow_nan=False) + "\n")
    click.echo(f"summary: {out / 'summary.json'} · ratings: llama-harness ratings {out}")
