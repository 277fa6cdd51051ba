"""``--executor dask`` without ``--scheduler`` starts a ``distributed.LocalCluster`` of ``--jobs`` worker processes
itself and closes it at the end (issue 42): the claims are checked on its workers, with the reports of local
workers."""

from __future__ import annotations

import json
import warnings

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.numerics.shared import sweep

CLAIMS = """
import sympy as sp
from icl_verify import Claim, Symbolic

x = sp.Symbol("x")


def _on_a_dask_worker():
    from distributed import get_worker

    with open(__file__ + ".workers", "a") as f:
        f.write(get_worker().address + "\\n")  # ValueError outside a Dask worker: the claim is ERROR
    return 2 * x - (x + x)


A = Claim("on-dask-a", "s", "2x = x + x", (Symbolic(_on_a_dask_worker),))
B = Claim("on-dask-b", "s", "2x = x + x", (Symbolic(_on_a_dask_worker),))
"""


def test_executor_dask_alone_checks_on_a_local_cluster_of_jobs_workers_closed_at_the_end(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    path = tmp_path / "claims.py"
    path.write_text(CLAIMS)
    started = []

    def spy(workers: int):
        cluster = real(workers)
        started.append((workers, cluster))
        return cluster

    real = sweep.local_cluster
    monkeypatch.setattr(sweep, "local_cluster", spy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = CliRunner().invoke(
            main, ["check", str(path), "--executor", "dask", "--jobs", "2", "--no-cache", "--json"]
        )
    assert run.exit_code == 0, run.output
    assert [(c["name"], c["verdict"]) for c in json.loads(run.stdout)["claims"]] == [
        ("on-dask-a", "PROVED"),
        ("on-dask-b", "PROVED"),
    ]
    ((workers, cluster),) = started
    assert workers == 2 and cluster.status.name == "closed"  # --jobs workers, closed at the end
    addresses = (tmp_path / "claims.py.workers").read_text().split()
    assert len(addresses) == 2 and all(a.startswith("tcp://") for a in addresses)  # checked on the cluster
    assert not [w for w in caught if "already in use" in str(w.message)]  # no dashboard port clash


def test_the_local_cluster_has_one_thread_per_worker_and_no_dashboard():
    pytest.importorskip("distributed")
    with sweep.local_cluster(1) as cluster:
        assert [w.nthreads for w in cluster.workers.values()] == [1]
        assert cluster.dashboard_link == "" or "8787" not in cluster.dashboard_link
