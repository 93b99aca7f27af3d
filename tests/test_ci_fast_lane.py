"""The fast lane (``-m "not slow"``): the cases conftest.py marks slow by name exist and are marked."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from helpers import REPO, scaled


def _slow_cases() -> frozenset[str]:
    # by path: ``import conftest`` finds whichever conftest.py comes first on sys.path (tests/html's)
    spec = importlib.util.spec_from_file_location("llama_tests_conftest", Path(__file__).with_name("conftest.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases: frozenset[str] = module._SLOW_CASES
    return cases


_SLOW_CASES = _slow_cases()


def test_every_case_marked_slow_by_name_is_collected_as_slow() -> None:
    # a renamed test or parameter would silently fall back into the fast lane
    files = sorted({case.split("::")[0] for case in _SLOW_CASES})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "slow", *files],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=scaled(300),
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    collected = set(done.stdout.split())
    assert sorted(_SLOW_CASES - collected) == []
