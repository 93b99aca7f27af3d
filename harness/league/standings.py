"""League standings from the results store: Elo fit, sequential Elo, per-bot figures, report data.

Everything is read in game-id order, so the standings do not depend on the order in
which jobs finished. Works while a league is still running (the store is opened
read-only; SQLite's WAL lets it read while the league writes).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import HarnessError
from harness.league.reader import SeatSums
from harness.league.run_verdict import decided_pairs, entrant_marks, read_summary, run_kind, sprt_track
from harness.league.store import Store
from harness.league.verdict import verdict, verdict_text
from harness.ratings import EloFit, fit_elo, render_csv, render_table, sequential_elo
from harness.ratings.aggregate import Aggregate, aggregate
from harness.ratings.columns import Results
from harness.ratings.decide import summary_lines
from harness.ratings.fit import drop_unplayed
from harness.ratings.fit import history as fit_history
from harness.ratings.render import fit_notes
from harness.ratings.sequential import WINDOW
from harness.timing import text_cells

HISTORY_POINTS = 16
Anchor = tuple[str, float]


@dataclass
class BotFigures:
    """Per-bot totals over the finished games."""

    games: int = 0
    wins: float = 0.0  # a shared win counts 1/k; a forfeited seat never wins
    score_sum: int = 0
    stat_sums: dict[str, float] = field(default_factory=dict)  # the game's statistics, summed
    rounds: int = 0
    faults: int = 0

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else math.nan

    def per_round(self) -> dict[str, float]:
        """Each of the game's statistics (``Game.statistics``) per round played."""
        return {name: total / self.rounds if self.rounds else math.nan for name, total in self.stat_sums.items()}


@dataclass(frozen=True)
class Standings:
    config: dict[str, Any]
    bots: list[str]
    games: int
    figures: dict[str, BotFigures]
    faults: list[dict[str, Any]]
    fit: EloFit | None  # None until two bots have finished a game
    sequential: dict[str, float]  # rounded, anchored like the fit
    stats: Aggregate | None  # the fit's statistics (history checkpoints, cross table)
    anchor: Anchor | None
    decisions: dict[str, Any] | None = None  # a league run until decided: its sequential decisions
    revisions: tuple[dict[str, Any], ...] = ()  # how the league grew
    timing: dict[str, dict[str, Any]] = field(default_factory=dict)  # Timing.summary() by bot
    identity: dict[str, Any] = field(default_factory=dict)  # what the run was (kind, sprt bounds, ...)
    sprt: dict[str, Any] | None = None  # an SPRT's bounds, result and LLR history (run_verdict.sprt_track)


def figures_of(results: Results, sums: SeatSums, faults: dict[str, int]) -> dict[str, BotFigures]:
    """Per-bot games, win shares, score, the game's statistics and rounds, from the columns."""
    m = len(results.names)
    sizes = results.sizes()
    game_of_seat = np.repeat(np.arange(results.games), sizes)
    won = (results.place == 1) & (results.forfeited == 0)
    winners = np.add.reduceat(won.astype(np.int64), results.offsets[:-1]) if results.games else won
    share = np.where(won, 1.0 / np.maximum(winners[game_of_seat], 1), 0.0)
    games = np.bincount(results.bot, minlength=m)
    wins = np.bincount(results.bot, share, minlength=m)
    rounds = np.bincount(results.bot, sums.rounds[game_of_seat].astype(np.float64), minlength=m)
    return {
        name: BotFigures(
            games=int(games[i]),
            wins=float(wins[i]),
            score_sum=sums.score.get(name, 0),
            stat_sums=dict(sums.stats.get(name, {})),
            rounds=int(rounds[i]),
            faults=faults.get(name, 0),
        )
        for i, name in enumerate(results.names)
    }


def _marks(count: int, points: int = HISTORY_POINTS) -> list[int]:
    if count == 0:
        return []
    return sorted({math.ceil(count * i / min(points, count)) for i in range(1, min(points, count) + 1)})


def _anchored_sequential(sequential: dict[str, float], anchor: Anchor | None) -> dict[str, float]:
    """Shift the sequential Elo like the fit (the anchor bot at its rating), then round it."""
    shift = 0.0
    if anchor is not None and anchor[0] in sequential:
        shift = anchor[1] - sequential[anchor[0]]
    return {name: round(value + shift, -1) for name, value in sequential.items()}


def load(folder: Path, anchor: Anchor | None = None) -> Standings:
    """Read a league folder and compute its standings; raise HarnessError if it is not one."""
    with Store.open_league(folder) as store:
        config = store.meta("config") or {}
        decisions = store.meta("decisions")
        bots = store.bots()
        results, sums = store.results()
        faults = store.faults()
        counts = store.fault_counts()
        revisions = tuple(store.revisions())
        timing = {name: t.summary() for name, t in store.timing().items()}
        identity = store.meta("identity") or {}
        sprt = sprt_track(store, identity, read_summary(folder)) if identity.get("sprt") is not None else None
    played = [name for name, n in zip(results.names, results.games_per_bot().tolist(), strict=True) if n]
    fit: EloFit | None = None
    stats: Aggregate | None = None
    if len(played) >= 2:
        if anchor is not None and anchor[0] not in played:
            raise HarnessError(f"--anchor: anchor bot {anchor[0]!r} played no game; known bots: {played!r}")
        rated = _rated(results)
        stats = aggregate(rated, marks=_marks(rated.games))
        try:
            fit = fit_elo(rated, anchor=anchor, stats=stats, anchor_group=_field(config))
        except ValueError as err:
            raise HarnessError(f"--anchor: {err}") from None
    sequential = sequential_elo(results, window=WINDOW) if results.games else {}
    if anchor is None and _field(config):  # a gauntlet: the field's mean at 1500, as the fit
        present = [sequential[n] for n in _field(config) if n in sequential]
        shift = 1500.0 - sum(present) / len(present) if present else 0.0
        sequential = {name: value + shift for name, value in sequential.items()}
    return Standings(
        config=config,
        bots=bots,
        games=results.games,
        figures=figures_of(results, sums, counts),
        faults=faults,
        fit=fit,
        sequential=_anchored_sequential(sequential, anchor),
        stats=stats,
        anchor=anchor,
        decisions=decisions,
        revisions=revisions,
        timing=timing,
        identity=identity,
        sprt=sprt,
    )


def _field(config: dict[str, Any]) -> list[str]:
    """A gauntlet's field (its ratings' anchor), or [] for a league."""
    new = config.get("gauntlet") or []
    return [name for name in config.get("bots", []) if name not in new] if new else []


def _rated(results: Results) -> Results:
    """The results with only the bots that played (the fit's names)."""
    per_bot = results.games_per_bot()
    if bool((per_bot > 0).all()):
        return results
    return drop_unplayed(results, per_bot)


def _num(value: float) -> float | None:
    return value if math.isfinite(value) else None


def crosstable(stats: Aggregate | None) -> dict[str, dict[str, dict[str, int]]]:
    """a -> b -> wins, draws, losses of a against b, by placement in the games they shared."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    if stats is None:
        return table
    names = stats.results.names
    for (a, b), (losses, ties, wins) in zip(stats.idx[:, :2].tolist(), stats.counts.tolist(), strict=True):
        for x, y, won, lost in ((a, b, wins, losses), (b, a, losses, wins)):
            cell = table.setdefault(names[x], {}).setdefault(names[y], {"wins": 0, "draws": 0, "losses": 0})
            cell["wins"] += won
            cell["draws"] += ties
            cell["losses"] += lost
    return {a: dict(sorted(row.items())) for a, row in sorted(table.items())}


def history(stats: Aggregate | None, anchor: Anchor | None, group: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Batch Elo refitted at up to ``HISTORY_POINTS`` checkpoints over game-id order."""
    if stats is None:
        return []
    return [
        {"games": mark, "ratings": {name: _num(r) for name, r in sorted(ratings.items(), key=lambda x: -x[1])}}
        for mark, ratings in fit_history(stats, anchor, group)
    ]


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
                **{f"mean_{stat}": _num(value) for stat, value in fig.per_round().items()},
                "faults": fig.faults,
                "edge": rated.edge if rated else None,
                # the interval's ends (null when open or unavailable); bound: floor, ceiling, open
                "low": _num(rated.low) if rated else None,
                "high": _num(rated.high) if rated else None,
                "bound": rated.bound if rated else None,
                "timing": standings.timing.get(name),
            }
        )
    return {
        "kind": run_kind(standings.identity, standings.config),
        "verdict": _match_verdict(league_dir, standings),
        "sprt": standings.sprt,
        "decided_pairs": decided_pairs(standings.decisions),
        "entrants": entrant_marks(standings.config, standings.revisions, _ranked(standings)),
        "games": standings.games,
        "clusters": fit.clusters if fit else 0,
        "notes": notes(standings),
        "bots": bots,
        "seats": [
            {"seat": s.seat, "advantage": _num(s.advantage), "ci95": _num(s.ci95)}
            for s in (fit.seats if fit else ())
        ],
        "los": {a: {b: _num(p) for b, p in row.items()} for a, row in (fit.los if fit else {}).items()},
        "uninformative": [list(pair) for pair in (fit.uninformative if fit else ())],
        "prior_draws": fit.prior if fit else None,
        "decisions": standings.decisions,
        "crosstable": crosstable(standings.stats),
        "history": history(standings.stats, anchor, _field(standings.config)),
        "faults": [
            {key: fault[key] for key in ("game", "bot", "seat", "kind", "detail", "replay")}
            for fault in standings.faults
        ],
        "config": standings.config,
        "revisions": list(standings.revisions),
    }


def _match_verdict(folder: Path, standings: Standings) -> dict[str, Any] | None:
    """A two-bot match's verdict (harness.league.verdict.verdict, with its text); None for other runs."""
    if standings.config.get("kind") != "match":
        return None
    data = verdict(folder, standings)
    return None if data is None else {**data, "text": verdict_text(data)}


def sprt_line(track: dict[str, Any]) -> str:
    """An SPRT's state in one line: ``sprt: LLR +1.23 (bounds -2.94, +2.94) after 40 deal groups: H1``."""
    llr, lower, upper = (track.get(key) for key in ("llr", "lower", "upper"))
    shown = [f"{v:+.2f}" if isinstance(v, int | float) else "?" for v in (llr, lower, upper)]
    result = str(track.get("result") or "inconclusive")
    state = "not decided yet" if result == "inconclusive" else result
    return (
        f"sprt {track.get('bot')} vs {track.get('opponent')}: LLR {shown[0]} (bounds {shown[1]}, {shown[2]}) "
        f"after {track.get('groups', 0)} deal groups, {track.get('games', 0)} games: {state}"
    )


def notes(standings: Standings) -> list[str]:
    """The notes printed under the table (prior, intervals, edges, blind pairs, sequential Elo, decisions)."""
    out = fit_notes(standings.fit, bool(standings.sequential)) if standings.fit else []
    new = standings.config.get("gauntlet") or []
    if new and standings.anchor is None:
        out.append(f"gauntlet: {', '.join(new)} against the field; ratings anchored to the field (its mean is 1500)")
    if standings.decisions:
        out += summary_lines(standings.decisions)
    if standings.sprt is not None:
        out.append(sprt_line(standings.sprt))
    return out


def _extra(standings: Standings, text: bool) -> dict[str, dict[str, object]]:
    extra: dict[str, dict[str, object]] = {}
    for name, fig in standings.figures.items():
        if text:
            extra[name] = {
                "games": fig.games,
                "win %": f"{100 * fig.win_share:.1f}" if fig.games else "-",
                "mean score": f"{fig.mean_score:.2f}" if fig.games else "-",
                **{
                    f"{stat}/round": f"{value:.2f}" if fig.rounds else "-"
                    for stat, value in fig.per_round().items()
                },
                "faults": fig.faults,
                **(text_cells(standings.timing[name]) if name in standings.timing else {}),
            }
        else:
            extra[name] = {
                "win_share": _num(fig.win_share),
                "mean_score": _num(fig.mean_score),
                **{f"mean_{stat}": _num(value) for stat, value in fig.per_round().items()},
                "faults": fig.faults,
                **_timing_columns(standings.timing.get(name)),
            }
    return extra


def _timing_columns(summary: dict[str, Any] | None) -> dict[str, object]:
    """The timing columns of the CSV (empty cells when a bot has no recorded timing)."""
    summary = summary or {}
    move, startup = summary.get("move_ms") or {}, summary.get("startup_ms") or {}
    return {
        "move_ms_median": move.get("median"),
        "move_ms_p99": move.get("p99"),
        "move_ms_max": move.get("max"),
        "timeouts_per_10k": summary.get("timeouts_per_10k"),
        "startup_ms_median": startup.get("median"),
    }


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
    more = notes(standings)[len(fit_notes(standings.fit, bool(standings.sequential))) :]
    return render_table(standings.fit, standings.sequential, _extra(standings, text=True), more)
