"""Limits without root on a systemd machine: a delegated cgroup v2 group is found and used.

Order of detection: writable v1 hierarchies and v2 roots first, then the harness's own
v2 group where the user may write it (``systemd-run --user --scope -p Delegate=yes``),
then rlimits alone. The detection logic runs on a fake cgroupfs tree (any user); the
real thing — a group delegated by root to an unprivileged user, the kernel's
no-internal-process rule, a bot joining its group as that user — runs as root in a
private mount namespace with a cgroup2 mount of its own (``cgroup_v2_delegation.py``).

Untested here: the cpu, memory and pids limits *binding* through a delegated group on
this machine (cgroup v1 holds those controllers; the real test then uses ``hugetlb``,
and checks cpu.max / memory.max / pids.max only where v2 offers them), and
``systemd-run`` itself (no systemd user manager here).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import cgroups, sandbox

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ROOT = os.geteuid() == 0
SCOPE = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope"


@pytest.fixture
def fake_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cgroup2 'mount' at tmp_path/cg whose root is not writable, and a v1 memory one that is not either."""
    mount = tmp_path / "cg"
    (mount / SCOPE.strip("/")).mkdir(parents=True)
    (mount / "cgroup.procs").write_text("1\n")
    (mount / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    v1 = tmp_path / "memory"
    v1.mkdir()
    (v1 / "cgroup.procs").write_text("")
    scope = mount / SCOPE.strip("/")
    for name in ("cgroup.procs", "cgroup.subtree_control"):
        (scope / name).write_text("")
    (scope / "cgroup.controllers").write_text("cpu memory pids\n")
    own = tmp_path / "self-cgroup"
    own.write_text(f"0::{SCOPE}\n")
    writable = {scope, scope / "cgroup.procs", scope / "cgroup.subtree_control"}
    monkeypatch.setattr(cgroups, "_writable", lambda path: path in writable)
    monkeypatch.setattr(cgroups, "_mounts", lambda: [("cgroup", str(v1), "rw,memory"), ("cgroup2", str(mount), "rw")])
    monkeypatch.setattr(cgroups, "SELF_CGROUP", str(own))
    monkeypatch.setattr(sandbox, "_warned", [])
    cgroups.hierarchies.cache_clear()
    yield tmp_path
    cgroups.hierarchies.cache_clear()


def test_the_harnesss_own_writable_v2_group_is_used_when_no_root_is_writable(fake_tree: Path) -> None:
    scope = fake_tree / "cg" / SCOPE.strip("/")
    assert cgroups.hierarchies() == (cgroups.Hierarchy(scope, frozenset({"cpu", "memory", "pids"}), True, True),)
    assert cgroups.missing() == [] and cgroups.advice() == ""


def test_a_harness_already_moved_into_its_leaf_finds_the_same_group(fake_tree: Path) -> None:
    (fake_tree / "cg" / SCOPE.strip("/") / cgroups.LEAF).mkdir()
    (fake_tree / "self-cgroup").write_text(f"0::{SCOPE}/{cgroups.LEAF}\n")  # a league worker, forked after the move
    assert [h.root for h in cgroups.hierarchies()] == [fake_tree / "cg" / SCOPE.strip("/")]


def test_a_writable_hierarchy_comes_before_the_delegated_group(fake_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = fake_tree / "memory"
    scope = fake_tree / "cg" / SCOPE.strip("/")
    writable = {memory, scope, scope / "cgroup.procs", scope / "cgroup.subtree_control"}
    monkeypatch.setattr(cgroups, "_writable", lambda path: path in writable)  # root: v1 memory is writable
    found = {h.root: (h.controllers, h.delegated) for h in cgroups.hierarchies()}
    assert found == {memory: (frozenset({"memory"}), False), scope: (frozenset({"cpu", "pids"}), True)}


def test_a_group_holding_a_process_not_ours_is_left_alone(fake_tree: Path) -> None:
    scope = fake_tree / "cg" / SCOPE.strip("/")
    (scope / "cgroup.procs").write_text("1\n")  # as a desktop terminal's scope holds its shell
    assert cgroups.hierarchies() == ()
    assert not (scope / cgroups.LEAF).exists()  # nothing moved
    assert cgroups.advice() == f"needs root, or a delegated cgroup v2 group: run under {cgroups.RECIPE}"


def test_the_harness_moves_itself_into_the_leaf_when_it_finds_its_group(fake_tree: Path) -> None:
    scope = fake_tree / "cg" / SCOPE.strip("/")
    (scope / "cgroup.procs").write_text(f"{os.getpid()}\n")
    assert [h.root for h in cgroups.hierarchies()] == [scope]
    assert (scope / cgroups.LEAF / "cgroup.procs").read_text() == str(os.getpid())  # the move (the kernel does the rest)


def test_with_a_writable_root_offering_everything_the_own_group_is_not_touched(
    fake_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mount = fake_tree / "cg"
    scope = mount / SCOPE.strip("/")
    writable = {mount, scope, scope / "cgroup.procs", scope / "cgroup.subtree_control"}  # as root
    monkeypatch.setattr(cgroups, "_writable", lambda path: path in writable)
    monkeypatch.setattr(cgroups, "_mounts", lambda: [("cgroup2", str(mount), "rw")])
    assert [(h.root, h.delegated) for h in cgroups.hierarchies()] == [(mount, False)]
    assert not (scope / cgroups.LEAF).exists()  # the harness did not move: it had no need to


def test_a_group_the_user_cannot_write_is_not_delegated(fake_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a login session's scope: owned by root, though the user's processes are in it
    scope = fake_tree / "cg" / SCOPE.strip("/")
    monkeypatch.setattr(cgroups, "_writable", lambda path: path in {scope, scope / "cgroup.procs"})
    assert cgroups.hierarchies() == ()
    advice = cgroups.advice()
    assert advice == f"needs root, or a delegated cgroup v2 group: run under {cgroups.RECIPE}"


def test_the_warning_line_says_how_to_get_the_rest(
    fake_tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cgroups, "_writable", lambda path: False)
    sandbox.resolve_sandbox("none")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert "no writable cgroup controller for cpu, memory, pids (needs root, or a delegated cgroup v2 group: " in lines[0]
    assert "systemd-run --user --scope -p Delegate=yes llama-harness" in lines[0]
    assert "what holds: CPU seconds, open files and file size per process (rlimits)" in lines[0]


def test_a_delegated_group_without_cpu_names_what_systemd_must_delegate(
    fake_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (fake_tree / "cg" / SCOPE.strip("/") / "cgroup.controllers").write_text("memory pids\n")  # systemd < 252's default
    assert cgroups.missing() == ["cpu"]
    advice = cgroups.advice()
    assert advice.startswith("needs root, or the user's systemd delegating cpu too (Delegate= in user@.service)")
    sandbox.resolve_sandbox("none")
    [line] = capsys.readouterr().err.splitlines()
    assert f"no writable cgroup controller for cpu ({advice}): cpu: " in line
    assert "what holds: CPU seconds, open files and file size per process (rlimits), and the cgroup limits on memory, pids;" in line


def test_on_cgroup_v1_only_root_gets_the_controllers(fake_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "_mounts", lambda: [("cgroup", str(fake_tree / "memory"), "rw,memory")])
    assert cgroups.hierarchies() == ()
    assert cgroups.advice() == "needs root: the controllers here are cgroup v1, which cannot be delegated to the harness"


def test_own_v2_group_reads_the_unified_line(fake_tree: Path) -> None:
    (fake_tree / "self-cgroup").write_text("4:memory:/a\n1:cpu:/\n0::/b/c\n")
    assert cgroups.own_v2_group() == "/b/c"
    (fake_tree / "self-cgroup").write_text("4:memory:/a\n")  # v1 only
    assert cgroups.own_v2_group() is None
    assert cgroups.delegated_group(fake_tree / "cg", "/") is None  # the root is never "delegated"


# -- the real kernel -----------------------------------------------------------------


def _user_and_python() -> tuple[str, str] | None:
    """An unprivileged account and a Python it may run (the pyenv or venv of root may be out of its reach)."""
    for name in ("nobody", "tester", "llama-ci"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        for python in (sys.executable, "/usr/bin/python3"):
            probe = ["runuser", "-u", name, "--", "env", f"PYTHONPATH={REPO}", python, "-c", "import harness.cgroups"]
            if subprocess.run(probe, capture_output=True, check=False, timeout=120, cwd="/").returncode == 0:
                return name, python
    return None


@pytest.mark.skipif(not ROOT, reason="delegating a cgroup v2 group to a user needs root (systemd does it as root)")
@pytest.mark.skipif(shutil.which("unshare") is None or shutil.which("runuser") is None, reason="unshare or runuser (util-linux) missing")
def test_a_user_given_a_delegated_v2_group_limits_its_bots_in_it() -> None:
    account = _user_and_python()
    if account is None:
        pytest.skip("no unprivileged account here can import the harness from this checkout")
    user, python = account
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", sys.executable, str(HERE / "cgroup_v2_delegation.py"), user, str(REPO), python],
        capture_output=True, text=True, check=False, timeout=600,
    )
    if done.returncode != 0 and "mount" in done.stderr:
        pytest.skip(f"cannot mount cgroup2 in a private mount namespace here: {done.stderr.strip().splitlines()[-1:]}")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    if "skip" in seen:
        pytest.skip(seen["skip"])
    assert "error" not in seen, seen
    group = seen["group"]
    assert seen["uid"] == seen["user_uid"] != 0 and seen["own_before"] == group
    assert seen["premise"] == "EBUSY"  # the kernel's rule: a group with processes cannot enable controllers
    controllers = sorted(seen["wanted"] + seen["extra"])
    roots = [root for root, found, delegated in seen["hierarchies"] if delegated]
    assert roots and all(root.endswith(group) for root in roots), seen["hierarchies"]
    assert seen["controllers"] == controllers
    [bot_group] = seen["groups"]
    assert bot_group.endswith(f"{group}/{cgroups.PARENT}/{Path(bot_group).name}") and bot_group.endswith("-1-bot")
    assert seen["own_after"] == f"{group}/{cgroups.LEAF}"  # moved itself into a leaf first
    assert seen["bot_cgroup"] == [f"0::{group}/{cgroups.PARENT}/{Path(bot_group).name}"], seen["bot_error"]
    expected = {"memory": 2048 << 20, "pids": 66, "cpu": 1}
    assert seen["limits"] == {key: expected[key] for key in seen["wanted"]}
    assert seen["left_after_release"] == []
    assert seen["second_harness"] == str([roots[0]])  # a process started in the leaf finds the same group
    # beside a process not its own (a terminal's shell), the group is not taken, and nothing moved
    assert seen["with_another_process"] == f"[] {group}", seen["with_another_process"]
