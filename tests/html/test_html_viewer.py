"""The replay viewer page without a browser: self-contained, data embedded intact, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.games.llama.records import RECORD, FaultRecord
from harness.html.page import CSP, embed_json
from harness.html.viewer import render_viewer, write_viewer
from harness.replay.io import read_replay

DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


def embedded(page: str) -> dict[str, object]:
    match = DATA.search(page)
    assert match is not None
    data: dict[str, object] = json.loads(match.group(1))
    return data


def test_page_needs_no_network(replays: list[Path]) -> None:
    page = render_viewer(read_replay(replays[0]))
    assert not re.search(r"https?://", page, re.I)
    assert not re.search(r"<[a-z][^>]*\s(src|srcset|action|poster)\s*=", page, re.I)  # no fetched element
    assert not re.search(r"@import|url\((?!#)", page, re.I)  # only url(#fragment) references
    assert f'content="{CSP}"' in page
    assert "default-src 'none'" in CSP


def test_embedded_records_round_trip(replays: list[Path]) -> None:
    for replay in replays:
        records = read_replay(replay)
        data = embedded(render_viewer(records))
        assert data["format"] == 1 and data["seat"] is None
        assert isinstance(data["records"], list)
        assert [RECORD.validate_python(r) for r in data["records"]] == records


def test_hostile_text_cannot_end_the_script(replays: list[Path]) -> None:
    records = read_replay(replays[0])
    nasty = "</script><script>alert(1)</script><!-- \u2028 & <b>"
    records.insert(2, FaultRecord(type="fault", seat=0, kind="crash", detail=nasty, stderr=nasty))
    page = render_viewer(records)
    assert page.count("</script>") == 2  # the data element and the viewer script, nothing else
    assert embedded(page)["records"][2]["detail"] == nasty  # type: ignore[index]
    assert json.loads(embed_json({"x": nasty})) == {"x": nasty}


def test_seat_view_is_remembered(replays: list[Path]) -> None:
    records = read_replay(replays[0])
    assert embedded(render_viewer(records, seat=1))["seat"] == 1
    with pytest.raises(ValueError, match="seat 3"):
        render_viewer(records, seat=3)
    with pytest.raises(ValueError, match="header"):
        render_viewer(records[1:])


def test_page_names_the_players(replays: list[Path]) -> None:
    page = render_viewer(read_replay(replays[0]))
    for name in ("random", "twin", "illegal"):
        assert name in page
    assert '<symbol id="llama"' in page


def test_replay_html_command(replays: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "deep" / "game.html"
    result = CliRunner().invoke(main, ["replay", str(replays[0]), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert not out.with_name("game.html.part").exists()
    result = CliRunner().invoke(main, ["replay", str(replays[0]), "--html", str(out), "--seat", "2"])
    assert result.exit_code == 0 and embedded(out.read_text(encoding="utf-8"))["seat"] == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "5"], "seat 5: the game has seats 0-2"),
        ([], None),
    ],
)
def test_replay_html_errors(replays: list[Path], tmp_path: Path, args: list[str], message: str | None) -> None:
    target = replays[0] if message else tmp_path / "missing.jsonl"
    result = CliRunner().invoke(main, ["replay", str(target), "--html", str(tmp_path / "x.html"), *args])
    assert result.exit_code == 2
    assert result.output.startswith("error: ")
    assert (message or "cannot open replay") in result.output
    assert not (tmp_path / "x.html").exists()


def test_write_viewer_reads_gzip(replays: list[Path], tmp_path: Path) -> None:
    import gzip

    packed = tmp_path / "game.jsonl.gz"
    packed.write_bytes(gzip.compress(replays[1].read_bytes()))
    page = write_viewer(packed, tmp_path / "g.html").read_text(encoding="utf-8")
    assert embedded(page)["records"] == [r.model_dump(mode="json") for r in read_replay(replays[1])]


def test_replay_html_refuses_a_tampered_replay(replays: list[Path], tmp_path: Path) -> None:
    lines = replays[0].read_text().splitlines()
    first = json.loads(lines[1])
    first["discard"] = first["discard"] % 7 + 1  # not the card the seed deals
    lines[1] = json.dumps(first)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["replay", str(bad), "--html", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "does not verify" in result.output
    assert not (tmp_path / "x.html").exists()
