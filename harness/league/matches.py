"""Matches on the league machinery: one fixed table of every bot, seats rotating.

A match folder is a league folder (``league.db``, ``replays/``, ``logs/``) whose schedule
is one table: it resumes, runs on ``--jobs`` workers, and ``ratings`` and ``report``
read it. It also gets ``summary.json`` and a verdict: for two bots the Elo difference
with its 95% interval and the likelihood of superiority, as cutechess-cli prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.bots.manifest import BotSpec
from harness.games import DEFAULT_GAME
from harness.league.config import LeagueConfig, SandboxMode
from harness.league.loop import LeagueRun, Listener, run_league
from harness.league.runner import LOGS, JobOutcome
from harness.league.standings import load
from harness.league.store import Store
from harness.league.verdict import verdict
from harness.match import SECRET_FILE, BotTally, MatchConfig, MatchResult, keep_secret
from harness.referee import GameResult, win_shares

SUMMARY = "summary.json"


def match_config(
    bots: Sequence[BotSpec],
    games: int,
    seed: int | str | None,
    rules: dict[str, object],
    *,
    move_time: float = 1.0,
    startup_time: float = 10.0,
    jobs: int = 1,
    sandbox: SandboxMode = "auto",
    compress: bool = False,
    game: str = DEFAULT_GAME,
    runtimes: tuple[str, ...] = (),
) -> LeagueConfig:
    """The league config of a match: every bot at one table, in the order given.

    ``seed`` None deals from a secret drawn for the match; a number or a kept secret
    (from a summary.json) deals publicly and reproducibly (see :mod:`harness.seeds`).
    """
    return LeagueConfig(
        bots=tuple(bots),
        table_size=len(bots),
        games=games,
        seed=seed,
        duplicate=False,
        rules=dict(rules),
        move_time=move_time,
        startup_time=startup_time,
        jobs=jobs,
        sandbox=sandbox,
        limits={},
        kind="match",
        compress=compress,
        game=game,
        runtimes=runtimes,
    )


def run_match(config: MatchConfig, progress: Callable[[int, GameResult], None] | None = None) -> MatchResult:
    """Play a match from the library's :class:`MatchConfig`; write replays and ``summary.json``.

    ``progress`` gets each game's number and the referee's result, in game order within
    a job (jobs finish in any order with ``config.jobs`` > 1).
    """
    settings = config.settings
    league = match_config(
        config.bots,
        config.games,
        config.seed,
        settings.options.to_dict(),
        move_time=settings.clock.move,
        startup_time=settings.clock.startup,
        jobs=config.jobs,
        compress=config.compress,
        game=settings.game,
    )
    listener: Listener | None = None
    if progress is not None:

        def listener(outcome: JobOutcome) -> None:
            for row, result in zip(outcome.games, outcome.results, strict=True):
                progress(row.game_id, result)

    run = run_league(
        league,
        config.out,
        force=config.force,
        listener=listener,
        wrapper=settings.wrapper,
        keep_results=progress is not None,
    )
    write_summary(run.folder)
    return result_of(run)


def result_of(run: LeagueRun) -> MatchResult:
    """The match's tallies, faults and replays, read back from its store."""
    standings = load(run.folder)
    result = MatchResult(tallies={name: BotTally() for name in standings.config.get("bots", standings.bots)})
    with Store.open_league(run.folder) as store:
        for game in store.games():
            result.games += 1
            for seat, share in enumerate(win_shares(game.places, game.forfeited)):
                tally = result.tallies.setdefault(game.players[seat], BotTally())
                tally.games += 1
                tally.score_sum += game.scores[seat]
                tally.wins += share
    for fault in standings.faults:
        result.tallies[fault["bot"]].faults += 1
        result.faults.append(
            {
                **{key: fault[key] for key in ("game", "bot", "seat", "kind", "detail")},
                "log": str(run.folder / LOGS / f"{fault['bot']}.stderr.log"),
                "replay": str(run.folder / fault["replay"]),
            }
        )
    with Store.open_league(run.folder) as store:
        result.replays.extend(str(run.folder / path) for path in store.replays())
    return result


def summary(folder: Path) -> dict[str, Any]:
    """``summary.json``: the match's config, per-bot results, verdict, faults and replays (not its secret)."""
    standings = load(folder)
    result = result_of(LeagueRun(folder, 0, 0, 0))
    config = standings.config
    names = list(config.get("bots", standings.bots))
    # not the secret: it stays in files only their owner reads (league.db, secret)
    return {
        "game": config.get("game", DEFAULT_GAME),
        "options": config.get("rules", {}),
        "seed": config.get("seed"),
        "games": result.games,
        "scheduled": config.get("games"),
        "bots": {name: result.tallies[name].to_dict() for name in names if name in result.tallies},
        "verdict": verdict(folder, standings),
        "timing": {name: standings.timing[name] for name in names if name in standings.timing},
        "faults": result.faults,
        "replays": result.replays,
    }


def write_summary(folder: Path) -> Path:
    """Write ``summary.json`` (atomically) and the match's secret file; return the summary's path.

    Raises HarnessError when the match's database holds no secret.
    """
    with Store.open_league(folder) as store:
        keep_secret(folder / SECRET_FILE, store.secret())
    path = folder / SUMMARY
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(summary(folder), indent=2, allow_nan=False) + "\n")
    part.replace(path)
    return path
