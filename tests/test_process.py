"""BotProcess: the explicit environment, writing with a deadline, the stderr log cap, kill, startup."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import (
    bot_processes,
    copy_bot,
    fault_bot,
    no_bot_processes_left,
    pid_alive,
    random_bot,
    time_limit,
)

from harness.bots.manifest import load_bot
from harness.bots.process import LOG_CAP, BotProcess, become_subreaper
from harness.errors import BotCrashed, BotFault, BotTimeout, FaultKind
from harness.games.llama import LLAMA_GAME
from harness.match import BotPlayer, Clock, MatchConfig, TableSettings, run_match
from harness.protocol.session import BotSession

HELLO = {"type": "hello", "protocol": 1, "game": "llama", "seat": 0, "time": {"startup_ms": 1, "move_ms": 1}}


def write_bot(folder: Path, script: str, name: str = "inline") -> Path:
    """A one-file bot with ``script`` as its bot.py."""
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(textwrap.dedent(script))
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = [{json.dumps(sys.executable)}, "bot.py"]\n')
    return folder


def test_the_bot_sees_only_its_explicit_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLAMA_TEST_SECRET", "hunter2")
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    bots = tmp_path / "bots"
    dumper = copy_bot(
        fault_bot(bots, "env_dump", "plain"), bots / "env-dump", name="env-dump", env={"BOT_MODE": "fast"}
    )
    specs = (load_bot(dumper), load_bot(random_bot(bots, "r1")))
    out = tmp_path / "out"
    settings = TableSettings("llama", LLAMA_GAME.parse_options({}), Clock(10.0, 5.0), out / "logs")
    with time_limit(60):
        run_match(MatchConfig(specs, 1, 5, out, settings))
    (line,) = [
        x for x in (out / "logs" / "env-dump.stderr.log").read_text().splitlines() if x.startswith("ENV ")
    ]
    env = json.loads(line[4:])
    assert set(env) == {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "BOT_MODE"}
    assert env["BOT_MODE"] == "fast"
    assert env["LANG"] == env["LC_ALL"] == "C.UTF-8"
    assert env["HOME"] == env["TMPDIR"]
    assert "llama-env-dump-" in env["TMPDIR"]
    assert not Path(env["TMPDIR"]).exists()  # removed with the match
    assert no_bot_processes_left(bots)


def test_the_manifest_env_may_override_the_minimum(tmp_path: Path) -> None:
    bot = copy_bot(
        fault_bot(tmp_path, "env_dump", "plain"), tmp_path / "lang", name="lang", env={"LANG": "pl_PL.UTF-8"}
    )
    proc = BotProcess(load_bot(bot), tmp_path / "log", tmp_path / "tmp")
    try:
        BotSession(proc, startup=10.0, move=1.0).handshake(dict(HELLO))
    finally:
        proc.close()
    env = json.loads((tmp_path / "log").read_text().split("ENV ", 1)[1].splitlines()[0])
    assert env["LANG"] == "pl_PL.UTF-8"
    assert env["LC_ALL"] == "C.UTF-8"


def test_a_bot_is_started_in_its_folder_in_its_own_session(tmp_path: Path) -> None:
    bot = write_bot(
        tmp_path / "where",
        "import json, os, sys\n"
        "sys.stdin.readline()\n"
        'print(json.dumps({"type": "hello", "name": os.getcwd(), "version": str(os.getsid(0))}), flush=True)\n'
        "sys.stdin.readline()\n",
    )
    proc = BotProcess(load_bot(bot), tmp_path / "log", tmp_path / "tmp")
    try:
        reply = BotSession(proc, startup=10.0, move=1.0).handshake(dict(HELLO))
        assert reply.name == str(bot.resolve())
        assert int(reply.version) == proc.pid != os.getsid(0)
    finally:
        proc.close()
    assert not pid_alive(proc.pid)


def test_sending_to_a_bot_that_does_not_read_times_out(tmp_path: Path) -> None:
    bot = tmp_path / "sleeper"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "sleeper"\ncommand = ["sleep", "3600"]\n')
    proc = BotProcess(load_bot(bot), tmp_path / "log", tmp_path / "tmp")
    try:
        start = time.monotonic()
        with pytest.raises(BotTimeout, match="stopped reading"):
            proc.send(b"x" * (4 << 20), start + 0.3)
        assert time.monotonic() - start < 5.0
    finally:
        proc.close()
    assert no_bot_processes_left(bot)


def test_sending_to_a_dead_bot_is_a_crash(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "quick", "import sys\nsys.exit(0)\n")
    proc = BotProcess(load_bot(bot), tmp_path / "log", tmp_path / "tmp")
    try:
        proc.proc.wait(10)
        with pytest.raises(BotCrashed):
            proc.send(b"hello\n" * 100_000, time.monotonic() + 5)
        with pytest.raises(BotCrashed):
            proc.readline(time.monotonic() + 5)
    finally:
        proc.close()


def test_an_exit_while_a_descendant_holds_stdout_is_a_crash_at_the_deadline(tmp_path: Path) -> None:
    become_subreaper()
    bot = write_bot(
        tmp_path / "leaver",
        """
        import os, time
        if os.fork() == 0:
            os.setsid()
            time.sleep(3600)
        os._exit(4)
        """,
    )
    proc = BotProcess(load_bot(bot), tmp_path / "log", tmp_path / "tmp")
    try:
        with pytest.raises(BotCrashed, match="status 4"):
            proc.readline(time.monotonic() + 0.5)
        assert len(bot_processes(bot)) == 1  # the orphan, until close()
    finally:
        proc.close()
    assert no_bot_processes_left(bot)


def test_close_kills_the_process_group_and_escaped_descendants(tmp_path: Path) -> None:
    become_subreaper()
    bot = write_bot(
        tmp_path / "forker",
        "import os, subprocess, sys, time\n"
        "subprocess.Popen(['sleep', '3600'])\n"  # same group
        "subprocess.Popen(['sleep', '3601'], start_new_session=True)\n"  # escapes the group
        "if os.fork() == 0:\n"  # escapes group and parent
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(3600)\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        'print(\'{"type":"hello","name":"forker"}\', flush=True)\n'
        "time.sleep(3600)\n",
    )
    proc = BotProcess(load_bot(bot), tmp_path / "log", tmp_path / "tmp")
    BotSession(proc, startup=10.0, move=1.0).handshake(dict(HELLO))
    deadline = time.monotonic() + 10
    while len(bot_processes(bot)) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(bot_processes(bot)) == 4
    proc.close()
    proc.close()  # idempotent
    assert no_bot_processes_left(bot), bot_processes(bot)


def test_a_command_that_cannot_start_is_a_startup_fault(tmp_path: Path) -> None:
    bot = tmp_path / "noexec"
    bot.mkdir()
    (bot / "run.sh").write_text("#!/bin/sh\nexit 0\n")
    (bot / "run.sh").chmod(0o755)
    (bot / "bot.toml").write_text('name = "noexec"\ncommand = ["./run.sh"]\n')
    spec = load_bot(bot)
    (bot / "run.sh").chmod(stat.S_IRUSR)  # broken after loading
    if os.access(bot / "run.sh", os.X_OK):
        pytest.skip("running as a user who may execute anything")
    with pytest.raises(BotFault) as info:
        BotProcess(spec, tmp_path / "log", tmp_path / "tmp")
    assert info.value.kind is FaultKind.STARTUP
    assert "run.sh" in info.value.detail


def test_a_startup_fault_in_a_match_is_recorded_and_the_match_goes_on(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    broken = bots / "broken"
    broken.mkdir(parents=True)
    (broken / "bot.toml").write_text('name = "broken"\ncommand = ["/bin/true"]\n')
    spec = load_bot(broken)
    spec = type(spec)(**{**spec.__dict__, "command": ("/nonexistent/program",)})
    out = tmp_path / "out"
    settings = TableSettings("llama", LLAMA_GAME.parse_options({}), Clock(10.0, 5.0), out / "logs")
    with time_limit(60):
        result = run_match(MatchConfig((spec, load_bot(random_bot(bots, "r1"))), 2, 1, out, settings))
    assert [(f["game"], f["kind"]) for f in result.faults] == [(1, "startup"), (2, "startup")]
    assert "/nonexistent/program" in result.faults[0]["detail"]


def _flooder(tmp_path: Path) -> Path:
    return write_bot(
        tmp_path / "flooder",
        "import os, sys\n"
        "os.write(2, b'head\\n')\n"
        "for _ in range(48):\n"
        "    os.write(2, b'z' * 65536)\n"
        "os.write(2, b'\\nthe end\\n')\n"
        "sys.stdin.readline()\n",
    )


def test_the_stderr_log_is_capped_across_restarts(tmp_path: Path) -> None:
    spec = load_bot(_flooder(tmp_path))
    log = tmp_path / "logs" / "flooder.stderr.log"
    for _ in range(3):  # three starts of one bot in one match share one log and one cap
        proc = BotProcess(spec, log, tmp_path / "tmp")
        with pytest.raises(BotTimeout):
            proc.readline(time.monotonic() + 0.5)  # drains stderr while waiting
        tail = proc.stderr_tail()
        proc.close()
        assert tail.endswith("the end\n")  # the tail is kept even past the cap
    data = log.read_bytes()
    assert data.startswith(b"head\n")
    assert LOG_CAP <= len(data) <= LOG_CAP + 100
    assert data.count(b"[harness: stderr log capped here") == 1


def test_shutdown_lets_a_bot_exit_by_itself(tmp_path: Path) -> None:
    spec = load_bot(random_bot(tmp_path, "polite"))
    settings = TableSettings("llama", LLAMA_GAME.parse_options({}), Clock(10.0, 5.0), tmp_path / "logs")
    player = BotPlayer(spec, settings, games=1)
    player.begin({"type": "game_start", "game": 1, "seat": 0, "players": 2, "seed": 1})
    assert player.proc is not None
    proc = player.proc
    player.close()
    assert proc.proc.returncode == 0  # exited on shutdown, not killed
    assert no_bot_processes_left(spec.folder)
