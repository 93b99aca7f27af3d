"""The seccomp filter: run by a BPF interpreter here for every ABI, then loaded by bubblewrap for real."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import platform
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from harness import seccomp
from harness.bots.manifest import BotSpec
from harness.sandbox import bwrap_argv

BWRAP = shutil.which("bwrap")
X86_64, I386, AARCH64, ARM = (
    seccomp.AUDIT_ARCH_X86_64,
    seccomp.AUDIT_ARCH_I386,
    seccomp.AUDIT_ARCH_AARCH64,
    seccomp.AUDIT_ARCH_ARM,
)
ALLOW, KILL = seccomp.RET_ALLOW, seccomp.RET_KILL_PROCESS


def errno_of(code: int) -> int:
    return seccomp.RET_ERRNO | code


def run_bpf(nr: int, arch: int, *args: int) -> int:
    """What the kernel's classic-BPF interpreter returns for this syscall (the few opcodes a filter may use)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    program = seccomp.program()
    ops = [struct.unpack_from("=HBBI", program, offset) for offset in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = ops[pc]
        pc += 1
        if code == 0x20:  # ld w abs
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x54:  # and k
            acc &= k
        elif code == 0x15:  # jeq k
            pc += jt if acc == k else jf
        elif code == 0x06:  # ret k
            return k
        else:
            raise AssertionError(f"opcode {code:#x} not expected in the filter")


def test_the_program_is_whole_records_within_the_kernels_bound() -> None:
    program = seccomp.program()
    assert program and len(program) % 8 == 0 and len(program) // 8 <= 4096


@pytest.mark.parametrize(
    ("arch", "flock", "fcntl_nr", "socket_nr"),
    [(X86_64, 73, 72, 41), (I386, 143, 221, 359), (AARCH64, 32, 25, 198), (ARM, 143, 55, 281)],
)
def test_locks_are_no_ops_and_inet_sockets_fail_on_every_abi(arch: int, flock: int, fcntl_nr: int, socket_nr: int) -> None:
    assert run_bpf(flock, arch, 3, fcntl.LOCK_EX | fcntl.LOCK_NB) == errno_of(0)
    for command in seccomp.SET_LOCK:
        assert run_bpf(fcntl_nr, arch, 3, command) == errno_of(0), command
    for command in seccomp.GET_LOCK:
        assert run_bpf(fcntl_nr, arch, 3, command) == errno_of(errno.ENOLCK), command
    assert run_bpf(fcntl_nr, arch, 3, fcntl.F_SETFL, os.O_NONBLOCK) == ALLOW  # other fcntl untouched
    assert run_bpf(fcntl_nr, arch, 3, fcntl.F_GETFD) == ALLOW
    assert run_bpf(socket_nr, arch, 2, 1) == errno_of(errno.EAFNOSUPPORT)  # AF_INET
    assert run_bpf(socket_nr, arch, 10, 1) == errno_of(errno.EAFNOSUPPORT)  # AF_INET6
    assert run_bpf(socket_nr, arch, 1, 1) == ALLOW  # AF_UNIX: charged to the memory cgroup
    assert run_bpf(425, arch) == errno_of(errno.ENOSYS)  # io_uring_setup
    assert run_bpf(0, arch) == ALLOW and run_bpf(1, arch) == ALLOW


def test_x32_numbers_and_the_i386_multiplexer_cannot_go_around_it() -> None:
    assert run_bpf(seccomp.X32_SYSCALL_BIT | 73, X86_64, 3, fcntl.LOCK_EX) == errno_of(0)
    assert run_bpf(seccomp.X32_SYSCALL_BIT | 72, X86_64, 3, fcntl.F_SETLKW) == errno_of(0)
    assert run_bpf(seccomp.X32_SYSCALL_BIT | 41, X86_64, 2, 1) == errno_of(errno.EAFNOSUPPORT)
    assert run_bpf(55, I386, 3, fcntl.F_SETLK) == errno_of(0)  # i386's old fcntl too
    assert run_bpf(102, I386, seccomp.SYS_SOCKET, 0) == errno_of(errno.EAFNOSUPPORT)  # socketcall(SYS_SOCKET)
    assert run_bpf(102, I386, 3, 0) == ALLOW  # socketcall(SYS_CONNECT) and the rest


def test_an_unknown_architecture_is_killed() -> None:
    assert run_bpf(0, 0xC0000000 | 243) == KILL  # riscv64: no table, so no rule would hold
    assert run_bpf(73, 0) == KILL


def test_each_filter_fd_reads_the_whole_program_from_the_start() -> None:
    first, second = seccomp.filter_fd(), seccomp.filter_fd()
    try:
        assert os.read(first, 1 << 16) == seccomp.program()
        assert os.read(second, 1 << 16) == seccomp.program()
        assert not os.get_inheritable(first)
    finally:
        os.close(first)
        os.close(second)


PROBE = r"""
import ctypes, errno, fcntl, json, mmap, os, socket, sqlite3, struct, sys
out = {}
held = open(sys.argv[1], "rb")  # the test holds an exclusive flock on it, outside
def attempt(name, call):
    try:
        call()
        out[name] = 0
    except OSError as err:
        out[name] = err.errno
attempt("flock", lambda: fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB))
attempt("lockf", lambda: fcntl.lockf(held, fcntl.LOCK_SH | fcntl.LOCK_NB))
attempt("getlk", lambda: fcntl.fcntl(held, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0)))
attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
attempt("inet6", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close())
attempt("unix", lambda: socket.socketpair().__iter__().__next__().close())
libc = ctypes.CDLL(None, use_errno=True)
def raw(number, *args):
    result = libc.syscall(number, *args)
    return 0 if result == 0 else -ctypes.get_errno()
out["x32_flock"] = raw(0x40000000 | 73, held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
out["uring"] = raw(425, 8, ctypes.create_string_buffer(256))
out["inotify"] = raw(294, 0)
# flock through int 0x80 (i386's table) from this 64-bit process: push rbx; mov eax,143;
# mov ebx,edi; mov ecx,esi; int 0x80; pop rbx; ret
if os.uname().machine == "x86_64":
    code = bytes.fromhex("53b88f00000089fb89f1cd805bc3")
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    out["i386_flock"] = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int)(address)(
        held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB
    )
db = sqlite3.connect(os.path.join(os.environ.get("TMPDIR", "/tmp"), "own.db"))
db.execute("create table t (x)")
db.execute("insert into t values (1)")
db.commit()
out["sqlite"] = db.execute("select sum(x) from t").fetchone()[0]
print(json.dumps(out))
"""


def _probe(tmp_path: Path, filtered: bool) -> dict[str, int]:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / "probe.py").write_text(PROBE)
    shared = folder / "shared"
    shared.write_text("a file two bots both see")
    spec = BotSpec(name="probe", version="1", folder=folder, command=("/usr/bin/python3", "probe.py"))
    fd = seccomp.filter_fd() if filtered else None
    argv = bwrap_argv(BWRAP or "bwrap", spec, tmp_path / "tmp", 16 << 20, seccomp_fd=fd, env={"TMPDIR": str(tmp_path / "tmp")})
    with open(shared, "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another bot's lock, as seen from inside
        try:
            done = subprocess.run(
                [*argv, "/usr/bin/python3", "probe.py", str(shared)],
                capture_output=True,
                text=True,
                timeout=120,
                pass_fds=(fd,) if fd is not None else (),
                check=False,
            )
        finally:
            if fd is not None:
                os.close(fd)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it")
@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="no /usr/bin/python3 to run the probe")
def test_bubblewrap_loads_it_locks_say_nothing_and_sqlite_still_works(tmp_path: Path) -> None:
    bare = _probe(tmp_path, filtered=False)
    # the premise: without the filter a lock held outside is seen from inside
    assert bare["flock"] == errno.EWOULDBLOCK and bare["sqlite"] == 1, bare
    held = _probe(tmp_path, filtered=True)
    assert held["flock"] == 0 and held["lockf"] == 0, held  # a no-op: nothing learned
    assert held["getlk"] == errno.ENOLCK, held
    assert held["inet"] == held["inet6"] == errno.EAFNOSUPPORT and held["unix"] == 0, held
    assert held["x32_flock"] == 0, held  # the x32 number is filtered too (unfiltered: ENOSYS or EAGAIN)
    assert held["uring"] == -errno.ENOSYS and held["inotify"] == -errno.EPERM, held
    assert held["sqlite"] == 1, held  # SQLite in the bot's own tmp still works
    if platform.machine() == "x86_64" and bare.get("i386_flock") == -errno.EWOULDBLOCK:
        assert held["i386_flock"] == 0, held  # int 0x80 reaches the i386 table: filtered as well
