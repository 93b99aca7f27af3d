"""Protocol v1 byte for byte: what a L.L.A.M.A. bot receives over seeded matches never changes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from helpers import time_limit

HERE = Path(__file__).resolve().parent / "wire"


def _regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_llama_wire_regen", HERE / "regen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGEN = _regen()


def test_every_byte_a_llama_bot_receives_is_unchanged(tmp_path: Path) -> None:
    with time_limit(120):
        fresh = REGEN.record(tmp_path)
    golden = REGEN.GOLDEN.read_text(encoding="utf-8")
    if fresh != golden:  # name the first line that differs, not a 300 kB diff
        for number, (got, want) in enumerate(zip(fresh.splitlines(), golden.splitlines(), strict=False), 1):
            assert got == want, f"{REGEN.GOLDEN.name}:{number} differs"
    assert fresh == golden


def test_the_golden_matches_cover_the_protocol() -> None:
    text = REGEN.GOLDEN.read_text(encoding="utf-8")
    for kind in ("hello", "game_start", "round_start", "turn", "round_end", "game_end", "shutdown"):
        assert f'<< {{"type":"{kind}"' in text, kind
    # the cheating bot faulted and was restarted: a second hello in its log
    rec2 = text.split("bot rec2\n", 1)[1].split("## match", 1)[0]
    assert rec2.count('{"type":"hello"') == 2
