"""League standings from the results store: Elo fit, sequential Elo, per-bot figures, report data.

Everything is read in game-id order, so the standings do not depend on the order in
which jobs finished. Works while a league is still running (the store is opened
read-only; SQLite's WAL lets it read while the league writes).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.league.store import Store, StoredGame
from harness.ratings import EloFit, GameResult, fit_elo, render_csv, render_table, sequential_elo
from harness.referee import win_shares

HISTORY_POINTS = 16
Anchor = tuple[str, float]


@dataclass
class BotFigures:
    """Per-bot totals over the finished games."""

    games: int = 0
    wins: float = 0.0  # a shared win counts 1/k; a forfeited seat never wins
    score_sum: int = 0
    penalty_sum: int = 0
    rounds: int = 0
    faults: int = 0

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else math.nan

    @property
    def mean_penalty(self) -> float:
        """Mean penalty per round played (before chips are returned)."""
        return self.penalty_sum / self.rounds if self.rounds else math.nan


@dataclass(frozen=True)
class Standings:
    config: dict[str, Any]
    bots: list[str]
    games: list[StoredGame]
    figures: dict[str, BotFigures]
    faults: list[dict[str, Any]]
    fit: EloFit | None  # None until two bots have finished a game
    sequential: dict[str, float]


def rating_input(games: Sequence[StoredGame]) -> list[GameResult]:
    """The rating fits' view of stored games (placements already put forfeits last)."""
    return [GameResult(game.players, game.places, game.cluster) for game in games]


def figures_of(
    games: Sequence[StoredGame], bots: Sequence[str], faults: dict[str, int]
) -> dict[str, BotFigures]:
    figures = {name: BotFigures(faults=faults.get(name, 0)) for name in bots}
    for game in games:
        shares = win_shares(game.places, game.forfeited)
        for seat, name in enumerate(game.players):
            fig = figures.setdefault(name, BotFigures())
            fig.games += 1
            fig.score_sum += game.scores[seat]
            fig.penalty_sum += game.penalties[seat]
            fig.rounds += game.rounds
            fig.wins += shares[seat]
    return figures


def _fit(results: Sequence[GameResult], anchor: Anchor | None) -> EloFit | None:
    if len({name for game in results for name in game.players}) < 2:
        return None
    try:
        return fit_elo(results, anchor=anchor)
    except ValueError as err:
        raise HarnessError(f"--anchor: {err}") from None


def load(folder: Path, anchor: Anchor | None = None) -> Standings:
    """Read a league folder and compute its standings; raise HarnessError if it is not one."""
    with Store.open_league(folder) as store:
        config = store.meta("config") or {}
        bots = store.bots()
        games = list(store.games())
        faults = store.faults()
        counts = store.fault_counts()
    results = rating_input(games)
    return Standings(
        config=config,
        bots=bots,
        games=games,
        figures=figures_of(games, bots, counts),
        faults=faults,
        fit=_fit(results, anchor),
        sequential=sequential_elo(results) if results else {},
    )


def _num(value: float) -> float | None:
    return value if math.isfinite(value) else None


def crosstable(games: Sequence[StoredGame]) -> dict[str, dict[str, dict[str, int]]]:
    """a -> b -> wins, draws, losses of a against b, by placement in the games they shared."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for game in games:
        for i, j in itertools.permutations(range(len(game.players)), 2):
            a, b = game.players[i], game.players[j]
            cell = table.setdefault(a, {}).setdefault(b, {"wins": 0, "draws": 0, "losses": 0})
            pa, pb = game.places[i], game.places[j]
            cell["wins" if pa < pb else "draws" if pa == pb else "losses"] += 1
    return table


def history(
    games: Sequence[StoredGame], anchor: Anchor | None, points: int = HISTORY_POINTS
) -> list[dict[str, Any]]:
    """Batch Elo refitted at up to ``points`` checkpoints over game-id order."""
    results = rating_input(games)
    out: list[dict[str, Any]] = []
    count = len(results)
    marks = sorted({math.ceil(count * i / min(points, count)) for i in range(1, min(points, count) + 1)})
    for mark in marks:
        prefix = results[:mark]
        names = {name for game in prefix for name in game.players}
        if len(names) < 2:
            continue
        use = anchor if anchor is not None and anchor[0] in names else None
        fit = fit_elo(prefix, anchor=use)
        out.append({"games": mark, "ratings": {bot.name: _num(bot.rating) for bot in fit.bots}})
    return out


def _ranked(standings: Standings) -> list[str]:
    if standings.fit is None:
        return sorted(standings.bots)
    rated = [bot.name for bot in standings.fit.bots]
    return rated + sorted(name for name in standings.bots if name not in rated)


def report_data(league_dir: Path, anchor: Anchor | None = None) -> dict[str, Any]:
    """Everything the ratings JSON and the HTML report show, as JSON-ready data.

    Raises HarnessError when ``league_dir`` is not a readable league folder.
    """
    standings = load(league_dir, anchor)
    fit = standings.fit
    rating = {bot.name: bot for bot in fit.bots} if fit else {}
    bots = []
    for name in _ranked(standings):
        fig = standings.figures.get(name, BotFigures())
        rated = rating.get(name)
        bots.append(
            {
                "name": name,
                "elo": _num(rated.rating) if rated else None,
                "ci95": _num(rated.ci95) if rated else None,
                "se": _num(rated.se) if rated else None,
                "sequential": _num(standings.sequential[name]) if name in standings.sequential else None,
                "games": fig.games,
                "win_share": _num(fig.win_share),
                "mean_score": _num(fig.mean_score),
                "mean_penalty": _num(fig.mean_penalty),
                "faults": fig.faults,
            }
        )
    return {
        "games": len(standings.games),
        "clusters": fit.clusters if fit else 0,
        "bots": bots,
        "seats": [
            {"seat": s.seat, "advantage": _num(s.advantage), "ci95": _num(s.ci95)}
            for s in (fit.seats if fit else ())
        ],
        "los": {a: {b: _num(p) for b, p in row.items()} for a, row in (fit.los if fit else {}).items()},
        "crosstable": crosstable(standings.games),
        "history": history(standings.games, anchor),
        "faults": [
            {key: fault[key] for key in ("game", "bot", "seat", "kind", "detail", "replay")}
            for fault in standings.faults
        ],
        "config": standings.config,
    }


def _extra(standings: Standings, text: bool) -> dict[str, dict[str, object]]:
    extra: dict[str, dict[str, object]] = {}
    for name, fig in standings.figures.items():
        if text:
            extra[name] = {
                "games": fig.games,
                "win %": f"{100 * fig.win_share:.1f}" if fig.games else "-",
                "mean score": f"{fig.mean_score:.2f}" if fig.games else "-",
                "pen/round": f"{fig.mean_penalty:.2f}" if fig.rounds else "-",
                "faults": fig.faults,
            }
        else:
            extra[name] = {
                "win_share": _num(fig.win_share),
                "mean_score": _num(fig.mean_score),
                "mean_penalty": _num(fig.mean_penalty),
                "faults": fig.faults,
            }
    return extra


def render(league_dir: Path, fmt: str, anchor: Anchor | None = None) -> str:
    """The standings as ``table``, ``json`` (exactly :func:`report_data`) or ``csv`` text.

    Raises HarnessError when ``league_dir`` is not a readable league folder.
    """
    if fmt == "json":
        return json.dumps(report_data(league_dir, anchor), indent=2, allow_nan=False) + "\n"
    standings = load(league_dir, anchor)
    if standings.fit is None:
        return f"{league_dir}: no finished games yet\n"
    if fmt == "csv":
        return render_csv(standings.fit, standings.sequential, _extra(standings, text=False))
    return render_table(standings.fit, standings.sequential, _extra(standings, text=True))
