"""Hostile bot folders that aim at the host around the sandbox: environment, paths, files.

Each case builds its bot folder from ``tests/hostile/bots/<name>`` and plays a short
match against a sample bot, with and without bubblewrap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.bots.manifest import load_bot
from harness.errors import HarnessError
from harness.games.llama import LLAMA_GAME
from harness.match import Clock, MatchConfig, MatchResult, TableSettings, run_match
from harness.replay.io import read_replay
from harness.replay.verify import verify
from harness.sandbox import hiding, interpreter_roots, resolve_sandbox

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "bots"
SAMPLES = HERE.parent.parent / "sample_bots"
BWRAP = shutil.which("bwrap")
GCC = shutil.which("gcc") or shutil.which("cc")
PYTHON = os.path.realpath(shutil.which("python3") or "python3")

MODES = [
    "none",
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it"),
    ),
]


def hostile(name: str, dest: Path) -> Path:
    """A copy of the hostile bot folder ``name`` at ``dest``."""
    shutil.copytree(HOSTILE / name, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def play(mode: str, folder: Path, tmp_path: Path, games: int = 2) -> MatchResult:
    """A match of ``games`` between the bot in ``folder`` and sample_bots/random, as `match` runs it."""
    other = tmp_path / "bots" / "random"
    if not other.exists():
        shutil.copytree(SAMPLES / "random", other, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    specs = (load_bot(folder), load_bot(other))
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=10.0, move=2.0),
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    result = run_match(MatchConfig(specs, games, 5, out, settings))
    for replay in result.replays:
        assert verify(read_replay(replay)) is None
    return result


# -- a bot's environment stays inside ----------------------------------------------------


@pytest.mark.skipif(GCC is None, reason="no C compiler (gcc) to build the preloaded library")
@pytest.mark.parametrize("mode", MODES)
def test_ld_preload_from_bot_toml_runs_only_in_the_bots_own_program(mode: str, tmp_path: Path) -> None:
    folder = hostile("ld_preload", tmp_path / "bots" / "ld_preload")
    marker = tmp_path / "loaded-by.txt"
    assert GCC is not None
    subprocess.run(
        [GCC, "-shared", "-fPIC", f'-DMARKER="{marker}"', "-o", str(folder / "evil.so"), str(folder / "evil.c")],
        check=True,
    )
    result = play(mode, folder, tmp_path)
    assert result.games == 2 and not result.faults, result.faults
    loaded = set(marker.read_text().split()) if marker.exists() else set()
    # the wrappers (the cgroup shell, prlimit, env, bwrap) run on the host: never with it
    assert loaded <= {PYTHON}, loaded
    if mode == "none":
        assert loaded == {PYTHON}  # the premise: the library does load, in the bot itself


# -- paths: what a command line can make the sandbox show ---------------------------------


def _site(tmp_path: Path) -> Path:
    """An organiser's folder: bots, the output folder and a private file side by side."""
    site = tmp_path / "site"
    (site / "bots").mkdir(parents=True)
    shutil.copytree(SAMPLES / "random", site / "bots" / "random", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "out").mkdir()
    (site / "private.txt").write_text("not for bots\n")
    return site


def _peek_toml(folder: Path, command: list[str], site: Path) -> None:
    paths = os.pathsep.join(str(site / name) for name in ("out", "bots/random", "private.txt"))
    quoted = ", ".join(f'"{arg}"' for arg in command)
    (folder / "bot.toml").write_text(
        f'name = "peek"\nversion = "1"\ncommand = [{quoted}]\n[env]\nPEEK_PATHS = "{paths}"\n'
    )


def _peeked(log: Path) -> tuple[list[str], list[str], int]:
    """What the peek bot saw: paths, the names in /root, the number of processes."""
    lines = log.read_text().splitlines()
    seen = [line.split(" ", 2)[2] for line in lines if line.startswith("PEEK SEEN ")]
    root = next(json.loads(line[10:]) for line in lines if line.startswith("PEEK ROOT "))
    pids = next(int(line[10:]) for line in lines if line.startswith("PEEK PIDS "))
    return seen, root, pids


def _allowed_in_root(folder: Path, hide: tuple[str, ...]) -> set[str]:
    """The names in /root a bot may see: those holding its interpreter (a pyenv Python)."""
    spec = load_bot(folder)
    roots = [Path(root) for root in interpreter_roots(spec, hide)]
    return {root.relative_to("/root").parts[0] for root in roots if root.is_relative_to("/root")}


def _play_site(mode: str, folder: Path, site: Path) -> MatchResult:
    out = site / "out"
    specs = (load_bot(folder), load_bot(site / "bots" / "random"))
    settings = TableSettings(
        game="llama",
        options=LLAMA_GAME.parse_options({}),
        clock=Clock(startup=10.0, move=2.0),
        logs=out / "logs",
        wrapper=hiding(resolve_sandbox(mode), out, *(spec.folder for spec in specs)),
    )
    return run_match(MatchConfig(specs, 2, 5, out, settings))


def _assert_confined(mode: str, site: Path, folder: Path, log: Path) -> None:
    seen, root, pids = _peeked(log)
    if mode == "none":  # the premise: the bot does look, and without a sandbox it sees
        assert str(site / "out") in seen and str(site / "bots" / "random") in seen
        return
    assert seen == [], seen
    hide = (str(site / "out"), str(site / "bots" / "random"), str(folder))
    assert set(root) <= _allowed_in_root(folder, hide), root
    assert pids <= 4, f"{pids} processes visible: the host's /proc"


@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="no /usr/bin/python3 to name in a shebang")
@pytest.mark.parametrize("mode", MODES)
def test_a_shebang_through_tmp_dotdot_shows_nothing_of_the_host(mode: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    folder = hostile("peek", site / "bots" / "peek")
    script = folder / "bot.py"
    script.write_text("#!/tmp/../usr/bin/python3\n" + script.read_text().split("\n", 1)[1])
    script.chmod(0o755)
    _peek_toml(folder, ["./bot.py"], site)
    result = _play_site(mode, folder, site)
    assert result.games == 2 and not result.faults, result.faults
    _assert_confined(mode, site, folder, site / "out" / "logs" / "peek.stderr.log")


@pytest.mark.parametrize("mode", MODES)
def test_a_symlinked_program_out_of_the_folder_is_judged_and_refused(mode: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    (site / "bin").mkdir()
    program = site / "bin" / "peek"
    shutil.copy(HOSTILE / "peek" / "bot.py", program)
    program.chmod(0o755)
    folder = site / "bots" / "peek"
    folder.mkdir()
    (folder / "run").symlink_to("../../bin/peek")
    _peek_toml(folder, ["./run"], site)
    if mode == "bwrap":
        roots = interpreter_roots(load_bot(folder), (str(site / "out"), str(folder)))
        assert str(site / "bin") in roots and str(site) not in roots
    # and a bot runs from its snapshot, which keeps only links inside the folder: refused
    with pytest.raises(HarnessError, match=r"^bot 'peek': 'run' is a symbolic link out of its folder"):
        _play_site(mode, folder, site)


@pytest.mark.skipif(BWRAP is None, reason="bubblewrap (bwrap) is not installed; CI installs it")
def test_check_bot_hides_what_match_and_league_hide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An interpreter in site/bin shows all of site: check-bot covers its opponents and output."""
    from harness.checkbot import Settings, check_bot

    site = _site(tmp_path)
    python = site / "bin" / "python3"
    python.parent.mkdir()
    python.symlink_to(PYTHON)
    monkeypatch.setenv("PATH", f"{python.parent}:{os.environ['PATH']}")
    folder = hostile("peek", site / "bots" / "peek")
    _peek_toml(folder, ["python3", "bot.py"], site)
    settings = Settings(
        clock=Clock(startup=10.0, move=2.0),
        wrapper=resolve_sandbox("bwrap"),
        opponents=(site / "bots" / "random",),
        games=1,
        out=site / "out",
    )
    checks = list(check_bot(folder, settings))
    assert checks and all(check.ok for check in checks[:2]), [c.line() for c in checks]
    for log in (site / "out" / "logs").glob("peek*.stderr.log"):
        seen, _, _ = _peeked(log)
        assert str(site / "out") not in seen and str(site / "bots" / "random") not in seen, seen
