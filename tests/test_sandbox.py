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
from harness.sandbox import Bubblewrap, Limited, resolve_sandbox

HARNESS = Path(sandbox.__file__).resolve().parent
BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it")

PROBE = r"""
import errno, json, os, socket, sys
out = {}
port = int(sys.argv[1])
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    out["network"] = "connected"
except OSError as err:
    out["network"] = errno.errorcode.get(err.errno or 0, type(err).__name__)
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


def test_the_view_is_fixed_whatever_the_bots_files_say(tmp_path: Path) -> None:
    """No #! line, env -S argument or symlink in a bot folder adds a bind: the same view for every bot."""
    plain = tmp_path / "plain"
    plain.mkdir()
    sneaky = tmp_path / "sneaky"
    sneaky.mkdir()
    (sneaky / "bot.py").write_text(f"#!/usr/bin/env -S -u {HARNESS} python3\n")
    (sneaky / "run").symlink_to(HARNESS / "__init__.py")
    wrapper = Bubblewrap("bwrap", "prlimit")
    views = []
    for folder, command in ((plain, ("python3", "bot.py")), (sneaky, ("./bot.py",)), (sneaky, ("./run",))):
        spec = BotSpec(name="b", version="1", folder=folder, command=command)
        argv = sandbox.bwrap_argv("bwrap", spec, Path("/tmp/llama-x"), 1 << 20)
        views.append([argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind") and argv[i + 1] != str(folder)])
    assert views[0] == views[1] == views[2]
    assert not any(HARNESS.is_relative_to(bind) for bind in views[0])
    assert "/etc" not in views[0] and "/opt" not in views[0] and "/etc/shadow" not in views[0]
    assert "/etc/ld.so.cache" in views[0] or not os.path.exists("/etc/ld.so.cache")
    assert wrapper.runtimes == ()


def test_a_runtime_that_shows_too_much_is_refused_in_one_line(tmp_path: Path) -> None:
    for wide, why in (("/", "top folder"), ("/usr", "top folder"), (str(Path.home()), "top folder|home folder"),
                      (str(HARNESS.parent), "holds the harness"), (str(tmp_path / "missing"), "not a folder"),
                      ("relative/jdk", "not an absolute path")):
        with pytest.raises(HarnessError, match=f"^runtimes: .*({why})") as caught:
            sandbox.check_runtimes([wide])
        assert "\n" not in str(caught.value)
    jdk = tmp_path / "site" / "jdk"
    jdk.mkdir(parents=True)
    assert sandbox.check_runtimes([str(jdk), str(jdk)]) == (str(jdk.resolve()),)
    shown = Bubblewrap("bwrap", "prlimit", runtimes=(str(tmp_path / "site"),))
    with pytest.raises(HarnessError, match=r"^runtimes: .*site' cannot be shown to bots: it holds .*league-out"):
        sandbox.hiding(shown, tmp_path / "site" / "league-out")
    # and one inside a hidden folder would show that part of it (bound after the hiding tmpfs)
    tools = tmp_path / "league-out" / "tools"
    inner = Bubblewrap("bwrap", "prlimit", runtimes=(str(tools),))
    with pytest.raises(HarnessError, match=r"^runtimes: .*tools' cannot be shown to bots: it is inside .*league-out"):
        sandbox.hiding(inner, tmp_path / "league-out")


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
        argv = wrapper(spec, home)
        done = subprocess.run(
            [
                *argv,
                "python3",  # found on the bot's PATH by the wrapper's last step (in the sandbox: the view's)
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
            pass_fds=getattr(argv, "fds", ()),
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
    assert found["network"] == "EAFNOSUPPORT"  # no TCP at all (seccomp), and a private network namespace
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
def test_a_tool_outside_the_view_needs_a_runtime_even_under_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pyenv-like tool on PATH is not in the view (a one-line error); a runtime under /tmp shows it.

    The runtime's bind comes after the /tmp tmpfs, or it would vanish (a clone and its tools under /tmp, as on CI).
    """
    tool = tmp_path / "tools" / "bin" / "hello-tool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho hi from the sandbox\n")
    tool.chmod(0o755)
    folder = tmp_path / "bot"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{tool.parent}:{os.environ['PATH']}")
    spec = BotSpec(name="probe", version="1", folder=folder, command=("hello-tool",))
    bare = resolve_sandbox("bwrap", {})
    with pytest.raises(HarnessError, match=r"^bot 'probe': command 'hello-tool' is not on the sandbox's PATH \(.*runtimes"):
        sandbox.check_bots(bare, [spec])
    wrapper = resolve_sandbox("bwrap", {}, [str(tmp_path / "tools")])
    sandbox.check_bots(wrapper, [spec])
    assert wrapper is not None
    home = Path(f"/tmp/llama-probe-tool-{os.getpid()}")
    home.mkdir(exist_ok=True)
    try:
        argv = wrapper(spec, home)
        done = subprocess.run(
            [*argv, "hello-tool"],
            cwd=folder,
            env=bot_environment(spec, home),
            capture_output=True,
            timeout=60,
            check=False,
            pass_fds=getattr(argv, "fds", ()),
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "hi from the sandbox"


@needs_bwrap
def test_a_build_runs_in_the_sandbox_on_a_writable_copy_of_its_folder(tmp_path: Path) -> None:
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
    built = build_bot(spec, tmp_path / "logs", wrapper=wrapper)
    assert not (folder / "built.txt").exists()  # the organiser's folder is never written
    net, seen, env = (built.folder / "built.txt").read_text().split(" ", 2)
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
