"""A bot as a long-lived subprocess: spawn, write with a deadline, capped stderr log, kill.

The bot gets an explicit environment (never the referee's), its own session and
process group, non-blocking pipes, and at the end everything it started is killed:
its process group, and any descendant that escaped it with ``setsid`` (found through
``/proc``; the referee is a child subreaper, so orphans re-parent to it, not to init).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import select
import shutil
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from pathlib import Path

from harness import cgroups
from harness.bots import conditions
from harness.bots.manifest import BotSpec, resolve_program
from harness.errors import BotCrashed, BotFault, BotTimeout, FaultKind
from harness.protocol.framing import MAX_LINE, LineReader

LOG_CAP = 1 << 20  # bytes of stderr kept per bot per match
_TAIL = 2048
_PR_SET_CHILD_SUBREAPER = 36
_LIVE: set[int] = set()  # pids of running bots in this process: orphan sweeps spare them
# the option of ``unshare … --pid --fork`` in a wrapper (harness.sandbox.Limited): the bot
# is its PID namespace's init, and ending it ends everything it started
KILL_CHILD = "--kill-child"
# the harness's wrappers that stay running around the bot, holding its pipes
_HOLDERS = ("bwrap", "unshare")


def become_subreaper() -> None:
    """Make orphaned descendants re-parent to this process (Linux), so they can be found."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


def harness_environment() -> dict[str, str]:
    """The environment of the harness's own wrapper processes (shell, prlimit, bwrap): nothing of a bot's."""
    return {
        "PATH": os.environ.get("PATH", _DEFAULT_PATH),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


# `sh -c 'exec "$0" "$@"' PROGRAM ARGS...`: runs PROGRAM as given, whatever its name holds
_EXEC_AS_GIVEN = ("/bin/sh", "-c", 'exec "$0" "$@"')


def env_argv(env: dict[str, str], programs: Sequence[str] = ()) -> list[str]:
    """``env -i K=V …``, the last wrapper: the bot's environment starts at the bot's own program.

    GNU env takes every word holding ``=`` before the command for an assignment (``--``
    included: it would be the command), so a program path such as ``/bots/x=y/bot``
    would be set as a variable and the next argument run instead. When one of
    ``programs`` (the resolved paths that may follow) holds ``=``, a shell that only
    ``exec``s its arguments comes between: env runs it, it runs the program as given.
    """
    program = shutil.which("env", path="/usr/bin:/bin") or "/usr/bin/env"
    argv = [program, "-i", *(f"{key}={value}" for key, value in env.items())]
    if any("=" in path for path in programs):
        argv += _EXEC_AS_GIVEN
    return argv


class Prefix(list[str]):
    """A wrapper's argv prefix that needs file descriptors passed to it (``bwrap --seccomp FD``).

    The spawn passes ``fds`` on (``pass_fds``: no ``preexec_fn``) and then closes them
    in the referee: each is for one spawn.
    """

    def __init__(self, argv: Sequence[str], fds: Sequence[int] = ()) -> None:
        super().__init__(argv)
        self.fds = tuple(fds)


def close_fds(wrapper: Sequence[str]) -> None:
    """Close the referee's copies of the fds a :class:`Prefix` passed (idempotent)."""
    for fd in getattr(wrapper, "fds", ()):
        with contextlib.suppress(OSError):
            os.close(fd)
    if isinstance(wrapper, Prefix):
        wrapper.fds = ()


def program_path(folder: Path, program: str, wrapped: bool) -> str:
    """argv[0] for a bot's or a build's program.

    A path is made absolute from the bot's folder. A bare name under a wrapper stays
    bare: the wrapper's last step (``env -i``, ``bwrap``) finds it on the bot's own
    PATH, which in the sandbox is the view's PATH (``python3`` is ``/usr/bin/python3``
    there, not the harness's pyenv shim).
    """
    if wrapped and os.sep not in program:
        return program
    return resolve_program(folder, program)


def launch_environment(spec: BotSpec, tmp: Path, wrapper: Sequence[str]) -> dict[str, str]:
    """The environment to start ``[*wrapper, program]`` with.

    With no wrapper the only process is the bot's program: its own environment. A
    wrapper runs outside any confinement, so it gets the harness's clean environment
    and passes the bot's on (``env -i``, ``bwrap --setenv``); a bot's ``LD_PRELOAD``
    never reaches ``prlimit`` or ``bwrap``.
    """
    return harness_environment() if wrapper else bot_environment(spec, tmp)


def bot_environment(spec: BotSpec, tmp: Path) -> dict[str, str]:
    """The whole environment of a bot: a fixed minimum plus its manifest's ``env``."""
    env = {
        "PATH": os.environ.get("PATH", _DEFAULT_PATH),
        "HOME": str(tmp),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    env.update(spec.env)
    return env


class BotProcess:
    """One running bot. Not thread-safe; one referee owns it."""

    def __init__(
        self,
        spec: BotSpec,
        log_path: Path,
        tmp: Path,
        *,
        wrapper: Sequence[str] = (),
        log_cap: int = LOG_CAP,
        max_line: int = MAX_LINE,
    ) -> None:
        self.spec = spec
        self.log_path = log_path
        self._log_cap = log_cap
        self._logged = 0
        self._tail = b""
        argv = [program_path(spec.folder, spec.command[0], bool(wrapper)), *spec.command[1:]]
        self._wrapper = list(wrapper)
        self._born = time.monotonic()
        try:
            tmp.mkdir(parents=True, exist_ok=True)
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(log_path, "ab")  # noqa: SIM115 - closed in close()
        except BaseException:
            close_fds(wrapper)  # a Prefix's fds are for this spawn only: never leaked
            raise
        self._logged = self._log.tell()  # the cap is per bot per match: restarts append
        try:
            self.proc = subprocess.Popen(
                [*wrapper, *argv],
                cwd=spec.folder,
                env=launch_environment(spec, tmp, wrapper),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                pass_fds=getattr(wrapper, "fds", ()),
                bufsize=0,
            )
        except (OSError, ValueError) as err:
            self._log.close()
            cgroups.release(self._wrapper)
            why = err.strerror if isinstance(err, OSError) else str(err)
            raise BotFault(f"cannot start {argv[0]!r}: {why}", FaultKind.STARTUP) from None
        finally:
            close_fds(wrapper)
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr  # PIPE was asked for
        _LIVE.add(self.proc.pid)
        self._in = self.stdin_fd = self.proc.stdin.fileno()  # non-blocking: BotSession.ask writes it directly
        self._out = self.proc.stdout.fileno()
        self._err = self.proc.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        self.reader = LineReader(self._out, limit=max_line, side={self._err: self.drain_stderr})
        self._wpoll = select.poll()
        self._wpoll.register(self._in, select.POLLOUT)
        self.closed = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    # -- I/O --------------------------------------------------------------------------

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` whole; raise BotTimeout if the bot stops reading, BotCrashed if gone."""
        try:  # the common case: the pipe has room for the whole message
            written = os.write(self._in, data)
        except BlockingIOError:
            written = 0
        except OSError as err:
            raise BotCrashed(f"stdin closed ({err.strerror or err})") from None
        if written == len(data):
            return
        view = memoryview(data)[written:]
        while view:
            try:
                written = os.write(self._in, view)
                view = view[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError) as err:
                raise BotCrashed(f"stdin closed ({err.strerror or err})") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotTimeout("stopped reading its input")
            self._wpoll.poll(left * 1000.0 + 0.5)
            self.drain_stderr()

    def unread(self) -> int:
        """Bytes written to the bot's stdin that it has not read yet (FIONREAD on the pipe)."""
        try:
            return int(struct.unpack("i", fcntl.ioctl(self._in, termios.FIONREAD, b"\0" * 4))[0])
        except OSError:
            return 0

    def readline(self, deadline: float) -> bytes:
        try:
            return self.reader.readline(deadline)
        except BotFault as err:
            raise self.explain(err) from None

    def explain(self, err: BotFault) -> BotFault:
        """A failed read of :attr:`reader`, told as what happened to the bot (a caller reading the reader directly asks this)."""
        if isinstance(err, BotTimeout):
            # a descendant that outlives the bot may hold stdout open, so no EOF comes
            if self.exited():
                return BotCrashed(f"{self._how()} (its stdout still open)")
            if self._stdout_abandoned():  # no EOF comes: bwrap (or unshare) holds the pipe too
                return BotCrashed("end of output (stdout closed)")
        elif isinstance(err, BotCrashed):
            # stdout closes a moment before the exit is reported: say how it ended when it has
            end = time.monotonic() + 0.5
            while (how := self._how()) is None and time.monotonic() < end:
                time.sleep(0.005)
            if how is not None:
                err.detail = f"{err.detail}, {how}"
            # out of memory under rlimits alone, a runtime dies in its own words ("MemoryError"):
            # name the limits it met (read here, on a crash, never per move)
            note = self.limits_note()
            if note.startswith("under rlimits"):
                err.detail = f"{err.detail} ({note})"
        return err

    def _stdout_abandoned(self) -> bool:
        """True when nothing of the bot but the wrappers around it (bwrap, unshare) holds its stdout pipe open."""
        try:
            pipe = f"pipe:[{os.fstat(self._out).st_ino}]"
        except OSError:
            return False
        for pid in descendants(self.proc.pid):
            try:
                if os.path.basename(os.readlink(f"/proc/{pid}/exe")) in _HOLDERS:
                    continue
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == pipe:
                        return False
        return True

    def exited(self) -> bool:
        """True once the bot has exited, without reaping it (WNOWAIT)."""
        return self._how() is not None

    def exit_code(self) -> int | None:
        """The bot's exit status once it has exited by itself (not by a signal), without reaping it."""
        try:
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # already reaped
            return self.proc.returncode if (self.proc.returncode or 0) >= 0 else None
        if info is None or info.si_code != os.CLD_EXITED:
            return None
        return int(info.si_status)

    def _how(self) -> str | None:
        """How the bot ended ("exited with status 4", "killed by signal 9"), without reaping it."""
        try:
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # already reaped
            code = self.proc.returncode
            return "exited" if code is None else f"exited with status {code}"
        if info is None:
            return None
        how = f"exited with status {info.si_status}"
        if info.si_code != os.CLD_EXITED:
            how = f"killed by signal {info.si_status}"
        if cgroups.oom_kills(self._wrapper):  # the kernel killed a process of it for memory
            memory = cgroups.limits_in(self._wrapper).get("memory", 0) >> 20
            how = f"{how}: it used all of its {memory} MB memory limit"
        return how

    def limits_note(self) -> str:
        """The limits the bot runs under, for a fault at start-up (see :func:`conditions.limits_note`)."""
        return conditions.limits_note(self._wrapper)

    def busy_note(self, before: conditions.CpuSample | None) -> str | None:
        """Why the bot was late when it had no CPU control and the machine starved it, else None.

        ``before``: :meth:`cpu_sample` at the deadline (None: over its whole life). Read
        only at a time-out.
        """
        if "cpu" in cgroups.limits_in(self._wrapper):
            return None  # held to its own core's share: its waits may be its own children
        return conditions.busy_note(before, self.cpu_sample(), self._born)

    def cpu_sample(self) -> conditions.CpuSample | None:
        """What the bot's processes have run and waited for a CPU so far (read at a time-out only)."""
        return conditions.sample(sorted(descendants(self.proc.pid)))

    def drain_stderr(self) -> bool:
        """Copy what the bot wrote to stderr into its log, up to the cap; False at EOF."""
        try:
            chunk = os.read(self._err, 1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not chunk:
            return False
        self._tail = (self._tail + chunk)[-_TAIL:]
        room = self._log_cap - self._logged
        if room > 0:
            self._log.write(chunk[:room])
            self._logged += min(room, len(chunk))
            if self._logged >= self._log_cap:
                self._log.write(b"\n[harness: stderr log capped here; the rest was discarded]\n")
        return True

    def stderr_tail(self) -> str:
        """The last ~2 KiB the bot wrote to stderr, decoded leniently."""
        with contextlib.suppress(OSError):
            for _ in range(64):  # bounded: a bot may write to stderr as fast as we read
                if not (self.drain_stderr() and select.select([self._err], [], [], 0)[0]):
                    break
        return self._tail.decode("utf-8", "replace")

    # -- lifetime ---------------------------------------------------------------------

    def close(self, grace: float = 0.0) -> None:
        """Stop the bot and everything it started; idempotent."""
        if self.closed:
            return
        self.closed = True
        end = time.monotonic() + grace
        while not self.exited() and time.monotonic() < end:
            time.sleep(0.005)
        # not reaped yet: until wait() below, the bot's pid (and group id) cannot be
        # reused by an unrelated process that kill_tree would then hit
        _LIVE.discard(self.proc.pid)
        # the init of the bot's PID namespace first: still unshare's child, never reaped (and
        # its pid never reused) before unshare is dead; then the rest, then its namespace's end
        inits = children_of(self.proc.pid) if KILL_CHILD in self._wrapper else []
        for pid in inits:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        kill_tree(self.proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        _namespaces_ended(inits)
        cgroups.release(self._wrapper)  # and whatever of it is left, then its cgroups
        with contextlib.suppress(OSError):
            self.stderr_tail()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._log.close()


def _namespaces_ended(inits: list[int], timeout: float = 5.0) -> None:
    """Wait until each killed PID namespace init is gone: the kernel has then killed all in it.

    The init (the bot, child of ``unshare``) may have left the bot's group and session;
    killed, it exits only once every process of its namespace is dead.
    """
    end = time.monotonic() + timeout
    for pid in inits:
        while pid_alive(pid) and time.monotonic() < end:
            time.sleep(0.005)
    reap_orphans()


def _stat(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: split after the last ')'
    return stat[stat.rfind(b")") + 2 :].split()


def _proc_table() -> dict[int, tuple[int, int, int]]:
    """Map pid → (ppid, pgid, sid) for every process visible in /proc."""
    table: dict[int, tuple[int, int, int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(entry)) is not None:
            table[int(entry)] = (int(fields[1]), int(fields[2]), int(fields[3]))
    return table


def descendants(root: int) -> set[int]:
    """``root``'s group and session, orphans re-parented to us, and all their descendants.

    Orphans of any bot (a double fork with ``setsid``) re-parent to the referee, so every
    child of ours in another session that is not a running bot is swept too.
    """
    table = _proc_table()
    me, my_sid = os.getpid(), os.getsid(0)
    found = {
        pid
        for pid, (ppid, pgid, sid) in table.items()
        if pgid == root
        or sid == root
        # an orphan from some bot: ours by re-parenting, but in another session
        or (ppid == me and sid != my_sid and pid not in _LIVE)
    }
    found.add(root)
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _, _) in table.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    return found


def kill_tree(root: int) -> None:
    """SIGKILL ``root`` (a session leader), its group and all its descendants; reap orphans."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(root, signal.SIGKILL)
    for _ in range(5):  # a fork bomb may still be forking while we sweep
        found = descendants(root) - {os.getpid()}
        live = [pid for pid in found if pid_alive(pid)]
        if not live:
            break
        for pid in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    reap_orphans()


def reap_orphans() -> None:
    """Reap dead processes that re-parented to us (we are a subreaper)."""
    me = os.getpid()
    for pid, (ppid, _, _) in _proc_table().items():
        if ppid == me:
            with contextlib.suppress(ChildProcessError, OSError):
                if _is_zombie(pid):
                    os.waitpid(pid, os.WNOHANG)


def children_of(parent: int) -> list[int]:
    """The pids whose parent is ``parent``."""
    return [pid for pid, (ppid, _, _) in _proc_table().items() if ppid == parent]


def pid_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] == b"Z"


__all__ = [
    "KILL_CHILD",
    "LOG_CAP",
    "BotProcess",
    "Prefix",
    "become_subreaper",
    "bot_environment",
    "close_fds",
    "descendants",
    "env_argv",
    "harness_environment",
    "kill_tree",
    "launch_environment",
    "program_path",
]
