"""The sandbox's own protocol: what the table layer, the builds and the league may ask of a wrapper."""

from __future__ import annotations

from pathlib import Path

from harness.bots.manifest import load_bot
from harness.match import Wrapper as TableWrapper
from harness.sandbox import Bubblewrap, Limited
from harness.sandbox_types import Sandbox, Wrapper

ROOT = Path(__file__).resolve().parents[2]


def test_the_harness_sandboxes_are_sandboxes_and_a_callers_wrapper_is_not(tmp_path: Path) -> None:
    limited = Limited("/usr/bin/prlimit", (("memory_mb", 256),))
    bubblewrap = Bubblewrap("/usr/bin/bwrap", "/usr/bin/prlimit", (("memory_mb", 256),))
    assert isinstance(limited, Sandbox) and isinstance(bubblewrap, Sandbox)
    assert limited.limits == bubblewrap.limits == (("memory_mb", 256),)

    def own(spec: object, tmp: Path) -> list[str]:
        return []

    assert not isinstance(own, Sandbox)  # a build then runs in a copy under its prefix
    # without a view of its own, Limited builds in a copy of the folder too
    bot = load_bot(ROOT / "sample_bots" / "random")
    assert limited.for_build(bot, tmp_path) is None


def test_the_table_layer_names_the_sandboxs_wrapper() -> None:
    assert TableWrapper is Wrapper  # from harness.match import Wrapper keeps working
