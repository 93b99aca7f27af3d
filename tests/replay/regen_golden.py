"""Regenerate the golden replay: ``python tests/replay/regen_golden.py``.

Run it only after an intended change of the rules, the deal or the replay format, and
review the diff of ``tests/replay/golden/`` before committing it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "llama-3p-seed7.jsonl"
# three seats, the last_play rule, and a seat that faults on its 3rd turn (forced quits)
GAME = {"players": 3, "seed": 7, "options": {"next_starter": "last_play"}, "faults": {2: 3}}


def _helpers() -> ModuleType:
    # loaded by path: pytest may hold another "conftest" module in sys.modules
    spec = importlib.util.spec_from_file_location("_llama_tests_conftest", HERE.parent / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: Path) -> Path:
    """Play the golden game with the fake players and write its replay to ``path``."""
    _helpers().play_fake_game(path, **GAME)
    return path


if __name__ == "__main__":
    print(f"wrote {write(GOLDEN)}", file=sys.stderr)
