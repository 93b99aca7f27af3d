"""A two-bot match's verdict: score, Elo difference with its 95% interval, LOS (as cutechess-cli prints it).

Its own module so that :mod:`harness.league.matches` (which writes it into
``summary.json``) and :mod:`harness.league.standings` (whose report opens with it)
both import it, rather than each other.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.league.store import Store

if TYPE_CHECKING:
    from harness.league.standings import Standings


def _num(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 1)


def _pairwise(folder: Path, a: str, b: str) -> dict[str, int]:
    """Wins, draws and losses of ``a`` against ``b`` by placement (a forfeit is placed last)."""
    cell = {"wins": 0, "draws": 0, "losses": 0}
    with Store.open_league(folder) as store:
        for game in store.games():
            place = dict(zip(game.players, game.places, strict=True))
            if a in place and b in place:
                pa, pb = place[a], place[b]
                cell["wins" if pa < pb else "draws" if pa == pb else "losses"] += 1
    return cell


def verdict(folder: Path, standings: Standings) -> dict[str, Any] | None:
    """Two bots: the first one's score, Elo difference (95% interval) and LOS against the second."""
    names = list(standings.config.get("bots", []))
    if len(names) != 2 or standings.fit is None:
        return None
    a, b = names
    cell = _pairwise(folder, a, b)
    played = cell["wins"] + cell["draws"] + cell["losses"]
    rating = {bot.name: bot for bot in standings.fit.bots}
    los = standings.fit.los.get(a, {}).get(b)  # None: the games say nothing about the pair
    # two bots anchored at a mean of 1500: the difference is 2 (r_a - 1500), its error twice r_a's
    return {
        "bot": a,
        "opponent": b,
        **cell,
        "score": round((cell["wins"] + cell["draws"] / 2) / played, 4) if played else None,
        "elo_diff": _num(rating[a].rating - rating[b].rating),
        "ci95": _num(2 * rating[a].ci95),
        "los": None if los is None else _num(100 * los),
        # the interval of the difference; open (null) on a side the games do not bound
        # (a never lost: a floor only; a never won: a ceiling only)
        "elo_low": _num(2 * (rating[a].low - 1500.0)),
        "elo_high": _num(2 * (rating[a].high - 1500.0)),
        "bound": rating[a].bound,
    }


def verdict_text(data: dict[str, Any]) -> str:
    """cutechess-cli's two lines: ``Score of a vs b: W - L - D [score] N`` and the Elo difference."""

    def number(value: float | None, fmt: str) -> str:
        return "?" if value is None else format(value, fmt)

    played = data["wins"] + data["losses"] + data["draws"]
    interval = f"{number(data['elo_diff'], '+.1f')} ± {number(data['ci95'], '.1f')} (95%)"
    if data.get("bound") == "floor":
        interval = f"≥ {number(data.get('elo_low'), '+.1f')} (95%; {data['bot']} never lost: no upper bound)"
    elif data.get("bound") == "ceiling":
        interval = f"≤ {number(data.get('elo_high'), '+.1f')} (95%; {data['bot']} never won: no lower bound)"
    return (
        f"Score of {data['bot']} vs {data['opponent']}: {data['wins']} - {data['losses']} - {data['draws']}"
        f"  [{number(data['score'], '.3f')}] {played}\n"
        f"Elo difference: {interval}, LOS: {number(data['los'], '.1f')}%\n"
    )


__all__ = ["verdict", "verdict_text"]
