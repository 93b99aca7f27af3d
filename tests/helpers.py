"""Test utilities: a scripted fake Transport, bot folders in tmp_path, /proc scans, a time limit."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from harness.errors import BotTimeout

REPO = Path(__file__).resolve().parents[1]
SAMPLE_RANDOM = REPO / "sample_bots" / "random"
TEST_BOTS = Path(__file__).resolve().parent / "bots"

# -- the fast lane (``-m "not slow"``) ---------------------------------------------------------

# Marked here by name: one case of a parametrized test cannot take a one-line mark on
# the function, and a test in another engineer's file is marked without editing it.
# The first five took 8-22 s each in a full run at load ~20 (their neighbours 1-6 s),
# and the same misbehaviour stays in the fast lane through another test (test_hostile.py's
# fork bomb and hang, check-bot's no_flush).
SLOW_CASES = frozenset(
    {
        "tests/test_checkbot.py::test_hostile_bot_fails_with_a_reason[fork_bomb]",
        "tests/test_checkbot.py::test_hostile_bot_fails_with_a_reason[hang]",
        "tests/hostile/test_hostile.py::test_hostile_bot[no_flush-bwrap]",
        "tests/hostile/test_hostile.py::test_hostile_bot[no_flush-none]",
        "tests/test_bot_authors.py::test_check_bot_names_the_mistake[slow_first_move]",
        # the longest of the fast lane in a full run at load 5-87 (54 min wall, 296 CPU-s):
        # 438 s, 231 s (with its setup), 162 s, the viewer module's league (130 s setup),
        # the report's league (68 s setup), 41 s, and the JVM under cgroups (41 s, 33 s).
        # Their neighbours keep each feature in the fast lane: the gauntlet's table and
        # deal checks, the TLS refusals, the other browser pages, the JVM without cgroups
        # (test_nonroot.py), and the ctrl-c test of a match (kept: it has no other).
        "tests/league/test_gauntlet.py::test_a_gauntlet_until_decided_places_each_new_bot_in_the_field",
        "tests/league/test_gauntlet.py::test_gauntlet_through_the_cli_is_anchored_to_the_field",
        "tests/league/test_dask_tls.py::test_a_league_over_tls_equals_the_local_league",
        "tests/html/test_llama_llama_viewer.py::test_every_step_of_a_replay_page_shows_the_true_table",
        "tests/html/test_llama_llama_viewer.py::test_a_seat_view_hides_other_hands_dummies_and_face_down_goals",
        "tests/html/test_llama_llama_viewer.py::test_the_report_of_a_llama_llama_league_renders",
        "tests/html/test_html_browser.py::test_report_page_matches_the_ratings",
        "tests/html/test_html_browser.py::test_longest_games_open_and_reach_the_end",
        "tests/hostile/test_memory.py::test_a_jvm_bot_builds_and_plays_under_the_default_limits[bwrap]",
        "tests/hostile/test_memory.py::test_a_jvm_bot_builds_and_plays_under_the_default_limits[none]",
    }
)

Reply = bytes | str | BaseException


def _bot_python() -> str:
    """A Python for test bots that the sandbox's fixed view shows (a pyenv Python is outside it)."""
    from harness.sandbox_view import in_view, view_roots

    if in_view(sys.executable, view_roots()) or not os.path.exists("/usr/bin/python3"):
        return sys.executable
    return "/usr/bin/python3"


BOT_PYTHON = _bot_python()


class ScriptedTransport:
    """A fake bot for BotSession, in the style of python-chess's MockTransport.

    ``expect(sent, replies)`` says: the next message sent must contain the fields of
    ``sent`` (a dict compared key by key, or None for anything), and after it the bot
    "writes" ``replies`` (lines without newline; an exception is raised by readline).
    With no scripted reply left, readline raises BotTimeout, as a silent bot would.
    """

    def __init__(self) -> None:
        self.script: deque[tuple[dict[str, Any] | None, list[Reply]]] = deque()
        self.replies: deque[Reply] = deque()
        self.sent: list[dict[str, Any]] = []
        self.deadlines: list[float] = []

    def expect(self, sent: dict[str, Any] | None, replies: Iterable[Reply] = ()) -> None:
        self.script.append((sent, list(replies)))

    def send(self, data: bytes, deadline: float) -> None:
        if not data.endswith(b"\n") or data.count(b"\n") != 1:
            raise AssertionError(f"a message must be exactly one line: {data!r}")
        message = json.loads(data)
        self.sent.append(message)
        self.deadlines.append(deadline)
        if not self.script:
            raise AssertionError(f"unexpected message {message!r}")
        want, replies = self.script.popleft()
        if want is not None:
            for key, value in want.items():
                if message.get(key) != value:
                    raise AssertionError(f"sent {message!r}, expected {key}={value!r}")
        self.replies.extend(replies)

    def readline(self, deadline: float) -> bytes:
        self.deadlines.append(deadline)
        if not self.replies:
            raise BotTimeout("no scripted reply")
        reply = self.replies.popleft()
        if isinstance(reply, BaseException):
            raise reply
        return reply.encode() if isinstance(reply, str) else reply

    def assert_done(self) -> None:
        if self.script or self.replies:
            raise AssertionError(f"left over: script {list(self.script)!r}, replies {list(self.replies)!r}")


# -- bot folders -----------------------------------------------------------------------


def copy_bot(source: Path, dest: Path, *, name: str | None = None, env: dict[str, str] | None = None) -> Path:
    """Copy a bot folder to ``dest`` and rewrite its bot.toml.

    The command's ``python3`` becomes :data:`BOT_PYTHON` (``sys.executable`` when the
    sandbox shows it, else ``/usr/bin/python3``): the pyenv shim on PATH is a shell
    script that adds PYENV_* variables and costs a fork per start.
    """
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__"))
    import tomllib

    raw = tomllib.loads((dest / "bot.toml").read_text())
    command = raw["command"] if isinstance(raw["command"], list) else raw["command"].split()
    if command[0] == "python3":
        command = [BOT_PYTHON, *command[1:]]
    lines = [
        f"name = {json.dumps(name or raw['name'])}",
        f"version = {json.dumps(raw.get('version', '0'))}",
        f"command = {json.dumps(command)}",
    ]
    merged = {**raw.get("env", {}), **(env or {})}
    if merged:
        lines.append("[env]")
        lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in merged.items()]
    (dest / "bot.toml").write_text("\n".join(lines) + "\n")
    return dest


def random_bot(tmp: Path, name: str) -> Path:
    return copy_bot(SAMPLE_RANDOM, tmp / name, name=name)


def fault_bot(tmp: Path, kind: str, name: str | None = None) -> Path:
    """Copy ``tests/bots/<kind>`` into ``tmp``."""
    return copy_bot(TEST_BOTS / kind, tmp / (name or kind), name=name)


# -- processes ---------------------------------------------------------------------------


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def bot_processes(folder: Path) -> list[tuple[int, str]]:
    """Live processes whose cwd or any cmdline argument is under ``folder`` (zombies excluded)."""
    root = str(folder.resolve())
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
            if stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X"):
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = [a.decode(errors="replace") for a in fh.read().split(b"\0") if a]
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if _under(cwd, root) or any(_under(arg, root) or root in arg for arg in argv):
            found.append((int(entry), " ".join(argv)))
    return found


def no_bot_processes_left(folder: Path, grace: float = 2.0) -> bool:
    """True when no live process runs in or from ``folder``; waits up to ``grace`` s for exits."""
    end = time.monotonic() + grace
    while bot_processes(folder):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")


class TookTooLong(Exception):
    pass


def load_factor() -> float:
    """How many times slower than idle this machine may run now: at least 1.

    The 1-minute load average per core (a machine at load 7 on 2 cores runs a process
    ~3.5 times slower), times ``LLAMA_TEST_TIME_SCALE`` (default 1) for a slow CI runner.
    """
    try:
        scale = float(os.environ.get("LLAMA_TEST_TIME_SCALE", "1"))
    except ValueError:
        scale = 1.0
    cores = len(os.sched_getaffinity(0)) or 1
    return max(1.0, os.getloadavg()[0] / cores) * max(scale, 1.0)


def scaled(seconds: float) -> float:
    """``seconds`` (a bound that holds on an idle machine) stretched by :func:`load_factor`."""
    return seconds * load_factor()


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TookTooLong in the main thread after ``seconds``, scaled by the load (a hang fails, never blocks CI).

    ``seconds`` is what the body may take on an idle machine; on a loaded one the bound
    grows with :func:`load_factor`, so only a hang or a real slowdown trips it.
    """
    limit = scaled(seconds)

    def alarm(*_: object) -> None:
        raise TookTooLong(f"still running after {limit:.0f} s ({seconds} s scaled by the load)")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- the CLI ----------------------------------------------------------------------------


def invoke(*args: str | Path) -> Result:
    """Run ``llama-harness ARGS`` in-process."""
    from harness.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def without_warnings(stderr: str) -> list[str]:
    """The lines of ``stderr`` other than ``warning: ...`` lines.

    A run as non-root warns that bots run without cgroup limits (and ``--seed`` warns
    about public seeds): those lines come before an error and are not part of it.
    """
    return [line for line in stderr.splitlines() if not line.startswith("warning: ")]


def one_error(result: Result, *needles: str) -> str:
    """The command failed with exit 2 and exactly one ``error: ...`` line (warnings aside), no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit)
    lines = without_warnings(result.stderr.strip())
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def group_scores(folder: Path, a: str, b: str) -> list[float]:
    """A's score against B in each finished deal group, in group order, read from league.db by SQL."""
    db = sqlite3.connect(f"{(folder / 'league.db').resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT g.cluster, g.game_id, s.bot, s.place FROM games g JOIN results r ON r.game_id = g.game_id "
            "JOIN seats s ON s.game_id = g.game_id ORDER BY g.game_id"
        ).fetchall()
        sizes = dict(db.execute("SELECT cluster, count(*) FROM games GROUP BY cluster").fetchall())
    finally:
        db.close()
    places: dict[str, dict[int, dict[str, int]]] = {}
    for cluster, game, bot, place in rows:
        places.setdefault(cluster, {}).setdefault(game, {})[bot] = place
    out = []
    for cluster in sorted(places, key=lambda c: int(c[1:])):
        games = places[cluster]
        if len(games) < sizes[cluster]:
            break
        results = [1.0 if g[a] < g[b] else 0.5 if g[a] == g[b] else 0.0 for g in games.values()]
        out.append(sum(results) / len(results))
    return out
