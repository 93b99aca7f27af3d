"""The docs and code stand on their own: no file or label that exists only outside the repository.

They cite the published rules in their own words; a reader of the repository cannot
open a rules summary, a source-text folder or an issue tracker's numbers, so naming
them explains nothing. And the two places that state how long the default league
takes agree.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("harness", "docs", "tests", "sample_bots", "bench", "README.md")
SUFFIXES = {".py", ".md", ".toml", ".js", ".c", ".txt", ".css", ".html", ".json", ".ini"}
# the file names as written (docs/rules.md is the repository's own); labels in any case
OUTSIDE = re.compile(
    r"RULES\.md|LLAMA-LLAMA\.md|STYLE\.md|TEAM\.md|SPEC-game|\bseeds/"
    r"|(?i:\bseeds? 0\d\d\b|\bissue #?\d+|\(issue\b)"
)


def _files() -> list[Path]:
    found = []
    for name in SCANNED:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in candidates:
            if file.is_file() and file.suffix in SUFFIXES and "__pycache__" not in file.parts:
                found.append(file)
    return [file for file in found if file != Path(__file__).resolve()]


def test_no_reference_to_files_or_labels_outside_the_repository() -> None:
    files = _files()
    assert len(files) > 100
    hits = []
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{file.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert hits == []


def test_the_readme_and_the_league_guide_give_the_same_league_time() -> None:
    def seconds(text: str) -> set[str]:
        flat = " ".join(text.split())
        return set(re.findall(r"league sample_bots`? (?:take )?about (\d+) s", flat))

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("## ", 1)[0]
    quick_figure = set(re.findall(r"about (\d+) s", " ".join(quick.split())))
    guide = seconds((ROOT / "docs" / "league.md").read_text(encoding="utf-8"))
    assert quick_figure and guide and quick_figure == guide
