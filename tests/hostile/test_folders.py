"""Nothing in a bot folder can hang or exhaust the harness: FIFOs, links out of the folder, a flooding build."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from helpers import invoke, one_error, random_bot, time_limit

from harness import sandbox
from harness.bots import shebang
from harness.bots.manifest import folder_digest, load_bot
from harness.errors import HarnessError
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, TableSettings, build_bot, run_match
from harness.sandbox import hiding, resolve_sandbox

HERE = Path(__file__).resolve().parent
BWRAP = shutil.which("bwrap")
MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]


def _fifo_shebang_bot(tmp_path: Path) -> Path:
    folder = tmp_path / "bots" / "fifo"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "interpreter")  # opened for reading, it blocks until someone writes
    run = folder / "run"
    run.write_text(f"#!{folder / 'interpreter'}\n")
    run.chmod(0o755)
    (folder / "bot.toml").write_text('name = "fifo"\nversion = "1"\ncommand = ["./run"]\n')
    return folder


def test_a_fifo_named_by_a_shebang_is_never_opened(tmp_path: Path) -> None:
    folder = _fifo_shebang_bot(tmp_path)
    with time_limit(10):
        assert shebang.read(folder / "interpreter") is None
        # the interpreter is in the bot's folder: the view check passes it (the FIFO is never read)
        sandbox.check_view(load_bot(folder))


@pytest.mark.parametrize("mode", MODES)
def test_a_bot_whose_shebang_names_a_fifo_in_its_folder_is_refused_in_one_line(mode: str, tmp_path: Path) -> None:
    folder = _fifo_shebang_bot(tmp_path)
    other = random_bot(tmp_path / "bots", "r1")
    specs = (load_bot(folder), load_bot(other))
    out = tmp_path / "out"
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({"end_score": 25}),
        clock=Clock(startup=5.0, move=1.0),
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    # a snapshot holds no FIFO: the bot is refused before any game, and nothing blocks
    with time_limit(60), pytest.raises(HarnessError) as caught:
        run_match(MatchConfig(specs, 1, 1, out, settings))
    assert str(caught.value) == "bot 'fifo': 'interpreter' is a FIFO: a bot folder holds files, folders and links only"


def test_the_folder_digest_refuses_what_it_cannot_snapshot_and_never_follows_links(tmp_path: Path) -> None:
    hostile = {
        "pagemap": lambda p: p.symlink_to("/proc/self/pagemap"),  # read, it takes hours
        "zero": lambda p: p.symlink_to("/dev/zero"),  # read, it never ends
        "root": lambda p: p.symlink_to("/"),  # walked, the whole machine
        "pipe": lambda p: os.mkfifo(p),  # opened, it blocks
    }
    for name, make in hostile.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text("print('hi')\n")
        make(folder / name)
        with time_limit(10), pytest.raises(HarnessError, match=f"'{name}' is (a symbolic link out of its folder|a FIFO)"):
            folder_digest(folder)
    folder = tmp_path / "inside"
    folder.mkdir()
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "run").symlink_to("bot.py")
    first = folder_digest(folder)
    assert folder_digest(folder) == first
    (folder / "run").unlink()
    (folder / "run").symlink_to("./bot.py")
    assert folder_digest(folder) != first  # a changed link changes the bot


def test_a_bot_toml_that_is_a_fifo_or_huge_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    os.mkfifo(folder / "bot.toml")
    with time_limit(10), pytest.raises(HarnessError, match=r"bot\.toml"):
        load_bot(folder)
    (folder / "bot.toml").unlink()
    (folder / "bot.toml").write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    with time_limit(10), pytest.raises(HarnessError, match="over 1 MiB"):
        load_bot(folder)


@pytest.mark.parametrize("mode", MODES)
def test_a_build_that_floods_its_folder_is_stopped_with_one_line(mode: str, tmp_path: Path) -> None:
    folder = shutil.copytree(HERE / "bots" / "build_flood", tmp_path / "bots" / "build_flood")
    started = time.monotonic()
    with time_limit(60), pytest.raises(HarnessError) as caught:
        build_bot(load_bot(folder), tmp_path / "logs", wrapper=resolve_sandbox(mode))
    message = str(caught.value)
    assert message.startswith("bot 'build-flood': build wrote over 20 MB into its folder"), message
    assert "\n" not in message and time.monotonic() - started < 60
    assert sorted(p.name for p in folder.iterdir()) == ["bot.py", "bot.toml", "build.py"]  # built on a copy


def test_the_match_command_reports_a_flooding_build_in_one_line(tmp_path: Path) -> None:
    folder = shutil.copytree(HERE / "bots" / "build_flood", tmp_path / "bots" / "build_flood")
    other = random_bot(tmp_path / "bots", "r1")
    result = invoke("match", folder, other, "--games", "1", "--sandbox", "none", "--out", tmp_path / "out")
    one_error(result, "'build-flood'", "build wrote over 20 MB")
