"""Honest messages and strict readers: a full disk, a bomb of blank lines, huge clocks, bots' control characters, records the referee never writes."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import invoke, one_error, random_bot, time_limit

from harness.replay.io import read_replay
from harness.replay.verify import verify
from harness.terminal import printable

UNSHARE = shutil.which("unshare")


def _mount_namespace_works(tmp_path: Path) -> bool:
    if UNSHARE is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run(
        [UNSHARE, "-m", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs {probe}"], capture_output=True, check=False
    )
    return done.returncode == 0


def test_a_full_disk_during_a_database_write_is_called_a_full_disk(tmp_path: Path) -> None:
    if not _mount_namespace_works(tmp_path):
        pytest.skip("cannot mount a small tmpfs here (needs root and unshare): no full disk to fill")
    for name in ("a", "b"):
        random_bot(tmp_path / "bots", name)
    disk = tmp_path / "disk"
    disk.mkdir()
    for games, fill in ((100_000, 1_900_000), (400, 1_950_000)):
        # a 2 MiB disk, nearly full: writing the schedule to the database fails (a long
        # league), or writing a replay (a short one)
        script = (
            f"mount -t tmpfs -o size=2m tmpfs {disk} && head -c {fill} /dev/zero > {disk}/filler && "
            f"exec {sys.executable} -m harness league {tmp_path / 'bots'} --games {games} --jobs 1 "
            f"--sandbox none --out {disk}/league"
        )
        with time_limit(120):
            done = subprocess.run([UNSHARE, "-m", "sh", "-c", script], capture_output=True, text=True, check=False)
        assert done.returncode != 0
        lines = done.stderr.strip().splitlines()
        error = [line for line in lines if line.startswith("error: ")]
        assert len(error) == 1 and "Traceback" not in done.stderr, done.stderr
        assert "the disk is full" in error[0] and "--force" not in error[0], error[0]
        assert "run the same command again to resume" in error[0]


def test_a_replay_of_blank_lines_is_refused_quickly(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb") as fh:
        for _ in range(100):
            fh.write(b"\n" * 1_000_000)  # 10^8 newlines in about 100 KB
    assert bomb.stat().st_size < 1 << 20
    with time_limit(10):
        for args in (["replay", bomb], ["replay", "--verify", bomb]):
            one_error(invoke(*args), str(bomb), "blank lines: not a replay")


@pytest.mark.parametrize(("option", "value"), [("--move-time", "1e308"), ("--startup-time", "1e20")])
def test_a_huge_clock_is_a_one_line_error(tmp_path: Path, option: str, value: str) -> None:
    bots = [random_bot(tmp_path / "bots", name) for name in ("a", "b")]
    for command in (["match", *bots], ["league", tmp_path / "bots"], ["check-bot", bots[0]]):
        result = invoke(*command, option, value, "--sandbox", "none", "--out", tmp_path / "out")
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert option in result.stderr and "86400" in result.stderr, result.stderr
    league = tmp_path / "bots" / "league.toml"
    league.write_text(f'bots = ["a", "b"]\n{option[2:].replace("-", "_")} = {value}\n')
    one_error(invoke("league", league, "--sandbox", "none", "--out", tmp_path / "lg"), "86400")


def test_control_characters_from_bots_are_escaped() -> None:
    hostile = "v1\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil\r"
    shown = printable(hostile)
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in shown)
    assert shown == "v1\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil\\x0d"
    assert printable("line one\nline two\tend") == "line one\nline two\tend"  # layout stays


def _fake_bot(folder: Path, name: str, version: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(
        "import json, random, sys\n"
        "rng = random.Random(0)\n"
        f"sys.stderr.write({json.dumps(chr(27) + '[2J' + chr(27) + ']0;title' + chr(7))} + '\\n')\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'hello':\n"
        f"        print(json.dumps({{'type': 'hello', 'name': {name!r}, 'version': {version!r}}}), flush=True)\n"
        "    elif msg['type'] == 'turn':\n"
        "        print('\\x1b[2J not json', flush=True)\n"
        "    elif msg['type'] == 'shutdown':\n"
        "        break\n"
    )
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\ncommand = ["python3", "bot.py"]\n')
    return folder


@pytest.mark.slow
def test_the_commands_print_no_control_character_a_bot_sent(tmp_path: Path) -> None:
    bad = _fake_bot(tmp_path / "bots" / "esc", "esc", "\x1b]0;pwned\x07\x1b[2J")
    other = random_bot(tmp_path / "bots", "r1")
    out = tmp_path / "out"
    outputs = []
    match = invoke("match", bad, other, "--games", "2", "--sandbox", "none", "--out", out)
    assert match.exit_code == 0, match.output
    outputs.append(match.output)
    check = invoke("check-bot", bad, "--opponent", other, "-n", "1", "--sandbox", "none")
    outputs.append(check.output)
    for replay in sorted((out / "replays").iterdir()):
        outputs.append(invoke("replay", replay).output)
    for text in outputs:
        assert "\x1b" not in text and "\x07" not in text, text[:2000]
    assert any("\\x1b" in text for text in outputs)  # shown, escaped


def _game_records(tmp_path: Path) -> list[dict[str, object]]:
    bots = [random_bot(tmp_path / "bots", name) for name in ("a", "b")]
    out = tmp_path / "out"
    assert invoke("match", *bots, "--games", "1", "--seed", "3", "--sandbox", "none", "--out", out).exit_code == 0
    replay = next((out / "replays").iterdir())
    return [json.loads(line) for line in replay.read_text().splitlines()]


def _verify(tmp_path: Path, records: list[dict[str, object]]) -> str | None:
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    problem = verify(read_replay(path))
    return None if problem is None else str(problem)


def test_verify_refuses_what_the_referee_never_writes(tmp_path: Path) -> None:
    records = _game_records(tmp_path)
    assert _verify(tmp_path, records) is None
    first = next(i for i, r in enumerate(records) if r["type"] == "action")
    seat = records[first]["seat"]
    # negative or non-finite answer times
    for bad in (-1.0, float("inf")):
        edited = [dict(r) for r in records]
        edited[first]["ms"] = bad
        assert "is not a time" in (_verify(tmp_path, edited) or ""), bad
    # a fault, then the seat forced: a time on a forced action, a second fault
    fault = {"type": "fault", "seat": seat, "kind": "crash", "detail": "x"}
    edited = [dict(r) for r in records[:first]] + [fault]
    for record in records[first:]:
        record = dict(record)
        if record.get("type") == "action" and record.get("seat") == seat:
            record["forced"] = True
        edited.append(record)
    problem = _verify(tmp_path, edited) or ""
    assert "the referee forces" in problem or "forced" in problem  # the forced actions differ: fine
    two = [dict(r) for r in records[:first]] + [fault, dict(fault)] + [dict(r) for r in records[first:]]
    assert "a second fault for seat" in (_verify(tmp_path, two) or "")
    timed = [dict(r) for r in records[:first]] + [fault]
    action = dict(records[first])
    action.update(forced=True, ms=3.0)
    timed.append(action)
    assert "with a time" in (_verify(tmp_path, timed) or "")
