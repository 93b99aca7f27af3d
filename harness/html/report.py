"""The league report: one self-contained HTML page of standings, charts and faults.

``render_report`` is a pure function of the dict that ``llama-harness ratings --format
json`` prints (``harness.league.standings.report_data``); ``write_report`` adds the
viewer pages of the faulted games beside the report and links them.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.games import DEFAULT_GAME, REGISTRY
from harness.html.charts import Bar, colour, error_bars, heat, line_chart
from harness.html.page import asset, shell
from harness.html.verdict import fault_groups, group_faults, marks_html, revisions_section, verdict_section
from harness.ratings.render import los_text


def _num(value: Any, digits: int = 0, missing: str = "n/a") -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return missing
    return f"{value:.{digits}f}"


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _cell(testid: str, value: Any, text: str, cls: str = "num") -> str:
    # data-value holds the number exactly as in the data, so a test can compare it.
    raw = html.escape(json.dumps(value if _float(value) is not None or isinstance(value, str) else None))
    return f'<td class="{cls}" data-testid="{testid}" data-value="{raw}">{html.escape(text)}</td>'


def _pm(value: Any, digits: int) -> str:
    text = _num(value, digits)
    return text if text == "n/a" else "±" + text


def _share(value: Any) -> str:
    number = _float(value)
    return "n/a" if number is None else f"{100.0 * number:.1f}%"


def _interval(bot: Mapping[str, Any]) -> tuple[str, str]:
    """The ±95% cell's text and class: the half-width, or a floor / ceiling said as such (not as ±)."""
    bound = bot.get("bound")
    if bound == "floor":
        return f"≥ {_num(bot.get('low'))} (floor)", "num bound"
    if bound == "ceiling":
        return f"≤ {_num(bot.get('high'))} (ceiling)", "num bound"
    if bound == "open":
        return "open", "num bound"
    return _pm(bot.get("ci95"), 0), "num"


def _los_next(los: Mapping[str, Any], name: str, below: str | None) -> str:
    if below is None:
        return _cell("los-next", None, "-")
    p = _float((los.get(name) or {}).get(below))
    return _cell("los-next", p, los_text(p))


def standings_table(
    bots: Sequence[Mapping[str, Any]], marks: Mapping[str, Any] | None = None, los: Mapping[str, Any] | None = None
) -> str:
    """Return the standings as an HTML table, one row per bot in rank order.

    ``marks`` (the report data's ``entrants``) tags a bot's name: gauntlet entrant,
    joined or retired in a revision; ``los`` (its ``los`` matrix) gives each bot's
    likelihood of superiority over the bot ranked below it.
    """
    marks, los = marks or {}, los or {}
    names = [str(bot.get("name", "?")) for bot in bots]
    below = dict(zip(names, [*names[1:], None], strict=False))  # no bots: no rows
    # the game's own statistics (Game.statistics), per round played: mean_<name>
    stats = [key for key in dict.fromkeys(k for bot in bots for k in bot) if key.startswith("mean_")]
    stats = [key for key in stats if key != "mean_score"]
    head = (
        "<tr><th>#</th><th>bot</th><th>Elo</th><th>±95%</th><th>LOS next</th><th>sequential</th><th>games</th>"
        "<th>win share</th><th>mean score</th>"
        + "".join(f"<th>{html.escape(key.replace('_', ' '))}</th>" for key in stats)
        + "<th>faults</th></tr>"
    )
    rows = []
    for rank, bot in enumerate(bots, 1):
        name = str(bot.get("name", "?"))
        faults = bot.get("faults", 0)
        tags = marks.get(name) or []
        interval, interval_class = _interval(bot)
        rows.append(
            f'<tr data-testid="standing" data-bot="{html.escape(name)}"'
            + (f' data-marks="{html.escape(" ".join(str(m.get("mark")) for m in tags))}"' if tags else "")
            + f'><td class="num">{rank}</td><td class="bot" data-testid="bot">{html.escape(name)}{marks_html(tags)}</td>'
            + _cell("elo", bot.get("elo"), _num(bot.get("elo")))
            + _cell("ci95", bot.get("ci95"), interval, interval_class)
            + _los_next(los, name, below.get(name))
            + _cell("sequential", bot.get("sequential"), _num(bot.get("sequential")))
            + _cell("games", bot.get("games"), _num(bot.get("games")))
            + _cell("win-share", bot.get("win_share"), _share(bot.get("win_share")))
            + _cell("mean-score", bot.get("mean_score"), _num(bot.get("mean_score"), 2))
            + "".join(_cell(key.replace("_", "-"), bot.get(key), _num(bot.get(key), 2)) for key in stats)
            + _cell("faults", faults, _num(faults), "num fault-count" if faults else "num")
            + "</tr>"
        )
    return f'<table class="data standings" data-testid="standings"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def timing_table(bots: Sequence[Mapping[str, Any]]) -> str:
    """Return each bot's move times (median, p99, max), time-outs per 10,000 moves and start-up time."""
    rows = []
    for bot in bots:
        timing = bot.get("timing")
        if not isinstance(timing, Mapping):
            continue
        move = timing.get("move_ms") or {}
        startup = timing.get("startup_ms") or {}
        name = str(bot.get("name", "?"))
        rows.append(
            f'<tr data-testid="timing" data-bot="{html.escape(name)}"><td class="bot">{html.escape(name)}</td>'
            + _cell("moves", timing.get("moves"), _num(timing.get("moves")))
            + "".join(_cell(f"move-{q}", move.get(q), _num(move.get(q), 2)) for q in ("median", "p99", "max"))
            + _cell("timeouts-per-10k", timing.get("timeouts_per_10k"), _num(timing.get("timeouts_per_10k"), 2))
            + _cell("startup-median", startup.get("median"), _num(startup.get("median"), 1))
            + _cell("startup-max", startup.get("max"), _num(startup.get("max"), 1))
            + "</tr>"
        )
    if not rows:
        return '<p data-testid="no-timing">No move times recorded.</p>'
    head = (
        "<tr><th>bot</th><th>moves</th><th>median ms</th><th>p99 ms</th><th>max ms</th>"
        "<th>time-outs per 10,000 moves</th><th>start-up ms (median)</th><th>start-up ms (max)</th></tr>"
    )
    return f'<table class="data timing" data-testid="timing-table"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def elo_chart(bots: Sequence[Mapping[str, Any]]) -> str:
    """Return the Elo error-bar chart (dot = rating, bar = 95% interval)."""
    bars = []
    for i, bot in enumerate(bots):
        elo, half = _float(bot.get("elo")), _float(bot.get("ci95"))
        bound = bot.get("bound") if bot.get("bound") in ("floor", "ceiling", "open") else None
        if elo is None:
            note = "n/a"
        elif bound is not None:
            note = f"{elo:.0f}; " + _interval(bot)[0].split(" (")[0]
        else:
            note = f"{elo:.0f}" + (f" ± {half:.0f}" if half is not None else "")
        low, high = _float(bot.get("low")), _float(bot.get("high"))
        bars.append(Bar(str(bot.get("name", "?")), elo, half, note, colour(i)[0], bound, low, high))
    return error_bars(bars, testid="elo-chart", unit="Elo")


def seats_section(seats: Sequence[Mapping[str, Any]]) -> str:
    """Return the per-seat advantage as an error-bar chart and a table."""
    if not seats:
        return "<p>No seat advantage was fitted.</p>"
    bars = []
    rows = []
    for seat in seats:
        adv, half = _float(seat.get("advantage")), _float(seat.get("ci95"))
        label = f"seat {seat.get('seat')}"
        note = "n/a" if adv is None else f"{adv:+.0f}" + (f" ± {half:.0f}" if half is not None else "")
        bars.append(Bar(label, adv, half, note, "#555555"))
        rows.append(
            f'<tr data-testid="seat-row"><td>{html.escape(label)}</td>'
            + _cell("advantage", seat.get("advantage"), "n/a" if adv is None else f"{adv:+.1f}")
            + _cell("seat-ci95", seat.get("ci95"), _pm(seat.get("ci95"), 1))
            + "</tr>"
        )
    table = (
        '<table class="data seats" data-testid="seats"><thead><tr><th>seat</th><th>advantage (Elo)</th>'
        f"<th>±95%</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    chart = error_bars(bars, testid="seat-chart", unit="Seat advantage (Elo)", zero=0.0)
    return f'<div class="pair">{chart}{table}</div>'


def crosstable(names: Sequence[str], cross: Mapping[str, Any]) -> str:
    """Return the head-to-head table: row bot's wins-draws-losses against the column bot."""
    head = "".join(f'<th class="rot"><span>{html.escape(b)}</span></th>' for b in names)
    rows = []
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append('<td class="self"></td>')
                continue
            rec = (cross.get(a) or {}).get(b) or {}
            w, d, lo = (int(rec.get(k, 0) or 0) for k in ("wins", "draws", "losses"))
            total = w + d + lo
            share = (w + d / 2) / total if total else None
            title = f"{a} vs {b}: {w} wins, {d} draws, {lo} losses" + (
                f" ({100 * share:.0f}%)" if share is not None else ""
            )
            cells.append(
                f'<td class="wdl" style="background:{heat(share)}" data-testid="cross" data-row="{html.escape(a)}" '
                f'data-col="{html.escape(b)}" title="{html.escape(title)}">{w}-{d}-{lo}</td>'
            )
        rows.append(f'<tr><th class="bot">{html.escape(a)}</th>{"".join(cells)}</tr>')
    return (
        '<table class="data matrix" data-testid="crosstable"><thead><tr><th>wins-draws-losses</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def los_heatmap(names: Sequence[str], los: Mapping[str, Any]) -> str:
    """Return the likelihood-of-superiority matrix as a coloured table (row beats column)."""
    head = "".join(f'<th class="rot"><span>{html.escape(b)}</span></th>' for b in names)
    rows = []
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append('<td class="self"></td>')
                continue
            p = _float((los.get(a) or {}).get(b))
            if p is None:
                text = "n/a"
            elif p > 0.999:
                text = ">99.9%"
            elif p < 0.001:
                text = "<0.1%"
            else:
                text = f"{100 * p:.1f}%"
            cells.append(
                f'<td class="los" style="background:{heat(p)}" data-testid="los" data-row="{html.escape(a)}" '
                f'data-col="{html.escape(b)}" data-value="{json.dumps(p)}" '
                f'title="P({html.escape(a)} stronger than {html.escape(b)})">{text}</td>'
            )
        rows.append(f'<tr><th class="bot">{html.escape(a)}</th>{"".join(cells)}</tr>')
    return (
        '<table class="data matrix" data-testid="los"><thead><tr><th>P(row &gt; column)</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def history_chart(names: Sequence[str], history: Sequence[Mapping[str, Any]]) -> str:
    """Return each bot's rating against the number of games played, as a line chart."""
    if not history:
        return "<p>No rating history was recorded.</p>"
    series: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for point in history:
        games = _float(point.get("games"))
        for name, rating in (point.get("ratings") or {}).items():
            value = _float(rating)
            if games is not None and value is not None:
                series.setdefault(str(name), []).append((games, value))
    return line_chart(
        series, testid="history-chart", x_label="games played", y_label="Elo", y_range=_settled(series)
    )


def _settled(series: Mapping[str, Sequence[tuple[float, float]]]) -> tuple[float, float] | None:
    """The Elo range after the first quarter of the league.

    Fits on a handful of games swing by thousands of points; an axis sized for them
    would flatten the rest of the chart, so those early points are clipped instead.
    """
    points = [p for pts in series.values() for p in pts]
    if not points:
        return None
    end = max(x for x, _ in points)
    late = [y for x, y in points if x >= end / 4] or [y for _, y in points]
    lo, hi = min(late), max(late)
    pad = max((hi - lo) * 0.1, 10.0)
    return lo - pad, hi + pad


def faults_table(
    faults: Sequence[Mapping[str, Any]], links: Sequence[str | None], tails: Sequence[str | None] = ()
) -> str:
    """Return the faults grouped by bot and kind (count, first detail and stderr tail, replay links)."""
    return fault_groups(faults, links, tails)


def _plain(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_plain(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value) or "-"
    return value if isinstance(value, str) else json.dumps(value)


def _config(config: Any, games: Any, bots: int) -> str:
    def cells(items: Sequence[tuple[Any, Any]]) -> str:
        return "".join(
            f"<div><dt>{html.escape(str(k))}</dt><dd>{html.escape(_plain(v))}</dd></div>" for k, v in items
        )

    summary = cells([("games played", games), ("bots", bots)])
    settings = cells(list(config.items())) if isinstance(config, Mapping) else ""
    return f'<dl class="config" data-testid="config">{summary}</dl>' + (
        f'<details><summary>league settings</summary><dl class="config">{settings}</dl></details>'
        if settings
        else ""
    )


def render_report(
    data: Mapping[str, Any],
    *,
    fault_links: Sequence[str | None] = (),
    title: str = "L.L.A.M.A. league report",
    fault_tails: Sequence[str | None] = (),
) -> str:
    """Return the report page for ``data`` (the ``ratings --format json`` dict).

    ``fault_links[i]`` is the relative address of the viewer page for ``data["faults"][i]``,
    ``fault_tails[i]`` the stderr tail its replay recorded. A match, an SPRT or a league
    run until decided opens with its verdict. Missing keys show as empty sections;
    nothing raises on odd values (they show as n/a).
    """
    bots = list(data.get("bots") or [])
    names = [str(bot.get("name", "?")) for bot in bots]
    faults = list(data.get("faults") or [])
    body = f"""\
<header class="top"><h1>{html.escape(title)}</h1>{_config(data.get("config"), data.get("games"), len(bots))}</header>
<main>
{verdict_section(data)}
<section id="standings"><h2>Standings</h2>
<p class="hint">Elo from a Bradley–Terry fit over every pair at every table, with seat terms; ±95% is the
cluster-robust interval; "≥ X (floor)" or "≤ X (ceiling)" marks a bot whose games bound it on one side only
(it never lost, or never won): no other end is known. LOS next is the likelihood that the bot is stronger than
the one ranked below it. Sequential Elo is the classic game-by-game update, for reference.</p>
{standings_table(bots, data.get("entrants") or {}, data.get("los") or {})}
{elo_chart(bots)}</section>
{revisions_section(list(data.get("revisions") or []))}
<section id="history"><h2>Rating over the league</h2>
<p class="hint">The batch Elo refitted after each share of the games; the first few fits swing widely and
are clipped.</p>{history_chart(names, data.get("history") or [])}</section>
<section id="crosstable"><h2>Head to head</h2>
<p class="hint">Row bot against column bot, counted pairwise at shared tables: wins-draws-losses,
coloured by the row's score share.</p>{crosstable(names, data.get("crosstable") or {})}</section>
<section id="los"><h2>Likelihood of superiority</h2>
<p class="hint">Probability that the row bot is stronger than the column bot, given the games played.</p>
{los_heatmap(names, data.get("los") or {})}</section>
<section id="seats"><h2>Seat advantage</h2>{seats_section(data.get("seats") or [])}</section>
<section id="timing"><h2>Move times</h2>
<p class="hint">Wall-clock time from sending a turn to reading its reply (as the replays record it); start-up
is from starting the process to its answer to hello.</p>{timing_table(bots)}</section>
<section id="faults"><h2>Faults ({len(faults)})</h2>
<p class="hint">One row per bot and kind of fault: how often, the first one's detail and stderr tail, and the
games (each link opens the replay at the fault, from the faulting seat).</p>{faults_table(faults, fault_links, fault_tails)}</section>
</main>
<footer class="help">Generated by llama-harness report. Self-contained: no network needed.</footer>"""
    return shell(title, asset("report.css"), body)


def fault_tails(league_dir: Path, faults: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """The stderr tail recorded with the first fault of each (bot, kind) group; None for the others.

    A missing or unreadable replay gives None (the report still shows the group).
    """
    from harness.replay.io import read_replay
    from harness.replay.records import FaultRecord

    tails: list[str | None] = [None] * len(faults)
    for members in group_faults(faults):
        fault = faults[members[0]]
        replay = fault.get("replay")
        if not replay:
            continue
        path = Path(str(replay))
        path = path if path.is_absolute() else league_dir / path
        try:
            records = read_replay(path)
        except (HarnessError, OSError):
            continue
        seat = fault.get("seat")
        tails[members[0]] = next(
            (r.stderr for r in records if isinstance(r, FaultRecord) and (seat is None or r.seat == seat)), None
        )
    return tails


def report_title(data: Mapping[str, Any], folder: str) -> str:
    """The page title: a match, an SPRT, a gauntlet or a league (until decided), of which game."""
    config = data.get("config") or {}
    game = REGISTRY.get(str(config.get("game", DEFAULT_GAME)))
    name = game.title if game is not None else "League"
    kind = str(data.get("kind") or "league")
    bots = [str(b) for b in config.get("bots") or []]
    if kind == "sprt" and len(bots) >= 2:
        field = f" (field: {', '.join(bots[2:])})" if bots[2:] else ""
        return f"{name} SPRT report · {bots[0]} vs {bots[1]}{field} · {folder}"
    if kind == "match" and bots:
        pair = " vs ".join(bots) if len(bots) <= 4 else f"{len(bots)} bots"
        return f"{name} match report · {pair} · {folder}"
    what = {"gauntlet": "gauntlet report", "until-decided": "league report (until decided)"}.get(kind, "league report")
    return f"{name} {what} · {folder}"


def _fault_step(replay: Path, bot: str) -> tuple[int, int | None]:
    """Return (record index of the bot's first fault, its seat); (0, None) when absent."""
    from harness.replay.io import read_replay
    from harness.replay.records import FaultRecord, Header

    records = read_replay(replay)
    header = records[0]
    names = [p.name for p in header.players] if isinstance(header, Header) else []
    for index, record in enumerate(records):
        if isinstance(record, FaultRecord) and record.seat < len(names) and names[record.seat] == bot:
            return index, record.seat
    return 0, None


MAX_PAGES = 200


def viewer_pages(
    league_dir: Path, faults: Sequence[Mapping[str, Any]], folder: Path, max_pages: int = MAX_PAGES
) -> list[str | None]:
    """Write a viewer page into ``folder`` for each faulted game; return links relative to its parent.

    A bot that faults in every game would otherwise write a page per game: only the
    first ``max_pages`` games get one. A fault whose replay is missing or unreadable
    gets no link (None) rather than failing the report.
    """
    from harness.html.viewer import write_viewer

    links: list[str | None] = []
    written: dict[Path, str] = {}
    for fault in faults:
        replay = fault.get("replay")
        if not replay:
            links.append(None)
            continue
        path = Path(str(replay))
        if not path.is_absolute():
            path = league_dir / path
        if path not in written and len(written) >= max_pages:
            links.append(None)
            continue
        try:
            if path not in written:
                page = folder / (path.name.split(".")[0] + ".html")
                write_viewer(path, page)
                written[path] = f"{folder.name}/{page.name}"
            step, seat = _fault_step(path, str(fault.get("bot", "")))
        except (HarnessError, OSError):
            links.append(None)
            continue
        anchor = f"#step={step}" + (f"&seat={seat}" if seat is not None else "") if step else ""
        links.append(written[path] + anchor)
    return links


def write_report(league_dir: Path, out: Path | None = None) -> Path:
    """Write the report of the league in ``league_dir`` to ``out`` (default: league_dir/report.html).

    The viewer pages of faulted games go to ``<out stem>_files/`` beside it. Raises
    HarnessError if the league cannot be read or ``out`` is a FIFO or a device (refused,
    never replaced), OSError if a file cannot be written.
    """
    try:
        from harness.league.standings import report_data
    except ImportError as err:
        raise HarnessError(f"cannot read leagues in this build: {err}") from None
    from harness.files import check_output, write_output

    out = out if out is not None else league_dir / "report.html"
    check_output(out)  # before any work: a FIFO or a device is refused, never replaced
    data = report_data(league_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    faults = data.get("faults") or []
    links = viewer_pages(league_dir, faults, out.parent / f"{out.stem}_files")
    page = render_report(
        data, fault_links=links, title=report_title(data, league_dir.name), fault_tails=fault_tails(league_dir, faults)
    )
    return write_output(out, page)
