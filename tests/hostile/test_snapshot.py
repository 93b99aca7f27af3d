"""The attacks a sealed snapshot closes: a swapped .pyc, a build's daemon, a deep folder, a link to a rival, a build filling the disk."""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import sys
import time
from pathlib import Path

import pytest
from helpers import bot_processes, invoke, one_error, random_bot, time_limit

from harness.bots.manifest import load_bot
from harness.bots.snapshot import remove_tree
from harness.errors import HarnessError
from harness.match import build_bot
from harness.sandbox import hiding, resolve_sandbox

BWRAP = shutil.which("bwrap")
MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]
SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "random" / "bot.py"


def _bot(folder: Path, name: str, *, build: list[str] | None = None, extra: str = "") -> Path:
    """A copy of the random sample bot named ``name`` (with a build command)."""
    folder.mkdir(parents=True)
    shutil.copy(SAMPLE_RANDOM, folder / "bot.py")
    lines = [f"name = {json.dumps(name)}", f"command = {json.dumps(['python3', 'bot.py'])}"]
    if build is not None:
        lines.append(f"build = {json.dumps(build)}")
    (folder / "bot.toml").write_text("\n".join(lines) + "\n" + extra)
    return folder


def _match(*args: str | Path) -> list[str | Path]:
    return ["match", *args, "--games", "2", "--move-time", "5", "--startup-time", "30"]


# -- a swapped .pyc ----------------------------------------------------------------


def test_a_swapped_unchecked_pyc_is_another_bot_and_a_resumed_match_refuses_it(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "bots" / "p", "p")
    (folder / "helper.py").write_text("X = 1\n")
    pyc = folder / "__pycache__" / f"helper.{sys.implementation.cache_tag}.pyc"
    source = tmp_path / "helper.py"

    def compile_to_pyc(text: str) -> None:  # same helper.py, another program: an unchecked hash
        source.write_text(text)
        py_compile.compile(str(source), cfile=str(pyc), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)

    compile_to_pyc("X = 1\n")
    other = random_bot(tmp_path / "bots", "r1")
    out = tmp_path / "out"
    first = invoke(*_match(folder, other, "--sandbox", "none", "--out", out))
    assert first.exit_code == 0, first.output
    compile_to_pyc("import os\nos._exit(3)\n")
    again = invoke(*_match(folder, other, "--sandbox", "none", "--out", out))
    one_error(again, "holds a match of another version of bot 'p'")


# -- a daemon left by the build ----------------------------------------------------

# Waits until the build is over, then rewrites bot.py where the build ran and in the
# organiser's folder (ORIG), for a few seconds; its pid goes to PIDS (when it can see it).
_DAEMON = r"""
( setsid sh -c 'echo $$ > "$PIDS/daemon.pid" 2>/dev/null; sleep 0.3;
  i=0; while [ $i -lt 100 ]; do
    printf "import os\nos._exit(3)\n" > bot.py 2>/dev/null
    printf "import os\nos._exit(3)\n" > "$ORIG/bot.py" 2>/dev/null
    sleep 0.05; i=$((i+1)); done' & )
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_daemon_left_by_the_build_dies_before_the_snapshot_and_never_changes_what_runs(
    mode: str, tmp_path: Path
) -> None:
    bots = tmp_path / "bots"
    pids = tmp_path / "pids"
    pids.mkdir()
    folder = bots / "d"
    env = f'[env]\nORIG = "{folder}"\nPIDS = "{pids}"\n'
    _bot(folder, "d", build=["sh", "-c", _DAEMON], extra=env)
    original = (folder / "bot.py").read_bytes()
    other = random_bot(bots, "r1")
    out = tmp_path / "out"
    with time_limit(300):
        result = invoke(*_match(folder, other, "--sandbox", mode, "--out", out))
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["faults"] == []  # every start ran the program that was measured
    time.sleep(1.0)  # a live daemon would have rewritten the organiser's bot.py by now
    assert (folder / "bot.py").read_bytes() == original
    assert not bot_processes(bots)
    snapshot = next(p for p in (out / "bots").iterdir() if not p.name.startswith(".") and p.is_dir())
    assert (snapshot / "bot.py").read_bytes() == original
    if (pids / "daemon.pid").exists():  # without bubblewrap the daemon could write it
        pid = int((pids / "daemon.pid").read_text())
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3]


# -- a folder 1200 levels deep -----------------------------------------------------


def _deep(folder: Path, levels: int) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("a", dir_fd=fd)
            deeper = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)


def test_a_folder_1200_levels_deep_is_one_line_for_match_league_and_check_bot(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "bots" / "deep", "deep")
    _deep(folder, 1200)
    other = random_bot(tmp_path / "bots", "r1")
    needle = "bot 'deep': its folder is over 64 levels deep"
    try:
        with time_limit(120):
            one_error(invoke(*_match(folder, other, "--sandbox", "none", "--out", tmp_path / "m")), needle)
            one_error(
                invoke("league", tmp_path / "bots", "--games", "2", "--sandbox", "none", "--out", tmp_path / "l"),
                needle,
            )
            checked = invoke("check-bot", folder, "--sandbox", "none")
    finally:
        remove_tree(folder)  # pytest's own clean-up recurses
    assert checked.exit_code != 0 and needle in checked.output and "Traceback" not in checked.output


@pytest.mark.parametrize("mode", MODES)
def test_a_build_that_makes_a_folder_1200_levels_deep_is_one_line(mode: str, tmp_path: Path) -> None:
    make = (
        "import os\nfd = os.open('.', os.O_RDONLY)\nfor _ in range(1200):\n    os.mkdir('a', dir_fd=fd)\n"
        "    deeper = os.open('a', os.O_RDONLY, dir_fd=fd)\n    os.close(fd)\n    fd = deeper\n"
    )
    folder = _bot(tmp_path / "bots" / "deep", "deep", build=["python3", "-c", make])
    with time_limit(120), pytest.raises(HarnessError) as caught:
        build_bot(load_bot(folder), tmp_path / "logs", wrapper=resolve_sandbox(mode))
    assert str(caught.value).startswith("bot 'deep': its folder is over 64 levels deep"), caught.value


# -- a symlink to a rival ----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_command_linked_to_a_rivals_program_is_refused(mode: str, tmp_path: Path) -> None:
    rival = random_bot(tmp_path / "bots", "r1")
    (rival / "bot.py").chmod(0o755)
    folder = tmp_path / "bots" / "a"
    folder.mkdir()
    (folder / "rival").symlink_to("../r1/bot.py")
    (folder / "bot.toml").write_text('name = "a"\ncommand = ["./rival"]\n')
    result = invoke(*_match(folder, rival, "--sandbox", mode, "--out", tmp_path / "out"))
    if mode == "bwrap":  # the view's check comes first: the link's target is not in the sandbox
        one_error(result, "bot 'a': its command ./rival is ")
    else:
        one_error(result, "bot 'a': 'rival' is a symbolic link out of its folder (-> '../r1/bot.py')")
    assert not (tmp_path / "out" / "league.db").exists()  # refused before any game


# -- a build filling the disk ------------------------------------------------------

_UNLINKED = (
    "import os\nf = open('junk', 'wb')\nos.unlink('junk')\n"
    "for _ in range(300):\n    f.write(b'x' * (1 << 20))\n    f.flush()\n"
)


@pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it")
def test_a_build_writing_to_an_unlinked_file_is_stopped_by_its_build_space(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "bots" / "u", "u", build=["python3", "-c", _UNLINKED], extra="[limits]\nbuild_mb = 20\n")
    wrapper = hiding(resolve_sandbox("bwrap"), tmp_path / "logs")
    with time_limit(120), pytest.raises(HarnessError) as caught:
        build_bot(load_bot(folder), tmp_path / "logs", wrapper=wrapper)
    assert str(caught.value).startswith("bot 'u': build wrote over 20 MB into its folder"), caught.value


@pytest.mark.parametrize("mode", MODES)
def test_a_build_making_many_empty_files_is_refused_at_the_cap(mode: str, tmp_path: Path) -> None:
    make = "for i in range(25000):\n    open(f'e{i}', 'w').close()\n"
    folder = _bot(tmp_path / "bots" / "e", "e", build=["python3", "-c", make])
    with time_limit(300), pytest.raises(HarnessError) as caught:
        build_bot(load_bot(folder), tmp_path / "logs", wrapper=resolve_sandbox(mode))
    assert str(caught.value).startswith("bot 'e': its folder holds over 20000 files"), caught.value
    assert sorted(p.name for p in folder.iterdir()) == ["bot.py", "bot.toml"]  # never in the organiser's folder
