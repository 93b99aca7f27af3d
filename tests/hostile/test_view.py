"""The sandbox's view and its totals: attacks that worked while the view was derived from a bot's files.

Each case is a hostile bot folder made here: a shebang that names the league's own
database through the harness's ``/proc/self/cwd`` (a form feed the kernel does not skip),
``env -S -u <path>``, a NUL in the ``#!`` line, two bots signalling through ``flock`` on a
shared read-only file, loopback TCP buffers the memory cgroup does not charge, and temp
space spread over ``/tmp``, ``/dev/shm`` and ``TMPDIR``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from helpers import invoke, one_error

from harness import cgroups
from harness.bots.manifest import BotSpec, load_bot
from harness.errors import HarnessError
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, MatchResult, TableSettings, run_match
from harness.sandbox import bwrap_argv, check_view, hiding, resolve_sandbox

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "sample_bots"
BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it")
MODES = ["none", pytest.param("bwrap", marks=needs_bwrap)]

# A bot's body: PRELUDE runs at start-up, REPORT(msg) writes a line to stderr, TURN runs
# before each move; it plays at random.
BODY = r'''
import errno, fcntl, json, os, random, socket, struct, sys
def report(text):
    sys.stderr.write(text + "\n"); sys.stderr.flush()
PRELUDE
def turn_hook():
    TURN
rng = random.Random(0)
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        reply = {"type": "hello", "name": "NAME", "version": "1"}
    elif kind == "turn":
        turn_hook()
        reply = {"type": "action", "id": msg["id"], **rng.choice(msg["legal"])}
    elif kind == "shutdown":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
'''

PEEK = """
for path in filter(None, os.environ.get("PEEK_PATHS", "").split(os.pathsep)):
    if os.path.exists(path):
        report("SEEN " + path)
"""


def make_bot(
    folder: Path,
    name: str,
    prelude: str = "",
    turn: str = "pass",
    *,
    first_line: bytes = b"",
    toml: str = "",
) -> Path:
    """A bot folder: ``bot.py`` with ``first_line`` (a #! line: run as ./bot.py) or run by python3."""
    folder.mkdir(parents=True)
    hook = "\n".join("    " + line for line in turn.strip("\n").splitlines())
    body = BODY.replace("PRELUDE", prelude).replace("    TURN", hook).replace("NAME", name)
    (folder / "bot.py").write_bytes(first_line + body.encode())
    (folder / "bot.py").chmod(0o755)
    command = '["./bot.py"]' if first_line else '["python3", "bot.py"]'
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\ncommand = {command}\n{toml}')
    return folder


def play(mode: str, bots: list[Path], out: Path, games: int = 2, runtimes: tuple[str, ...] = ()) -> MatchResult:
    """A match as ``match`` plays it, but without the check at load (the attack reaches the sandbox)."""
    specs = tuple(load_bot(folder) for folder in bots)
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=30.0, move=10.0),  # generous: the machine is loaded
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode, None, runtimes), out, *(spec.folder for spec in specs)),
    )
    return run_match(MatchConfig(specs, games, 5, out, settings))


def log_lines(out: Path, name: str) -> list[str]:
    log = out / "logs" / f"{name}.stderr.log"
    return log.read_text().splitlines() if log.exists() else []


def random_bot(site: Path) -> Path:
    dest = site / "bots" / "random"
    shutil.copytree(SAMPLES / "random", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


# -- the view: nothing in a bot's files adds to it ---------------------------------------


@needs_bwrap
def test_a_form_feed_shebang_never_shows_the_league_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``#!\\f/proc/self/cwd/league-out/league.db``: the kernel runs a link in the bot's folder;
    resolved in the harness (whose cwd holds league-out) it named the league's database."""
    site = tmp_path / "site"
    league_db = site / "league-out" / "league.db"
    folder = make_bot(
        site / "bots" / "ff",
        "ff",
        PEEK,
        first_line=b"#!\f/proc/self/cwd/league-out/league.db\n",
        toml=f'[env]\nPEEK_PATHS = "{league_db}"\n',
    )
    link = folder / "\f" / "proc" / "self" / "cwd" / "league-out" / "league.db"
    link.parent.mkdir(parents=True)
    # a copy, not a link: a snapshot refuses a link out of the folder, and the attack must reach the view
    shutil.copy2(os.path.realpath("/usr/bin/python3"), link)
    other = random_bot(site)
    monkeypatch.chdir(site)
    result = play("bwrap", [folder, other], site / "league-out")
    assert league_db.exists()  # the premise: the league's database is there while the bot runs
    assert result.games == 2 and not result.faults, result.faults
    assert not [line for line in log_lines(site / "league-out", "ff") if line.startswith("SEEN")]
    # and a match or league refuses it at load, in one line, before any game
    line = one_error(invoke("match", folder, other, "--sandbox", "bwrap", "--out", site / "m"), "bot 'ff'")
    assert "its #! line holds a control character ('\\x0c')" in line
    assert not (site / "m" / "league.db").exists()


@needs_bwrap
def test_env_dash_s_dash_u_binds_nothing(tmp_path: Path) -> None:
    """``#!/usr/bin/env -S -u <a rival's binary> python3`` took the -u value for the interpreter and showed it."""
    site = tmp_path / "site"
    rival = site / "rival" / "bin" / "secret-engine"
    rival.parent.mkdir(parents=True)
    rival.write_text("#!/bin/sh\necho the rival's engine\n")
    rival.chmod(0o755)
    folder = make_bot(
        site / "bots" / "envu",
        "envu",
        PEEK,
        first_line=f"#!/usr/bin/env -S -u {rival} python3\n".encode(),
        toml=f'[env]\nPEEK_PATHS = "{rival}:{rival.parent}"\n',
    )
    check_view(load_bot(folder))  # env -S -u X python3 runs the view's python3: fine
    result = play("bwrap", [folder, random_bot(site)], site / "out")
    assert result.games == 2 and not result.faults, result.faults
    assert not [line for line in log_lines(site / "out", "envu") if line.startswith("SEEN")]


@needs_bwrap
def test_a_nul_in_the_shebang_is_a_one_line_error_not_a_traceback(tmp_path: Path) -> None:
    site = tmp_path / "site"
    folder = make_bot(site / "bots" / "nul", "nul", first_line=b"#!/usr/bin/python3\x00/etc/shadow\n")
    other = random_bot(site)
    one_error(invoke("match", folder, other, "--sandbox", "bwrap", "--out", site / "m"), "bot 'nul'", "control character")
    one_error(
        invoke("league", site / "bots", "--sandbox", "bwrap", "--games", "2", "--out", site / "lg"),
        "bot 'nul'",
        "control character",
    )
    checked = invoke("check-bot", folder, "--sandbox", "bwrap", "-n", "1")
    assert checked.exit_code == 1 and "Traceback" not in checked.output, checked.output
    assert re.search(r"FAIL\s+sandbox.*bot 'nul'.*control character", checked.output), checked.output


@needs_bwrap
def test_an_interpreter_outside_the_view_is_named_and_plays_with_runtimes(tmp_path: Path) -> None:
    """A pyenv-like interpreter (a shim script in a tools folder) is a one-line error; with runtimes it plays."""
    site = tmp_path / "site"
    shim = site / "tools" / "bin" / "python3"
    shim.parent.mkdir(parents=True)
    shim.write_text('#!/bin/sh\nexec /usr/bin/python3 "$@"\n')
    shim.chmod(0o755)
    folder = make_bot(site / "bots" / "shim", "shim", first_line=f"#!{shim}\n".encode())
    other = random_bot(site)
    args = ("match", folder, other, "--sandbox", "bwrap", "--games", "2")
    line = one_error(invoke(*args, "--out", site / "a"), "bot 'shim'")
    assert f"its #! interpreter {shim} is not in the sandbox: add it to runtimes" in line
    played = invoke(*args, "--out", site / "b", "--runtime", site / "tools")
    assert played.exit_code == 0, played.output
    refused = invoke("check-bot", folder, "--sandbox", "bwrap", "-n", "1")
    assert refused.exit_code == 1 and re.search(r"FAIL\s+sandbox.*is not in the sandbox: add it to runtimes", refused.output)
    checked = invoke("check-bot", folder, "--sandbox", "bwrap", "-n", "1", "--runtime", site / "tools")
    assert checked.exit_code == 0, checked.output
    league = site / "league.toml"
    league.write_text('bots = "bots"\ngames = 2\nsandbox = "bwrap"\nruntimes = ["tools"]\n')
    ran = invoke("league", league, "--out", site / "lg", "--jobs", "1")
    assert ran.exit_code == 0 and "shim" in ran.output, ran.output
    league.write_text('bots = "bots"\ngames = 2\nsandbox = "bwrap"\nruntimes = ["/"]\n')
    one_error(invoke("league", league, "--out", site / "lg2"), f"{league}: runtimes: '/' cannot be shown to bots")
    league.write_text('bots = "bots"\ngames = 2\nsandbox = "bwrap"\nruntimes = ["."]\n')
    one_error(invoke("league", league, "--out", site / "lg3"), "runtimes:", "cannot be shown to bots: it holds")


# -- locks: no channel between two bots ---------------------------------------------------

SHARED = "/usr/bin/env"  # a read-only file every bot sees, in every mode
LOCKER = f"""
held = open({SHARED!r}, "rb")
fcntl.flock(held, fcntl.LOCK_EX)  # a signal: "I am here"
fcntl.lockf(held, fcntl.LOCK_SH)  # and a POSIX read lock, for F_GETLK to see
report("LOCKER holds")
"""
PROBER = f"""
probe = open({SHARED!r}, "rb")
"""
PROBER_TURN = """
try:
    fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fcntl.flock(probe, fcntl.LOCK_UN)
except OSError as err:
    report("SIGNAL flock " + errno.errorcode[err.errno])
try:
    got = fcntl.fcntl(probe, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
    if struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK:
        report("SIGNAL getlk")
except OSError as err:
    pass
"""


@pytest.mark.parametrize("mode", MODES)
def test_two_bots_cannot_signal_through_locks(mode: str, tmp_path: Path) -> None:
    site = tmp_path / "site"
    locker = make_bot(site / "bots" / "locker", "locker", LOCKER)
    prober = make_bot(site / "bots" / "prober", "prober", PROBER, PROBER_TURN)
    result = play(mode, [locker, prober], site / "out")
    assert result.games == 2 and not result.faults, result.faults
    assert "LOCKER holds" in log_lines(site / "out", "locker")
    signals = {line for line in log_lines(site / "out", "prober") if line.startswith("SIGNAL")}
    if mode == "none":  # the premise: without the filter the lock is seen, both ways
        assert signals == {"SIGNAL flock EAGAIN", "SIGNAL getlk"}, signals
    else:
        assert signals == set(), signals


# -- totals: TCP buffers and temp space ---------------------------------------------------

TCP_HOG = """
total, error, keep = 0, "none", []
chunk = b"x" * (1 << 16)
try:
    for _ in range(12):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
        keep += [listener, client, server]
        for end in (client, server):  # nobody reads: it all stays in kernel buffers
            end.setblocking(False)
            while total < (160 << 20):
                try:
                    total += end.send(chunk)
                except BlockingIOError:
                    break
except OSError as err:
    error = errno.errorcode.get(err.errno or 0, str(err))
report(f"TCP queued {total >> 20} MiB error {error}")
keep.clear()
"""


@pytest.mark.parametrize("mode", MODES)
def test_loopback_tcp_buffers_cannot_go_around_the_memory_limit(mode: str, tmp_path: Path) -> None:
    """Unix sockets are charged to the memory cgroup, loopback TCP (cgroup v1) is not: 89 MiB under 64 MB here."""
    site = tmp_path / "site"
    hog = make_bot(site / "bots" / "tcp", "tcp", TCP_HOG, toml="[limits]\nmemory_mb = 64\n")
    result = play(mode, [hog, random_bot(site)], site / "out")
    assert result.games == 2 and not result.faults, result.faults
    line = next(line for line in log_lines(site / "out", "tcp") if line.startswith("TCP queued"))
    queued = int(line.split()[2])
    if mode == "none":
        if "memory" in cgroups.available():  # the premise: far more than the cgroup's 64 MB is held
            assert queued > 32, line
    else:
        assert line == "TCP queued 0 MiB error EAFNOSUPPORT", line


TMP_FILL = """
written = {}
for place in ("/tmp", "/dev/shm", os.environ["TMPDIR"]):
    count = 0
    try:
        with open(os.path.join(place, f"fill-{len(written)}"), "wb") as fh:
            for _ in range(64):
                fh.write(b"x" * (1 << 20)); fh.flush(); os.fsync(fh.fileno()); count += 1
    except OSError:
        pass
    written[place] = count
report("TMP wrote " + json.dumps(written) + " total " + str(sum(written.values())))
"""


@needs_bwrap
def test_tmp_mb_bounds_all_temp_space_together(tmp_path: Path) -> None:
    site = tmp_path / "site"
    filler = make_bot(site / "bots" / "fill", "fill", TMP_FILL, toml="[limits]\ntmp_mb = 8\n")
    result = play("bwrap", [filler, random_bot(site)], site / "out")
    assert result.games == 2 and not result.faults, result.faults
    line = next(line for line in log_lines(site / "out", "fill") if line.startswith("TMP wrote"))
    assert int(line.rsplit(" ", 1)[1]) <= 8, line  # before: 8 in /tmp and 8 more in /dev/shm


def test_a_temp_folder_outside_tmp_is_a_link_into_the_one_tmpfs() -> None:
    spec = BotSpec(name="b", version="1", folder=Path("/usr/share"), command=("python3",))
    argv = bwrap_argv("bwrap", spec, Path("/var/tmp/llama-b-1"), 8 << 20)
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "--tmpfs"] == ["/dev", "/tmp"]  # /dev: nodes only
    assert argv.count("--size") == 1 and argv[argv.index("--size") + 1 : argv.index("--size") + 4] == [
        str(8 << 20),
        "--tmpfs",
        "/tmp",
    ]
    assert argv[argv.index("/var/tmp/llama-b-1") - 2 : argv.index("/var/tmp/llama-b-1") + 1] == ["--symlink", "/tmp/llama-b-1", "/var/tmp/llama-b-1"]
    assert argv[argv.index("/dev/shm") - 2 : argv.index("/dev/shm") + 1] == ["--symlink", "../tmp", "/dev/shm"]


@needs_bwrap
def test_an_output_folder_inside_a_bots_folder_stays_hidden(tmp_path: Path) -> None:
    site = tmp_path / "site"
    out = site / "bots" / "nest" / "league-out"
    folder = make_bot(site / "bots" / "nest", "nest", PEEK, toml=f'[env]\nPEEK_PATHS = "{out / "league.db"}"\n')
    # refused before anything is written (the sandbox would also cover it, after the bot's folder is bound)
    with pytest.raises(HarnessError, match=r"^--out .*: inside the folder of bot 'nest'"):
        play("bwrap", [folder, random_bot(site)], out)
    assert not (out / "league.db").exists()
