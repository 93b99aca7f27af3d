"""A league on a Dask cluster over TLS: certificates on the command line, one-line refusals without them.

A scheduler without TLS lets anyone who reaches it run code on the workers
(``client.run``); over ``tls://`` only holders of a certificate the CA signed connect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from league.conftest import cli, db_rows, standings

ARGS = ["--games", "24", "--table-size", "3", "--seed", "11", "--sandbox", "none"]


def _pem_files(security: Any, folder: Path) -> dict[str, Path]:
    """The certificate set as files, as an organiser keeps them (the CLI takes file names)."""
    folder.mkdir()
    files = {"ca": security.tls_ca_file, "cert": security.tls_client_cert, "key": security.tls_client_key}
    paths = {}
    for name, text in files.items():
        paths[name] = folder / f"{name}.pem"
        paths[name].write_text(text)
        paths[name].chmod(0o600)
    return paths


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Path]]]:
    """A LocalCluster (two worker processes) that speaks TLS only, and its client certificate files."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    pytest.importorskip(
        "cryptography", reason="cryptography is not installed: Security.temporary() needs it to make certificates"
    )
    from distributed import LocalCluster
    from distributed.security import Security

    security = Security.temporary()  # one self-signed certificate for every role
    files = _pem_files(security, tmp_path_factory.mktemp("tls") / "certs")
    with LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, protocol="tls://", security=security
    ) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        yield cluster.scheduler_address, files


def _tls(files: dict[str, Path]) -> list[str | Path]:
    return ["--tls-ca-file", files["ca"], "--tls-cert", files["cert"], "--tls-key", files["key"]]


def test_a_league_over_tls_equals_the_local_league(
    tmp_path: Path, bots: Callable[[list[str]], Path], tls_cluster: tuple[str, dict[str, Path]]
) -> None:
    address, files = tls_cluster
    folder = bots(["a", "b", "c"])
    local, remote = tmp_path / "local", tmp_path / "tls"
    cli("league", folder, "--out", local, "--jobs", "2", *ARGS, timeout=600)
    done = cli("league", folder, "--out", remote, "--cluster", address, *_tls(files), *ARGS, timeout=600)
    assert f"on the Dask cluster at {address}" in done.stderr
    assert "without TLS" not in done.stderr
    assert db_rows(remote, "SELECT count(*) FROM results") == [(24,)]
    assert standings(remote) == standings(local)  # the same seeds, on the workers as locally


def test_a_client_without_the_certificates_is_refused_in_one_line(
    tmp_path: Path, bots: Callable[[list[str]], Path], tls_cluster: tuple[str, dict[str, Path]]
) -> None:
    from distributed import Client
    from distributed.security import Security

    address, _ = tls_cluster
    folder = bots(["a", "b", "c"])
    bare = cli("league", folder, "--out", tmp_path / "bare", "--cluster", address, *ARGS, check=False)
    assert bare.returncode == 2 and bare.stderr.strip().splitlines() == [
        f"error: --cluster {address}: TLS needs the client's certificates: --tls-ca-file, --tls-cert and "
        "--tls-key (or Dask's distributed.comm.tls config)"
    ], bare.stderr
    assert not (tmp_path / "bare").exists()  # refused before any bot is built or file written
    # another CA's certificate: the scheduler does not let it in
    other = _pem_files(Security.temporary(), tmp_path / "other")
    wrong = cli("league", folder, "--out", tmp_path / "wrong", "--cluster", address, *_tls(other), *ARGS, check=False)
    errors = [line for line in wrong.stderr.splitlines() if line.startswith("error: ")]
    assert wrong.returncode == 2 and len(errors) == 1 and "cannot reach the Dask scheduler" in errors[0], wrong.stderr
    assert "Traceback" not in wrong.stderr
    assert db_rows(tmp_path / "wrong", "SELECT count(*) FROM results") == [(0,)]
    # nor does a plain client, which could otherwise run code on the workers (client.run)
    with pytest.raises((OSError, TimeoutError, TypeError)):
        Client(address, timeout="5s")


def test_certificates_need_a_tls_cluster_and_a_plain_cluster_is_warned_about(
    tmp_path: Path, bots: Callable[[list[str]], Path]
) -> None:
    folder = bots(["a", "b", "c"])
    cert = tmp_path / "cert.pem"
    cert.write_text("not read: refused first\n")
    plain = cli("league", folder, "--out", tmp_path / "o", "--cluster", "tcp://127.0.0.1:1", "--tls-cert", cert, check=False)
    assert plain.returncode == 2 and plain.stderr.strip().splitlines() == [
        "error: --tls-cert: --cluster 'tcp://127.0.0.1:1' does not use TLS; give it as tls://HOST:PORT"
    ]
    local = cli("league", folder, "--out", tmp_path / "o", "--tls-cert", cert, check=False)
    assert local.returncode == 2 and "TLS certificates need a --cluster tls://HOST:PORT" in local.stderr
    # a plain scheduler: the league says what it exposes, then (here) cannot reach it
    unreachable = cli("league", folder, "--out", tmp_path / "o", "--cluster", "tcp://127.0.0.1:1", *ARGS, check=False)
    lines = unreachable.stderr.strip().splitlines()
    assert lines[0].startswith("warning: --cluster tcp://127.0.0.1:1: without TLS, anyone who reaches the scheduler can run code on its workers")
    assert unreachable.returncode == 2 and lines[-1].startswith("error: --cluster 'tcp://127.0.0.1:1': cannot reach")
