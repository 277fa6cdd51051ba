"""Sweeps of independent jobs that scale out and resume.

A sweep is a function ``fn(config) -> result`` (importable at module level, so it pickles) and a
list of JSON-ready ``config`` dicts — every random job puts its seed in its config. Jobs run
through any :class:`concurrent.futures.Executor`: local processes by default
(:func:`local_executor`), a Dask ``distributed`` cluster with :func:`dask_executor` (optional
extra). Each finished job is appended at once to a JSON-lines file, one record per job:

    {"hash": …, "fn": "module:function", "config": {…}, "result": …, "seconds": …}

keyed by :func:`config_hash` (of the function's name and the config, seed included). Rerunning
the same sweep skips every job whose record is there, so an interrupted sweep resumes without
recomputing finished jobs and loses nothing. A record that is not a complete, valid line — the
truncated last line of a killed writer, or any corrupted line — is dropped when the file is read
(the file is rewritten without it) and its job is run again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tqdm import tqdm

Config = Mapping[str, Any]

RENAMED: dict[str, str] = {
    "numerics.memorization:sweep_job": "icl_verify.numerics.scaling.memorization:sweep_job",
    "numerics.scaling:threshold_job": "icl_verify.numerics.scaling.fits:threshold_job",
}
"""Job functions renamed when the package took its one import name ``icl_verify`` (version 0.2).
A record written under an old name is read under the new one, so old results files keep resuming."""

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def function_name(fn: Callable[..., Any]) -> str:
    """``module:qualname`` of a module-level function (what a job's hash records)."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    if "<" in name:
        raise ValueError(f"fn must be a module-level function (picklable), got {name}")
    return name


def config_hash(fn: Callable[..., Any] | str, config: Config) -> str:
    """SHA-256 (first 16 hex digits) of the function name and the canonical JSON of ``config``."""
    name = fn if isinstance(fn, str) else function_name(fn)
    try:
        text = json.dumps({"fn": name, "config": config}, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"config must be JSON-serialisable with finite numbers: {exc}") from None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# The results file


def _valid(record: object) -> bool:
    if not isinstance(record, dict) or not {"hash", "fn", "config", "result"} <= record.keys():
        return False
    return isinstance(record["config"], dict) and record["hash"] == config_hash(record["fn"], record["config"])


def _current(record: dict[str, Any]) -> dict[str, Any]:
    """The record under its function's current name (:data:`RENAMED`)."""
    if record["fn"] not in RENAMED:
        return record
    fn = RENAMED[record["fn"]]
    return {**record, "fn": fn, "hash": config_hash(fn, record["config"])}


def load_results(path: str | Path) -> tuple[dict[str, dict[str, Any]], int]:
    """Valid records by hash, and the number of bad lines dropped (the file is rewritten without them).

    A line is bad when it is not newline-terminated (a writer was killed mid-line), is not JSON,
    or its hash does not match its function and config. Records of renamed job functions are
    returned under the current name.
    """
    path = Path(path)
    if not path.exists():
        return {}, 0
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    complete, tail = lines[:-1], lines[-1]  # text after the last newline is an unfinished line
    records: dict[str, dict[str, Any]] = {}
    bad = int(tail != "")
    for line in complete:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if _valid(record):
            record = _current(record)
            records[record["hash"]] = record
        else:
            bad += 1
    if bad:
        _rewrite(path, records.values())
    return records, bad


def _rewrite(path: Path, records: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, allow_nan=False) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, allow_nan=False) + "\n")
        f.flush()
        os.fsync(f.fileno())


# ---------------------------------------------------------------------------------------------
# Executors


@contextlib.contextmanager
def local_executor(max_workers: int | None = None, threads_per_worker: int = 1) -> Iterator[Executor]:
    """Local worker processes (spawned), each with ``threads_per_worker`` BLAS threads.

    The thread-count variables are set while the pool is open (workers read them when they
    start) and restored afterwards; the calling process' own BLAS is already initialised.
    Results are bitwise reproducible for a fixed BLAS thread count (a multi-threaded BLAS may
    sum in another order). A script that uses it needs the ``if __name__ == "__main__":`` guard
    (spawned workers re-import the main module).
    """
    saved = {k: os.environ.get(k) for k in _THREAD_VARS}
    os.environ.update({k: str(threads_per_worker) for k in _THREAD_VARS})
    try:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=max_workers or os.cpu_count(), mp_context=ctx) as pool:
            yield pool
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def dask_executor(scheduler: str) -> Iterator[Executor]:
    """A ``concurrent.futures`` executor on the Dask ``distributed`` cluster at ``scheduler``.

    Needs the optional extra ``pip install "icl-verify[dask]"``.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ValueError('the dask executor needs the optional extra: pip install "icl-verify[dask]"') from exc
    with Client(scheduler) as client:
        yield client.get_executor()


# ---------------------------------------------------------------------------------------------
# Running a sweep


def run_job(fn: Callable[[Config], Any], config: Config) -> dict[str, Any]:
    """Run one job and return its record (what is appended to the results file)."""
    t0 = time.perf_counter()
    result = fn(config)
    return {
        "hash": config_hash(fn, config),
        "fn": function_name(fn),
        "config": dict(config),
        "result": result,
        "seconds": round(time.perf_counter() - t0, 4),
    }


def run_sweep(
    fn: Callable[[Config], Any],
    configs: Sequence[Config],
    results: str | Path | None,
    *,
    executor: Executor | None = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Run every config not yet in ``results`` through ``executor``; return all records in config order.

    ``executor=None`` uses :func:`local_executor`. Records are appended as jobs finish
    (``results=None`` keeps them in memory only). If jobs fail, the others still finish and are
    saved, then a ``RuntimeError`` names the failures.
    """
    path = None if results is None else Path(results)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    hashes = [config_hash(fn, c) for c in configs]
    done, _ = ({}, 0) if path is None else load_results(path)
    todo = {h: c for h, c in zip(hashes, configs) if h not in done}
    if todo:
        if executor is None:
            with local_executor() as pool:
                done.update(_submit_all(fn, todo, path, pool, progress, len(set(hashes)) - len(todo)))
        else:
            done.update(_submit_all(fn, todo, path, executor, progress, len(set(hashes)) - len(todo)))
    return [done[h] for h in hashes]


def _submit_all(
    fn: Callable[[Config], Any],
    todo: dict[str, Config],
    path: Path | None,
    executor: Executor,
    progress: bool,
    initial: int,
) -> dict[str, dict[str, Any]]:
    futures: dict[Future, str] = {executor.submit(run_job, fn, c): h for h, c in todo.items()}
    finished: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    bar = tqdm(total=initial + len(todo), initial=initial, desc="sweep", unit="job", disable=not progress)
    for fut in as_completed(futures):
        try:
            record = fut.result()
        except Exception as exc:  # record the others, then report every failure
            failures.append(f"{futures[fut]}: {type(exc).__name__}: {exc}")
        else:
            if path is not None:
                _append(path, record)
            finished[record["hash"]] = record
        bar.update(1)
    bar.close()
    if failures:
        raise RuntimeError(f"{len(failures)} job(s) failed: " + "; ".join(failures))
    return finished
