"""Run as root in a private mount namespace: delegate a real cgroup v2 group to a user and let the harness use it.

What systemd's ``Delegate=yes`` does, by hand: a group ``llama-test-<pid>`` of a
cgroup2 mount made here, owned (with its ``cgroup.procs``, ``cgroup.subtree_control``
and ``cgroup.threads``) by USER, and a process of USER started inside it runs the
harness's own code (CHILD) with PYTHON; before it, PROBE runs there beside another
process (``sleep``), which the harness must leave alone. Prints one JSON object.

Usage: ``unshare -m --propagation private python cgroup_v2_delegation.py USER REPO PYTHON``.
Where the v2 hierarchy offers none of cpu, memory and pids (a hybrid machine binds them
to v1), the group is given ``hugetlb``, a real controller, so that the kernel's
no-internal-process rule binds as it would for the others.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import errno, json, os, subprocess, sys
from harness import cgroups
extra = sys.argv[1].split(",") if sys.argv[1] else []
cgroups.CONTROLLERS = (*cgroups.CONTROLLERS, *extra)
mount, group = sys.argv[2], sys.argv[3]
seen = {"uid": os.geteuid(), "own_before": cgroups.own_v2_group()}
offered = (open(f"{mount}{group}/cgroup.controllers").read().split())
try:  # the premise: a group with a process in it cannot give its children controllers
    fd = os.open(f"{mount}{group}/cgroup.subtree_control", os.O_WRONLY)
    os.write(fd, f"+{offered[0]}".encode())
    seen["premise"] = "enabled"
except OSError as err:
    seen["premise"] = errno.errorcode.get(err.errno, str(err.errno))
found = [(str(h.root), sorted(h.controllers), h.delegated) for h in cgroups.hierarchies()]
seen["hierarchies"] = found
groups = cgroups.new_groups("bot", {"memory_mb": 2048, "processes": 64})  # the defaults
seen["groups"] = [str(p) for p in groups.paths]
seen["controllers"] = sorted(groups.controllers)
seen["own_after"] = cgroups.own_v2_group()
argv = [*groups.join_argv(), "cat", "/proc/self/cgroup"]
done = subprocess.run(argv, capture_output=True, text=True, check=False)
seen["bot_cgroup"] = [line for line in done.stdout.splitlines() if line.startswith("0::")]
seen["bot_error"] = done.stderr
seen["limits"] = cgroups.limits_in(argv)
cgroups.release(argv)
seen["left_after_release"] = [str(p) for p in groups.paths if os.path.exists(p)]
again = subprocess.run(
    [sys.executable, "-c", "import sys; from harness import cgroups; cgroups.CONTROLLERS = (*cgroups.CONTROLLERS, *sys.argv[1:]); "
     "print([str(h.root) for h in cgroups.hierarchies() if h.delegated])", *extra],  # started in the leaf
    capture_output=True, text=True, check=False,
)
seen["second_harness"] = again.stdout.strip() or again.stderr
print(json.dumps(seen))
"""


PROBE = (
    "import sys; from harness import cgroups; cgroups.CONTROLLERS = (*cgroups.CONTROLLERS, *sys.argv[1].split(',')); "
    "print([str(h.root) for h in cgroups.hierarchies() if h.delegated], cgroups.own_v2_group())"
)


def _rmtree_groups(group: Path) -> None:
    """Remove ``group`` and its children, deepest first, killing what is left in them."""
    for folder in [*sorted((p for p in group.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)), group]:
        with contextlib.suppress(OSError, ValueError):
            for pid in (folder / "cgroup.procs").read_text().split():
                os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(OSError):
            folder.rmdir()


def main(user: str, repo: str, python: str) -> int:
    """Set the delegation up, run CHILD as ``user`` inside it, clean up; print CHILD's JSON."""
    uid = pwd.getpwnam(user).pw_uid
    point = Path(tempfile.mkdtemp(prefix="llama-cgroup2-", dir="/tmp"))
    point.chmod(0o755)  # the user must reach the mount
    subprocess.run(["mount", "-t", "cgroup2", "none", str(point)], check=True)
    enabled: list[str] = []
    group = point / f"llama-test-{os.getpid()}"
    try:
        offered = (point / "cgroup.controllers").read_text().split()
        wanted = [c for c in ("cpu", "memory", "pids") if c in offered]
        extra = [] if wanted else [c for c in ("hugetlb",) if c in offered]
        if not wanted and not extra:
            print(json.dumps({"skip": f"the cgroup v2 hierarchy here offers no usable controller ({offered})"}))
            return 0
        control = point / "cgroup.subtree_control"
        for controller in wanted + extra:
            if controller not in control.read_text().split():
                control.write_text(f"+{controller}")
                enabled.append(controller)
        group.mkdir()
        for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(group / name, uid, -1)
        join = 'echo $$ > "$1" && shift && exec "$@"'
        # setpriv execs (runuser would stay behind as the child's parent, a process not its own)
        as_user = ["setpriv", f"--reuid={uid}", f"--regid={pwd.getpwnam(user).pw_gid}", "--clear-groups"]
        harness = ["env", f"PYTHONPATH={repo}", python, "-c"]
        procs = str(group / "cgroup.procs")
        # first: a group holding another process (as a desktop terminal's scope holds its shell)
        other = subprocess.Popen(["/bin/sh", "-c", join, "sh", procs, "sleep", "600"])
        try:
            probe = subprocess.run(
                ["/bin/sh", "-c", join, "sh", procs, *as_user, *harness, PROBE, ",".join(extra)],
                capture_output=True, text=True, check=False, timeout=600, cwd="/",
            )
        finally:
            other.kill()
            other.wait()
        child = subprocess.run(
            ["/bin/sh", "-c", join, "sh", procs, *as_user, *harness, CHILD, ",".join(extra), str(point),
             "/" + group.name],
            capture_output=True, text=True, check=False, timeout=600, cwd="/",
        )
        if child.returncode != 0:
            print(json.dumps({"error": child.stderr.strip().splitlines()[-1:] or [f"status {child.returncode}"]}))
            return 0
        seen = json.loads(child.stdout)
        seen["with_another_process"] = probe.stdout.strip() or probe.stderr.strip()
        seen.update(mount=str(point), group="/" + group.name, wanted=wanted, extra=extra, user_uid=uid)
        print(json.dumps(seen))
        return 0
    finally:
        _rmtree_groups(group)
        for controller in enabled:
            with contextlib.suppress(OSError):
                (point / "cgroup.subtree_control").write_text(f"-{controller}")
        subprocess.run(["umount", str(point)], check=False)
        with contextlib.suppress(OSError):
            point.rmdir()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
