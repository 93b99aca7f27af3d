"""Files the harness reads and writes for a user: regular files only, never blocking, never replaced blindly.

An input named on the command line (a replay, a card set) or by a database (a replay
path) may be a FIFO, a device or a huge file: it is opened without blocking, only if
it is a regular file, and read up to a cap. An output over an existing FIFO or device
(``/dev/full``, ``/dev/null``) is refused, never renamed over.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from harness.errors import HarnessError


def open_regular(path: Path | str, follow: bool = True) -> int:
    """Open ``path`` for reading only if it is a regular file: never blocks (a FIFO), never reads a device.

    ``follow=False``: not through a last symlink either. Raises OSError (``EINVAL`` for
    anything but a regular file).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return fd


def read_regular(path: Path | str, cap: int) -> bytes:
    """The first ``cap`` bytes of a regular file (see :func:`open_regular`)."""
    with os.fdopen(open_regular(path), "rb") as fh:
        return fh.read(cap)


def read_capped(path: Path | str, cap: int, what: str) -> bytes:
    """The whole of the regular file ``path``, at most ``cap`` bytes.

    Raises HarnessError naming ``path`` and ``what`` it should be: not a regular file,
    unreadable, or over ``cap``.
    """
    try:
        data = read_regular(path, cap + 1)
    except OSError as err:
        raise HarnessError(f"{path}: cannot read {what}: {err.strerror or err}") from None
    if len(data) > cap:
        raise HarnessError(f"{path}: over {_size(cap)}: not {what}")
    return data


def check_output(path: Path | str) -> None:
    """Raise HarnessError when ``path`` exists and is not a regular file (a FIFO, a device, a folder).

    An output is written beside and renamed over its path: over a device node that would
    put a regular file in its place (``/dev/full`` replaced); writing into a FIFO would
    wait for a reader forever. A symlink counts as what it points to.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise HarnessError(f"{path}: cannot write there: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise HarnessError(f"{path}: is a folder, not a file to write")
    if not stat.S_ISREG(mode):
        raise HarnessError(f"{path}: exists and is not a regular file (a FIFO or a device): not replaced")


def write_output(path: Path, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` atomically (``path.part``, then a rename); return ``path``.

    Raises HarnessError for an existing non-regular ``path`` (see :func:`check_output`),
    OSError when the file cannot be written.
    """
    check_output(path)
    part = path.with_name(path.name + ".part")
    check_output(part)
    raw = data.encode(encoding) if isinstance(data, str) else data
    part.write_bytes(raw)
    os.replace(part, path)
    return path


def _size(cap: int) -> str:
    return f"{cap >> 20} MiB" if cap >= 1 << 20 and not cap % (1 << 20) else f"{cap} bytes"


__all__ = ["check_output", "open_regular", "read_capped", "read_regular", "write_output"]
