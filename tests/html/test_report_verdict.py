"""Reports that state the verdict, through the CLI: a match's, an SPRT's, an until-decided league's;
entrants marked; faults grouped; floors shown as floors. Pages are parsed, not eyeballed."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import group_scores
from verdict_support import cli, crash_match, gauntlet, grown, sprt_h1, undecided

from harness.html.report import faults_table, render_report
from harness.league.verdict import verdict_text
from harness.ratings.render import los_text
from harness.ratings.sprt import llr


def _report(folder: Path, out: Path) -> str:
    done = cli("report", folder, "--out", out)
    assert done.stdout.strip() == f"wrote {out}"
    return out.read_text(encoding="utf-8")


def _json(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(cli("ratings", folder, "--format", "json").stdout)
    return data


def _attr(tag: str, name: str) -> str:
    found = re.search(rf'\s{name}="([^"]*)"', tag)
    assert found, (name, tag)
    return html.unescape(found.group(1))


def _tags(page: str, testid: str) -> list[str]:
    return re.findall(rf'<[a-z]+ [^>]*data-testid="{testid}"[^>]*>', page)


def _text(page: str, testid: str) -> str:
    found = re.search(rf'data-testid="{testid}"[^>]*>(.*?)</', page, re.S)
    assert found, testid
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_a_match_report_is_titled_as_a_match_and_opens_with_its_verdict(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    folder = crash_match(tmp_path_factory)
    page = _report(folder, tmp_path / "r.html")
    verdict = json.loads((folder / "summary.json").read_text())["verdict"]
    assert verdict["bot"] == "random" and verdict["wins"] == 8 and verdict["bound"] == "floor"
    title = re.search(r"<h1>(.*?)</h1>", page)
    assert title and html.unescape(title.group(1)) == "L.L.A.M.A. match report · random vs crashy · crash-match"
    # the verdict comes first, before the standings
    assert page.index('data-testid="verdict"') < page.index('id="standings"')
    assert _text(page, "score-line") == "random vs crashy: 8 wins, 0 losses, 0 draws · score 1.000"
    elo = _tags(page, "elo-diff")[0]
    assert float(_attr(elo, "data-value")) == pytest.approx(verdict["elo_diff"], abs=0.05)
    assert _attr(elo, "data-bound") == "floor"
    # random never lost: the difference has a floor, said as such, not a ± interval
    assert f"at least {verdict['elo_low']:+.0f} Elo (a floor: random never lost)" in _text(page, "elo-diff")
    assert float(_attr(_tags(page, "verdict-los")[0], "data-value")) == pytest.approx(verdict["los"], abs=0.05)
    assert _text(page, "verdict-text") == verdict_text(verdict)  # the lines the match printed


def test_floors_and_ceilings_show_as_such_in_the_report(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    folder = crash_match(tmp_path_factory)
    page = _report(folder, tmp_path / "r.html")
    bots = {bot["name"]: bot for bot in _json(folder)["bots"]}
    assert bots["random"]["bound"] == "floor" and bots["crashy"]["bound"] == "ceiling"
    rows = dict(re.findall(r'<tr data-testid="standing" data-bot="([^"]+)"[^>]*>(.*?)</tr>', page, re.S))
    ci = {name: html.unescape(re.search(r'data-testid="ci95"[^>]*>([^<]*)<', row).group(1)) for name, row in rows.items()}  # type: ignore[union-attr]
    assert ci["random"] == f"≥ {bots['random']['low']:.0f} (floor)"
    assert ci["crashy"] == f"≤ {bots['crashy']['high']:.0f} (ceiling)"
    assert "±" not in ci["random"] + ci["crashy"]
    los = {name: html.unescape(re.search(r'data-testid="los-next"[^>]*>([^<]*)<', row).group(1)) for name, row in rows.items()}  # type: ignore[union-attr]
    assert los == {"random": los_text(_json(folder)["los"]["random"]["crashy"]), "crashy": "-"}
    chart = re.search(r'data-testid="elo-chart".*?</svg>', page, re.S)
    assert chart
    bars = {_attr(t, "data-label"): _attr(t, "data-bound") for t in re.findall(r'<g class="bar"[^>]*>', chart.group(0))}
    assert bars == {"random": "floor", "crashy": "ceiling"}


def test_faults_are_grouped_by_bot_and_kind_with_count_tail_and_links(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    folder = crash_match(tmp_path_factory)
    out = tmp_path / "site" / "r.html"
    page = _report(folder, out)
    faults = _json(folder)["faults"]
    assert len(faults) == 8 and {(f["bot"], f["kind"]) for f in faults} == {("crashy", faults[0]["kind"])}
    groups = _tags(page, "fault-group")
    assert len(groups) == 1  # one row, not eight
    assert _attr(groups[0], "data-bot") == "crashy" and _attr(groups[0], "data-count") == "8"
    tail = re.search(r'<pre data-testid="fault-tail">(.*?)</pre>', page, re.S)
    assert tail, "the first fault's stderr tail is shown"
    shown = html.unescape(tail.group(1))
    assert "crashy: starting game 1" in shown and "out of ideas <b>&amp;\\x1b[2J" in shown
    assert "<b>&amp;" not in page and "\x1b" not in page  # the bot's text is escaped, its controls shown
    links = re.findall(r'href="([^"#]+)#step=\d+&amp;seat=(\d+)" data-testid="fault-link">game (\d+)<', page)
    assert [int(game) for _, _, game in links] == [f["game"] for f in faults]
    for href, seat, game in links:
        assert (out.parent / href).is_file()
        assert int(seat) == next(f["seat"] for f in faults if f["game"] == int(game))


def test_eighty_identical_faults_are_one_row_with_a_dozen_links() -> None:
    faults = [
        {"game": g, "bot": "b" if g % 4 else "c", "seat": 1, "kind": "crash" if g % 4 else "timeout",
         "detail": f"exit 3 in game {g}", "replay": f"replays/game-{g:05d}.jsonl"}
        for g in range(1, 81)
    ]
    links = [f"r_files/game-{g:05d}.html#step=2&seat=1" for g in range(1, 81)]
    tails = ["b: boom\n"] + [None] * 79
    page = faults_table(faults, links, tails)
    groups = _tags(page, "fault-group")
    assert [(_attr(t, "data-bot"), _attr(t, "data-kind"), _attr(t, "data-count")) for t in groups] == [
        ("b", "crash", "60"), ("c", "timeout", "20")
    ]
    assert page.count('data-testid="fault-link"') == 24  # twelve per group
    assert re.findall(r'data-testid="fault-more">and (\d+) more', page) == ["48", "8"]
    assert "exit 3 in game 1<" in page and "exit 3 in game 4<" in page  # each group's first detail
    assert page.count('data-testid="fault-tail"') == 1 and "no stderr" in page


def test_an_sprt_report_shows_its_bounds_result_and_llr_after_each_group(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    folder = sprt_h1(tmp_path_factory)
    page = _report(folder, tmp_path / "r.html")
    sprt = json.loads((folder / "summary.json").read_text())["sprt"]
    assert sprt["result"] == "H1"
    title = re.search(r"<h1>(.*?)</h1>", page)
    assert title and "SPRT report · strong vs random" in title.group(1)
    section = _tags(page, "verdict")[0]
    assert _attr(section, "data-kind") == "sprt" and _attr(section, "data-result") == "H1"
    assert float(_attr(section, "data-lower")) == pytest.approx(sprt["lower"], abs=1e-4)
    assert float(_attr(section, "data-upper")) == pytest.approx(sprt["upper"], abs=1e-4)
    assert _text(page, "sprt-result").startswith("H1 accepted: strong is stronger than random by 100 Elo")
    # the LLR after each group: recomputed here from the database by SQL, group by group
    scores = group_scores(folder, "strong", "random")
    counted = sprt["groups"]
    assert len(scores) >= counted > 0
    data = _json(folder)["sprt"]
    want = [llr(scores[:k], 0.0, 100.0) for k in range(1, counted + 1)]
    assert [p["llr"] for p in data["history"]] == pytest.approx(want, abs=1e-3)
    assert data["history"][-1]["llr"] == pytest.approx(sprt["llr"], abs=1e-3)
    assert want[-1] >= sprt["upper"] > max(want[:-1])  # it stopped at the first crossing
    chart = re.search(r'<svg [^>]*data-testid="llr-chart".*?</svg>', page, re.S)
    assert chart
    path = re.search(r'<g class="series" data-bot="LLR">.*?<path d="([^"]+)"', chart.group(0), re.S)
    assert path and path.group(1).count("L") == counted - 1  # one point per counted group
    rules = dict(re.findall(r'data-rule="([^"]+)" data-value="([^"]+)"', chart.group(0)))
    assert sorted(float(v) for v in rules.values()) == pytest.approx([sprt["lower"], sprt["upper"]], abs=1e-3)
    played_after = sprt["games_played"] - sprt["games"]
    assert data["after_stop"] == played_after
    assert f"{played_after} games (recorded, not counted)" in page


def test_an_sprt_report_reads_a_history_the_run_wrote_itself(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    folder = sprt_h1(tmp_path_factory)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("league.db", "summary.json"):
        (copy / name).write_bytes((folder / name).read_bytes())
    summary = json.loads((copy / "summary.json").read_text())
    summary["sprt"]["history"] = [{"group": 1, "llr": 0.5}, {"group": 2, "llr": 3.1}]
    summary["sprt"]["result"] = "H1"
    (copy / "summary.json").write_text(json.dumps(summary))
    data = _json(copy)
    assert [p["llr"] for p in data["sprt"]["history"]] == [0.5, 3.1]
    page = render_report(data)
    assert page.count('<circle cx="') >= 2 and "H1 accepted" in page


def test_an_until_decided_report_marks_open_decided_and_equal_pairs(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    folder = undecided(tmp_path_factory)
    page = _report(folder, tmp_path / "r.html")
    decisions = _json(folder)["decisions"]
    assert decisions["done"] is False and decisions["undecided"]
    section = _tags(page, "verdict")[0]
    assert _attr(section, "data-kind") == "until-decided" and _attr(section, "data-done") == "false"
    pairs = [(_attr(t, "data-a"), _attr(t, "data-b"), _attr(t, "data-status")) for t in _tags(page, "pair")]
    assert pairs == [(*decisions["undecided"][0], "open")]
    assert _text(page, "decided-headline") == "Not decided: 1 adjacent pair still open"
    assert "league report (until decided)" in page

    # what the verdicts engineer's --margin adds (an "equal" list, a margin), on a copy of the store
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "league.db").write_bytes((folder / "league.db").read_bytes())
    a, b = decisions["undecided"][0]
    db = sqlite3.connect(copy / "league.db")
    with db:
        stored = {**decisions, "margin": 20, "undecided": [], "done": True, "equal": [{"a": a, "b": b, "games": 16}]}
        db.execute("UPDATE meta SET value = ? WHERE key = 'decisions'", (json.dumps(stored),))
    db.close()
    page = _report(copy, tmp_path / "e.html")
    assert [_attr(t, "data-status") for t in _tags(page, "pair")] == ["equal"]
    assert "equal within ±20 Elo at 16 games" in page
    assert "Decided: every adjacent pair of the ranking is ordered or equal within the margin" in page


def test_revisions_and_retired_bots_are_marked(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    folder = grown(tmp_path_factory)
    page = _report(folder, tmp_path / "r.html")
    entrants = _json(folder)["entrants"]
    assert entrants == {
        "d": [{"mark": "added", "revision": 1, "text": "joined in revision 1"}],
        "a": [{"mark": "retired", "revision": 1, "text": "retired in revision 1"}],
    }
    marks = {bot: _attr(tag, "data-marks") for tag in _tags(page, "standing") if 'data-marks="' in tag
             for bot in [_attr(tag, "data-bot")]}
    assert marks == {"a": "retired", "d": "added"}
    assert ">retired in revision 1</span>" in page and ">joined in revision 1</span>" in page
    assert len(_tags(page, "revision")) == 2 and "added d; retired a" in page
    assert 'data-testid="verdict"' not in page  # a plain league states no verdict


def test_gauntlet_entrants_are_marked(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    folder = gauntlet(tmp_path_factory)
    page = _report(folder, tmp_path / "r.html")
    assert _json(folder)["kind"] == "gauntlet"
    marked = [_attr(tag, "data-bot") for tag in _tags(page, "standing") if 'data-marks="gauntlet"' in tag]
    assert marked == ["heuristic"]
    title = re.search(r"<h1>(.*?)</h1>", page)
    assert title and "gauntlet report" in title.group(1)


def test_bot_supplied_strings_in_the_verdicts_are_escaped() -> None:
    evil = '<img src=x onerror="alert(1)">'
    data: dict[str, Any] = {
        "kind": "sprt",
        "sprt": {"bot": evil, "opponent": "b\x1b[2J", "result": "H1", "llr": 3.0, "lower": -2.9, "upper": 2.9,
                 "history": [{"group": 1, "llr": 3.0}], "elo0": 0, "elo1": 10},
        "bots": [{"name": evil}], "entrants": {evil: [{"mark": "gauntlet", "text": evil}]},
        "faults": [{"game": 1, "bot": evil, "kind": evil, "detail": evil, "replay": None}],
    }
    page = render_report(data, fault_tails=[evil + "\n\x1b]0;t\x07"])
    assert "<img" not in page and "\x1b" not in page and "\x07" not in page
    for kind in ("match", "until-decided"):
        other = {**data, "kind": kind, "verdict": {"bot": evil, "opponent": evil, "text": evil},
                 "decided_pairs": {"pairs": [{"a": evil, "b": evil, "status": "decided", "better": evil, "worse": evil}]}}
        assert "<img" not in render_report(other)
