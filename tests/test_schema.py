"""The published JSON Schemas in schemas/ match the models, and --check catches a stale file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.schema import render, schemas

REPO_SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
NAMES = sorted(schemas())


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["schema", *args])
    return result.exit_code, result.output


def test_repo_schemas_are_up_to_date() -> None:
    code, output = run("--check", "--dir", str(REPO_SCHEMAS))
    assert code == 0, output
    assert "up to date" in output
    assert sorted(p.name for p in REPO_SCHEMAS.glob("*.json")) == NAMES


def test_schemas_are_valid_json_with_titles() -> None:
    for name in NAMES:
        data = json.loads((REPO_SCHEMAS / name).read_text())
        assert data["$schema"].startswith("https://json-schema.org/")
        assert data["title"] and data["description"]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    folder = tmp_path / "schemas"
    shutil.copytree(REPO_SCHEMAS, folder)
    return folder


@pytest.mark.parametrize("name", NAMES)
def test_check_names_a_modified_file(copy: Path, name: str) -> None:
    path = copy / name
    path.write_text(path.read_text().replace('"title"', '"title "', 1))
    code, output = run("--check", "--dir", str(copy))
    assert code == 1
    assert f"stale schemas: {name} " in output
    named = output.split("stale schemas: ", 1)[1].split(" (")[0].split(", ")
    assert named == [name]  # and no other file


def test_check_names_a_missing_file(copy: Path) -> None:
    (copy / NAMES[0]).unlink()
    code, output = run("--check", "--dir", str(copy))
    assert code == 1 and NAMES[0] in output


def test_writing_reproduces_the_repo_files(tmp_path: Path) -> None:
    code, output = run("--dir", str(tmp_path / "out"))
    assert code == 0 and output.count("wrote ") == len(NAMES)
    for name in NAMES:
        assert (tmp_path / "out" / name).read_text() == (REPO_SCHEMAS / name).read_text()
        assert (REPO_SCHEMAS / name).read_text() == render(schemas()[name])
