"""Tests for the text, JSON and CSV renderings."""

from __future__ import annotations

import csv
import io
import json

import pytest

from harness.ratings import (
    EloFit,
    GameResult,
    fit_elo,
    render_csv,
    render_json,
    render_table,
    sequential_elo,
)

# "ace" beats everyone most of the time, "deuce" is middling, "trey" is worst.
_PATTERN = [
    (("ace", "deuce", "trey"), (1, 2, 3)),
    (("deuce", "trey", "ace"), (2, 3, 1)),
    (("trey", "ace", "deuce"), (3, 2, 1)),
    (("ace", "trey"), (1, 2)),
    (("deuce", "trey"), (1, 1)),
    (("trey", "deuce"), (1, 2)),
]
GAMES = [GameResult(players, places, f"deal{i // 3}") for i, (players, places) in enumerate(_PATTERN * 4)]
EXTRA: dict[str, dict[str, object]] = {
    "ace": {"win share": 0.5, "forfeits": 0},
    "deuce": {"win share": 0.25},
    "trey": {"win share": 0.125, "note": "slow"},
}


@pytest.fixture(scope="module")
def fit() -> EloFit:
    return fit_elo(GAMES)


@pytest.fixture(scope="module")
def sequential() -> dict[str, float]:
    return sequential_elo(GAMES)


def test_fixture_order(fit: EloFit) -> None:
    assert [bot.name for bot in fit.bots] == ["ace", "deuce", "trey"]


def test_table_lists_bots_in_rank_order(fit: EloFit, sequential: dict[str, float]) -> None:
    text = render_table(fit, sequential, EXTRA)
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("rank"))
    for column in ("bot", "Elo", "±95%", "seq Elo", "win share", "forfeits", "note"):
        assert column in header
    body = lines[lines.index(header) + 1 : lines.index(header) + 4]
    for rank, (line, bot) in enumerate(zip(body, fit.bots, strict=True), start=1):
        cells = line.split()
        assert cells[:3] == [str(rank), bot.name, f"{bot.rating:.0f}"]
        assert f"{sequential[bot.name]:.0f}" in cells
    assert "0.500" in body[0] and "slow" in body[2]
    assert "-" in body[1].split()  # deuce has no "forfeits"
    assert any(line.startswith("seat advantage") for line in lines)
    assert lines[-1].startswith("note: seq Elo")
    # Fixed width: every row of the table is as wide as the header or narrower.
    assert all(len(line) <= len(header) for line in body)
    assert render_table(fit, sequential, EXTRA) == text  # deterministic


def test_table_without_sequential_or_extra(fit: EloFit) -> None:
    text = render_table(fit, None)
    assert "seq Elo" not in text
    assert text.index("ace") < text.index("deuce") < text.index("trey")


def test_json_round_trips(fit: EloFit, sequential: dict[str, float]) -> None:
    data = json.loads(render_json(fit, sequential, EXTRA))
    expected = fit.to_dict()
    for bot in expected["bots"]:
        bot["sequential"] = sequential[bot["name"]]
        bot["extra"] = EXTRA[bot["name"]]
    assert data == expected
    plain = json.loads(render_json(fit))
    assert plain == fit.to_dict()


def test_csv_has_header_and_one_row_per_bot(fit: EloFit, sequential: dict[str, float]) -> None:
    rows = list(csv.reader(io.StringIO(render_csv(fit, sequential, EXTRA))))
    assert rows[0] == [
        "rank",
        "bot",
        "elo",
        "ci95",
        "se",
        "games",
        "sequential",
        "win share",
        "forfeits",
        "note",
        "low",
        "high",
        "bound",
    ]
    assert len(rows) == 1 + len(fit.bots)
    assert [row[1] for row in rows[1:]] == ["ace", "deuce", "trey"]
    ace = rows[1]
    assert float(ace[2]) == pytest.approx(fit.bots[0].rating, abs=0.005)
    assert int(ace[5]) == fit.bots[0].games == 16
    assert ace[7:10] == ["0.5", "0", ""]
    low, high = fit.bots[0].rating - fit.bots[0].ci95, fit.bots[0].rating + fit.bots[0].ci95
    assert [float(ace[10]), float(ace[11])] == pytest.approx([low, high], abs=0.005)
    assert ace[12] == ""  # ace lost some games: a two-sided interval


def test_missing_errors_render_as_unavailable() -> None:
    one_cluster = [GameResult(p, q, "only") for p, q in _PATTERN]
    fit = fit_elo(one_cluster)
    assert "n/a" in render_table(fit, None)
    data = json.loads(render_json(fit))
    assert data["bots"][0]["ci95"] is None
    rows = list(csv.reader(io.StringIO(render_csv(fit))))
    assert rows[1][3] == ""
