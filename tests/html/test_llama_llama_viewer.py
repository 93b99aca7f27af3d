"""Llama Llama's pages in a real browser: a league's replay page and its report.

The league is real (the three sample bots and one that plays an illegal card in its
first game); every step of a replay page must show the true table, a seat's view must
hide the rest, and the report must match the ratings and link a fault to its step.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import test_html_browser
from html_support import ratings_json, run_cli
from test_html_browser import open_page, screenshot

from harness.games.llama_llama.audit import Auditor
from harness.html.report import write_report

ROOT = Path(__file__).resolve().parents[2]
browser = test_html_browser.browser  # the module-scoped Chromium fixture, shared

READ = """
window.replayViewer.show(arguments[0]);
const q = (sel) => [...document.querySelectorAll(sel)];
return {
  step: Number(document.querySelector('[data-testid="step"]').dataset.step),
  hands: Object.fromEntries(q('[data-testid^="hand-"]').map((box) => [box.dataset.testid.slice(5), {
    hidden: box.dataset.hidden === 'true', count: Number(box.dataset.count),
    cards: [...box.querySelectorAll('.cards [data-card]')].map((c) => Number(c.dataset.card)),
  }])),
  goals: q('[data-testid^="display-"]').map((d) => d.dataset.goal ? Number(d.dataset.goal) : null),
  revealed: q('[data-testid^="display-"]').map((d) => d.dataset.revealed === 'true'),
  downCards: q('[data-testid^="display-"][data-revealed="false"] [data-card]').length,
  points: Object.fromEntries(q('[data-testid^="points-"]').map((c) => [c.dataset.testid, c.textContent])),
  event: document.getElementById('event').textContent,
};
"""

ILLEGAL_BOT = """import json, os, sys
turns = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "ll-illegal", "version": "1"}), flush=True)
    elif msg["type"] == "turn":
        turns += 1
        move = msg["legal"][0]
        if turns == 3 and not os.path.exists("faulted"):  # once, in the first game it plays
            open("faulted", "w").close()
            move = {"action": "goal", "card": 99}
        print(json.dumps({"type": "action", "id": msg["id"], **move}), flush=True)
    elif msg["type"] == "shutdown":
        break
"""


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 3-seat Llama Llama league: the sample bots and one that faults in its first game."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the JavaScript sample bot needs it)")
    folder = tmp_path_factory.mktemp("llbots")
    for name in ("llama_llama_random", "llama_llama_heuristic", "llama_llama_node"):
        shutil.copytree(ROOT / "sample_bots" / name, folder / name)
    bad = folder / "illegal"
    bad.mkdir()
    (bad / "bot.py").write_text(ILLEGAL_BOT)
    (bad / "bot.toml").write_text(
        'name = "ll-illegal"\ncommand = ["python3", "bot.py"]\ngames = ["llama-llama"]\n'
    )
    out = tmp_path_factory.mktemp("llleague") / "league"
    run_cli(
        "league",
        str(folder),
        "--game",
        "llama-llama",
        "--games",
        "12",
        "--table-size",
        "3",
        "--jobs",
        "2",
        "--sandbox",
        "none",
        "--out",
        str(out),
    )
    return out


def _replay(league: Path, faulted: bool) -> Path:
    for path in sorted((league / "replays").rglob("*.jsonl*")):
        text = path.read_text(encoding="utf-8") if path.suffix == ".jsonl" else ""
        if text and ('"type":"fault"' in text) == faulted:
            return path
    raise AssertionError("no such replay")


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_step_of_a_replay_page_shows_the_true_table(browser: Any, league: Path, tmp_path: Path) -> None:
    replay = _replay(league, faulted=True)
    records = _records(replay)
    page = tmp_path / "game.html"
    run_cli("replay", str(replay), "--html", str(page))
    open_page(browser, page)
    truth = Auditor(len(records[0]["players"]))
    for k, record in enumerate(records[1:], 1):
        if record["type"] != "fault":
            truth.record(record)
        shown = browser.execute_script(READ, k)
        assert shown["step"] == k
        for holder, hand in enumerate(truth.hands):
            box = shown["hands"][str(holder)]
            assert not box["hidden"] and box["cards"] == sorted(hand), (k, holder)
        assert shown["goals"] == (truth.displays or [None] * 4), k
        assert shown["revealed"] == [d < truth.revealed for d in range(4)], k
        if record["type"] == "round_end":
            for s, goals in enumerate(record["breakdown"]):
                for g in goals:
                    cell = shown["points"][f"points-{s}-{g['display']}"]
                    assert cell == f"{g['top']} + {g['bottom']} = {g['top'] + g['bottom']}", (k, s)
        if record["type"] == "fault":
            assert "FAULT (illegal)" in shown["event"]
    browser.execute_script(READ, 30)
    screenshot(browser, "llama-llama-replay.png")


def test_a_seat_view_hides_other_hands_dummies_and_face_down_goals(
    browser: Any, league: Path, tmp_path: Path
) -> None:
    from selenium.webdriver.support.ui import Select

    replay = _replay(league, faulted=False)
    records = _records(replay)
    page = tmp_path / "seat.html"
    run_cli("replay", str(replay), "--html", str(page), "--seat", "1")
    open_page(browser, page)
    truth = Auditor(len(records[0]["players"]))
    checked = 0
    for k, record in enumerate(records[1:], 1):
        truth.record(record)
        if record["type"] not in ("reveal", "pass", "round_end"):
            continue
        shown = browser.execute_script(READ, k)
        for holder, hand in enumerate(truth.hands):
            box = shown["hands"][str(holder)]
            if holder == 1:
                assert not box["hidden"] and box["cards"] == sorted(hand), k
            else:
                assert box["hidden"] and box["cards"] == [] and box["count"] == len(hand), (k, holder)
        assert shown["downCards"] == 0
        assert shown["goals"] == [truth.displays[d] if d < truth.revealed else None for d in range(4)], k
        if record["type"] == "round_end":
            assert {key.split("-")[1] for key in shown["points"]} == {"1"}  # only its own breakdown
        checked += 1
    assert checked > 10
    log = browser.find_element("css selector", '[data-testid="log"]').text
    names = [p["name"] for p in records[0]["players"]]
    assert f"{names[0]} chooses a goal" in log and f"{names[0]} passes 1 card" in log
    Select(browser.find_element("id", "view")).select_by_value("all")
    log = browser.find_element("css selector", '[data-testid="log"]').text
    assert f"{names[0]} chooses goal " in log and "goals placed: 1: " in log


def test_the_report_of_a_llama_llama_league_renders(browser: Any, league: Path, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    out = write_report(league, tmp_path / "report.html")
    data = ratings_json(league)
    browser.get(out.resolve().as_uri())
    assert "Llama Llama" in browser.find_element("css selector", "h1").text
    rows = browser.find_elements("css selector", '[data-testid="standing"]')
    assert [row.get_attribute("data-bot") for row in rows] == [bot["name"] for bot in data["bots"]]
    assert {f["bot"] for f in data["faults"]} == {"ll-illegal"}
    screenshot(browser, "llama-llama-report.png")
    fault = data["faults"][0]
    browser.find_element("css selector", '[data-testid="fault-link"]').click()
    WebDriverWait(browser, 30).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true"
    )
    records = _records(league / fault["replay"])
    at = next(k for k, r in enumerate(records) if r["type"] == "fault" and r["seat"] == fault["seat"])
    assert browser.find_element("id", "view").get_attribute("value") == str(fault["seat"])
    assert browser.find_element("css selector", '[data-testid="step"]').get_attribute("data-step") == str(at)
    assert "illegal" in browser.find_element("id", "event").text
