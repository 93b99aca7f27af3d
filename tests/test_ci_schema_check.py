"""``schema --check`` outside a checkout: a missing folder or file is named as missing, never "stale"."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import invoke, one_error

from harness.schema import schemas

REPO_SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
NAMES = sorted(schemas())


def test_a_missing_schemas_folder_is_one_error_line(tmp_path: Path) -> None:
    gone = tmp_path / "schemas"
    line = one_error(invoke("schema", "--check", "--dir", gone), str(gone), "no such folder", "--dir")
    assert "stale" not in line
    assert not gone.exists()  # checking writes nothing


def test_a_file_where_the_folder_should_be_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "schemas"
    path.write_text("not a folder\n")
    one_error(invoke("schema", "--check", "--dir", path), str(path), "not a folder")


def test_missing_and_stale_files_are_told_apart(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    shutil.copytree(REPO_SCHEMAS, folder)
    (folder / NAMES[0]).unlink()
    changed = folder / NAMES[1]
    changed.write_text(changed.read_text().replace('"title"', '"title "', 1))
    result = invoke("schema", "--check", "--dir", folder)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"{folder}: missing schemas: {NAMES[0]}; stale schemas: {NAMES[1]} (run: llama-harness schema)"
    ]
    # writing them makes the check pass
    assert invoke("schema", "--dir", folder).exit_code == 0
    assert invoke("schema", "--check", "--dir", folder).exit_code == 0
