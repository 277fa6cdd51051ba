"""Sweeps of independent jobs that scale out, resume, and never lose a finished job or a file.

A sweep is a function ``fn(config) -> result`` (importable at module level, so it pickles) and a
list of JSON-ready ``config`` dicts — every random job puts its seed in its config. Jobs run
through any :class:`concurrent.futures.Executor`: local processes by default
(:func:`local_executor`), a Dask ``distributed`` cluster with :func:`dask_executor` (optional
extra). Each finished job is appended at once to a JSON-lines file (flushed and fsync'd), one
record per job:

    {"hash": …, "fn": "module:function", "config": {…}, "result": …, "seconds": …, "checksum": …}

keyed by :func:`config_hash` (of the function's name and the config, seed included) and sealed by
:func:`record_checksum` (of the key, the config and the result). Rerunning the same sweep skips
every job whose record is there, so an interrupted sweep resumes without recomputing finished
jobs. The file is only ever appended to, with one exception: a torn last line (a writer killed
mid-record) is reported (:class:`TornRecord`, naming the line and how many records were kept) and
cut off, and its job runs again. Any other bad line — not JSON, not a record, a record whose key or
checksum does not match its content (an edited result) — stops the sweep with a ``ValueError``
naming the line, and the file is left as it is: a path that is not a results file is never
truncated.

Interrupts: Ctrl-C (SIGINT) is handled between records, never in the middle of one. The sweep keeps
every job that finishes within :data:`GRACE_SECONDS`, then cancels the rest (local workers are
stopped at once) and raises :class:`SweepInterrupted` (how many jobs are saved, how to resume).
Local workers ignore SIGINT (the parent decides) and exit on their own within
:data:`WATCHDOG_SECONDS` when their parent process dies, even by ``kill -9``: a watchdog thread in
each worker polls ``os.getppid()``. A Dask cluster's workers belong to the cluster, not to the sweep:
Ctrl-C cancels the sweep's tasks there. When the sweep's process started the cluster itself (a
``distributed.LocalCluster`` of worker processes, whose nannies run in that process), its workers
exit with it too, even after ``kill -9``: each holds a pipe from its parent and exits when the pipe
closes (the tests check both kinds of worker by PID).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import multiprocessing
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from tqdm import tqdm

from icl_verify.errors import InvalidArgument

Config = Mapping[str, Any]

GRACE_SECONDS = 2.0
"""After Ctrl-C, how long running jobs may still finish (and be saved) before the workers are stopped."""

WATCHDOG_SECONDS = 0.2
"""How often a local worker checks that its parent is alive (and that it has not been told to stop)."""

_POLL_SECONDS = 0.1  # how often a waiting sweep looks for Ctrl-C
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_RECORD_START = '{"hash": "'  # how every record line written by :func:`_append` begins


class TornRecord(UserWarning):
    """The results file ended in an incomplete record (a killed writer); it was cut off and its job reruns."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep; every finished job is saved. ``saved``/``total`` jobs, ``path`` the results file."""

    def __init__(self, saved: int, total: int, path: Path | None) -> None:
        self.saved, self.total, self.path = saved, total, path
        where = f"saved in {path}; rerun the same command to resume" if path else "not saved (no results file)"
        super().__init__(f"sweep interrupted: {saved} of {total} jobs finished, {where}")


def function_name(fn: Callable[..., Any]) -> str:
    """``module:qualname`` of a module-level function (what a job's hash records)."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    if "<" in name:
        raise InvalidArgument(f"fn must be a module-level function (picklable), got {name}")
    return name


def _digest(payload: object) -> str:
    try:
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"config and result must be JSON-serialisable with finite numbers: {exc}") from None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def config_hash(fn: Callable[..., Any] | str, config: Config) -> str:
    """SHA-256 (first 16 hex digits) of the function name and the canonical JSON of ``config``."""
    return _digest({"fn": fn if isinstance(fn, str) else function_name(fn), "config": config})


def record_checksum(record: Mapping[str, Any]) -> str:
    """SHA-256 (first 16 hex digits) of a record's key, function, config and result (canonical JSON).

    It detects a record edited or corrupted after it was written (e.g. a result changed by hand);
    it is a consistency check, not a signature.
    """
    return _digest({k: record[k] for k in ("hash", "fn", "config", "result")})


# ---------------------------------------------------------------------------------------------
# The results file


def _problem(record: object) -> str | None:
    """Why a parsed line is not a valid record, or None."""
    if not isinstance(record, dict) or not {"hash", "fn", "config", "result", "checksum"} <= record.keys():
        return "is not a sweep record (needs hash, fn, config, result, checksum)"
    if not isinstance(record["fn"], str) or not isinstance(record["config"], dict):
        return "is not a sweep record (fn must be a string, config an object)"
    if record["hash"] != config_hash(record["fn"], record["config"]):
        return "has a key that does not match its function and config (edited?)"
    if record["checksum"] != record_checksum(record):
        return "has a checksum that does not match its content (edited?)"
    return None


def _torn(tail: str) -> bool:
    """Whether text after the last newline is the beginning of a record (what a killed writer leaves)."""
    return tail.startswith(_RECORD_START) or _RECORD_START.startswith(tail)


def load_results(path: str | Path) -> dict[str, dict[str, Any]]:
    """The records of a results file by hash (none if it does not exist), checked line by line.

    A torn last line — text after the last newline that begins like a record — is reported with a
    :class:`TornRecord` warning and cut off (the only change ever made to the file). Any other bad
    line raises ``ValueError`` naming the file and line, and the file is not touched.
    """
    path = Path(path)
    if not path.exists():
        return {}
    if not path.is_file():
        raise InvalidArgument(f"results file {path} is not a regular file")
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    *complete, tail = text.split("\n")
    records: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(complete, start=1):
        try:
            problem = _problem(json.loads(line))
        except json.JSONDecodeError:
            problem = "is not JSON"
        if problem:
            raise InvalidArgument(
                f"{path} line {number} {problem}; not a results file of this sweep, or damaged: left as is"
            )
        record = json.loads(line)
        records[record["hash"]] = record
    if tail:
        if not _torn(tail):
            raise InvalidArgument(
                f"{path} line {len(complete) + 1} is not a sweep record: not a results file, left as is"
            )
        _cut(path, len(data) - len(tail.encode("utf-8", errors="replace")))
        warnings.warn(
            f"{path} line {len(complete) + 1} was a torn record (an interrupted write): removed it, kept "
            f"{len(records)} record(s); its job runs again",
            TornRecord,
            stacklevel=2,
        )
    return records


def _cut(path: Path, size: int) -> None:
    with path.open("r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())


def open_results(path: str | Path) -> dict[str, dict[str, Any]]:
    """Check, before any computation, that ``path`` can hold a sweep's results; return its records.

    Creates the missing parent directories and the (empty) file, or opens the existing file for
    appending without changing it, then reads it with :func:`load_results`. ``ValueError`` (one
    line, naming the path) when it cannot be written or is not a results file.
    """
    path = Path(path)
    existing = next(p for p in (path.parent, *path.parent.parents) if p.exists() or p == p.parent)
    if existing.exists() and not existing.is_dir():
        raise InvalidArgument(f"cannot write results file {path}: {existing} is not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InvalidArgument(f"cannot write results file {path}: {exc.strerror or exc}") from None
    return load_results(path)


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, allow_nan=False) + "\n")
        f.flush()
        os.fsync(f.fileno())


# ---------------------------------------------------------------------------------------------
# Executors


def _watch_parent(parent: int, stop: Any) -> None:
    """In a worker: exit at once when the parent process is gone (reparented) or ``stop`` is set."""
    while not stop.wait(WATCHDOG_SECONDS):
        if os.getppid() != parent:
            break
    os._exit(1)


def _init_worker(parent: int, stop: Any) -> None:
    """Worker start-up: leave Ctrl-C to the parent and start the watchdog (:func:`_watch_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent, stop), daemon=True, name="sweep-watchdog").start()


class LocalPool(ProcessPoolExecutor):
    """A spawned process pool whose workers die with their parent and can be stopped at once (:meth:`stop`)."""

    def __init__(self, max_workers: int | None = None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._stop = ctx.Event()
        super().__init__(
            max_workers=max_workers or os.cpu_count(),
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(os.getpid(), self._stop),
        )

    def stop(self) -> None:
        """Cancel the jobs not started and make every worker exit now (running jobs are lost)."""
        self._stop.set()
        self.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def local_executor(max_workers: int | None = None, threads_per_worker: int = 1) -> Iterator[LocalPool]:
    """Local worker processes (spawned, a :class:`LocalPool`), each with ``threads_per_worker`` BLAS threads.

    The thread-count variables are set while the pool is open (workers read them when they
    start) and restored afterwards; the calling process' own BLAS is already initialised.
    Results are reproducible within rounding for a fixed BLAS thread count (a multi-threaded BLAS
    may sum in another order; see :func:`~icl_verify.numerics.shared.threads.blas_threads`). A script that uses it needs the ``if __name__ == "__main__":`` guard
    (spawned workers re-import the main module).
    """
    saved = {k: os.environ.get(k) for k in _THREAD_VARS}
    os.environ.update({k: str(threads_per_worker) for k in _THREAD_VARS})
    try:
        with LocalPool(max_workers) as pool:
            yield pool
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


DASK_TIMEOUT = 10.0
"""Seconds to wait for a Dask scheduler's handshake: what answers a TCP connection may not be Dask at all."""


@contextlib.contextmanager
def dask_executor(scheduler: str | None, workers: int | None = None) -> Iterator[Executor]:
    """A ``concurrent.futures`` executor on the Dask ``distributed`` cluster at ``scheduler``; None: on a
    ``distributed.LocalCluster`` this process starts (``workers`` worker processes of one thread each, default
    one per core) and closes at the end.

    Needs the optional extra ``pip install "icl-verify[dask]"``. On Ctrl-C the sweep cancels its
    futures on the cluster (``shutdown(wait=False)``); the cluster's workers belong to the cluster,
    not to this process, and keep running for other clients — unless this process started the
    cluster (a ``LocalCluster`` of processes): then they exit when it does, even when it is killed.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InvalidArgument('the dask executor needs the optional extra: pip install "icl-verify[dask]"') from exc
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            scheduler = stack.enter_context(local_cluster(workers or os.cpu_count() or 1)).scheduler_address
        else:
            _scheduler_answers(scheduler, DASK_TIMEOUT)
        try:
            client = stack.enter_context(Client(scheduler, timeout=DASK_TIMEOUT))
        except ValueError as exc:  # a malformed address, e.g. an unknown scheme
            raise InvalidArgument(f"scheduler {scheduler!r}: {exc}") from None
        yield client.get_executor()


def local_cluster(workers: int) -> Any:
    """A ``distributed.LocalCluster`` of ``workers`` one-thread worker processes on this machine, without a
    dashboard. Its scheduler's HTTP server takes a free port: at Dask's default (8787) a second cluster at the same
    time would warn "Port 8787 is already in use"."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
    )


def _scheduler_answers(scheduler: str, timeout: float) -> None:
    """``InvalidArgument`` unless a Dask scheduler at ``scheduler`` tells its identity within ``timeout`` seconds
    (Dask's own handshake and ``identity`` call): what accepts a TCP connection there may speak another protocol,
    never answer (the client would wait forever), or send bytes Dask reads as a frame of exabytes (MemoryError)."""
    from distributed.comm import connect

    async def identity() -> object:
        comm = await connect(scheduler, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), timeout))
    except (TimeoutError, OSError):
        raise InvalidArgument(
            f"scheduler {scheduler!r}: no Dask scheduler answered there within {timeout:g} s"
        ) from None
    except Exception as exc:  # whatever else the other end does (MemoryError included): no scheduler
        raise InvalidArgument(
            f"scheduler {scheduler!r}: what answers there does not speak Dask's protocol ({type(exc).__name__})"
        ) from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise InvalidArgument(f"scheduler {scheduler!r}: what answers there is not a Dask scheduler")


def _halt(executor: Executor) -> None:
    """Stop an executor after Ctrl-C: local workers exit now; others cancel every unfinished job."""
    if isinstance(executor, LocalPool):
        executor.stop()
    else:
        executor.shutdown(wait=False)


# ---------------------------------------------------------------------------------------------
# Running a sweep


def run_job(fn: Callable[[Config], Any], config: Config) -> dict[str, Any]:
    """Run one job and return its record (what is appended to the results file)."""
    t0 = time.perf_counter()
    result = fn(config)
    record = {"hash": config_hash(fn, config), "fn": function_name(fn), "config": dict(config), "result": result}
    return record | {"seconds": round(time.perf_counter() - t0, 4), "checksum": record_checksum(record)}


def run_sweep(
    fn: Callable[[Config], Any],
    configs: Sequence[Config],
    results: str | Path | None,
    *,
    executor: Executor | None = None,
    progress: bool | str = False,
) -> list[dict[str, Any]]:
    """Run every config not yet in ``results`` through ``executor``; return all records in config order.

    ``executor=None`` uses :func:`local_executor`. Records are appended as jobs finish
    (``results=None`` keeps them in memory only). If jobs fail, the others still finish and are
    saved, then a ``RuntimeError`` names the failures. Ctrl-C raises :class:`SweepInterrupted`
    after saving every finished job. ``progress`` shows a bar on stderr (a string: the bar's label,
    what the sweep runs), its clock ticking while jobs run and its ETA from the first finished job.
    """
    path = None if results is None else Path(results)
    hashes = [config_hash(fn, c) for c in configs]
    done = {} if path is None else open_results(path)
    todo = {h: c for h, c in zip(hashes, configs) if h not in done}
    if todo:
        total = len(set(hashes))
        if executor is None:
            with local_executor() as pool:
                done.update(_submit_all(fn, todo, path, pool, progress, total))
        else:
            done.update(_submit_all(fn, todo, path, executor, progress, total))
    return [done[h] for h in hashes]


def _submit_all(
    fn: Callable[[Config], Any],
    todo: dict[str, Config],
    path: Path | None,
    executor: Executor,
    progress: bool | str,
    total: int,
) -> dict[str, dict[str, Any]]:
    finished: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    futures: dict[Future, str] = {}
    collected: set[Future] = set()
    label = progress if isinstance(progress, str) else "sweep"
    bar = tqdm(total=total, initial=total - len(todo), desc=label, unit="job", disable=not progress)

    def collect(fut: Future) -> None:
        collected.add(fut)
        try:
            record = fut.result()
        except Exception as exc:  # record the others, then report every failure
            failures.append(f"{futures[fut]}: {type(exc).__name__}: {exc}")
        else:
            if path is not None:
                _append(path, record)
            finished[record["hash"]] = record
        bar.update(1)

    with _ctrl_c_flag() as interrupted:
        futures.update({executor.submit(run_job, fn, c): h for h, c in todo.items()})
        remaining = set(futures)
        while remaining and not interrupted.is_set():
            done, remaining = wait(remaining, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            for fut in done:
                collect(fut)
            bar.refresh()  # the elapsed time moves while the first jobs run
        if interrupted.is_set():
            _save_finished(executor, [f for f in futures if f not in collected], collect)
            bar.close()
            raise SweepInterrupted(total - len(todo) + len(finished), total, path)
    bar.close()
    if failures:
        raise RuntimeError(f"{len(failures)} job(s) failed: " + "; ".join(failures))
    return finished


@contextlib.contextmanager
def _ctrl_c_flag() -> Iterator[threading.Event]:
    """While the block runs, Ctrl-C (SIGINT) sets the returned event instead of raising mid-record.

    A second Ctrl-C gets the previous handler (normally ``KeyboardInterrupt`` at once). Outside the
    main thread signals cannot be handled, and the event is never set.
    """
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.getsignal(signal.SIGINT) or signal.SIG_DFL  # None: a handler not set from Python

    def handler(signum: int, frame: Any) -> None:
        flag.set()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def _save_finished(executor: Executor, pending: list[Future], collect: Callable[[Future], None]) -> None:
    """After Ctrl-C: save the jobs that finish within the grace period, then cancel or stop the rest.

    Not cancelling first: a Dask future does not know whether its task has started, so cancelling it
    would throw away a job about to finish.
    """
    wait(pending, timeout=GRACE_SECONDS)
    _halt(executor)
    for fut in pending:
        if fut.done() and not fut.cancelled() and fut.exception() is None:
            collect(fut)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    name: "resumable sweeps, tested with real jobs and signals"
    for name in (
        "function_name",
        "config_hash",
        "record_checksum",
        "load_results",
        "open_results",
        "local_executor",
        "dask_executor",
        "local_cluster",
        "run_job",
        "run_sweep",
    )
}
