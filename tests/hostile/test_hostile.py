"""The hostile-bot suite: every misbehaving bot ends as a recorded fault, nothing more.

Each bot in ``tests/hostile/bots`` plays a short match against two sample bots, with
and without the bubblewrap sandbox. For each: the match ends in bounded time, the
right fault kind is recorded against that bot only, every replay verifies (the other
bots' games are intact), no process is left, and the host is unharmed. In the sandbox
the snooping bot finds nothing and the network bot cannot connect.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import scaled

from harness.bots.manifest import folder_digest, load_bot
from harness.bots.process import LOG_CAP
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, TableSettings, run_match
from harness.replay.io import read_replay
from harness.replay.verify import verify
from harness.sandbox import resolve_sandbox

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "bots"
SAMPLES = HERE.parent.parent / "sample_bots"
HARNESS = HERE.parent.parent / "harness"
BWRAP = shutil.which("bwrap")
MATCH_BOUND = 60.0  # seconds on an idle machine (stretched by the load): a hang fails, load does not
# the bots whose fault is a time-out play to a short clock (load only makes them later),
# and close_stdout, whose crash is found at the deadline (no end of file comes under
# bubblewrap); every other bot gets a generous one, so that load cannot turn its crash
# into a time-out
TIMED = frozenset({"hang", "late", "no_flush", "fork_bomb", "close_stdout"})

# bot → fault kinds recorded against it (without sandbox, with sandbox); None = no fault
EXPECTED: dict[str, tuple[str | None, str | None]] = {
    "crash_start": ("crash", "crash"),
    "crash_mid": ("crash", "crash"),
    "hang": ("timeout", "timeout"),
    "late": ("timeout", "timeout"),
    "no_flush": ("timeout", "timeout"),
    "huge_line": ("malformed", "malformed"),
    "stderr_flood": (None, None),
    "bad_utf8": ("malformed", "malformed"),
    "not_json": ("malformed", "malformed"),
    "wrong_shape": ("invalid", "invalid"),
    "illegal": ("illegal", "illegal"),
    "unsolicited": ("invalid", "invalid"),
    "fork_bomb": ("timeout", "timeout"),
    "setsid_child": ("crash", "crash"),  # the bot exits; its grandchild holds stdout
    # without a sandbox these two succeed (the sandbox is what stops them); in it they give up
    "snoop": (None, "crash"),
    "network": (None, "crash"),
    "alloc_10g": ("crash", "crash"),
    "fill_tmp": ("crash", "crash"),
    # bubblewrap holds the pipe too: no end of file comes, yet a closed stdout is a crash
    "close_stdout": ("crash", "crash"),
    "deep_json": ("malformed", "malformed"),  # called "nested too deep", not "not a JSON line"
}

MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A local TCP listener on 127.0.0.1 (never an outside address)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def _copy(source: Path, dest: Path, name: str, env: dict[str, str]) -> Path:
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__"))
    lines = [f'name = "{name}"', 'version = "1"', 'command = ["python3", "bot.py"]', "[env]"]
    lines += [f'{key} = "{value}"' for key, value in env.items()]
    if source.name == "alloc_10g":  # reach the memory limit fast (a bot may lower a limit)
        lines += ["[limits]", "memory_mb = 128"]
    (dest / "bot.toml").write_text("\n".join(lines) + "\n")
    return dest


def _processes_under(folder: Path) -> list[str]:
    """Processes whose working folder is ``folder`` (or below), or whose argv names it."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat", "rb") as fh:
                zombie = fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
        except OSError:
            continue
        if not zombie and (cwd.startswith(str(folder)) or str(folder) in cmdline):
            found.append(f"{entry}: {cmdline.strip()}")
    return found


def _no_processes_left(folder: Path, grace: float = 3.0) -> list[str]:
    deadline = time.monotonic() + grace
    while (left := _processes_under(folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _connections(sock: socket.socket) -> int:
    count = 0
    while select.select([sock], [], [], 0)[0]:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            break
        conn.close()
        count += 1
    return count


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bot", sorted(EXPECTED))
def test_hostile_bot(bot: str, mode: str, tmp_path: Path, listener: socket.socket) -> None:
    if bot == "alloc_10g" and shutil.which("prlimit") is None:
        pytest.skip("prlimit (util-linux) is missing: allocating 10 GB unbounded would harm the host")
    bots = tmp_path / "bots"
    out = tmp_path / "out"
    others = [
        _copy(SAMPLES / "random", bots / "random", "random", {}),
        _copy(SAMPLES / "heuristic", bots / "heuristic", "heuristic", {}),
    ]
    env = {
        "SNOOP_PATHS": os.pathsep.join(map(str, [out, HARNESS, others[0]])),
        "NET_PORT": str(listener.getsockname()[1]),
    }
    name = f"hostile-{bot.replace('_', '-')}"
    folder = _copy(HOSTILE / bot, bots / bot, name, env)
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("untouched")
    before = {path: folder_digest(path) for path in (folder, *others)}
    specs = (load_bot(folder), load_bot(others[0]), load_bot(others[1]))
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=4.0, move=1.0) if bot in TIMED else Clock(startup=120.0, move=60.0),
        logs=out / "logs",
        wrapper=resolve_sandbox(mode),
    )

    started = time.monotonic()
    result = run_match(MatchConfig(specs, 2, 11, out, settings))
    elapsed = time.monotonic() - started

    assert elapsed < scaled(MATCH_BOUND), f"the match took {elapsed:.1f} s"
    expected = EXPECTED[bot][mode == "bwrap"]
    kinds = {fault["kind"] for fault in result.faults if fault["bot"] == name}
    assert kinds == ({expected} if expected else set()), result.faults
    assert all(fault["bot"] == name for fault in result.faults), "another bot was faulted"
    assert result.games == 2
    for replay in result.replays:
        assert verify(read_replay(replay)) is None
    left = _no_processes_left(bots) + _no_processes_left(out)  # bots run from their snapshots in out/bots
    assert not left, f"processes left behind: {left}"
    # the host: files outside the bot's private temp untouched, temp folders removed
    assert sentinel.read_text() == "untouched"
    assert {path: folder_digest(path) for path in before} == before
    assert not list(Path(tempfile.gettempdir()).glob(f"llama-{name}-*"))  # this test's own TMPDIR

    log = (out / "logs" / f"{name}.stderr.log").read_text("utf-8", "replace")
    if bot == "stderr_flood":
        assert LOG_CAP <= len(log.encode()) < LOG_CAP + 200
    if bot == "snoop":
        if mode == "bwrap":
            assert "SNOOP TOTAL 0" in log and "SNOOP FOUND" not in log, log[-2000:]
        else:  # proves the snooping is real, so the sandboxed run above means something
            assert "SNOOP FOUND" in log
    if bot == "network":
        seen = _connections(listener)
        if mode == "bwrap":
            assert seen == 0 and "NETWORK CONNECTED" not in log
        else:
            assert seen >= 1 and "NETWORK CONNECTED" in log
    if bot == "fill_tmp":
        assert "FILL stopped after" in log
    if bot == "deep_json":
        assert all("a JSON line nested too deep" in fault["detail"] for fault in result.faults), result.faults
