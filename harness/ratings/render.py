"""Text, JSON and CSV renderings of an `EloFit`.

All three take the same inputs: the batch fit, optionally the sequential Elo
ratings, and optionally extra per-bot columns (e.g. win share) keyed by bot
name then column name. Output depends only on the inputs, so it can be diffed.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.ratings.model import BotRating, EloFit

Extra = Mapping[str, Mapping[str, object]]


def _extra_columns(fit: EloFit, extra: Extra | None) -> list[str]:
    """Extra column names in order of first appearance, walking bots by rank."""
    columns: list[str] = []
    if extra is None:
        return columns
    for bot in fit.bots:
        for column in extra.get(bot.name, {}):
            if column not in columns:
                columns.append(column)
    return columns


def _extra_value(extra: Extra | None, name: str, column: str) -> object:
    if extra is None:
        return None
    return extra.get(name, {}).get(column)


def _text_cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if math.isfinite(value) else "n/a"
    return str(value)


def _number(value: float, digits: int, missing: str) -> str:
    return f"{value:.{digits}f}" if math.isfinite(value) else missing


def _bound_text(bot: BotRating) -> str:
    """The one-sided interval of a bot whose games bound its rating on one side only: '≥ X', '≤ X' or 'open'."""
    if bot.bound == "floor":
        return f"≥{_number(bot.low, 0, 'n/a')}"
    if bot.bound == "ceiling":
        return f"≤{_number(bot.high, 0, 'n/a')}"
    return "open"


def _interval_cell(bot: BotRating) -> str:
    """The ±95% cell: the half-width, or the bound for a one-sided interval."""
    return _bound_text(bot) if bot.bound else _number(bot.ci95, 0, "n/a")


def los_text(p: float | None) -> str:
    """A likelihood of superiority as a percentage: ``97.3%``, ``>99.9%``, ``<0.1%``, or ``n/a``."""
    if p is None or not math.isfinite(p):
        return "n/a"
    if p > 0.999:
        return ">99.9%"
    if p < 0.001:
        return "<0.1%"
    return f"{100 * p:.1f}%"


def los_next(fit: EloFit) -> dict[str, float | None]:
    """Per bot, the likelihood that it is stronger than the bot ranked just below it (None for the last)."""
    out: dict[str, float | None] = {}
    for bot, below in zip(fit.bots, [*fit.bots[1:], None], strict=False):  # strict fails on no bots
        p = fit.los.get(bot.name, {}).get(below.name) if below is not None else None
        out[bot.name] = p if p is None or math.isfinite(p) else math.nan
    return out


LOS_NOTE = "LOS next: likelihood of superiority over the bot ranked just below (the JSON's los matrix)"

SEQUENTIAL_NOTE = (
    "seq Elo: incremental Elo (K = 32) in game order, over the last 100,000 games at most: "
    "an order-dependent reference that never settles, without an interval, rounded to 10"
)


def fit_notes(fit: EloFit, sequential: bool = False) -> list[str]:
    """What a reader must know to read the fit: prior, interval quantile, edges, blind pairs."""
    if math.isfinite(fit.quantile):
        spread = (
            f"±95%: cluster-robust over {fit.clusters} clusters (deal groups), "
            f"t quantile with {fit.clusters - 1} degrees of freedom ({fit.quantile:.2f} se)"
        )
    else:
        spread = "±95%: not available with fewer than two clusters (deal groups)"
    out = [
        spread,
        f"prior: {fit.prior:g} virtual draw{'s' if fit.prior != 1 else ''} per bot (split over the opponents it met)"
        " keeps every rating finite",
    ]
    for bot in fit.bots:
        if bot.edge == "never won":
            out.append(
                f"{bot.name} never placed above an opponent: only the prior holds its rating up; the games give it"
                f" a ceiling only ({_bound_text(bot)}), no lower end"
            )
        elif bot.edge == "never lost":
            out.append(
                f"{bot.name} never placed below an opponent: only the prior holds its rating down; the games give it"
                f" a floor only ({_bound_text(bot)}), no upper end"
            )
        elif bot.bound in ("floor", "ceiling", "open"):
            out.append(f"{bot.name}: measured against an anchor bot at an edge, its interval is one-sided ({_bound_text(bot)})")
    for a, b in fit.uninformative:
        out.append(
            f"{a} and {b} had the same results in every deal group: the games hold no information on their "
            "difference (no interval, no likelihood of superiority)"
        )
    if sequential:
        out.append(SEQUENTIAL_NOTE)
    return out


def render_table(
    fit: EloFit,
    sequential: Mapping[str, float] | None = None,
    extra: Extra | None = None,
    notes: Sequence[str] = (),
) -> str:
    """Render a fixed-width text table, best bot first.

    Columns: rank, bot, Elo, ±95% (half-width of the cluster-robust interval, or
    "≥X" / "≤X" for a bot whose games bound it on one side only: `BotRating.bound`),
    LOS next (the likelihood of superiority over the bot ranked below), sequential Elo (only when `sequential` is given), then the `extra` columns.
    A line with the seat advantages follows when they were fitted. Missing
    values show as "-", unavailable errors as "n/a". Extra entries for bots that
    are not in the fit are ignored.
    """
    columns = _extra_columns(fit, extra)
    header = ["rank", "bot", "Elo", "±95%", "LOS next"]
    if sequential is not None:
        header.append("seq Elo (ref.)")
    header += columns
    rows: list[list[str]] = []
    below = los_next(fit)
    for rank, bot in enumerate(fit.bots, start=1):
        row = [
            str(rank),
            bot.name,
            _number(bot.rating, 0, "n/a"),
            _interval_cell(bot),
            "-" if below[bot.name] is None else los_text(below[bot.name]),
        ]
        if sequential is not None:
            seq = sequential.get(bot.name)
            row.append("-" if seq is None else _number(seq, 0, "n/a"))
        row += [_text_cell(_extra_value(extra, bot.name, column)) for column in columns]
        rows.append(row)

    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        # The bot name is text: left-aligned; everything else right-aligned.
        parts = [
            cell.ljust(width) if i == 1 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    out = [
        f"Elo ratings: {fit.games} games, {fit.clusters} clusters",
        line(header),
        *(line(row) for row in rows),
    ]
    if fit.seats:
        seats = ", ".join(
            f"seat {seat.seat} {seat.advantage:+.0f} ±{_number(seat.ci95, 0, 'n/a')}" for seat in fit.seats
        )
        out.append(f"seat advantage (Elo): {seats}")
    told = fit_notes(fit, sequential is not None)
    told.insert(len(told) - 1 if sequential is not None else len(told), LOS_NOTE)  # seq Elo's note stays last
    out += [f"note: {note}" for note in told]
    out += list(notes)
    return "\n".join(out) + "\n"


def _json_value(value: object) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    # Anything else (e.g. a Decimal or an enum) is shown as its text.
    return str(value)


def render_json(
    fit: EloFit,
    sequential: Mapping[str, float] | None = None,
    extra: Extra | None = None,
) -> str:
    """Render the fit as JSON: `EloFit.to_dict()` with, per bot, `sequential`
    (when given) and `extra` (when given) added. Non-finite numbers become null
    and non-JSON values their `str`.
    """
    data = fit.to_dict()
    for bot in data["bots"]:
        name = bot["name"]
        if sequential is not None:
            bot["sequential"] = _json_value(sequential.get(name))
        if extra is not None:
            bot["extra"] = {str(column): _json_value(value) for column, value in extra.get(name, {}).items()}
    return json.dumps(data, indent=2, allow_nan=False) + "\n"


def _csv_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return str(value)


def render_csv(
    fit: EloFit,
    sequential: Mapping[str, float] | None = None,
    extra: Extra | None = None,
) -> str:
    """Render one CSV row per bot, best first, after a header row.

    Columns: rank, bot, elo, ci95, se, games, sequential (only when given),
    then the `extra` columns, then low, high (the interval's ends; empty when open
    or not available) and bound (`BotRating.bound`: floor, ceiling, open or empty).
    Ratings keep two decimals; missing or non-finite values are empty cells.
    """
    columns = _extra_columns(fit, extra)
    header = ["rank", "bot", "elo", "ci95", "se", "games"]
    if sequential is not None:
        header.append("sequential")
    header += columns
    header += ["low", "high", "bound"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for rank, bot in enumerate(fit.bots, start=1):
        row = [
            str(rank),
            bot.name,
            _number(bot.rating, 2, ""),
            _number(bot.ci95, 2, ""),
            _number(bot.se, 2, ""),
            str(bot.games),
        ]
        if sequential is not None:
            seq = sequential.get(bot.name)
            row.append("" if seq is None else _number(seq, 2, ""))
        row += [_csv_cell(_extra_value(extra, bot.name, column)) for column in columns]
        row += [_number(bot.low, 2, ""), _number(bot.high, 2, ""), bot.bound or ""]
        writer.writerow(row)
    return buffer.getvalue()
