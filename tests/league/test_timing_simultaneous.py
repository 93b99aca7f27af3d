"""Per-bot timing in a simultaneous game: every seat's move and time-out is counted, as in a sequential one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import REPO

from league.conftest import cli, replay_move_times


def ll_bot(root: Path, name: str, hang_at: int | None = None) -> Path:
    """The Llama Llama random sample bot as ``name``; ``hang_at``: the turn it never answers."""
    folder = root / name
    shutil.copytree(REPO / "sample_bots" / "llama_llama_random", folder)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0"\ncommand = ["python3", "bot.py"]\ngames = ["llama-llama"]\n'
    )
    if hang_at is not None:
        script = folder / "bot.py"
        text = script.read_text()
        hang = f'if msg["id"] == {hang_at}:\n                import time; time.sleep(60)\n            reply = {{"type": "action"'
        text = text.replace('reply = {"type": "action"', hang, 1)
        assert "time.sleep(60)" in text
        script.write_text(text)
    return folder


@pytest.mark.slow
def test_a_simultaneous_games_moves_and_time_outs_are_counted_for_every_bot(tmp_path: Path) -> None:
    bots = [ll_bot(tmp_path, "a"), ll_bot(tmp_path, "b"), ll_bot(tmp_path, "slowpoke", hang_at=2)]
    out = tmp_path / "out"
    args = ["--game", "llama-llama", "-n", "3", "--move-time", "0.5", "--out", out, "--sandbox", "none"]
    cli("match", *bots, *args, timeout=180)

    times = replay_move_times(out)

    timing = {bot["name"]: bot["timing"] for bot in json.loads(cli("ratings", out, "--format", "json").stdout)["bots"]}
    for name in ("a", "b", "slowpoke"):
        assert timing[name]["moves"] == len(times[name]) > 0, name
        assert timing[name]["move_ms"]["max"] == max(times[name]), name
    assert timing["a"]["timeouts"] == timing["b"]["timeouts"] == 0
    assert timing["slowpoke"]["timeouts"] == 3  # restarted after each, it hangs at every game's second turn
