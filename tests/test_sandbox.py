"""The sandbox: choosing it, its argv, limits, and what a bot inside can and cannot do."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from harness import cgroups, sandbox
from harness.bots.manifest import BotSpec, load_bot
from harness.bots.process import bot_environment
from harness.errors import HarnessError
from harness.limits import DEFAULTS, merge_limits
from harness.sandbox import Bubblewrap, Limited, interpreter_roots, resolve_sandbox

HARNESS = Path(sandbox.__file__).resolve().parent
BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it")

PROBE = r"""
import json, os, socket, sys
out = {}
port = int(sys.argv[1])
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    out["network"] = "connected"
except OSError as err:
    out["network"] = type(err).__name__
out["harness_visible"] = os.path.exists(sys.argv[2])
out["secret_visible"] = os.path.exists(sys.argv[3])
try:
    open("written-by-bot", "w").close()
    out["own_folder_writable"] = True
except OSError:
    out["own_folder_writable"] = False
tmp = os.environ["TMPDIR"]
written = 0
try:
    with open(os.path.join(tmp, "fill"), "wb") as fh:
        for _ in range(64):
            fh.write(b"x" * (1 << 20)); fh.flush(); written += 1
except OSError:
    pass
out["tmp_mib_written"] = written
out["home_is_tmp"] = os.environ["HOME"] == tmp and os.path.isdir(tmp)
out["pids_seen"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
# in a child: a memory cgroup kills what uses too much (an address-space limit refuses it)
pid = os.fork()
if pid == 0:
    try:
        block = bytearray(3 << 30)
        for index in range(0, len(block), 4096):
            block[index] = 1
        os._exit(0)
    except MemoryError:
        os._exit(3)
out["alloc_3g"] = os.waitpid(pid, 0)[1] == 0
forked = 0
children = []
for _ in range(40):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        import time; time.sleep(2); os._exit(0)
    children.append(pid); forked += 1
out["forked"] = forked
with open("/proc/self/status") as fh:
    out["cap_eff"] = next(l.split()[1] for l in fh if l.startswith("CapEff"))
print(json.dumps(out)); sys.stdout.flush()
for pid in children:
    os.kill(pid, 9)
"""


def _spec(folder: Path, limits: dict[str, int] | None = None) -> BotSpec:
    return BotSpec(
        name="probe", version="1", folder=folder, command=("python3", "probe.py"), limits=limits or {}
    )


def test_unknown_mode_and_bad_limits_are_one_line_errors() -> None:
    with pytest.raises(HarnessError, match="--sandbox 'docker': choose one of auto, bwrap, none"):
        resolve_sandbox("docker")
    with pytest.raises(HarnessError, match="unknown limit 'ram'"):
        resolve_sandbox("none", {"ram": 5})
    with pytest.raises(HarnessError, match="memory_mb must be a positive integer, got -1"):
        resolve_sandbox("none", {"memory_mb": -1})
    with pytest.raises(HarnessError, match=r"bot 'x': bot.toml \[limits\]: unknown limit 'gpu'"):
        merge_limits({}, {"gpu": 1}, "x")


def test_a_bot_may_lower_the_leagues_limits_and_defaults_fill_the_rest() -> None:
    merged = merge_limits({"memory_mb": 512, "open_files": 64}, {"memory_mb": 256}, "x")
    assert merged == {**DEFAULTS, "memory_mb": 256, "open_files": 64}


def test_a_bot_may_never_raise_a_limit() -> None:
    with pytest.raises(HarnessError, match=r"^bot 'x': bot.toml \[limits\]: memory_mb = 1024 is above the league's limit of 512;"):
        merge_limits({"memory_mb": 512}, {"memory_mb": 1024}, "x")
    with pytest.raises(HarnessError, match=r"tmp_mb = 102400 is above the default limit of 64"):
        merge_limits({}, {"tmp_mb": 102400}, "x")  # a 100 GB RAM-backed temp folder
    with pytest.raises(HarnessError, match=r"processes = 1000 is above the default limit of 64"):
        merge_limits({}, {"processes": 1000}, "x")


def test_limited_argv_applies_prlimit(tmp_path: Path) -> None:
    wrapper = resolve_sandbox("none", {"open_files": 99})
    assert isinstance(wrapper, Limited)
    argv = wrapper(_spec(tmp_path, {"memory_mb": 300}), tmp_path)
    start = argv.index(wrapper.prlimit)
    end = argv.index("--", start)
    after = end + 1 + len(wrapper.namespace)  # its own PID namespace (unshare), then the bot's env last
    assert argv[end + 1 : after] == list(wrapper.namespace)
    assert argv[after : after + 2] == [shutil.which("env", path="/usr/bin:/bin"), "-i"]
    assert "--nofile=99" in argv[start:]
    assert any(a.startswith("--fsize=") for a in argv) and any(a.startswith("--cpu=") for a in argv)
    groups = cgroups.groups_in(argv)
    try:
        if "memory" in cgroups.available():  # what the bot uses, in its cgroup; no address-space limit
            assert cgroups.limits_in(argv)["memory"] == 300 << 20
            assert not any(a.startswith(("--as=", "--data=")) for a in argv)
        else:
            assert f"--data={300 << 20}" in argv[start:]
    finally:
        cgroups.release(argv)
    assert not any(group.exists() for group in groups)


def test_without_a_memory_cgroup_private_memory_is_limited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = cgroups.hierarchies()
    monkeypatch.setattr(cgroups, "hierarchies", lambda: tuple(h for h in real if "memory" not in h.controllers))
    wrapper = resolve_sandbox("none")
    assert wrapper is not None
    argv = wrapper(_spec(tmp_path, {"memory_mb": 300}), tmp_path)
    cgroups.release(argv)
    assert f"--data={300 << 20}" in argv and not any(a.startswith("--as=") for a in argv)  # a JVM starts


def test_wrappers_pickle(tmp_path: Path) -> None:
    for wrapper in (
        Limited("/usr/bin/prlimit", (("memory_mb", 100),)),
        Bubblewrap("/usr/bin/bwrap", "/usr/bin/prlimit"),
    ):
        again = pickle.loads(pickle.dumps(wrapper))
        assert again == wrapper


def test_bwrap_missing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real_which = shutil.which
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None if name == "bwrap" else real_which(name))
    real_exists = os.path.exists
    monkeypatch.setattr(
        sandbox.os.path, "exists", lambda p: False if str(p).endswith("bwrap") else real_exists(p)
    )
    with pytest.raises(HarnessError, match=r"^--sandbox bwrap: bubblewrap \(bwrap\) is not installed$"):
        resolve_sandbox("bwrap")
    wrapper = resolve_sandbox("auto")
    assert isinstance(wrapper, Limited)
    warning = capsys.readouterr().err.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("warning: bubblewrap (bwrap) is not installed")
    for missing in ("network", "filesystem", "PID namespace"):
        assert missing in warning[0]


@needs_bwrap
def test_bwrap_argv_shows_only_what_a_bot_needs(tmp_path: Path) -> None:
    wrapper = resolve_sandbox("bwrap")
    assert isinstance(wrapper, Bubblewrap)
    spec = load_bot(Path(__file__).resolve().parent.parent / "sample_bots" / "random")
    argv = wrapper(spec, Path("/tmp/llama-x"))
    bw = argv[argv.index(wrapper.bwrap) :]
    for flag in ("--unshare-all", "--unshare-pid", "--die-with-parent", "--new-session", "--size"):
        assert flag in bw
    assert bw[bw.index("--cap-drop") + 1] == "ALL"
    binds = [bw[i + 1] for i, a in enumerate(bw) if a in ("--bind", "--ro-bind", "--dev-bind")]
    assert "/" not in binds and str(HARNESS) not in binds
    assert not any(HARNESS.is_relative_to(b) for b in binds), binds
    assert "--bind" not in bw  # nothing of the host is writable
    assert str(spec.folder) in binds


def test_interpreter_roots_never_expose_the_harness(tmp_path: Path) -> None:
    for root in interpreter_roots(
        load_bot(Path(__file__).resolve().parent.parent / "sample_bots" / "random")
    ):
        assert root != "/" and not HARNESS.is_relative_to(root)


def _run_probe(mode: str, tmp_path: Path, limits: dict[str, int]) -> dict[str, object]:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "probe.py").write_text(PROBE)
    secret = tmp_path / "out" / "replays" / "game-00001.jsonl"
    secret.parent.mkdir(parents=True)
    secret.write_text("{}\n")
    home = Path(f"/tmp/llama-probe-test-{os.getpid()}")
    home.mkdir(exist_ok=True)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    try:
        spec = _spec(folder)
        wrapper = resolve_sandbox(mode, limits)
        assert wrapper is not None
        program = shutil.which("python3")
        assert program is not None
        done = subprocess.run(
            [
                *wrapper(spec, home),
                program,
                "probe.py",
                str(listener.getsockname()[1]),
                str(HARNESS),
                str(secret),
            ],
            cwd=folder,
            env=bot_environment(spec, home),
            capture_output=True,
            timeout=60,
            check=False,
            start_new_session=True,
        )
    finally:
        listener.close()
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, object] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return result


@needs_bwrap
def test_inside_the_sandbox(tmp_path: Path) -> None:
    found = _run_probe("bwrap", tmp_path, {"tmp_mb": 4, "memory_mb": 512, "processes": 10})
    assert found["network"] == "ConnectionRefusedError"  # a private network namespace: nobody listens
    assert found["harness_visible"] is False and found["secret_visible"] is False
    assert found["own_folder_writable"] is False
    assert found["tmp_mib_written"] in (3, 4)  # the 4 MiB tmpfs is full (some pages are metadata)
    assert found["home_is_tmp"] is True
    assert len(found["pids_seen"]) <= 3  # type: ignore[arg-type]  # its own PID namespace
    assert found["alloc_3g"] is False
    assert int(str(found["cap_eff"]), 16) == 0
    if "pids" in cgroups.available():
        assert found["forked"] < 12  # the pids cgroup (10 + bubblewrap's two)


def test_without_sandbox_limits_still_apply(tmp_path: Path) -> None:
    found = _run_probe("none", tmp_path, {"file_size_mb": 3, "memory_mb": 512, "processes": 10})
    assert found["alloc_3g"] is False
    assert found["tmp_mib_written"] == 3  # RLIMIT_FSIZE
    assert found["harness_visible"] is True  # what the warning says: no filesystem isolation
    if "pids" in cgroups.available():
        assert found["forked"] < 12


@needs_bwrap
def test_an_interpreter_under_tmp_stays_visible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone and its virtualenv under /tmp (as on CI): binds must come after the /tmp tmpfs."""
    python = tmp_path / "venv" / "bin" / "python3"
    python.parent.mkdir(parents=True)
    python.symlink_to(os.path.realpath(shutil.which("python3") or "python3"))
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "hi.py").write_text("print('hi from the sandbox')\n")
    monkeypatch.setenv("PATH", f"{python.parent}:{os.environ['PATH']}")
    spec = BotSpec(name="probe", version="1", folder=folder, command=("python3", "hi.py"))
    wrapper = resolve_sandbox("bwrap", {})
    assert wrapper is not None
    home = Path(f"/tmp/llama-probe-venv-{os.getpid()}")
    home.mkdir(exist_ok=True)
    try:
        done = subprocess.run(
            [*wrapper(spec, home), str(python), "hi.py"],
            cwd=folder,
            env=bot_environment(spec, home),
            capture_output=True,
            timeout=60,
            check=False,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "hi from the sandbox"


@needs_bwrap
def test_a_folder_shown_for_the_interpreter_never_shows_the_output_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interpreter in ~/bin shows all of ~; a league folder in ~ must stay hidden."""
    home = tmp_path / "home"
    python = home / "bin" / "python3"
    python.parent.mkdir(parents=True)
    python.symlink_to(os.path.realpath(shutil.which("python3") or "python3"))
    secret = home / "league-out" / "replays" / "game-000001.jsonl.part"
    secret.parent.mkdir(parents=True)
    secret.write_text("every hand\n")
    folder = home / "bots" / "mine"
    folder.mkdir(parents=True)
    (folder / "look.py").write_text(f"import os; print(os.path.exists({str(secret)!r}))\n")
    monkeypatch.setenv("PATH", f"{python.parent}:{os.environ['PATH']}")
    spec = BotSpec(name="probe", version="1", folder=folder, command=("python3", "look.py"))
    bare = resolve_sandbox("bwrap", {})

    def sees_the_secret(wrapper: object) -> str:
        assert callable(wrapper)
        scratch = Path(f"/tmp/llama-probe-hide-{os.getpid()}")
        scratch.mkdir(exist_ok=True)
        try:
            done = subprocess.run(
                [*wrapper(spec, scratch), str(python), "look.py"],
                cwd=folder,
                env=bot_environment(spec, scratch),
                capture_output=True,
                timeout=60,
                check=False,
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode().strip()

    assert sees_the_secret(bare) == "True"  # the premise: ~ is shown for the interpreter
    assert sees_the_secret(sandbox.hiding(bare, home / "league-out", folder)) == "False"


@needs_bwrap
def test_a_build_runs_in_the_sandbox_with_its_own_folder_writable(tmp_path: Path) -> None:
    from harness.match import build_bot

    secret = tmp_path / "out" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("x")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "build.py").write_text(
        "import os, socket\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 9), timeout=1); net = 'connected'\n"
        "except OSError as err:\n"
        "    net = type(err).__name__\n"
        f"seen = os.path.exists({str(secret)!r})\n"
        "names = sorted(set(os.environ) - {'PWD'})  # PWD: set by the shell that joins the cgroup\n"
        "open('built.txt', 'w').write(f'{net} {seen} {names}')\n"
    )
    (folder / "bot.toml").write_text(
        'name = "b"\ncommand = ["python3", "bot.py"]\nbuild = ["python3", "build.py"]\n'
    )
    spec = load_bot(folder)
    wrapper = sandbox.hiding(resolve_sandbox("bwrap", {}), secret.parent)
    build_bot(spec, tmp_path / "logs", wrapper=wrapper)
    net, seen, env = (folder / "built.txt").read_text().split(" ", 2)
    assert net == "ConnectionRefusedError" and seen == "False"  # no network; nothing outside
    assert env == str(sorted(["HOME", "LANG", "LC_ALL", "PATH", "TMPDIR"]))  # the bots' environment


def test_a_missing_cgroup_controller_is_one_warning_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cgroups, "hierarchies", lambda: ())
    monkeypatch.setattr(sandbox, "_warned", [])
    wrapper = resolve_sandbox("none")
    assert isinstance(wrapper, Limited)
    assert "llama-cgroup" not in wrapper(_spec(Path("/tmp")), Path("/tmp/x"))  # nothing to join
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "; no writable cgroup controller for cpu" in lines[0]
    resolve_sandbox("none")
    assert capsys.readouterr().err == ""  # once per process


@pytest.mark.skipif("cpu" not in cgroups.available(), reason="no writable cpu cgroup controller here")
def test_a_bot_start_gets_a_cpu_group_bounded_to_one_core(tmp_path: Path) -> None:
    wrapper = resolve_sandbox("none")
    assert wrapper is not None
    argv = wrapper(_spec(tmp_path), tmp_path)
    groups = cgroups.groups_in(argv)
    try:
        cpu = [g for g in groups if (g / "cpu.cfs_quota_us").exists() or (g / "cpu.max").exists()]
        assert len(cpu) == 1
        quota = cpu[0] / "cpu.cfs_quota_us"
        text = quota.read_text().strip() if quota.exists() else (cpu[0] / "cpu.max").read_text().split()[0]
        assert int(text) == cgroups.CPU_PERIOD_US * cgroups.CPU_CORES
    finally:
        cgroups.release(argv)
    assert not any(group.exists() for group in groups)
