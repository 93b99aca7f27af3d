"""The league report page without a browser: content, escaping, charts, the command."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from html_support import ratings_json, sample_data

from harness.cli import main
from harness.html.charts import heat, nice_ticks
from harness.html.report import render_report, viewer_pages, write_report

ROW = re.compile(r'<tr data-testid="standing" data-bot="([^"]*)">(.*?)</tr>', re.S)
CELL = re.compile(r'data-testid="([a-z0-9-]+)" data-value="([^"]*)">([^<]*)<')


def standings(page: str) -> list[tuple[str, dict[str, tuple[Any, str]]]]:
    """(bot, {column: (value, text)}) for each standings row, in page order."""
    return [
        (bot, {col: (json.loads(value.replace("&quot;", '"')), text) for col, value, text in CELL.findall(row)})
        for bot, row in ROW.findall(page)
    ]


def test_report_needs_no_network() -> None:
    page = render_report(sample_data(), fault_links=["report_files/game-00002.html#step=3"])
    assert not re.search(r"https?://", page, re.I)
    assert "<script" not in page  # the report is plain HTML and SVG
    assert not re.search(r"<[a-z][^>]*\s(src|srcset|action)\s*=", page, re.I)


def test_standings_show_the_data_in_rank_order() -> None:
    data = sample_data()
    rows = standings(render_report(data))
    assert [bot for bot, _ in rows] == [b["name"] for b in data["bots"]]
    for (_, cells), bot in zip(rows, data["bots"], strict=True):
        assert cells["elo"] == (bot["elo"], f"{bot['elo']:.0f}")
        assert cells["sequential"][0] == bot["sequential"]
        assert cells["win-share"] == (bot["win_share"], f"{100 * bot['win_share']:.1f}%")
        assert cells["mean-score"] == (bot["mean_score"], f"{bot['mean_score']:.2f}")
        assert cells["faults"] == (bot["faults"], str(bot["faults"]))
        want_ci = "n/a" if bot["ci95"] is None else f"±{bot['ci95']:.0f}"
        assert cells["ci95"] == (bot["ci95"], want_ci)


def test_charts_and_matrices_are_drawn() -> None:
    page = render_report(sample_data())
    for testid in ("elo-chart", "history-chart", "seat-chart", "crosstable", "los", "seats"):
        assert f'data-testid="{testid}"' in page
    assert page.count('<g class="bar"') == 4 + 4  # one per bot, one per seat
    assert page.count('<g class="series"') == 4
    los = re.findall(r'data-testid="los" data-row="([^"]+)" data-col="([^"]+)" data-value="([^"]+)"', page)
    assert len(los) == 12
    data = sample_data()
    for a, b, p in los:
        assert float(p) == pytest.approx(data["los"][a][b])
    assert "3-1-4" in page  # heuristic vs random in the crosstable


def test_hostile_text_is_escaped() -> None:
    data = sample_data()
    data["bots"][0]["name"] = "<img onerror=x>"
    page = render_report(data)
    assert "<img onerror" not in page and "&lt;img onerror=x&gt;" in page
    assert "</script><b>" not in page


def test_sparse_data_still_renders() -> None:
    page = render_report({"bots": [{"name": "solo", "elo": None, "ci95": None, "games": 0}]})
    assert "No faults" in page and "No rating history" in page and "No seat advantage" in page
    assert standings(page)[0][1]["elo"] == (None, "n/a")
    assert render_report({}).startswith("<!doctype html>")


def test_nice_ticks_cover_the_range() -> None:
    for lo, hi in [(1213.0, 1788.0), (-43.0, 80.0), (0.0, 1.0), (5.0, 5.0), (1e-3, 2e-3)]:
        ticks = nice_ticks(lo, hi)
        assert ticks[0] <= lo and ticks[-1] >= hi and 2 <= len(ticks) <= 12
        steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
        assert len(steps) == 1


def test_heat_runs_red_white_green() -> None:
    assert heat(0.0) == "#d73027" and heat(0.5) == "#ffffff" and heat(1.0) == "#1a9850"
    assert heat(None) == heat(float("nan")) == "#eeeeee"


def test_report_of_a_real_league(league_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "site" / "league.html"
    assert write_report(league_dir, out) == out
    page = out.read_text(encoding="utf-8")
    data = ratings_json(league_dir)
    assert [bot for bot, _ in standings(page)] == [b["name"] for b in data["bots"]]
    assert data["faults"], "the illegal bot faults in game 1"
    links = re.findall(r'href="([^"#]+)#step=(\d+)&amp;seat=(\d+)" data-testid="fault-link"', page)
    assert len(links) == len(data["faults"])
    for (href, _, seat), fault in zip(links, data["faults"], strict=True):
        assert href.startswith("league_files/") and (out.parent / href).is_file()
        assert int(seat) == fault["seat"]


def test_report_command(league_dir: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(league_dir), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r.html").is_file() and (tmp_path / "r_files").is_dir()
    result = CliRunner().invoke(main, ["report", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "no such league folder" in result.output
    result = CliRunner().invoke(main, ["report", str(tmp_path)])  # a folder, but no league in it
    assert result.exit_code == 2 and result.output.startswith("error: ")


def test_missing_replays_get_no_link(tmp_path: Path) -> None:
    faults = [{"game": 1, "bot": "x", "replay": "replays/gone.jsonl"}, {"game": 2, "bot": "y", "replay": None}]
    assert viewer_pages(tmp_path, faults, tmp_path / "files") == [None, None]
