"""What a user sees of the verdicts, in headless Chromium: a match's verdict and floors, an SPRT's
LLR chart between its bounds, an until-decided league's open pair, marks, grouped faults.

Uses the browser fixture of test_html_browser (skipped when chromium or chromedriver is absent).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from html_support import ratings_json
from test_html_browser import READ, browser, screenshot  # noqa: F401  (browser is a fixture)
from verdict_support import crash_match, grown, sprt_h1, undecided

from harness.html.report import write_report
from harness.league.verdict import verdict_text


def _open(driver: Any, page: Path) -> None:
    driver.get(page.resolve().as_uri())
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def _visible_text(driver: Any, css: str) -> str:
    element = driver.find_element("css selector", css)
    assert element.is_displayed(), css
    return str(element.text)


def test_a_match_report_shows_the_verdict_first_and_floors_as_floors(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path  # noqa: F811
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    folder = crash_match(tmp_path_factory)
    verdict = json.loads((folder / "summary.json").read_text())["verdict"]
    page = write_report(folder, tmp_path / "report.html")
    _open(browser, page)
    assert browser.find_element("css selector", "h1").text.startswith("L.L.A.M.A. match report · random vs crashy")
    assert browser.title.startswith("L.L.A.M.A. match report")
    # the first section on the page is the verdict, above the standings
    first = browser.find_element("css selector", "main > section")
    assert first.get_attribute("data-testid") == "verdict"
    assert _visible_text(browser, '[data-testid="score-line"]') == "random vs crashy: 8 wins, 0 losses, 0 draws · score 1.000"
    assert f"at least {verdict['elo_low']:+.0f} Elo (a floor: random never lost)" in _visible_text(
        browser, '[data-testid="elo-diff"]'
    )
    assert f"{verdict['los']:.1f}%" in _visible_text(browser, '[data-testid="verdict-los"]')
    assert _visible_text(browser, '[data-testid="verdict-text"]') == verdict_text(verdict).strip()
    cells = {
        row.get_attribute("data-bot"): row.find_element("css selector", '[data-testid="ci95"]').text
        for row in browser.find_elements("css selector", '[data-testid="standing"]')
    }
    assert cells["random"].startswith("≥ ") and cells["random"].endswith("(floor)")
    assert cells["crashy"].startswith("≤ ") and cells["crashy"].endswith("(ceiling)")
    # the chart draws the floor as a one-sided bar running off the right edge, with an arrow
    floor = browser.find_element("css selector", '[data-testid="elo-chart"] g.bar[data-bound="floor"]')
    assert floor.get_attribute("data-label") == "random"
    assert floor.find_elements("css selector", "path.arrow") and floor.find_elements("css selector", "line.one-sided")
    screenshot(browser, "report-match.png")

    # faults: one row for eight crashes, with the stderr tail; a link opens the viewer at the fault
    groups = browser.find_elements("css selector", '[data-testid="fault-group"]')
    assert len(groups) == 1 and groups[0].find_element("css selector", '[data-testid="fault-count"]').text == "8"
    assert "crashy: out of ideas <b>&amp;\\x1b[2J" in groups[0].find_element("css selector", '[data-testid="fault-tail"]').text
    links = groups[0].find_elements("css selector", '[data-testid="fault-link"]')
    assert [link.text for link in links] == [f"game {g}" for g in range(1, 9)]
    links[2].click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true")
    shown = browser.execute_script(READ)
    fault = next(f for f in ratings_json(folder)["faults"] if f["game"] == 3)
    assert shown["view"] == str(fault["seat"])  # the viewer shows the faulting seat's view
    assert "fault" in browser.find_element("id", "event").get_attribute("class")


def test_an_sprt_report_draws_the_llr_between_its_bounds(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path  # noqa: F811
) -> None:
    folder = sprt_h1(tmp_path_factory)
    sprt = json.loads((folder / "summary.json").read_text())["sprt"]
    page = write_report(folder, tmp_path / "report.html")
    _open(browser, page)
    assert "SPRT report · strong vs random" in browser.find_element("css selector", "h1").text
    assert _visible_text(browser, '[data-testid="sprt-result"]').startswith("H1 accepted: strong is stronger than random")
    assert f"{sprt['llr']:+.2f} (bounds {sprt['lower']:+.2f}, {sprt['upper']:+.2f})" in _visible_text(
        browser, '[data-testid="sprt-llr"]'
    )
    chart = browser.find_element("css selector", '[data-testid="llr-chart"]')
    assert chart.is_displayed()
    # in screen coordinates: every point but the last lies between the bound lines, the last on or past H1
    geometry = browser.execute_script(
        """
        const svg = arguments[0];
        const y = (el) => el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2;
        const rule = (name) => y(svg.querySelector(`g.rule[data-rule^="${name}"] line`));
        return {upper: rule('H1'), lower: rule('H0'),
                points: [...svg.querySelectorAll('g.series circle')].map(y)};
        """,
        chart,
    )
    points = geometry["points"]
    assert len(points) == sprt["groups"]
    assert geometry["upper"] < geometry["lower"]  # H1 drawn above H0
    assert all(geometry["upper"] < p < geometry["lower"] for p in points[:-1])
    assert points[-1] <= geometry["upper"] + 1.0
    screenshot(browser, "report-sprt.png")


def test_an_until_decided_report_shows_the_open_pair(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path  # noqa: F811
) -> None:
    folder = undecided(tmp_path_factory)
    page = write_report(folder, tmp_path / "report.html")
    _open(browser, page)
    assert _visible_text(browser, '[data-testid="decided-headline"]') == "Not decided: 1 adjacent pair still open"
    rows = browser.find_elements("css selector", '[data-testid="pair"]')
    assert len(rows) == 1 and rows[0].get_attribute("data-status") == "open" and "not decided" in rows[0].text


def test_retired_and_added_bots_are_tagged_in_the_standings(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path  # noqa: F811
) -> None:
    folder = grown(tmp_path_factory)
    page = write_report(folder, tmp_path / "report.html")
    _open(browser, page)
    tags = {
        row.get_attribute("data-bot"): [m.text for m in row.find_elements("css selector", '[data-testid="mark"]')]
        for row in browser.find_elements("css selector", '[data-testid="standing"]')
    }
    assert tags == {"a": ["retired in revision 1"], "b": [], "c": [], "d": ["joined in revision 1"]}
    assert len(browser.find_elements("css selector", '[data-testid="revision"]')) == 2
