"""The llama-harness command: match, replay, and one-line errors for bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import Result
from helpers import fault_bot, invoke, no_bot_processes_left, one_error, random_bot, scaled, without_warnings


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result, list[str]]:
    """A 6-game match of three bots, played once for the tests that read its output."""
    tmp = tmp_path_factory.mktemp("cli")
    names = ["alpha", "bravo", "charlie"]
    folders = [random_bot(tmp / "bots", name) for name in names]
    out = tmp / "out"
    result = invoke(
        "match", *folders, "-n", "6", "--seed", "3", "--out", out, "--move-time", "5", "--end-score", "30"
    )
    return out, result, names


def test_match_prints_the_table_and_writes_summary_and_replays(
    played: tuple[Path, Result, list[str]],
) -> None:
    out, result, names = played
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("6 games in ") and str(out / "replays") in lines[0]
    assert lines[1].split() == ["bot", "games", "wins", "win", "%", "mean", "score", "faults"]
    rows = {line.split()[0]: line.split() for line in lines[2:5]}
    assert sorted(rows) == names
    assert all(row[1] == "6" and row[-1] == "0" for row in rows.values())
    assert sum(float(row[2]) for row in rows.values()) == pytest.approx(6, abs=0.02)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 6 and summary["seed"] == 3
    assert summary["options"]["end_score"] == 30
    assert sorted(p.name for p in (out / "replays").iterdir()) == [f"game-{i:05d}.jsonl" for i in range(1, 7)]


def test_seats_rotate_so_each_bot_sits_in_each_seat_equally(played: tuple[Path, Result, list[str]]) -> None:
    out, _, names = played
    seats: Counter[tuple[str, int]] = Counter()
    for path in sorted((out / "replays").iterdir()):
        header = json.loads(path.read_text().splitlines()[0])
        for seat, player in enumerate(header["players"]):
            seats[(player["name"], seat)] += 1
    assert seats == Counter({(name, seat): 2 for name in names for seat in range(3)})


def test_replay_prints_the_game_and_one_seats_view(played: tuple[Path, Result, list[str]]) -> None:
    out, _, _ = played
    path = out / "replays" / "game-00002.jsonl"
    whole = invoke("replay", path)
    assert whole.exit_code == 0
    assert "as seen by the whole table" in whole.stdout and "stock (top first)" in whole.stdout
    header = json.loads(path.read_text().splitlines()[0])
    seat = invoke("replay", path, "--seat", "1")
    assert seat.exit_code == 0
    assert f"as seen by seat 1 ({header['players'][1]['name']})" in seat.stdout
    assert "stock (top first)" not in seat.stdout  # hidden from a seat
    assert "cards" in seat.stdout  # other hands are counts only
    one_error(invoke("replay", path, "--seat", "3"), "--seat 3", "0-2")


def test_replay_verify_ok_and_tampered(played: tuple[Path, Result, list[str]], tmp_path: Path) -> None:
    out, _, _ = played
    path = out / "replays" / "game-00001.jsonl"
    ok = invoke("replay", "--verify", path)
    assert ok.exit_code == 0 and ok.stdout.strip().endswith("records)")
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    end["scores"][0] += 1
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    result = invoke("replay", "--verify", bad)
    assert result.exit_code == 1
    assert f"record {len(lines)}:" in result.stderr and "game_end" in result.stderr
    assert "Traceback" not in result.output


def test_a_fault_is_listed_under_the_table(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    result = invoke(
        "match", fault_bot(bots, "illegal"), random_bot(bots, "r1"), "-n", "2", "--out", tmp_path / "out"
    )
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("fault: ")]
    assert "game 1: illegal" in line and "illegal: illegal move" in line and "illegal.stderr.log" in line
    assert no_bot_processes_left(tmp_path / "out")  # bots run from their snapshots


# -- bad input: one line, exit 2 ------------------------------------------------------------------


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    return random_bot(tmp_path, "one"), random_bot(tmp_path, "two")


def bot_with(tmp_path: Path, toml: str, name: str = "odd") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.toml").write_text(toml)
    return folder


def test_missing_bot_folder(tmp_path: Path, two: tuple[Path, Path]) -> None:
    one_error(
        invoke("match", two[0], tmp_path / "nowhere", "--out", tmp_path / "o"), "nowhere", "does not exist"
    )


def test_no_bot_toml(tmp_path: Path, two: tuple[Path, Path]) -> None:
    (tmp_path / "empty").mkdir()
    one_error(invoke("match", two[0], tmp_path / "empty", "--out", tmp_path / "o"), "no bot.toml")


def test_malformed_toml(tmp_path: Path, two: tuple[Path, Path]) -> None:
    folder = bot_with(tmp_path, 'name = "odd"\ncommand = ["python3", \n')
    one_error(invoke("match", two[0], folder, "--out", tmp_path / "o"), "bot.toml", "not valid TOML")


def test_missing_command(tmp_path: Path, two: tuple[Path, Path]) -> None:
    folder = bot_with(tmp_path, 'name = "odd"\n')
    one_error(invoke("match", two[0], folder, "--out", tmp_path / "o"), "command", "Field required")


@pytest.mark.parametrize("name", ["../x", "a b", "", ".hidden", "x" * 65])
def test_bad_name(tmp_path: Path, two: tuple[Path, Path], name: str) -> None:
    folder = bot_with(tmp_path, f'name = {json.dumps(name)}\ncommand = ["true"]\n')
    one_error(invoke("match", two[0], folder, "--out", tmp_path / "o"), "name")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("command = \"python3 'bot.py\"\n", ("command", "No closing quotation")),
        ('command = [""]\n', ("command", "must not be empty")),
        ('command = ["python3", "a\\u0000b"]\n', ("command", "NUL")),
        ('command = ["true"]\n[env]\n"A=B" = "x"\n', ("env", "'A=B'")),
        ('command = ["true"]\n[env]\nA = "x\\u0000"\n', ("env", "NUL")),
    ],
)
def test_bad_command_or_environment(tmp_path: Path, two: tuple[Path, Path], body: str, words: tuple[str, ...]) -> None:
    folder = bot_with(tmp_path, 'name = "odd"\n' + body)
    one_error(invoke("match", two[0], folder, "--out", tmp_path / "o"), *words)


def test_command_not_on_path(tmp_path: Path, two: tuple[Path, Path]) -> None:
    folder = bot_with(tmp_path, 'name = "odd"\ncommand = ["no-such-program-llama"]\n')
    one_error(
        invoke("match", two[0], folder, "--out", tmp_path / "o"),
        "'no-such-program-llama'",
        "not found on PATH",
    )


def test_two_bots_with_one_name(tmp_path: Path, two: tuple[Path, Path]) -> None:
    clash = random_bot(tmp_path / "elsewhere", "one")
    one_error(invoke("match", two[0], clash, "--out", tmp_path / "o"), "two bots are named 'one'")


def test_one_bot_only(tmp_path: Path, two: tuple[Path, Path]) -> None:
    one_error(invoke("match", two[0], "--out", tmp_path / "o"), "2-6 bots, got 1")


def test_seven_bots(tmp_path: Path) -> None:
    folders = [random_bot(tmp_path, f"b{i}") for i in range(7)]
    one_error(invoke("match", *folders, "--out", tmp_path / "o"), "2-6 bots, got 7")
    assert not (tmp_path / "o").exists()  # nothing written before the input is checked


def test_unknown_variant_is_rejected_by_the_game(tmp_path: Path, two: tuple[Path, Path]) -> None:
    # the game played validates its own flags (another game's --variant may take other values)
    one_error(
        invoke("match", *two, "--variant", "hexagonal", "--out", tmp_path / "o"),
        "rules option of llama: variant: 'hexagonal' is not one of standard, komary",
    )
    assert not (tmp_path / "o").exists()


def test_out_is_a_file(tmp_path: Path, two: tuple[Path, Path]) -> None:
    (tmp_path / "o").write_text("")
    one_error(invoke("match", *two, "--out", tmp_path / "o"), str(tmp_path / "o"))


@pytest.mark.parametrize("make", ["missing", "folder", "garbage", "empty", "headless"])
def test_bad_replay_path(tmp_path: Path, make: str) -> None:
    path = tmp_path / "r.jsonl"
    if make == "folder":
        path.mkdir()
    elif make == "garbage":
        path.write_bytes(b"\x00\xffnot json\n")
    elif make == "empty":
        path.write_text("")
    elif make == "headless":
        path.write_text('{"type":"round_end","round":1,"penalties":[],"returned":[],"scores":[]}\n')
    for args in (["replay", path], ["replay", "--verify", path]):
        one_error(invoke(*args), str(path))


# -- the installed command, end to end -----------------------------------------------------------


def test_the_installed_command_end_to_end(tmp_path: Path) -> None:
    exe = shutil.which("llama-harness")
    command = [exe] if exe else [sys.executable, "-m", "harness"]
    bots = tmp_path / "bots"
    a, b = random_bot(bots, "a"), random_bot(bots, "b")
    out = tmp_path / "out"
    done = subprocess.run(
        [*command, "match", str(a), str(b), "-n", "2", "--out", str(out), "--gzip"],
        capture_output=True,
        text=True,
        timeout=scaled(120),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "2 games in" in done.stdout
    assert without_warnings(done.stderr)[0].startswith("match: 2 bots, 2 games") and "error" not in done.stderr
    replay = out / "replays" / "game-00002.jsonl.gz"
    check = subprocess.run(
        [*command, "replay", "--verify", str(replay)], capture_output=True, text=True, timeout=scaled(60), check=False
    )
    assert check.returncode == 0 and "ok (" in check.stdout
    bad = subprocess.run(
        [*command, "match", str(a), str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=scaled(60),
        check=False,
    )
    assert bad.returncode == 2
    errors = without_warnings(bad.stderr)
    assert len(errors) == 1 and errors[0].startswith("error: "), bad.stderr
    assert no_bot_processes_left(bots)
