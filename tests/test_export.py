"""``llama-harness export``: a league or match in one file that ``replay`` and ``report`` read back, and CSV/PGN."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import TEST_BOTS, invoke, one_error
from league.conftest import cli, make_bots

FAST = ("--sandbox", "none", "--jobs", "1")


def _rows(folder: Path, sql: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{folder / 'league.db'}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished three-player league of two random bots and one that crashes mid-game (faults)."""
    root = tmp_path_factory.mktemp("export-league")
    make_bots(root / "bots", ["a", "b"])
    league_file = root / "league.toml"
    league_file.write_text(
        f'bots = ["bots/a", "bots/b", "{TEST_BOTS / "crash_mid"}"]\ntable_size = 3\ngames = 6\n'
    )
    cli("league", league_file, "--out", root / "out", *FAST)
    return root / "out"


@pytest.fixture(scope="module")
def exported(league: Path) -> Path:
    out = league.parent / "league.zip"
    done = cli("export", league, "--out", out)
    assert done.stdout.strip() == f"wrote {out}: 6 games (zip)"
    return out


def _index(path: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(path) as archive:
        return [json.loads(line) for line in archive.read("index.jsonl").splitlines()]


def test_the_export_holds_every_replay_and_the_results_but_no_secret(league: Path, exported: Path) -> None:
    index = _index(exported)
    head, games = index[0], index[1:]
    assert head["type"] == "export" and head["format"] == "llama-harness-export" and head["games"] == 6
    assert [g["game"] for g in games] == [r[0] for r in _rows(league, "SELECT game_id FROM results ORDER BY game_id")]
    seats = _rows(league, "SELECT game_id, seat, bot, score, place, forfeited FROM seats ORDER BY game_id, seat")
    assert [
        (g["game"], s["seat"], s["bot"], s["score"], s["place"], int(s["forfeited"])) for g in games for s in g["seats"]
    ] == seats
    faults = _rows(league, "SELECT game_id, seat, kind FROM faults ORDER BY game_id, seat")
    assert faults, "the crashing bot faulted"
    assert [(g["game"], s["seat"], f["kind"]) for g in games for s in g["seats"] for f in s["faults"]] == faults
    secret = json.loads(_rows(league, "SELECT value FROM meta WHERE key = 'secret'")[0][0])
    assert len(secret) >= 32
    with zipfile.ZipFile(exported) as archive:
        for game in games:  # each replay byte for byte, under the league's own path
            assert archive.read(game["replay"]) == (league / game["replay"]).read_bytes()
        assert not any(secret.encode() in archive.read(name) for name in archive.namelist())
    # each seat's time is its actions' ms summed, from the replay
    first = games[0]
    records = [json.loads(line) for line in (league / first["replay"]).read_text().splitlines()]
    for seat in first["seats"]:
        spent = sum(r.get("ms") or 0 for r in records if r["type"] == "action" and r["seat"] == seat["seat"] and not r.get("forced"))
        assert seat["time_ms"] == pytest.approx(spent, abs=0.01)


def test_replay_and_verify_read_one_game_or_every_game_of_an_export(league: Path, exported: Path) -> None:
    game = _index(exported)[2]
    shown = invoke("replay", exported, "--game", game["game"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == invoke("replay", league / game["replay"]).stdout
    verified = invoke("replay", "--verify", exported)
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.strip() == f"{exported}: 6 replays: 6 ok, 0 bad"
    one = invoke("replay", "--verify", exported, "--game", game["game"])
    assert one.exit_code == 0 and one.stdout.startswith(f"{exported}[game {game['game']}]: ok (")
    mixed = invoke("replay", "--verify", exported, league / "replays")
    assert mixed.exit_code == 0 and mixed.stdout.strip() == "12 replays: 12 ok, 0 bad"
    page = league.parent / "game.html"
    html = invoke("replay", exported, "--game", game["game"], "--html", page)
    assert html.exit_code == 0 and page.read_text().startswith("<!doctype html>")
    seed = json.loads((league / game["replay"]).read_text().splitlines()[0])["seed"]
    assert str(seed) in page.read_text()
    one_error(invoke("replay", exported), "an export of 6 games (ids 1-6): pick one with --game N")
    one_error(invoke("replay", exported, "--game", 99), "--game 99: no such game in this export (its games: 1-6)")
    one_error(invoke("replay", league / game["replay"], "--game", 1), "is not an export")


def test_the_report_of_an_export_is_the_report_of_its_league(league: Path, exported: Path, tmp_path: Path) -> None:
    mine = invoke("report", league, "--out", tmp_path / "folder.html")
    theirs = invoke("report", exported, "--out", tmp_path / "export.html")
    assert mine.exit_code == 0 and theirs.exit_code == 0, (mine.output, theirs.output)
    page = (tmp_path / "export.html").read_text()
    assert page == (tmp_path / "folder.html").read_text().replace("folder_files/", "export_files/")
    assert "export_files/game-" in page  # the faulted games' viewer pages, from the export's replays
    for viewer in (tmp_path / "folder_files").iterdir():
        assert (tmp_path / "export_files" / viewer.name).read_text() == viewer.read_text()
    # ratings too: the same JSON from the export as from the folder
    assert invoke("ratings", exported, "--format", "json").stdout == invoke("ratings", league, "--format", "json").stdout
    default = invoke("report", exported)  # beside the export, named after it
    assert default.exit_code == 0 and (exported.parent / "league.html").is_file()


def test_csv_has_a_row_per_game_and_seat(league: Path, exported: Path, tmp_path: Path) -> None:
    table = tmp_path / "games.csv"
    done = invoke("export", league, "--out", table)
    assert done.exit_code == 0 and done.stdout.strip() == f"wrote {table}: 6 games (csv)"
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert list(rows[0]) == [
        "game", "deal_group", "seat", "bot", "score", "place", "forfeited", "faults", "fault_kinds", "time_ms", "moves"
    ]
    cells = _rows(
        league,
        "SELECT s.game_id, g.cluster, s.seat, s.bot, s.score, s.place, s.forfeited, "
        "(SELECT count(*) FROM faults f WHERE f.game_id = s.game_id AND f.seat = s.seat) "
        "FROM seats s JOIN games g ON g.game_id = s.game_id ORDER BY s.game_id, s.seat",
    )
    assert [tuple(row[k] for k in list(row)[:8]) for row in rows] == [tuple(map(str, c)) for c in cells]
    assert all(float(row["time_ms"]) >= 0 and int(row["moves"]) >= 0 for row in rows)
    # the same table from the export, without the league folder
    again = tmp_path / "again.csv"
    assert invoke("export", exported, "--out", again).exit_code == 0
    assert again.read_text() == table.read_text()


def test_pgn_is_a_game_per_pair_of_seats(league: Path, exported: Path, tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    assert invoke("export", exported, "--format", "pgn", "--out", out).exit_code == 0
    text = out.read_text()
    games = re.findall(r'\[Round "(\d+)"\]\n\[White "([^"]+)"\]\n\[Black "([^"]+)"\]\n\[Result "([^"]+)"\]\n\n(\S+)\n', text)
    assert len(games) == 6 * 3  # three players: three pairs a table
    places = {(g, b): p for g, b, p in _rows(league, "SELECT game_id, bot, place FROM seats")}
    for round_, white, black, result, token in games:
        assert token == result
        w, b = places[(int(round_), white)], places[(int(round_), black)]
        assert result == ("1-0" if w < b else "0-1" if w > b else "1/2-1/2")


@pytest.mark.slow
def test_a_two_bot_match_with_gzipped_replays(tmp_path: Path) -> None:
    make_bots(tmp_path / "bots", ["a", "b"])
    out = tmp_path / "match"
    cli("match", tmp_path / "bots" / "a", tmp_path / "bots" / "b", "--games", "4", "--gzip", "--out", out, *FAST)
    export = tmp_path / "match.zip"
    cli("export", out, "--out", export)
    with zipfile.ZipFile(export) as archive:
        names = sorted(archive.namelist())
    assert names == ["index.jsonl", *(f"replays/game-0000{n}.jsonl" for n in range(1, 5))]  # .gz dropped
    assert invoke("replay", "--verify", export).exit_code == 0
    pgn = tmp_path / "match.pgn"
    cli("export", out, "--out", pgn)
    assert pgn.read_text().count("[White ") == 4  # one PGN game a game


def test_bad_outputs_are_refused_in_one_line(league: Path, exported: Path, tmp_path: Path) -> None:
    one_error(invoke("export", league, "--out", "/dev/null"), "/dev/null", "not a regular file")
    one_error(invoke("export", league, "--format", "csv", "--out", "/dev/full"), "/dev/full", "not replaced")
    fifo = tmp_path / "fifo.zip"
    os.mkfifo(fifo)
    one_error(invoke("export", league, "--out", fifo), "not a regular file")
    assert not list(tmp_path.glob("*.part"))
    one_error(invoke("export", exported, "--out", tmp_path / "x.zip"), "already an export")
    one_error(invoke("export", league, "--out", league / "league.db"), "is the league's own league.db")
    one_error(invoke("export", league, "--format", "csv", "--out", league / "replays" / "x.csv"), "inside the league's own replays/")
    assert _rows(league, "SELECT count(*) FROM results") == [(6,)]  # untouched
    # the same league exports to the same bytes, and leaves no .part behind
    again = tmp_path / "again.zip"
    assert invoke("export", league, "--out", again).exit_code == 0
    assert again.read_bytes() == exported.read_bytes() and not list(tmp_path.glob("*.part"))
    one_error(invoke("export", tmp_path / "nowhere", "--out", tmp_path / "x.zip"), "no such league or match folder")
    stray = tmp_path / "stray.txt"
    stray.write_text("hello")
    one_error(invoke("export", stray, "--out", tmp_path / "x.csv"), "neither a league or match folder nor an export")
    one_error(invoke("export", tmp_path, "--out", tmp_path / "x.zip"), "not a league folder (no league.db)")


def _rewrite(source: Path, target: Path, change: dict[str, bytes | None]) -> Path:
    """A copy of the export ``source`` with members replaced (bytes) or left out (None)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for name in old.namelist():
            data = change.get(name, old.read(name))
            if data is not None:
                new.writestr(name, data)
    return target


def test_a_damaged_export_is_one_line_never_a_hang(exported: Path, tmp_path: Path) -> None:
    index = _index(exported)
    game = index[1]
    # a changed result in the index: the replay disagrees, and --verify says where
    edited = [dict(line) for line in index]
    edited[1] = {**game, "seats": [{**game["seats"][0], "score": game["seats"][0]["score"] + 1}, *game["seats"][1:]]}
    lied = _rewrite(exported, tmp_path / "lied.zip", {"index.jsonl": b"".join(json.dumps(e).encode() + b"\n" for e in edited)})
    verdict = invoke("replay", "--verify", lied)
    assert verdict.exit_code == 1
    assert f"{lied}[game {game['game']}]: index: scores" in verdict.stderr
    assert verdict.stdout.strip() == f"{lied}: 6 replays: 5 ok, 1 bad"
    # a decompression bomb as a replay: read up to its cap, a problem of that game
    bomb = _rewrite(exported, tmp_path / "bomb.zip", {game["replay"]: b"\n" * (65 << 20)})
    assert os.path.getsize(bomb) < 2 << 20
    verdict = invoke("replay", "--verify", bomb)
    assert verdict.exit_code == 1 and "over 64 MiB once decompressed" in verdict.stderr
    # no index, an index naming a path out of the archive, an index that is not the schema's
    one_error(invoke("replay", _rewrite(exported, tmp_path / "bare.zip", {"index.jsonl": None}), "--game", 1), "no index.jsonl")
    escape = [index[0], {**game, "replay": "replays/../../escaped.jsonl"}, *index[2:]]
    bad = _rewrite(exported, tmp_path / "escape.zip", {"index.jsonl": b"".join(json.dumps(e).encode() + b"\n" for e in escape)})
    one_error(invoke("replay", bad, "--game", 1), "index.jsonl:2: game.replay: String should match pattern")
    missing = _rewrite(exported, tmp_path / "missing.zip", {game["replay"]: None})
    one_error(invoke("report", missing, "--out", tmp_path / "r.html"), "is not in the archive")
    # a truncated archive is not an export; a FIFO is not read at all
    cut = tmp_path / "cut.zip"
    cut.write_bytes(exported.read_bytes()[:-100])
    one_error(invoke("report", cut, "--out", tmp_path / "r.html"), "cut.zip: not an export (not a readable ZIP archive")
    fifo = tmp_path / "fifo.zip"
    os.mkfifo(fifo)
    one_error(invoke("replay", fifo, "--game", 1), "is not an export")


def test_a_damaged_archive_raises_only_one_line_errors(exported: Path, tmp_path: Path) -> None:
    """Seeded byte flips and cuts anywhere in the archive: a HarnessError or a game's problem, nothing else."""
    import random

    from harness.errors import HarnessError
    from harness.export import open_export
    from harness.export.check import verify_export

    data = exported.read_bytes()
    rng = random.Random(7)
    refused = problems = 0
    for _ in range(200):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        if rng.random() < 0.2:
            damaged = damaged[: rng.randrange(len(damaged))]
        path = tmp_path / "damaged.zip"
        path.write_bytes(bytes(damaged))
        try:
            with open_export(path) as export:
                problems += sum(v.problem is not None for v in verify_export(export))
        except HarnessError as err:
            assert "\n" not in str(err)
            refused += 1
    assert refused > 50 and problems > 0  # both ways were taken


def test_reproduce_a_decision_from_an_export(league: Path, exported: Path) -> None:
    game = _index(exported)[1]
    mine = invoke("replay", exported, "--game", game["game"], "--at", 2, "--seat", 0, "--dump", "-")
    theirs = invoke("replay", league / game["replay"], "--at", 2, "--seat", 0, "--dump", "-")
    assert mine.exit_code == 0 and theirs.exit_code == 0, (mine.output, theirs.output)
    assert mine.stdout == theirs.stdout and mine.stdout.count("\n") >= 3


def test_an_export_of_llama_llama(tmp_path: Path) -> None:
    """The second game (simultaneous steps): exported, verified, shown, reported like the first."""
    random_bot = Path(__file__).resolve().parents[1] / "sample_bots" / "llama_llama_random"
    out = tmp_path / "match"
    cli("match", random_bot, random_bot, "--game", "llama-llama", "--games", "2", "--out", out, *FAST)
    export = tmp_path / "ll.zip"
    cli("export", out, "--out", export)
    verified = invoke("replay", "--verify", export)
    assert verified.exit_code == 0 and verified.stdout.strip() == f"{export}: 2 replays: 2 ok, 0 bad"
    assert invoke("replay", export, "--game", 2).stdout == invoke("replay", out / "replays" / "game-00002.jsonl").stdout
    assert invoke("report", export, "--out", tmp_path / "a.html").exit_code == 0
    assert invoke("report", out, "--out", tmp_path / "b.html").exit_code == 0
    assert (tmp_path / "a.html").read_text() == (tmp_path / "b.html").read_text().replace("b_files/", "a_files/")
    games = _index(export)[1:]
    assert all(seat["moves"] > 0 and seat["time_ms"] > 0 for game in games for seat in game["seats"])


def test_an_index_whose_config_is_not_a_leagues_is_one_line(exported: Path, tmp_path: Path) -> None:
    """An index that passes its schema but holds what no league stores: report and ratings say so in one line."""
    index = _index(exported)
    for name, head in (
        ("gauntlet", {**index[0], "config": {**index[0]["config"], "gauntlet": 5}}),
        ("revision", {**index[0], "revisions": [{"revision": "x"}]}),
        ("twice", {**index[0], "revisions": [{"revision": 0}, {"revision": 0}]}),
    ):
        lines = b"".join(json.dumps(e).encode() + b"\n" for e in [head, *index[1:]])
        odd = _rewrite(exported, tmp_path / f"{name}.zip", {"index.jsonl": lines})
        for command in (["report", odd, "--out", tmp_path / "r.html"], ["ratings", odd]):
            one_error(invoke(*command), f"{odd}: index.jsonl: not a league's results")
