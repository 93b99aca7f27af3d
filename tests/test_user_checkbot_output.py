"""check-bot's output for a bot author: the end of a crashed bot's stderr, where its log is, short lines.

* a crash shows the last 15 lines of the bot's stderr (not only the last one), and
  the path of its full log, which is kept after the run;
* the time-out's flush advice appears only when the bot wrote nothing: a reply
  without its newline is told to end the line;
* a line never lists 35 legal choices: it names the first few and how many more.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from click.testing import CliRunner
from helpers import BOT_PYTHON

from harness.checkbot import Settings, check_bot
from harness.checkbot_text import FLUSH_HINT, LEGAL_SHOWN, explain, legal_text
from harness.cli import main
from harness.errors import BotTimeout
from harness.match import Clock
from harness.sandbox import resolve_sandbox

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots"

CHATTY_CRASH = """
import json, sys
for n in range(1, 21):
    print(f"trace line {n}", file=sys.stderr)
sys.stderr.flush()
sys.exit(3)
"""

NO_NEWLINE = """
import json, os, sys
marker = os.path.join(os.environ["TMPDIR"], "answered")  # its temp folder outlives a restart
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "name": "nonl", "version": "1"}) + "\\n")
    elif msg["type"] == "turn":
        end = "\\n" if os.path.exists(marker) else ""  # the first turn's reply lacks its newline
        open(marker, "w").close()
        sys.stdout.write(json.dumps({"type": "action", "id": msg["id"], "action": "quit"}) + end)
    sys.stdout.flush()
"""


def _bot(folder: Path, name: str, source: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\ncommand = ["{BOT_PYTHON}", "bot.py"]\n')
    return folder


def test_a_crashed_bot_shows_the_last_15_lines_of_its_stderr_and_where_the_full_log_is(tmp_path: Path) -> None:
    folder = _bot(tmp_path / "chatty", "chatty", CHATTY_CRASH)
    result = CliRunner().invoke(main, ["check-bot", str(folder), "-n", "1", "--sandbox", "none"])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("FAIL handshake: crash: "))
    head = lines[at]
    assert "exited with status 3" in head, head
    found = re.search(r"its stderr ends with \(full log: (\S+)\):$", head)
    assert found, head
    shown = lines[at + 1 : at + 16]
    assert shown == [f"    | trace line {n}" for n in range(6, 21)], lines[at : at + 17]
    assert lines[at + 16].startswith("FAIL position: ")  # 15 lines, no more
    log = Path(found.group(1))
    assert log.is_file(), f"the log the line names is gone: {log}"  # kept after the run
    assert log.read_text().splitlines() == [f"trace line {n}" for n in range(1, 21)]
    kept = log.parent.parent
    assert not (kept / "bots").exists()  # the snapshots are not kept, only logs
    shutil.rmtree(kept)


def test_the_flush_advice_is_only_for_a_bot_that_wrote_nothing(tmp_path: Path) -> None:
    settings = Settings(clock=Clock(startup=30.0, move=1.0), wrapper=resolve_sandbox("none"), opponents=(SAMPLES / "random",), games=1)
    checks = {c.name: c for c in check_bot(_bot(tmp_path / "nonl", "nonl", NO_NEWLINE), settings)}
    first = checks["position: first turn"]
    assert not first.ok and first.reason.startswith("timeout: "), first.line()
    assert "bytes but no newline: end each reply with a newline, then flush stdout" in first.reason, first.reason
    assert "write one line per reply and flush stdout after it" not in first.reason
    # wrote nothing (what the session says of the hang bot, tests/test_checkbot.py): the advice stays
    silent = BotTimeout(f"no reply within the 1.00 s move limit, nor 1.00 s later: {FLUSH_HINT}")
    told = explain(silent, "", Path("logs/x.check.stderr.log"), partial=0)
    assert told.endswith(f"{FLUSH_HINT}; it wrote nothing to stderr (log: logs/x.check.stderr.log)"), told


def test_a_line_names_a_few_legal_choices_and_how_many_more(tmp_path: Path, own_temp_root: Path) -> None:
    choices = [f"play {n}" for n in range(35)]
    assert legal_text(choices) == ", ".join(choices[:LEGAL_SHOWN]) + f" and {35 - LEGAL_SHOWN} more"
    assert legal_text(choices[:LEGAL_SHOWN]) == ", ".join(choices[:LEGAL_SHOWN])
    settings = Settings(
        clock=Clock(startup=30.0, move=5.0),
        wrapper=resolve_sandbox("none"),
        opponents=(SAMPLES / "llama_llama_random",),
        games=1,
        game="llama-llama",
    )
    checks = list(check_bot(SAMPLES / "llama_llama_random", settings))
    widest = max((c for c in checks if c.name.startswith("position: ")), key=lambda c: len(c.reason))
    assert widest.ok and widest.reason.endswith(f" and {35 - LEGAL_SHOWN} more"), widest.line()
    assert all(len(c.line()) < 400 for c in checks if "\n" not in c.reason), [c.line() for c in checks]
    assert all(c.ok for c in checks) and list(own_temp_root.glob("llama-check-*")) == []  # all passed: nothing kept
