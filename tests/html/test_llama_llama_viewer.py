"""The Llama Llama replay page in a real browser: every step shows the true table, a seat's view hides the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_html_browser import browser, open_page, screenshot  # noqa: F401 - the fixture is used by name

from harness.games.conformance import playout
from harness.games.llama_llama import LLAMA_LLAMA_GAME
from harness.games.llama_llama.audit import Auditor
from harness.games.llama_llama.viewer import render_viewer

READ = """
window.llamaLlamaViewer.show(arguments[0]);
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
};
"""


def _replay(tmp_path: Path, seat: int | None) -> tuple[list[dict[str, Any]], Path]:
    out = playout(LLAMA_LLAMA_GAME, 3, 21, policy_seed=4, faults={2: 7}, check=False)
    names = [{"name": f"bot{s}", "version": "1.0"} for s in range(3)]
    records = [{**out.header, "players": names, "format": 1, "match": 1}, *out.records]
    page = tmp_path / f"ll-{seat}.html"
    page.write_text(render_viewer(records, seat=seat, source="ll.jsonl"), encoding="utf-8")
    return records, page


def test_every_step_shows_the_true_table(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    records, page = _replay(tmp_path, None)
    open_page(browser, page)
    truth = Auditor(3)
    for k, record in enumerate(records[1:], 1):
        truth.record(record)
        shown = browser.execute_script(READ, k)
        assert shown["step"] == k
        for holder, hand in enumerate(truth.hands):
            box = shown["hands"][str(holder)]
            assert not box["hidden"] and box["cards"] == sorted(hand), (k, holder)
        placed = truth.displays or [None] * 4
        assert shown["goals"] == placed, k
        assert shown["revealed"] == [d < truth.revealed for d in range(4)], k
        if record["type"] == "round_end":
            for s, goals in enumerate(record["breakdown"]):
                for g in goals:
                    cell = shown["points"][f"points-{s}-{g['display']}"]
                    assert cell == f"{g['top']} + {g['bottom']} = {g['top'] + g['bottom']}", (k, s)
    screenshot(browser, "llama-llama-replay.png")


def test_a_seat_view_hides_other_hands_dummies_and_face_down_goals(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    records, page = _replay(tmp_path, 1)
    open_page(browser, page)
    truth = Auditor(3)
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
    assert "bot0 passes 1 card" in log and "bot0 chooses a goal" in log
    open_page(browser, page, "#step=9&seat=0")
    view = browser.execute_script("return document.getElementById('view').value")
    step = browser.execute_script("return document.querySelector('[data-testid=step]').dataset.step")
    assert (view, step) == ("0", "9")
