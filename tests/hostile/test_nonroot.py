"""``--sandbox none`` is honest, and limits and faults tell the truth without root.

* A bot that leaves its cgroups (as root it can) and hops pids in new sessions is
  dead when the match ends: each bot is its own PID namespace's init.
* Without a memory cgroup, memory is RLIMIT_DATA, not RLIMIT_AS: a JVM bot (javac as
  its build) builds and plays.
* Without a cpu cgroup, the victim of a CPU hog is told the machine was busy, not to
  warm up; a bot that sleeps through its move is not.
* A bot that fails at start-up under rlimits alone is told which limits were in force.

"No cgroup" is real as a non-root user (tester) and forced as root by hiding the
controllers (``cgroups.hierarchies``), with the table played in this process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import cgroups, sandbox
from harness.bots import conditions
from harness.bots.manifest import BotSpec, load_bot
from harness.bots.process import pid_alive
from harness.errors import HarnessError
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, GameResult, MatchConfig, Table, TableSettings, build_bot, run_match
from harness.sandbox import Limited, resolve_sandbox

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent / "sample_bots"
ROOT = os.geteuid() == 0
JAVA, JAVAC = shutil.which("java"), shutil.which("javac")
needs_java = pytest.mark.skipif(
    JAVA is None or JAVAC is None, reason="no Java here (java and javac are not installed)"
)


@pytest.fixture
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    """No cgroup controller for bots: really so as non-root here, forced as root."""
    monkeypatch.setattr(cgroups, "hierarchies", lambda: ())
    monkeypatch.setattr(sandbox, "_warned", [])


def _copy(name: str, dest: Path) -> Path:
    source = HERE / "bots" / name if (HERE / "bots" / name).is_dir() else SAMPLES / name
    return shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__"))


def _settings(out: Path, move: float, startup: float = 30.0) -> TableSettings:
    return TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({"end_score": 25}),
        clock=Clock(startup=startup, move=move),
        logs=out / "logs",
        wrapper=resolve_sandbox("none"),
    )


def _play_here(specs: tuple[BotSpec, ...], settings: TableSettings, out: Path, games: int = 1) -> list[GameResult]:
    """Games at one table in this process (a match's league workers would not see a monkeypatch)."""
    results = []
    names = [spec.name for spec in specs]
    with Table(specs, settings, games) as table:
        for game in range(1, games + 1):
            results.append(table.play(game, names, game, out / f"game-{game}.jsonl"))
    return results


# -- the PID namespace ---------------------------------------------------------------


def _under(folder: Path) -> list[int]:
    """Live processes whose working folder is ``folder``."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit() and os.readlink(f"/proc/{entry}/cwd").startswith(str(folder)) and pid_alive(int(entry)):
                found.append(int(entry))
    return found


def _kill_hoppers(folder: Path) -> None:
    """Kill what a failed run left (it also gives up by itself after ESCAPE_SECONDS)."""
    end = time.monotonic() + 5.0
    while (left := _under(folder)) and time.monotonic() < end:
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_a_bot_that_leaves_its_cgroups_and_hops_pids_dies_with_the_match(tmp_path: Path) -> None:
    folder = _copy("cgroup_escape", tmp_path / "bots")
    report = tmp_path / "escape.txt"  # chain N writes "<pid> <escaped>" to escape.txt.N
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text() + f'[env]\nESCAPE_REPORT = "{report}"\nESCAPE_SECONDS = "30"\n')
    other = _copy("random", tmp_path / "bots")
    specs = (load_bot(folder), load_bot(other))
    out = tmp_path / "out"
    try:
        result = run_match(MatchConfig(specs, 2, 1, out, _settings(out, move=5.0)))
        left = _under(folder)  # at once: the match has ended
        assert result.faults == [], result.faults
        reports = sorted(tmp_path.glob("escape.txt.?"))
        assert len(reports) == 8, reports  # every chain hopped
        seen = [path.read_text().split() for path in reports]
        if ROOT and {"memory", "pids"} <= cgroups.available():
            assert all(escaped == "1" for _, escaped in seen), "the premise: as root the bot leaves its cgroups"
        assert left == [], f"the bot's hopping children outlived the match: {left}"
        time.sleep(0.3)  # a live hopper rewrites its report every 20 ms
        assert [path.read_text().split() for path in reports] == seen
        assert not any(pid_alive(int(pid)) for pid, _ in seen)
    finally:
        _kill_hoppers(folder)


def test_none_mode_runs_each_bot_in_its_own_pid_namespace(tmp_path: Path) -> None:
    wrapper = resolve_sandbox("none")
    assert isinstance(wrapper, Limited)
    argv = wrapper(load_bot(SAMPLES / "random"), tmp_path)
    cgroups.release(argv)
    start = argv.index("--pid") - (1 if ROOT else 3)
    assert os.path.basename(argv[start]) == "unshare"
    user = [] if ROOT else ["--user", "--map-current-user"]  # unprivileged: a user namespace too
    assert argv[start + 1 : start + 5 + len(user)] == [*user, "--pid", "--fork", "--kill-child", argv[start + 4 + len(user)]]
    assert os.path.basename(argv[start + 4 + len(user)]) == "env"  # the bot's environment, inside


@pytest.mark.skipif(not ROOT, reason="the refusal is for root: a non-root bot cannot leave its user's reach")
def test_as_root_none_without_a_pid_namespace_is_refused_unless_bots_are_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox, "pid_namespace", lambda unshare: ((), "unshare --pid fails here: EPERM"))
    with pytest.raises(HarnessError, match=r"^--sandbox none as root: no PID namespace .*EPERM.*--trust-bots$"):
        resolve_sandbox("none")
    trusted = resolve_sandbox("none", trust_bots=True)
    assert isinstance(trusted, Limited) and trusted.namespace == ()


@pytest.mark.skipif(not ROOT, reason="the refusal is for root: a non-root bot cannot leave its user's reach")
def test_the_cli_refuses_none_as_root_without_a_pid_namespace_and_trust_bots_overrides(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    unshare = fake / "unshare"  # found first on PATH: as in a container that forbids namespaces
    unshare.write_text("#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n")
    unshare.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    env.pop("LLAMA_HARNESS_TRUST_BOTS", None)
    bot = str(SAMPLES / "random")
    command = [sys.executable, "-m", "harness", "match", bot, bot, "-n", "1", "--sandbox", "none"]
    refused = subprocess.run([*command, "--out", str(tmp_path / "a")], env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("error: --sandbox none as root: no PID namespace for the bots (")
    assert "Operation not permitted" in refused.stderr and refused.stderr.rstrip().endswith("--trust-bots")
    assert not (tmp_path / "a" / "summary.json").exists()
    trusted = subprocess.run(
        [*command, "--trust-bots", "--out", str(tmp_path / "b")], env=env, capture_output=True, text=True, timeout=300
    )
    assert trusted.returncode == 0, trusted.stderr
    assert "without a PID namespace (" in trusted.stderr  # and the warning says what that leaves open
    assert (tmp_path / "b" / "summary.json").is_file()


def test_none_mode_says_in_one_line_what_bots_run_without(
    no_cgroups: None, capsys: pytest.CaptureFixture[str]
) -> None:
    resolve_sandbox("none")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("warning: --sandbox none: bots run as ") and "with advisory limits" in line
    assert "no network isolation" in line and "its own PID namespace" in line
    assert "RLIMIT_DATA" in line and "CPU seconds, open files and file size" in line  # which limits hold
    assert "needs root" in line and "'Limits without root' in docs/sandbox.md" in line  # how to get the rest
    resolve_sandbox("none")
    assert capsys.readouterr().err == ""  # once per run


# -- memory without a memory cgroup ----------------------------------------------------


@needs_java
def test_a_jvm_bot_builds_and_plays_under_rlimits_only(no_cgroups: None, tmp_path: Path) -> None:
    folder = _copy("jvm", tmp_path / "bots")
    other = _copy("random", tmp_path / "bots")
    specs = (load_bot(folder), load_bot(other))
    out = tmp_path / "out"
    settings = _settings(out, move=5.0)  # a cold JVM on a busy machine
    assert isinstance(settings.wrapper, Limited)
    argv = settings.wrapper(specs[0], tmp_path)
    assert f"--data={2048 << 20}" in argv and not any(a.startswith("--as=") for a in argv)
    sealed = build_bot(specs[0], out / "logs", wrapper=settings.wrapper)  # javac under the same limits
    assert (sealed.folder / "Bot.class").is_file()  # built on a copy: in its snapshot
    specs = (sealed, *specs[1:])
    results = _play_here(specs, settings, out, games=2)
    assert [fault for result in results for fault in result.faults] == []


@needs_java
def test_a_jvm_that_cannot_start_under_rlimits_is_told_which(no_cgroups: None, tmp_path: Path) -> None:
    folder = _copy("jvm", tmp_path / "bots")
    assert JAVAC is not None
    subprocess.run([JAVAC, "Bot.java"], cwd=folder, check=True)  # built outside the limits
    (folder / "bot.toml").write_text(
        'name = "jvm"\nversion = "1"\ncommand = ["java", "-cp", ".", "Bot"]\n[limits]\nmemory_mb = 16\n'
    )
    specs = (load_bot(folder), load_bot(_copy("random", tmp_path / "bots")))
    out = tmp_path / "out"
    results = _play_here(specs, _settings(out, move=5.0), out)
    mine = [fault for fault in results[0].faults if fault.bot == "jvm"]
    assert mine, "a JVM started with 16 MiB of private memory: the premise is gone"
    assert mine[0].detail.startswith("handshake: ")
    assert "under rlimits: data 16 MiB per process (RLIMIT_DATA" in mine[0].detail, mine[0].detail
    assert mine[0].detail.endswith("see 'Limits without root' in docs/sandbox.md)")


def test_a_start_up_crash_under_rlimits_names_them(no_cgroups: None, tmp_path: Path) -> None:
    folder = _copy("crash_start", tmp_path / "bots")
    specs = (load_bot(folder), load_bot(_copy("random", tmp_path / "bots")))
    out = tmp_path / "out"
    results = _play_here(specs, _settings(out, move=5.0), out)
    mine = [fault for fault in results[0].faults if fault.bot == specs[0].name]
    assert mine and mine[0].kind == "crash", results[0].faults
    assert "exited with status 3" in mine[0].detail
    assert "under rlimits: data 2048 MiB per process (RLIMIT_DATA; no memory cgroup here), 256 open files" in mine[0].detail


def test_a_crash_mid_game_under_rlimits_names_them(no_cgroups: None, tmp_path: Path) -> None:
    # a bot out of memory under rlimits dies in its runtime's words ("MemoryError"): the fault names the limit
    folder = _copy("crash_mid", tmp_path / "bots")
    specs = (load_bot(folder), load_bot(_copy("random", tmp_path / "bots")))
    out = tmp_path / "out"
    results = _play_here(specs, _settings(out, move=5.0), out)
    mine = [fault for result in results for fault in result.faults if fault.bot == specs[0].name]
    assert mine and all(fault.kind == "crash" for fault in mine), mine
    assert all("under rlimits: data 2048 MiB per process (RLIMIT_DATA" in fault.detail for fault in mine), mine


# -- time-outs without a cpu cgroup ----------------------------------------------------


def _pinned_match(specs: tuple[BotSpec, ...], settings: TableSettings, out: Path) -> list[GameResult]:
    pinned = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(pinned)})  # one core for the referee and both bots, as a league worker
    try:
        return _play_here(specs, settings, out)
    finally:
        os.sched_setaffinity(0, pinned)


def test_the_victim_of_a_cpu_hog_is_told_the_machine_was_busy(no_cgroups: None, tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    hog, thinker = _copy("cpu_hog", bots), _copy("thinker", bots)
    toml = thinker / "bot.toml"
    toml.write_text(toml.read_text() + '[env]\nTHINK_MS = "300"\n')  # 300 ms of CPU a move
    specs = (load_bot(hog), load_bot(thinker))
    out = tmp_path / "out"
    # 40 busy children on its core: the thinker's 300 ms take some 12 s, far over the 3 s
    # limit and its 2 s of grace; more load (another suite's hogs on the same core) only
    # starves it more, and the hog's own cheap moves keep a wide margin in 3 s
    results = _pinned_match(specs, _settings(out, move=3.0, startup=120.0), out)
    mine = [fault for fault in results[0].faults if fault.bot == "thinker"]
    assert mine and mine[0].kind == "timeout", results[0].faults
    detail = mine[0].detail
    assert "warm up" not in detail, detail
    assert "s of CPU and waited" in detail and "the machine was busy (load " in detail, detail
    assert "without per-bot control (no cpu cgroup" in detail, detail


def test_a_bot_asleep_at_its_move_is_not_called_starved(no_cgroups: None, tmp_path: Path) -> None:
    specs = (load_bot(_copy("hang", tmp_path / "bots")), load_bot(_copy("random", tmp_path / "bots")))
    out = tmp_path / "out"
    results = _play_here(specs, _settings(out, move=1.0), out)
    mine = [fault for fault in results[0].faults if fault.bot == specs[0].name]
    assert mine and mine[0].kind == "timeout", results[0].faults
    assert "machine was busy" not in mine[0].detail and "flush stdout" in mine[0].detail, mine[0].detail


def test_busy_note_tells_starved_from_asleep_and_from_slow() -> None:
    before = conditions.CpuSample(at=10.0, ran=1.0, waited=1.0)
    starved = conditions.CpuSample(at=11.0, ran=1.05, waited=1.9)
    note = conditions.busy_note(before, starved, born=0.0)
    assert note is not None and note.startswith("it got 0.05 s of CPU and waited 0.90 s for one in the 1.00 s after")
    asleep = conditions.CpuSample(at=11.0, ran=1.0, waited=1.0)
    slow = conditions.CpuSample(at=11.0, ran=1.95, waited=1.1)
    assert conditions.busy_note(before, asleep, born=0.0) is None
    assert conditions.busy_note(before, slow, born=0.0) is None
    # a look too short to judge: the bot's whole life instead
    life = conditions.busy_note(conditions.CpuSample(10.9, 1.0, 1.0), conditions.CpuSample(11.0, 0.2, 3.0), born=7.0)
    assert life is not None and "since it started 4.00 s ago" in life
    assert conditions.busy_note(before, None, born=0.0) is None  # no schedstat: no claim


def test_a_bot_on_a_run_queue_all_along_is_starved_though_its_wait_is_not_counted_yet() -> None:
    # the kernel adds a wait to schedstat when it ends: a bot still waiting for its first
    # CPU of the window shows neither run nor wait time, yet it is on a run queue
    before = conditions.CpuSample(at=10.0, ran=1.0, waited=1.0, runnable=True)
    still = conditions.CpuSample(at=11.0, ran=1.01, waited=1.0, runnable=True)
    note = conditions.busy_note(before, still, born=0.0)
    assert note is not None and note.startswith("it got 0.01 s of CPU and waited 0.99 s for one in the 1.00 s after")
    # still waiting at the end only (it had just been woken at the deadline): the same
    woken = conditions.CpuSample(at=10.0, ran=1.0, waited=1.0, runnable=False)
    assert conditions.busy_note(woken, still, born=0.0) == note
    asleep = conditions.CpuSample(at=11.0, ran=1.0, waited=1.0, runnable=False)  # blocked in a read, both ends
    assert conditions.busy_note(woken, asleep, born=0.0) is None
    slow = conditions.CpuSample(at=11.0, ran=1.9, waited=1.05, runnable=True)  # it had the CPU: its own doing
    assert conditions.busy_note(before, slow, born=0.0) is None


def test_sample_sees_a_busy_process_on_a_run_queue_and_a_sleeping_one_off_it() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    asleep = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        # wait on the event (each in its state), not on a time
        for proc, state in ((busy, True), (asleep, False)):
            seen = None
            for _ in range(2000):
                seen = conditions.sample([proc.pid])
                if seen is not None and seen.runnable == state and (state or seen.ran > 0):
                    break
                time.sleep(0.01)
            assert seen is not None and seen.runnable == state, (proc.args, seen)
    finally:
        for proc in (busy, asleep):
            proc.kill()
            proc.wait()
