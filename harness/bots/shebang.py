"""``#!`` lines read the way Linux reads them (fs/binfmt_script.c), for early errors only.

The kernel takes ``#!``, skips spaces and tabs, takes the interpreter up to the next
space, tab or newline, and passes the rest of the line (trailing spaces and tabs cut)
as ONE optional argument. Only space and tab separate: a form feed or a vertical tab
is part of the interpreter's name (``#!\\f/proc/...`` runs the relative path
``\\f/proc/...``), which ``str.split()`` would skip. The harness never binds anything
it reads here into a sandbox: :mod:`harness.sandbox` uses this only to tell a bot's
author, in one line, that an interpreter is not in the sandbox.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harness.bots.manifest import read_regular
from harness.errors import HarnessError

BINPRM_BUF = 256  # the kernel reads at most this much of a script (BINPRM_BUF_SIZE)
_BLANK = b" \t"


@dataclass(frozen=True)
class Shebang:
    """A script's ``#!`` line: the interpreter as the kernel execs it, and its one argument."""

    interpreter: str
    argument: str | None = None


def parse(line: bytes, where: str = "script") -> Shebang | None:
    """Parse the first bytes of a file; None when they do not start with ``#!``.

    Raises HarnessError (naming ``where``) for a NUL or another control byte in the
    line, or a ``#!`` with no interpreter: the kernel would run or refuse such a line
    in ways no author means, and the harness will not guess.
    """
    if not line.startswith(b"#!"):
        return None
    first = line[2:].split(b"\n", 1)[0]
    bad = next((byte for byte in first if (byte < 0x20 and byte != 0x09) or byte == 0x7F), None)
    if bad is not None:
        raise HarnessError(f"{where}: its #! line holds a control character ({chr(bad)!r}): not run")
    text = first.lstrip(_BLANK)
    if not text:
        raise HarnessError(f"{where}: its #! line names no interpreter")
    end = next((i for i, byte in enumerate(text) if byte in _BLANK), len(text))
    rest = text[end:].strip(_BLANK)
    decode = os.fsdecode
    return Shebang(decode(text[:end]), decode(rest) if rest else None)


def read(path: Path | str) -> Shebang | None:
    """The ``#!`` line of the regular file ``path``; None for no ``#!``, or a file that is not regular or not readable.

    A FIFO is never opened for reading (that would block). Raises HarnessError as
    :func:`parse` does.
    """
    try:
        head = read_regular(path, BINPRM_BUF)
    except (OSError, ValueError):
        return None
    return parse(head, str(path))


def env_program(argument: str | None) -> str | None:
    """The program ``/usr/bin/env ARGUMENT`` runs, as env itself finds it; None if it names none.

    Without ``-S`` the kernel's one argument is one word for env (``env "python3 -u"``
    looks for a program of that name). With ``-S`` env splits it at spaces and tabs
    and takes options (``-i``, ``-u NAME``, ``-C DIR``, ``--unset=NAME``, …) and
    ``NAME=VALUE`` assignments before the program; their values are skipped, never
    taken for the program.
    """
    if argument is None:
        return None
    if not argument.startswith("-"):
        return argument
    words = argument.split()
    first = words[0]
    if not (first.startswith("-S") or (not first.startswith("--") and "S" in first)):
        return None  # one option and no program: env then runs the script itself
    # -Spython3: the rest of the word is the first word of the split string
    words = [first[2:], *words[1:]] if first.startswith("-S") and len(first) > 2 else words[1:]
    takes_value = {"-u", "-C", "--unset", "--chdir", "--split-string", "-S"}
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            return words[index + 1] if index + 1 < len(words) else None
        if word in takes_value:
            index += 2
            continue
        if word.startswith("-") or ("=" in word and not word.startswith("=")):
            index += 1  # -i, -0, --unset=X, -uX, NAME=VALUE
            continue
        return word
    return None


__all__ = ["BINPRM_BUF", "Shebang", "env_program", "parse", "read"]
