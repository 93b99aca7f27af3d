"""The seccomp filter bubblewrap loads into every sandboxed bot (``bwrap --seccomp FD``).

Classic BPF, built here with :mod:`struct` (no libseccomp). It closes channels between
bots that share a machine, and leaves everything else alone:

* **locks**: ``flock`` and the fcntl lock commands that set a lock (``F_SETLK``,
  ``F_SETLKW``, ``F_OFD_SETLK``, ``F_OFD_SETLKW`` and the 32-bit ``*64`` forms)
  succeed without doing anything, so SQLite or Java locking files in a bot's own tmp
  still work; the commands that ask for a lock (``F_GETLK``, ``F_OFD_GETLK``) fail with
  ``ENOLCK``. Two bots can no longer signal through locks on the read-only files under
  ``/usr`` that they both see.
* **TCP/UDP**: ``socket(AF_INET | AF_INET6, …)`` fails with ``EAFNOSUPPORT``. A bot has
  no network (only its own loopback), and loopback TCP buffers are kernel memory that
  the v1 memory cgroup does not charge (twelve pairs held 363 MB under a 64 MB limit).
  Unix sockets stay (they are charged).
* **io_uring** (``io_uring_setup`` fails with ``ENOSYS``): its socket operation would
  go around the socket rule. **inotify** (``inotify_init``, ``inotify_init1``) and
  ``fcntl(F_NOTIFY)`` fail with ``EPERM``: a bot could watch a rival open a shared file.

The architecture is checked first: a filter keyed on x86_64 numbers is bypassed by
i386 (``int 0x80``) or x32 numbers unless those are filtered too, so each ABI the CPU
can enter has its own table (x86_64 with x32, i386, aarch64, arm) and any other
architecture kills the process.
"""

from __future__ import annotations

import errno
import functools
import os
import struct
from dataclasses import dataclass

# BPF opcodes (linux/filter.h, linux/bpf_common.h)
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_ALU_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K

# seccomp return values (linux/seccomp.h)
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    """The offset of the low 32 bits of syscall argument ``index`` (little-endian ABIs only)."""
    return 16 + 8 * index


# audit architectures (linux/audit.h)
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
AUDIT_ARCH_ARM = 0x40000028
X32_SYSCALL_BIT = 0x40000000

# fcntl commands (asm-generic/fcntl.h)
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_GETLK64, F_SETLK64, F_SETLKW64 = 12, 13, 14  # 32-bit ABIs' fcntl64
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_NOTIFY = 1026
SET_LOCK = (F_SETLK, F_SETLKW, F_SETLK64, F_SETLKW64, F_OFD_SETLK, F_OFD_SETLKW)
GET_LOCK = (F_GETLK, F_GETLK64, F_OFD_GETLK)
AF_INET, AF_INET6 = 2, 10
SYS_SOCKET = 1  # socketcall(2)'s call number for socket()


@dataclass(frozen=True)
class Table:
    """The syscall numbers one ABI uses for what the filter handles (None: the ABI has no such call)."""

    arch: int
    flock: int
    fcntl: tuple[int, ...]
    socket: int
    io_uring_setup: int
    inotify: tuple[int, ...]
    socketcall: int | None = None  # i386 and arm: socket() through the multiplexer
    mask: int = 0xFFFFFFFF  # x32 numbers are x86_64's with X32_SYSCALL_BIT set


TABLES = (
    Table(AUDIT_ARCH_X86_64, 73, (72,), 41, 425, (253, 294), mask=~X32_SYSCALL_BIT & 0xFFFFFFFF),
    Table(AUDIT_ARCH_I386, 143, (55, 221), 359, 425, (291, 332), socketcall=102),
    Table(AUDIT_ARCH_AARCH64, 32, (25,), 198, 425, (26,)),
    Table(AUDIT_ARCH_ARM, 143, (55, 221), 281, 425, (316, 360)),
)


# -- a tiny assembler: jumps name labels, resolved to the u8 offsets BPF wants ------------


@dataclass
class _Op:
    code: int
    k: int = 0
    true: str | None = None  # label to jump to when the comparison holds
    false: str | None = None  # label otherwise (None: the next instruction)


def _assemble(ops: list[_Op | str]) -> bytes:
    """Encode ``ops`` (instructions and label names) as ``struct sock_filter`` records.

    Raises ValueError for an unknown label or a jump over more than 255 instructions.
    """
    where: dict[str, int] = {}
    code: list[_Op] = []
    for op in ops:
        if isinstance(op, str):
            where[op] = len(code)
        else:
            code.append(op)

    def offset(index: int, label: str | None) -> int:
        if label is None:
            return 0
        jump = where[label] - index - 1
        if not 0 <= jump <= 255:
            raise ValueError(f"jump to {label} out of range ({jump})")
        return jump

    out = bytearray()
    for index, op in enumerate(code):
        out += struct.pack("=HBBI", op.code, offset(index, op.true), offset(index, op.false), op.k & 0xFFFFFFFF)
    return bytes(out)


def _errno(number: int) -> int:
    return RET_ERRNO | number


def _table_ops(table: Table, n: int) -> list[_Op | str]:
    """The instructions for one ABI; labels are prefixed with ``n`` to stay unique."""
    ops: list[_Op | str] = [f"{n}:start", _Op(_LD_W_ABS, _NR)]
    if table.mask != 0xFFFFFFFF:
        ops.append(_Op(_ALU_AND_K, table.mask))
    ops.append(_Op(_JEQ_K, table.flock, f"{n}:noop"))
    for number in table.fcntl:
        ops.append(_Op(_JEQ_K, number, f"{n}:fcntl"))
    ops.append(_Op(_JEQ_K, table.socket, f"{n}:socket"))
    if table.socketcall is not None:
        ops.append(_Op(_JEQ_K, table.socketcall, f"{n}:socketcall"))
    ops.append(_Op(_JEQ_K, table.io_uring_setup, f"{n}:nosys"))
    for number in table.inotify:
        ops.append(_Op(_JEQ_K, number, f"{n}:perm"))
    ops.append(_Op(_RET_K, RET_ALLOW))
    ops += [f"{n}:fcntl", _Op(_LD_W_ABS, _arg(1))]
    for command in SET_LOCK:
        ops.append(_Op(_JEQ_K, command, f"{n}:noop"))
    for command in GET_LOCK:
        ops.append(_Op(_JEQ_K, command, f"{n}:nolck"))
    ops.append(_Op(_JEQ_K, F_NOTIFY, f"{n}:perm"))
    ops.append(_Op(_RET_K, RET_ALLOW))
    ops += [f"{n}:socket", _Op(_LD_W_ABS, _arg(0))]
    ops += [_Op(_JEQ_K, AF_INET, f"{n}:noaf"), _Op(_JEQ_K, AF_INET6, f"{n}:noaf"), _Op(_RET_K, RET_ALLOW)]
    if table.socketcall is not None:
        # the domain is in user memory, out of BPF's reach: socket() through the
        # multiplexer is refused whatever its family (libc uses socket() itself since Linux 4.3)
        ops += [f"{n}:socketcall", _Op(_LD_W_ABS, _arg(0)), _Op(_JEQ_K, SYS_SOCKET, f"{n}:noaf")]
        ops.append(_Op(_RET_K, RET_ALLOW))
    ops += [f"{n}:noop", _Op(_RET_K, _errno(0))]
    ops += [f"{n}:nolck", _Op(_RET_K, _errno(errno.ENOLCK))]
    ops += [f"{n}:noaf", _Op(_RET_K, _errno(errno.EAFNOSUPPORT))]
    ops += [f"{n}:nosys", _Op(_RET_K, _errno(errno.ENOSYS))]
    ops += [f"{n}:perm", _Op(_RET_K, _errno(errno.EPERM))]
    return ops


@functools.lru_cache(maxsize=1)
def program() -> bytes:
    """The whole filter as bubblewrap reads it from ``--seccomp FD``: ``struct sock_filter`` records."""
    ops: list[_Op | str] = [_Op(_LD_W_ABS, _ARCH)]
    for n, table in enumerate(TABLES):
        ops.append(_Op(_JEQ_K, table.arch, f"{n}:start"))
    ops.append(_Op(_RET_K, RET_KILL_PROCESS))  # an ABI with no table could bypass them all
    for n, table in enumerate(TABLES):
        ops += _table_ops(table, n)
    return _assemble(ops)


def filter_fd() -> int:
    """A new file descriptor to read the filter from, at offset 0 (for one ``bwrap --seccomp``).

    A pipe, filled and closed for writing: bubblewrap reads it to the end, so every
    bot needs its own (a shared fd would share its offset). Not inheritable: the
    spawn passes it on by ``pass_fds``. Raises OSError when no fd is left.
    """
    data = program()
    read, write = os.pipe()  # the filter is a few hundred bytes: it fits the pipe's buffer
    try:
        os.write(write, data)
    finally:
        os.close(write)
    return read


__all__ = ["GET_LOCK", "SET_LOCK", "TABLES", "filter_fd", "program"]
