"""The golden replay: the same seed and fake players give the same bytes, and it verifies."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from harness.replay.io import read_replay
from harness.replay.verify import verify

HERE = Path(__file__).resolve().parent


def _regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_llama_regen_golden", HERE / "regen_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGEN = _regen()


def test_golden_replay_is_reproduced(tmp_path: Path) -> None:
    fresh = REGEN.write(tmp_path / REGEN.GOLDEN.name)
    golden = REGEN.GOLDEN.read_text()
    assert fresh.read_text() == golden, "rules or replay output changed: see tests/replay/regen_golden.py"


def test_golden_replay_verifies_and_covers_the_format() -> None:
    records = read_replay(REGEN.GOLDEN)
    assert verify(records) is None
    kinds = {r.type for r in records}
    assert kinds == {"header", "round_start", "action", "fault", "round_end", "game_end"}
    actions = {(r.action, r.forced) for r in records if r.type == "action"}
    assert {("play", False), ("draw", False), ("quit", False), ("quit", True)} <= actions
