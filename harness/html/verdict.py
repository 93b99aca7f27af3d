"""The report's verdict sections: what a match, an SPRT or an until-decided league concluded.

Pure functions of the ``ratings --format json`` dict (``harness.league.standings.report_data``):
``verdict_section`` opens the page with the result, ``entrant_marks`` tags the bots a
gauntlet entered or a revision added or retired, ``fault_groups`` folds the faults into
one row per bot and kind. Every bot-supplied string goes through ``html.escape`` (and
``inline``/``printable`` for a bot's text), so a name or a stderr tail cannot add markup.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.html.charts import line_chart
from harness.terminal import inline, printable

# A fault group lists this many games as links; the rest are counted.
LINKS_PER_GROUP = 12
# The stderr tail shown per fault group: its last lines.
TAIL_LINES = 12


def _f(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _fmt(value: Any, spec: str, missing: str = "?") -> str:
    number = _f(value)
    return missing if number is None else format(number, spec)


def _e(value: Any) -> str:
    """A bot-supplied value as one escaped line."""
    return html.escape(inline(str(value)))


def verdict_section(data: Mapping[str, Any]) -> str:
    """The section that opens the report: a match's, an SPRT's or an until-decided league's verdict ('' for none)."""
    kind = str(data.get("kind") or "league")
    if kind == "sprt" and isinstance(data.get("sprt"), Mapping):
        return sprt_section(data["sprt"])
    if kind == "match" and isinstance(data.get("verdict"), Mapping):
        return match_section(data["verdict"])
    if isinstance(data.get("decided_pairs"), Mapping):
        return decided_section(data["decided_pairs"])
    return ""


def _elo_text(verdict: Mapping[str, Any]) -> str:
    """The Elo difference as a user reads it: ``+120 ± 45``, or a floor / ceiling said as such."""
    bound = verdict.get("bound")
    if bound == "floor":
        return f"at least {_fmt(verdict.get('elo_low'), '+.0f')} Elo (a floor: {_e(verdict.get('bot'))} never lost)"
    if bound == "ceiling":
        return f"at most {_fmt(verdict.get('elo_high'), '+.0f')} Elo (a ceiling: {_e(verdict.get('bot'))} never won)"
    return f"{_fmt(verdict.get('elo_diff'), '+.0f')} ± {_fmt(verdict.get('ci95'), '.0f')} Elo (95%)"


def match_section(verdict: Mapping[str, Any]) -> str:
    """A two-bot match: score line, Elo difference ± 95% (or its floor/ceiling) and LOS, as cutechess prints them."""
    a, b = _e(verdict.get("bot", "?")), _e(verdict.get("opponent", "?"))
    w, d, lo = (int(verdict.get(k) or 0) for k in ("wins", "draws", "losses"))
    los = _f(verdict.get("los"))
    text = printable(str(verdict.get("text") or ""))
    return (
        '<section id="verdict" class="verdict" data-testid="verdict" data-kind="match">'
        "<h2>Verdict</h2>"
        f'<p class="headline" data-testid="score-line">{a} vs {b}: {w} wins, {lo} losses, {d} draws'
        f' · score {_fmt(verdict.get("score"), ".3f")}</p>'
        f'<p data-testid="elo-diff" data-value="{_fmt(verdict.get("elo_diff"), ".1f", "null")}" '
        f'data-bound="{html.escape(str(verdict.get("bound") or ""))}">Elo difference {a} − {b}: {_elo_text(verdict)}</p>'
        f'<p data-testid="verdict-los" data-value="{_fmt(los, ".1f", "null")}">Likelihood of superiority'
        f" ({a} stronger than {b}): {_fmt(los, '.1f')}%</p>"
        + (f'<pre data-testid="verdict-text">{html.escape(text)}</pre>' if text else "")
        + "</section>"
    )


_RESULT = {
    "H1": "H1 accepted: {a} is stronger than {b} by {elo1} Elo or more (at these error rates)",
    "H0": "H0 accepted: {a} is not stronger than {b} by more than {elo0} Elo",
    "inconclusive": "Not decided: the test has not reached either bound",
}


def sprt_section(track: Mapping[str, Any]) -> str:
    """An SPRT: its hypotheses, bounds, result and the LLR after each deal group as a chart."""
    a, b = _e(track.get("bot", "A")), _e(track.get("opponent", "B"))
    result = str(track.get("result") or "inconclusive")
    headline = _RESULT.get(result, "Result: {result}").format(
        a=a, b=b, elo0=_fmt(track.get("elo0"), "g"), elo1=_fmt(track.get("elo1"), "g"), result=html.escape(result)
    )
    lower, upper = _f(track.get("lower")), _f(track.get("upper"))
    history = [p for p in track.get("history") or [] if isinstance(p, Mapping)]
    points = [(float(p.get("group", i + 1)), llr) for i, p in enumerate(history) if (llr := _f(p.get("llr"))) is not None]
    rules = [(f"H1 bound {upper:+.2f}", upper)] if upper is not None else []
    rules += [(f"H0 bound {lower:+.2f}", lower)] if lower is not None else []
    chart = (
        line_chart(
            {"LLR": points}, testid="llr-chart", x_label="deal groups", y_label="log-likelihood ratio",
            rules=rules, markers=len(points) <= 200,
        )
        if points
        else '<p data-testid="no-llr">No deal group has finished yet.</p>'
    )
    low, high = (track.get("elo_ci95") or [None, None]) if isinstance(track.get("elo_ci95"), list) else (None, None)
    after = int(_f(track.get("after_stop")) or 0)
    played = track.get("games_played")
    facts = [
        ("hypotheses", f"H0: elo ≤ {_fmt(track.get('elo0'), 'g')}, H1: elo ≥ {_fmt(track.get('elo1'), 'g')}"),
        ("error rates", f"α {_fmt(track.get('alpha'), 'g')}, β {_fmt(track.get('beta'), 'g')}"),
        ("LLR", f"{_fmt(track.get('llr'), '+.2f')} (bounds {_fmt(lower, '+.2f')}, {_fmt(upper, '+.2f')})"),
        ("counted", f"{_fmt(track.get('groups'), '.0f')} deal groups, {_fmt(track.get('games'), '.0f')} games"),
        ("Elo " + a + " − " + b, f"{_fmt(track.get('elo'), '+.1f')} (95% {_fmt(low, '+.1f', '-∞')} .. "
         f"{_fmt(high, '+.1f', '+∞')}; approximate after a sequential stop)"),
    ]
    if played is not None or after:
        facts.append(("played after the stop", f"{after} games (recorded, not counted)"))
    rows = "".join(
        f'<div><dt>{key}</dt><dd data-testid="sprt-{key.split()[0].lower()}">{value}</dd></div>' for key, value in facts
    )
    return (
        f'<section id="verdict" class="verdict {html.escape(result.lower())}" data-testid="verdict" data-kind="sprt" '
        f'data-result="{html.escape(result)}" data-llr="{_fmt(track.get("llr"), ".4f", "null")}" '
        f'data-lower="{_fmt(lower, ".4f", "null")}" data-upper="{_fmt(upper, ".4f", "null")}">'
        f'<h2>SPRT verdict</h2><p class="headline" data-testid="sprt-result">{headline}</p>'
        f'<dl class="config">{rows}</dl>'
        '<p class="hint">The log-likelihood ratio after each deal group, in group order as the test saw it; '
        "the test stops when it crosses a bound.</p>"
        f"{chart}</section>"
    )


def decided_section(pairs: Mapping[str, Any]) -> str:
    """An until-decided league: each adjacent pair decided, equal within ±margin, or not decided."""
    rows = []
    counts = {"decided": 0, "equal": 0, "open": 0}
    for pair in pairs.get("pairs") or []:
        status = str(pair.get("status", "open"))
        if pair.get("adjacent"):
            counts[status] = counts.get(status, 0) + 1
        a, b = _e(pair.get("a", "?")), _e(pair.get("b", "?"))
        games = f" at {int(pair['games'])} games" if _f(pair.get("games")) is not None else ""
        if status == "decided":
            text = f"decided: {_e(pair.get('better'))} &gt; {_e(pair.get('worse'))}{games}"
        elif status == "equal":
            margin = _fmt(pair.get("margin"), "g")
            text = f"equal within ±{margin} Elo{games}"
        else:
            text = "not decided"
        rows.append(
            f'<tr class="vpair {html.escape(status)}" data-testid="pair" data-status="{html.escape(status)}" '
            f'data-a="{a}" data-b="{b}"><td class="bot">{a}</td><td class="bot">{b}</td>'
            f'<td class="status">{text}</td><td>{"adjacent" if pair.get("adjacent") else "other pair"}</td></tr>'
        )
    done = bool(pairs.get("done"))
    confidence = _f(pairs.get("confidence"))
    wide = _f(pairs.get("margin"))
    headline = (
        "Decided: every adjacent pair of the ranking is ordered"
        + (" or equal within the margin" if counts["equal"] else "")
        if done
        else f"Not decided: {counts['open']} adjacent pair{'s' if counts['open'] != 1 else ''} still open"
    )
    detail = (
        f"sequential tests per pair at {100 * confidence:g}% confidence" if confidence is not None else "sequential tests"
    ) + (f"; indifference margin ±{wide:g} Elo" if wide is not None else "")
    table = (
        '<table class="data pairs" data-testid="pairs"><thead><tr><th>bot</th><th>bot</th><th>verdict</th>'
        f"<th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<p>No pair has been tested yet.</p>"
    )
    return (
        f'<section id="verdict" class="verdict {"decided" if done else "open"}" data-testid="verdict" '
        f'data-kind="until-decided" data-done="{str(done).lower()}"><h2>Verdict</h2>'
        f'<p class="headline" data-testid="decided-headline">{headline}</p><p class="hint">{detail} '
        f"({counts['decided']} decided, {counts['equal']} equal, {counts['open']} open).</p>{table}</section>"
    )


def marks_html(marks: Sequence[Mapping[str, Any]]) -> str:
    """A bot's marks as small tags after its name (gauntlet entrant, joined or retired in a revision)."""
    out = []
    for mark in marks:
        kind = html.escape(str(mark.get("mark", "")))
        text = html.escape(str(mark.get("text", kind)))
        out.append(f'<span class="mark {kind}" data-testid="mark" data-mark="{kind}" title="{text}">{text}</span>')
    return "".join(out)


def revisions_section(revisions: Sequence[Mapping[str, Any]]) -> str:
    """How the league grew: one row per revision ('' for a league never revised)."""
    if len(revisions) < 2:
        return ""
    rows = "".join(
        f'<tr data-testid="revision"><td class="num">{_fmt(r.get("revision"), ".0f")}</td>'
        f'<td>{html.escape(str(r.get("at") or ""))}</td><td class="num">{_fmt(r.get("games"), ".0f")}</td>'
        f'<td>{_e(", ".join(str(n) for n in r.get("bots") or []))}</td><td>{_e(r.get("change", ""))}</td></tr>'
        for r in revisions
    )
    return (
        '<section id="revisions"><h2>Revisions</h2><p class="hint">The league grew by revisions: a retired bot\'s '
        "finished games keep counting for the others.</p>"
        '<table class="data revisions" data-testid="revisions"><thead><tr><th>revision</th><th>at</th>'
        f"<th>games</th><th>bots</th><th>change</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def group_faults(faults: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """The indices of the faults, grouped by (bot, kind), groups in order of their first fault."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, fault in enumerate(faults):
        groups.setdefault((str(fault.get("bot", "")), str(fault.get("kind", ""))), []).append(index)
    return list(groups.values())


def _tail(text: str | None) -> str:
    if not text:
        return '<span class="hint">no stderr</span>'
    lines = printable(text).splitlines()[-TAIL_LINES:]
    return f'<pre data-testid="fault-tail">{html.escape(chr(10).join(lines))}</pre>'


def fault_groups(
    faults: Sequence[Mapping[str, Any]], links: Sequence[str | None], tails: Sequence[str | None] = ()
) -> str:
    """The faults as one row per bot and kind: count, first detail, first stderr tail, replay links.

    ``links[i]`` is the viewer page of ``faults[i]`` (None: no page); ``tails[i]`` the
    stderr tail recorded with it (only the first of each group is read).
    """
    if not faults:
        return '<p data-testid="no-faults">No faults: every bot answered every turn in time and by the rules.</p>'
    rows = []
    for members in group_faults(faults):
        first = faults[members[0]]
        detail = inline(str(first.get("detail", "")))  # a bot's text: one line, its controls shown
        short = detail if len(detail) <= 160 else detail[:157] + "..."
        shown = []
        for index in members[:LINKS_PER_GROUP]:
            href = links[index] if index < len(links) else None
            game = html.escape(str(faults[index].get("game", "")))
            shown.append(
                f'<a href="{html.escape(href)}" data-testid="fault-link">game {game}</a>'
                if href
                else f'<span title="{html.escape(str(faults[index].get("replay") or ""))}">game {game}</span>'
            )
        more = len(members) - LINKS_PER_GROUP
        if more > 0:
            shown.append(f'<span data-testid="fault-more">and {more} more</span>')
        tail = tails[members[0]] if members[0] < len(tails) else None
        rows.append(
            f'<tr data-testid="fault-group" data-bot="{_e(first.get("bot", ""))}" data-kind="{_e(first.get("kind", ""))}" '
            f'data-count="{len(members)}"><td>{_e(first.get("bot", ""))}</td>'
            f'<td class="kind">{_e(first.get("kind", ""))}</td><td class="num" data-testid="fault-count">{len(members)}</td>'
            f'<td class="detail" title="{html.escape(detail)}">{html.escape(short)}</td>'
            f'<td class="tail">{_tail(tail)}</td><td class="links">{", ".join(shown)}</td></tr>'
        )
    return (
        '<table class="data faults" data-testid="faults"><thead><tr><th>bot</th><th>kind</th><th>count</th>'
        "<th>first detail</th><th>first stderr tail</th><th>replays</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
