"""The pages in a real browser: headless Chromium via Selenium, opened from disk.

What the replay page shows at many steps is checked against the rules engine replaying
the same file; the report's standings against ``ratings --format json``. One screenshot
of each page goes to the folder LLAMA_ARTIFACTS names (default: the test's temp folder),
and to ``docs/img/`` with LLAMA_UPDATE_SCREENSHOTS=1 (tests never write into the checkout
otherwise).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_support import ratings_json, resimulate, run_cli

from harness.games.llama.records import (
    ActionRecord,
    FaultRecord,
    GameEndRecord,
    RoundEndRecord,
    RoundStartRecord,
)
from harness.html.report import write_report
from harness.replay.io import read_replay

ROOT = Path(__file__).resolve().parents[2]
DOCS_IMG = ROOT / "docs" / "img"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,860",
]

# One round trip reads everything the table shows (from the DOM, not from the script's state).
READ = """
const q = (id) => document.querySelector(`[data-testid="${id}"]`);
const n = document.querySelectorAll('.seat').length;
const seats = [...Array(n).keys()];
return {
  step: Number(q('step').dataset.step),
  hands: seats.map((s) => {
    const box = q(`hand-${s}`);
    return box.dataset.hidden ? null : [...box.querySelectorAll('[data-card]')].map((c) => Number(c.dataset.card));
  }),
  counts: seats.map((s) => Number(q(`count-${s}`).textContent)),
  scores: seats.map((s) => Number(q(`score-${s}`).textContent)),
  quit: seats.map((s) => q(`seat-${s}`).dataset.quit === 'true'),
  discard: Number(q('discard').dataset.card || 0),
  discardShown: Number(q('discard').querySelector('[data-card]')?.dataset.card || 0),
  stock: Number(q('stock-count').textContent),
  stockCards: q('stock-cards').dataset.cards ?? null,
  round: Number(q('round').dataset.round),
  view: q('view').value,
};
"""


def _binary(*names: str) -> str | None:
    return next((path for name in names if (path := shutil.which(name))), None)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    chromium = _binary("chromium", "chromium-browser")
    driver_path = _binary("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager go online for a driver
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, path: Path, anchor: str = "") -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(path.resolve().as_uri() + anchor)
    WebDriverWait(driver, 30).until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def screenshot(driver: Any, name: str) -> None:
    artifacts = Path(os.environ.get("LLAMA_ARTIFACTS") or Path(tempfile.gettempdir()) / "artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(artifacts / name))
    doc = DOCS_IMG / name
    if os.environ.get("LLAMA_UPDATE_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(artifacts / name, doc)


def check(shown: dict[str, Any], want: dict[str, Any], step: int) -> None:
    assert shown["step"] == step
    assert shown["scores"] == want["scores"], f"step {step}"
    if "hands" not in want:
        return
    for seat, hand in enumerate(want["hands"]):
        if shown["hands"][seat] is not None:
            assert shown["hands"][seat] == hand, f"step {step} seat {seat}"
        assert shown["counts"][seat] == len(hand), f"step {step} seat {seat}"
    assert shown["discard"] == shown["discardShown"] == want["discard"], f"step {step}"
    assert shown["stock"] == want["stock"], f"step {step}"
    assert shown["quit"] == want["quit"], f"step {step}"


def faulted(replays: list[Path]) -> Path:
    return next(p for p in replays if any(isinstance(r, FaultRecord) for r in read_replay(p)))


@pytest.mark.slow
def test_replay_page_matches_the_rules_engine(browser: Any, replays: list[Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    replay = faulted(replays)
    records = read_replay(replay)
    want = resimulate(records)
    page = tmp_path / "game.html"
    run_cli("replay", str(replay), "--html", str(page))
    open_page(browser, page)

    def read() -> dict[str, Any]:
        shown: dict[str, Any] = browser.execute_script(READ)
        return shown

    check(read(), want[1], 1)  # opens at the first deal
    body = browser.find_element("tag name", "body")
    for step in (2, 3, 4):
        body.send_keys(Keys.ARROW_RIGHT)
        check(read(), want[step], step)
    body.send_keys(Keys.ARROW_LEFT)
    check(read(), want[3], 3)

    # every kind of record, and a spread of steps, reached by clicking the log
    kinds = (ActionRecord, FaultRecord, RoundEndRecord, RoundStartRecord, GameEndRecord)
    picks = {k for k, r in enumerate(records) if isinstance(r, kinds[1:])}
    picks |= {k for k, r in enumerate(records) if isinstance(r, ActionRecord) and r.action == "draw"}
    picks |= set(range(1, len(records), max(1, len(records) // 12)))
    for step in sorted(picks)[:40]:
        browser.find_element("css selector", f'#log li[data-step="{step}"]').click()
        check(read(), want[step], step)

    ends = [r for r in records if isinstance(r, RoundEndRecord)]
    results = browser.find_elements("css selector", '[data-testid="results"] tbody tr:not([hidden])')
    assert len(results) == len(ends)  # at the last pick (game end) every round is listed
    cell = browser.find_element("css selector", '[data-testid="result-1-0"]').text
    assert cell.endswith(str(ends[0].scores[0]))

    # jump to each round's deal (from the end backwards, so every choice changes the select)
    starts = [(k, r) for k, r in enumerate(records) if isinstance(r, RoundStartRecord)]
    assert len(starts) >= 2
    body.send_keys(Keys.END)
    for k, start in reversed(starts[:-1]):
        Select(browser.find_element("id", "round-select")).select_by_visible_text(str(start.round))
        shown = read()
        check(shown, want[k], k)
        assert shown["round"] == start.round and shown["stockCards"] == ",".join(map(str, start.stock))
    body.send_keys(Keys.PAGE_DOWN)
    check(read(), want[starts[1][0]], starts[1][0])

    body.send_keys(Keys.END)
    final = records[-1]
    assert isinstance(final, GameEndRecord)
    assert read()["scores"] == final.scores
    browser.find_element("css selector", f'#log li[data-step="{next(k for k, r in enumerate(records) if isinstance(r, FaultRecord))}"]').click()
    assert "fault" in browser.find_element("id", "event").get_attribute("class")
    browser.find_element("css selector", f'#log li[data-step="{starts[-1][0] + 3}"]').click()
    screenshot(browser, "replay.png")


def test_seat_view_hides_what_the_seat_could_not_see(browser: Any, replays: list[Path], tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select

    def draws_of(replay: Path) -> list[tuple[int, ActionRecord]]:
        records = read_replay(replay)
        return [(k, r) for k, r in enumerate(records) if isinstance(r, ActionRecord) and r.action == "draw"]

    # a game where at least two seats draw
    replay = next(p for p in replays if len({r.seat for _, r in draws_of(p)}) >= 2)
    records = read_replay(replay)
    want = resimulate(records)
    page = tmp_path / "game.html"
    run_cli("replay", str(replay), "--html", str(page))
    draws = draws_of(replay)
    me = draws[0][1].seat
    own = draws[0][0]
    draw = next(k for k, r in draws if r.seat != me)
    others = [s for s in range(len(want[draw]["hands"])) if s != me]
    open_page(browser, page, f"#step={draw}")
    Select(browser.find_element("id", "view")).select_by_value(str(me))
    shown = browser.execute_script(READ)
    assert shown["view"] == str(me) and shown["step"] == draw
    assert shown["hands"][me] == want[draw]["hands"][me]
    for seat in others:
        assert shown["hands"][seat] is None
        box = browser.find_element("css selector", f'[data-testid="hand-{seat}"]')
        assert box.find_elements("css selector", "[data-card]") == []
        assert shown["counts"][seat] == len(want[draw]["hands"][seat])
    assert shown["stockCards"] is None
    assert browser.find_elements("css selector", '[data-testid="stock-cards"] [data-card]') == []
    entry = browser.find_element("css selector", f'#log li[data-step="{draw}"]').text
    assert entry.split(" ms")[0].rsplit(" ", 1)[0].endswith("draws")  # "NAME draws 0.1 ms": no card
    drawn = records[own].drawn  # type: ignore[union-attr]
    mine = browser.find_element("css selector", f'#log li[data-step="{own}"]').text
    assert f"draws {'L' if drawn == 7 else drawn}" in mine  # the seat sees its own draws

    Select(browser.find_element("id", "view")).select_by_value("all")
    shown = browser.execute_script(READ)
    assert shown["hands"] == want[draw]["hands"]
    assert shown["stockCards"] is not None

    open_page(browser, page, f"#step={draw}&seat={others[0]}")  # the report links faults this way
    shown = browser.execute_script(READ)
    assert shown["view"] == str(others[0]) and shown["step"] == draw and shown["hands"][me] is None


def test_play_and_pause(browser: Any, replays: list[Path], tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    page = tmp_path / "game.html"
    run_cli("replay", str(replays[2]), "--html", str(page))
    open_page(browser, page)
    last = len(read_replay(replays[2])) - 1
    Select(browser.find_element("id", "speed")).select_by_value("8")
    browser.find_element("id", "play").click()

    def step() -> int:
        return int(browser.execute_script(READ)["step"])

    WebDriverWait(browser, 20, poll_frequency=0.05).until(lambda _: step() >= 3)
    browser.find_element("tag name", "body").send_keys(" ")
    paused = step()
    assert 3 <= paused < last
    time.sleep(0.5)  # four steps' time at 8/s: a running player would have moved on
    assert step() == paused and browser.find_element("id", "play").get_attribute("data-playing") == "false"
    browser.find_element("tag name", "body").send_keys(Keys.ARROW_RIGHT)
    assert step() == paused + 1


def test_longest_games_open_and_reach_the_end(browser: Any, bots: list[Path], tmp_path: Path) -> None:
    run_cli(
        "match", str(bots[0]), str(bots[1]), "--games", "1", "--end-score", "100000", "--max-rounds", "50",
        "--out", str(tmp_path / "m"),
    )
    replay = next((tmp_path / "m" / "replays").glob("*.jsonl"))
    records = read_replay(replay)
    page = tmp_path / "long.html"
    run_cli("replay", str(replay), "--html", str(page))
    started = time.monotonic()
    open_page(browser, page)
    loaded = time.monotonic() - started
    timing = browser.execute_script(
        "const v = window.llamaViewer, t = performance.now();"
        "for (let k = 0; k <= v.steps; k++) { v.show(k); document.body.offsetHeight; }"
        "return [v.steps, performance.now() - t];"
    )
    print(f"{len(records)} records: page ready in {loaded:.2f} s, every step shown in {timing[1]:.0f} ms")
    assert timing[0] == len(records) - 1
    final = records[-1]
    assert isinstance(final, GameEndRecord) and final.rounds == 50
    assert browser.execute_script(READ)["scores"] == final.scores


def test_report_page_matches_the_ratings(browser: Any, league_dir: Path, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    out = write_report(league_dir, tmp_path / "report.html")
    data = ratings_json(league_dir)
    browser.get(out.resolve().as_uri())
    assert browser.find_element("css selector", "h1").text.startswith("L.L.A.M.A. league report")
    rows = browser.find_elements("css selector", '[data-testid="standing"]')
    assert [row.get_attribute("data-bot") for row in rows] == [bot["name"] for bot in data["bots"]]
    for row, bot in zip(rows, data["bots"], strict=True):
        cells = {c.get_attribute("data-testid"): c.text for c in row.find_elements("css selector", "[data-testid]")}
        assert cells["elo"] == f"{bot['elo']:.0f}"
        assert cells["ci95"] == (f"±{bot['ci95']:.0f}" if bot["ci95"] is not None else "n/a")
        assert cells["sequential"] == f"{bot['sequential']:.0f}"
        assert cells["games"] == str(bot["games"])
        assert cells["win-share"] == f"{100 * bot['win_share']:.1f}%"
        assert cells["mean-score"] == f"{bot['mean_score']:.2f}"
        assert cells["faults"] == str(bot["faults"])
    bars = browser.find_elements("css selector", '[data-testid="elo-chart"] g.bar')
    assert [bar.get_attribute("data-label") for bar in bars] == [bot["name"] for bot in data["bots"]]
    assert len(browser.find_elements("css selector", '[data-testid="history-chart"] g.series')) == len(data["bots"])
    screenshot(browser, "report.png")

    fault = data["faults"][0]
    browser.find_element("css selector", '[data-testid="fault-link"]').click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    shown = browser.execute_script(READ)
    records = read_replay(league_dir / fault["replay"])
    at = next(k for k, r in enumerate(records) if isinstance(r, FaultRecord) and r.seat == fault["seat"])
    assert shown["view"] == str(fault["seat"]) and shown["step"] == at
    assert "fault" in browser.find_element("id", "event").get_attribute("class")
    assert fault["kind"] in browser.find_element("id", "event").text

