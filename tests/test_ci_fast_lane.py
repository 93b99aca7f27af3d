"""The fast lane (``-m "not slow"``): the cases conftest.py marks slow by name exist and are marked."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO, SLOW_CASES, scaled


def test_every_case_marked_slow_by_name_is_collected_as_slow() -> None:
    # a renamed test or parameter would silently fall back into the fast lane
    files = sorted({case.split("::")[0] for case in SLOW_CASES})
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
    assert sorted(SLOW_CASES - collected) == []
