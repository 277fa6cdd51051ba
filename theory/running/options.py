"""The runner's options — executor, scheduler, number of workers, timeout — validated without loading the library.

``icl-verify check`` validates them before it looks for its whole run in the cache
(:mod:`icl_verify.running.replay`), so that bad input gets its one-line error even when nothing is checked.
"""

from __future__ import annotations

import importlib.util
import numbers
import os

from icl_verify.errors import InvalidArgument

EXECUTORS = ("local", "dask")
JOBS_VAR = "ICL_VERIFY_JOBS"
DEFAULT_TIMEOUT = 1800.0
"""Seconds a check may run before it is an ERROR (``--timeout``): the longest built-in claim, the first of the
memorization family (whose sweep the others share), takes about 50 s of CPU (docs/performance.md), so even
on a machine ten times slower none comes near it."""


def validate(jobs: int | None, executor: str, scheduler: str | None) -> int:
    """The number of workers; :class:`InvalidArgument` naming the argument when the three do not go together
    (``executor`` "dask" without a ``scheduler`` starts a local cluster of that many workers)."""
    if executor not in EXECUTORS:
        raise InvalidArgument(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "dask" and importlib.util.find_spec("distributed") is None:
        raise InvalidArgument("executor 'dask' needs the optional extra: pip install \"icl-verify[dask]\"")
    if scheduler is not None and executor != "dask":
        raise InvalidArgument("scheduler is only used with executor 'dask'")
    return default_jobs() if jobs is None else _positive("jobs", jobs)


def validate_timeout(timeout: float | None) -> float | None:
    """``timeout`` if None or a positive number of seconds, else :class:`InvalidArgument`."""
    if timeout is not None and not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
        raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout!r}")
    return timeout


def default_jobs() -> int:
    """The number of workers when none is given: ``$ICL_VERIFY_JOBS`` if set, else every core.

    The test suite sets it to 1: its own pytest-xdist workers already use every core (the reports
    are the same for every number of workers).
    """
    value = os.environ.get(JOBS_VAR)
    if not value:
        return os.cpu_count() or 1
    try:
        return _positive(JOBS_VAR, int(value))
    except ValueError:
        raise InvalidArgument(f"{JOBS_VAR} must be a positive integer, got {value!r}") from None


def _positive(name: str, value: object) -> int:
    """``value`` as an ``int`` if it is a positive integer (not a bool), else :class:`InvalidArgument` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidArgument(f"{name} must be a positive integer, got {value!r}")
    return int(value)
