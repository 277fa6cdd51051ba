"""The Dask cluster of the tests that run on one. A module of its own, not conftest.py: the subprocesses of
tests/numerics/shared/test_sweep_signals.py import it, and conftest.py's imports would cost each about a second."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import distributed


def local_dask_cluster(n_workers: int, *, processes: bool) -> distributed.LocalCluster:
    """A ``distributed.LocalCluster`` of one-thread workers for a test, with no dashboard.

    Its scheduler starts an HTTP server even without a dashboard, at port 8787 unless told otherwise; a
    second cluster at the same time (the other xdist worker's) then warns "Port 8787 is already in use".
    So the server takes a free port (``:0``).
    """
    import distributed

    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=processes,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
    )
