"""Checking claims in worker processes that nothing a claim does can take down with the checker.

Every claim is checked in a worker process, never in the calling one, so that a check that calls
``sys.exit``, raises ``KeyboardInterrupt``, calls ``os._exit``, is killed or never returns ends only
its own verdict (ERROR, naming what happened) and never the run: the others are still checked and
reported, and a dead or stuck worker is replaced (:class:`Pool`).

**Start method: fork.** On a platform that has it (Linux, macOS) the workers are forked from the
calling process, which has already imported the package, the claims' files and everything they
import: a worker starts in milliseconds with every claim in memory (:data:`INHERITED` — no claim is
pickled or re-loaded, and claims made at run time are checked like the others), so small work pays no
interpreter start-up, and the modules the parent imported are shared copy-on-write. A forkserver
would have to import the package again and re-load the users' files in its own process; ``spawn``
(the only method elsewhere) does so in each worker, which then re-loads the claims by reference
(the built-in ones, or a user's file: :func:`claims_of`). The workers are started once per run
(:class:`Pool`) and given job after job; a worker is replaced only when it died or timed out.

A worker ignores ``SIGINT`` and leads a process group of its own: Ctrl-C reaches the calling process,
which kills every worker's group at once (:meth:`Pool.close`; any process a claim started goes with
it) — so a ``KeyboardInterrupt`` raised inside a worker comes from the claim's own code and is that
claim's ERROR.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from icl_verify.core.claims import Claim, check
from icl_verify.core.evidence import Evidence, Kind, Status
from icl_verify.core.verdicts import Verdict
from icl_verify.numerics.shared.threads import blas_threads
from icl_verify.running import registry
from icl_verify.running.depends import Depends, loaded_since
from icl_verify.running.verdict_cache import Outcome

START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
INHERITED: dict[str, Claim] = {}
"""The claims of the run, by name, set before the workers are forked (empty in a spawned worker)."""


@dataclasses.dataclass
class Job:
    """Claims to check one after another in one worker, then ``extras`` (work whose failure is not reported).

    ``file``: the user's file the claims come from (None: built-in), to re-load them in a spawned worker;
    ``static``: the source files each claim's origin imports (:func:`icl_verify.running.sources.files_of`),
    by name — given, the worker records what each check depends on (:class:`Depends`).
    """

    names: list[str]
    file: str | None
    seed: int
    max_examples: int
    extras: list[Callable[[], object]] = dataclasses.field(default_factory=list)
    static: Mapping[str, Sequence[str]] | None = None


def error(detail: str, seed: int, max_examples: int) -> Outcome:
    """An ERROR outcome whose one evidence row (kind ``worker``) says what went wrong."""
    return Outcome(Verdict.ERROR, (Evidence(Kind.WORKER, Status.ERROR, detail, 0.0),), seed, max_examples, 0.0)


def loaded_family(file: str) -> registry.Family:
    """A user's file as a family: as the calling process loaded it (inherited by a forked worker), else loaded
    once here; its claims and figures share the module's caches (:func:`icl_verify.running.registry.loaded`)."""
    return registry.loaded(file)


@cache
def claims_of(file: str | None) -> dict[str, Claim]:
    """The built-in claims (``file`` None) or a user's file's, by name, loaded once per process."""
    return {c.name: c for c in (registry.builtin_claims() if file is None else loaded_family(file).claims)}


def check_one(claim: Claim, seed: int, max_examples: int) -> Outcome:
    """Check ``claim`` with one BLAS thread (the same in every worker, whatever their number)."""
    with blas_threads(1):
        return Outcome.of(check(claim, seed=seed, max_examples=max_examples))


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` ends a process with (None: 0; an integer: itself; anything else: 1)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def guarded_check(claim: Claim, seed: int, max_examples: int) -> Outcome:
    """:func:`check_one`, with an exit or an interrupt raised by the claim's own code as its ERROR."""
    try:
        return check_one(claim, seed, max_examples)
    except SystemExit as exc:
        return error(f"the check exited with status {_exit_status(exc.code)} while running", seed, max_examples)
    except KeyboardInterrupt:
        return error("the check raised KeyboardInterrupt while running", seed, max_examples)
    except BaseException as exc:  # anything else a check lets out is its ERROR, never the end of the run
        return error(f"the check raised {type(exc).__name__}: {exc}", seed, max_examples)


def checked(name: str, job: Job, baseline: frozenset[str]) -> Outcome:
    """The outcome of claim ``name`` of ``job``, with what it was seen to depend on when ``job.static`` is given."""
    claim = INHERITED.get(name)
    if claim is None:
        try:
            claim = claims_of(job.file).get(name)
        except Exception as exc:  # the file does not load here
            return error(
                f"the worker could not load the claim: {type(exc).__name__}: {exc}", job.seed, job.max_examples
            )
    if claim is None:
        return error(f"the worker does not know the claim {name!r}", job.seed, job.max_examples)
    outcome = guarded_check(claim, job.seed, job.max_examples)
    if job.static is None or outcome.verdict is Verdict.ERROR:
        return outcome
    files, distributions = loaded_since(baseline)
    return dataclasses.replace(outcome, depends=Depends.record({*map(Path, job.static[name]), *files}, distributions))


def serve(conn: Connection) -> None:
    """The worker's loop: for each job received, ``("start", name)`` and ``("done", name, outcome)`` per claim,
    ``("start", None)`` per extra, then ``("idle",)``; ends when the connection closes or sends None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)  # its own process group: stopping it stops whatever its claims started too
    baseline = frozenset(sys.modules)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        for name in job.names:
            conn.send(("start", name))
            outcome = checked(name, job, baseline)
            try:
                conn.send(("done", name, outcome))
            except Exception as exc:  # an outcome that does not pickle
                conn.send(
                    ("done", name, error(f"the result could not be sent back: {exc}", job.seed, job.max_examples))
                )
        for extra in job.extras:
            conn.send(("start", None))
            with contextlib.suppress(Exception):  # done again, and reported, by whoever needs it
                extra()
        conn.send(("idle",))


class Worker:
    """One worker process, its connection, and the job it is doing."""

    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=serve, args=(child,), name="icl-verify-worker")
        self.process.start()
        child.close()
        self.job: Job | None = None
        self.current: str | None = None  # the claim in flight (None: an extra, or none started)
        self.done: set[str] = set()
        self.since = time.monotonic()

    def give(self, job: Job) -> None:
        self.job, self.current, self.done, self.since = job, None, set(), time.monotonic()
        self.conn.send(job)

    def stop(self) -> None:
        """Kill the process and every process its claims started (at once: it may be stuck in a claim)."""
        if self.process.is_alive():
            with contextlib.suppress(ProcessLookupError, PermissionError, AttributeError):
                os.killpg(self.process.pid, signal.SIGKILL)  # its group, if it made it
            self.process.kill()
        self.process.join()
        self.conn.close()


def death(exitcode: int | None) -> str:
    """What ended a worker, in words: the signal that killed it, or the status it exited with."""
    if exitcode is not None and exitcode < 0:
        return f"worker died: signal {-exitcode}"
    return f"the check exited with status {exitcode} while running"


class Pool:
    """``size`` worker processes started once (:data:`START_METHOD`) and given job after job (:meth:`run`).

    ``timeout`` (seconds, None: none) limits each claim and each extra; ``finish(name, outcome)`` is
    called as each claim's outcome arrives. A claim whose worker exits, dies or times out is ERROR;
    the rest of its job goes to a fresh worker.
    """

    def __init__(self, size: int, timeout: float | None, finish: Callable[[str, Outcome], None]) -> None:
        self.context = multiprocessing.get_context(START_METHOD)
        self.timeout = timeout
        self.finish = finish
        self.workers = [Worker(self.context) for _ in range(size)]

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every worker (Ctrl-C, or the run is over) and wait for them."""
        for w in self.workers:
            w.stop()

    def run(self, jobs: Iterable[Job], on_wait: Callable[[Sequence[Worker]], None] = lambda busy: None) -> None:
        """Do ``jobs`` in the order given, ``size`` at a time; ``on_wait(busy workers)`` about once a second."""
        queue = deque(jobs)
        while True:
            for k, w in enumerate(self.workers):
                if w.job is None and queue:
                    if not w.process.is_alive():
                        w.stop()
                        self.workers[k] = w = Worker(self.context)
                    w.give(queue.popleft())
            busy = [w for w in self.workers if w.job is not None]
            if not busy:
                return
            ready = wait([*(w.conn for w in busy), *(w.process.sentinel for w in busy)], timeout=self._wait(busy))
            for w in busy:
                if w.conn in ready or w.process.sentinel in ready:
                    self._read(w)
                if w.job is not None and not w.process.is_alive():
                    self._read(w)  # what it sent before it died
                    if w.job is not None:
                        queue.extendleft(self._lost(w, death(w.process.exitcode)))
                elif w.job is not None and self.timeout is not None and time.monotonic() - w.since > self.timeout:
                    w.stop()
                    queue.extendleft(self._lost(w, f"timed out after {self.timeout:g} s"))
            on_wait(busy)

    def _wait(self, busy: Sequence[Worker]) -> float:
        """Seconds to wait for a message: at most 1, and no later than the first worker's time limit."""
        if self.timeout is None:
            return 1.0
        now = time.monotonic()
        return max(0.0, min([1.0, *(w.since + self.timeout - now for w in busy)]))

    def _read(self, w: Worker) -> None:
        """Handle every message ``w`` has sent."""
        while w.job is not None:
            try:
                if not w.conn.poll():
                    return
                message = w.conn.recv()
            except (EOFError, OSError):
                return
            if message[0] == "start":
                w.current, w.since = message[1], time.monotonic()
            elif message[0] == "done":
                w.done.add(message[1])
                self.finish(message[1], message[2])
            else:
                w.job, w.current = None, None

    def _lost(self, w: Worker, reason: str) -> list[Job]:
        """The claim ``w`` was checking is ERROR for ``reason``; the rest of its job, to do again elsewhere."""
        job = w.job
        assert job is not None
        w.job = None
        rest = [n for n in job.names if n not in w.done and n != w.current]
        if w.current is not None:
            self.finish(w.current, error(reason, job.seed, job.max_examples))
        elif rest:  # it died before it started a claim: none can be blamed, none is checked
            for name in rest:
                self.finish(name, error(reason, job.seed, job.max_examples))
            return []
        if not rest:
            return []  # the claims are done; lost extras are done again by whoever needs them
        return [dataclasses.replace(job, names=rest)]
