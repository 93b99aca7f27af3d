"""``league BOTS --gauntlet NEW...``: new bots against a fixed field, anchored to the field."""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from harness.league.schedule import group_size, iter_gauntlet
from harness.seeds import seed_secret
from league.conftest import ROOT, cli, db_rows, make_bots


def test_every_group_seats_one_new_bot_with_a_balanced_field() -> None:
    field = ["f1", "f2", "f3", "f4"]
    jobs = list(iter_gauntlet(["n1", "n2"], field, 3, 600, seed=3, secret=seed_secret(3)))
    groups: dict[str, set[str]] = {}
    for job in jobs:
        for game in job.games:
            groups.setdefault(game.cluster, set()).update(game.seating)
    assert len(groups) * group_size(3) >= 600
    new_count = {"n1": 0, "n2": 0}
    pairs: dict[tuple[str, str], int] = dict.fromkeys(itertools.combinations(field, 2), 0)
    for table in groups.values():
        newcomers = table & {"n1", "n2"}
        assert len(newcomers) == 1  # one new bot a table: new bots never meet
        new_count[newcomers.pop()] += 1
        for pair in itertools.combinations(sorted(table - {"n1", "n2"}), 2):
            pairs[pair] += 1
    assert abs(new_count["n1"] - new_count["n2"]) <= 1
    assert max(pairs.values()) - min(pairs.values()) <= 3


def test_gauntlet_through_the_cli_is_anchored_to_the_field(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    field = bots(["f1", "f2", "f3"])
    new = make_bots(tmp_path / "new", ["newbie"])
    out = tmp_path / "out"
    done = cli("league", field, "--gauntlet", new / "newbie", "--games", "48", "--sandbox", "none", "--out", out)
    assert "gauntlet: newbie against the field; ratings anchored to the field (its mean is 1500)" in done.stdout
    data = json.loads(cli("ratings", out, "--format", "json").stdout)
    elo = {bot["name"]: bot["elo"] for bot in data["bots"]}
    assert abs((elo["f1"] + elo["f2"] + elo["f3"]) / 3 - 1500.0) < 1e-6
    assert data["config"]["gauntlet"] == ["newbie"]
    # every game has the new bot
    assert db_rows(out, "SELECT count(DISTINCT game_id) FROM seats WHERE bot = 'newbie'") == [(48,)]


def test_gauntlet_table_size_and_deals_are_checked(tmp_path: Path, bots: Callable[[list[str]], Path]) -> None:
    field = bots(["f1", "f2"])
    new = make_bots(tmp_path / "new", ["newbie"])
    for extra, message in ((["--table-size", "4"], "one new bot and 2 field bots"), (["--no-duplicate"], "duplicate")):
        done = cli("league", field, "--gauntlet", new / "newbie", *extra, "--out", tmp_path / "o", check=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_a_gauntlet_until_decided_places_each_new_bot_in_the_field(tmp_path: Path) -> None:
    field, new = tmp_path / "field", tmp_path / "new"
    for name in ("heuristic", "random"):
        shutil.copytree(ROOT / "sample_bots" / name, field / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "sample_bots" / "strong", new / "strong", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    done = cli(
        "league", field, "--gauntlet", new / "strong", "--until-decided", "--games", "600", "--table-size", "2",
        "--move-time", "10", "--sandbox", "none", "--out", out, timeout=300,  # no time-out on a busy machine
    )
    assert "decided" in done.stderr and "not decided" not in done.stderr, done.stderr + done.stdout
    data = json.loads(cli("ratings", out, "--format", "json").stdout)["decisions"]
    assert data["done"] is True and data["gauntlet"] == ["strong"]
    # where strong stands: above the best of the field; the field's own order is not asked
    assert ["strong", "heuristic"] in [[d["better"], d["worse"]] for d in data["decided"]]
    assert all("strong" in (d["better"], d["worse"]) for d in data["decided"])
    played = db_rows(out, "SELECT count(*) FROM results")[0][0]
    assert 0 < played < 600
    # every table seats the new bot with one field bot
    seatings = db_rows(out, "SELECT seating FROM games")
    assert all(sorted(json.loads(s)).count("strong") == 1 and len(json.loads(s)) == 2 for (s,) in seatings)
