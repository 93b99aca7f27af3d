"""TLS to a Dask cluster: the league's client certificates, and the warning for a plain one.

Whoever reaches a Dask scheduler can submit work to it: ``client.run`` runs any code on
every worker (as the user the workers run as: the bots' folders, the league folder), and
the pending tasks show each game's deal seed before it is played. With TLS and
certificates only their holders connect. The league's client reads its certificates
from Dask's config (``distributed.comm.tls.*``, e.g. ``DASK_DISTRIBUTED__COMM__TLS__CA_FILE``);
the ``league`` command's ``--tls-*`` options set that config for its own process.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from harness.errors import HarnessError


def _dask_config() -> Any:
    """Dask's config module, with distributed's defaults loaded (Any-typed: no type hints)."""
    try:
        importlib.import_module("distributed")
        return importlib.import_module("dask.config")
    except ImportError:
        raise HarnessError(
            "--cluster needs dask: pip install 'llama-harness[dask]' (on every worker too)"
        ) from None


def use_tls(cluster: str | None, ca_file: Path | None, cert: Path | None, key: Path | None) -> str | None:
    """Set up the client side of TLS for ``cluster``; return a warning for a cluster without TLS.

    Raises HarnessError for certificates without a ``tls://`` cluster, for half a
    certificate set (a CA without a certificate, or the reverse), or for a ``tls://``
    cluster without any certificate (the options' or Dask's config).
    """
    given = {"--tls-ca-file": ca_file, "--tls-cert": cert, "--tls-key": key}
    named = [option for option, path in given.items() if path is not None]
    if cluster is None:
        if named:
            raise HarnessError(f"{named[0]}: TLS certificates need a --cluster tls://HOST:PORT")
        return None
    secure = cluster.startswith("tls://")
    if named and not secure:
        raise HarnessError(f"{named[0]}: --cluster {cluster!r} does not use TLS; give it as tls://HOST:PORT")
    if not secure:
        return (
            f"warning: --cluster {cluster}: without TLS, anyone who reaches the scheduler can run "
            "code on its workers and read the deals of the games to come; see docs/league.md (Dask over TLS)"
        )
    config = _dask_config()
    if named:
        if ca_file is None or cert is None:
            raise HarnessError(
                f"{named[0]}: TLS to the cluster needs both --tls-ca-file and --tls-cert (and --tls-key "
                "unless the certificate file holds the key)"
            )
        settings = {"ca-file": str(ca_file), "client.cert": str(cert)}
        if key is not None:
            settings["client.key"] = str(key)
        config.set({f"distributed.comm.tls.{name}": value for name, value in settings.items()})
    tls = config.get("distributed.comm.tls", default={}) or {}
    if not tls.get("ca-file") or not (tls.get("client") or {}).get("cert"):
        raise HarnessError(
            f"--cluster {cluster}: TLS needs the client's certificates: --tls-ca-file, --tls-cert and "
            "--tls-key (or Dask's distributed.comm.tls config)"
        )
    return None


__all__ = ["use_tls"]
