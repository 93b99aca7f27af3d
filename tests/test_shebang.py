"""``#!`` lines parsed as Linux parses them (harness.bots.shebang)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import time_limit

from harness.bots.shebang import Shebang, env_program, parse, read
from harness.errors import HarnessError


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"#!/usr/bin/python3\n", Shebang("/usr/bin/python3")),
        (b"#!/usr/bin/python3", Shebang("/usr/bin/python3")),  # no newline: the whole rest
        (b"#! /usr/bin/env python3 \nimport os\n", Shebang("/usr/bin/env", "python3")),
        (b"#!\t/bin/sh\t-e\t\n", Shebang("/bin/sh", "-e")),
        (b"#!/bin/sh -e -x\n", Shebang("/bin/sh", "-e -x")),  # ONE argument, spaces kept
        (b"#!/usr/bin/env -S python3 -u\n", Shebang("/usr/bin/env", "-S python3 -u")),
        (b"#!./run\n", Shebang("./run")),  # relative: the kernel runs it from the working folder
        (b"import os\n", None),
        (b"", None),
        (b" #!/bin/sh\n", None),
    ],
)
def test_parse_as_the_kernel_does(line: bytes, expected: Shebang | None) -> None:
    assert parse(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        b"#!\f/proc/self/cwd/league-out/league.db\n",  # str.split() would skip the form feed
        b"#!/usr/bin/python3\x00/etc/shadow\n",
        b"#!/usr/bin/env python3\r\n",  # a CRLF script: the kernel would look for "python3\r"
        b"#!\x0b/usr/bin/python3\n",
        b"#!/usr/bin/python3 \x1b[2J\n",
    ],
)
def test_a_control_byte_in_the_line_is_refused_in_one_line(line: bytes) -> None:
    with pytest.raises(HarnessError, match=r"^bot\.py: its #! line holds a control character \(") as caught:
        parse(line, "bot.py")
    assert "\n" not in str(caught.value)


def test_a_shebang_without_an_interpreter_is_refused() -> None:
    with pytest.raises(HarnessError, match="names no interpreter"):
        parse(b"#! \t\n", "run")


@pytest.mark.parametrize(
    ("argument", "program"),
    [
        ("python3", "python3"),
        ("python3 -u", "python3 -u"),  # without -S env looks for a program of that name
        ("-S python3 -u", "python3"),
        ("-Spython3 -u", "python3"),
        ("-S -u /root/rival/bot python3", "python3"),  # -u's value is never the program
        ("-S -i FOO=1 -C /tmp node", "node"),
        ("-S --unset=PATH -- perl -w", "perl"),
        ("-vS python3", "python3"),
        ("-i", None),
        ("-S -u", None),
        (None, None),
    ],
)
def test_env_program_is_what_env_runs(argument: str | None, program: str | None) -> None:
    assert env_program(argument) == program


def test_read_never_opens_a_fifo_and_reads_a_file(tmp_path: Path) -> None:
    fifo = tmp_path / "interpreter"
    os.mkfifo(fifo)
    script = tmp_path / "run"
    script.write_bytes(b"#!/usr/bin/env -S python3 -u\nprint(1)\n")
    with time_limit(10):
        assert read(fifo) is None
        assert read(tmp_path / "missing") is None
        assert read(script) == Shebang("/usr/bin/env", "-S python3 -u")
    script.write_bytes(b"#!/usr/bin/python3\x00\n")
    with pytest.raises(HarnessError, match=f"^{script}: its #! line holds a control character"):
        read(script)
