"""Checking claims in processes of their own, that nothing a claim does can take down or change another's verdict.

Every claim is checked in a worker process, never in the calling one, so that a check that calls
``sys.exit``, raises ``KeyboardInterrupt``, calls ``os._exit``, is killed or never returns ends only
its own verdict (ERROR, naming what happened) and never the run: the others are still checked and
reported (:class:`Pool`).

**A fresh process per job, forked from a template.** Each of the pool's :class:`Worker` s is a
*template* process, forked from the calling process when the pool starts: it has imported the
package, the claims' files and everything they import (:data:`INHERITED` — no claim is pickled or
re-loaded, and claims made at run time are checked like the others) and limited BLAS to one thread,
but it runs no claim. For each job (:class:`Job`: one claim, or one family's measured claims, which
share their simulations) it forks a process that does the job and ends (:func:`_fork_job`). So
whatever a claim changes in its process — ``np.max`` patched, ``np.seterr``, the random generators,
the environment, the working folder — ends with its job: no other claim sees it, and verdicts do not
depend on the order of the claims or on the number of workers. A fork is copy-on-write, and the
template freezes its objects from the garbage collector (:func:`gc.freeze`), so a job's process
starts from what the template holds at the cost of the fork: ≈ 10–50 ms for the ≈ 130 MB of a run of
the built-in claims. Where there is no ``os.fork`` (``spawn``), each template does one job itself,
re-loading its claims by reference (the built-in ones, or a user's file: :func:`claims_of`), and a
fresh one is started for the next.

**Lifetime.** A job's process ignores ``SIGINT``, leads a process group of its own, and its prints
go to stderr (stdout holds only the report). When it ends, its template kills its group and every
process left below it (on Linux the template is the *subreaper* of its jobs' processes, so a
process a claim started in a session of its own, or as a daemon, comes back to it: :func:`_sweep`).
The calling process ends a template with SIGTERM (:meth:`Worker.stop`: the run is over, Ctrl-C, or
its job timed out), which kills its job's process group and what is left below it first; on Linux a
template also gets SIGTERM when the calling process dies, even by SIGKILL, and a job's process dies
with its template (``PR_SET_PDEATHSIG``), so no process of a run outlives it. A
``KeyboardInterrupt`` raised inside a job therefore comes from the claim's own code and is that
claim's ERROR.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import gc
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import recv_handle, send_handle
from pathlib import Path
from typing import Any, NoReturn

from icl_verify.core.claims import Claim, check
from icl_verify.core.evidence import Evidence, Kind, Status
from icl_verify.core.tracebacks import user_traceback
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


def error(detail: str, seed: int, max_examples: int, crash: BaseException | None = None) -> Outcome:
    """An ERROR outcome whose one evidence row (kind ``worker``) says what went wrong (with the traceback of
    ``crash``, when it was raised)."""
    trace = None if crash is None else user_traceback(crash)
    row = Evidence(Kind.WORKER, Status.ERROR, detail, 0.0, traceback=trace)
    return Outcome(Verdict.ERROR, (row,), seed, max_examples, 0.0)


def loaded_family(file: str) -> registry.Family:
    """A user's file as a family: as the calling process loaded it (inherited by a forked worker), else loaded
    once here; its claims and figures share the module's caches (:func:`icl_verify.running.registry.loaded`)."""
    return registry.loaded(file)


@cache
def claims_of(file: str | None) -> dict[str, Claim]:
    """The built-in claims (``file`` None) or a user's file's, by name, loaded once per process."""
    return {c.name: c for c in (registry.builtin_claims() if file is None else loaded_family(file).claims)}


_ONE_BLAS_THREAD = False
"""Set in a template, which limits BLAS to one thread once for the processes it forks (threadpoolctl finds the
libraries anew at each limit: ≈ 40 ms)."""


def check_one(claim: Claim, seed: int, max_examples: int) -> Outcome:
    """Check ``claim`` with one BLAS thread (the same in every worker, whatever their number)."""
    with contextlib.nullcontext() if _ONE_BLAS_THREAD else blas_threads(1):
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
        return error(f"the check exited with status {_exit_status(exc.code)} while running", seed, max_examples, exc)
    except KeyboardInterrupt as exc:
        return error("the check raised KeyboardInterrupt while running", seed, max_examples, exc)
    except BaseException as exc:  # anything else a check lets out is its ERROR, never the end of the run
        return error(f"the check raised {type(exc).__name__}: {exc}", seed, max_examples, exc)


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


def serve(control: Connection, parent: int) -> None:
    """The template's loop (see the module): for each job received on ``control``, with the connection its claims
    are to be reported on (passed as a handle), fork a process that does it (:func:`_do_job`), wait for it, kill
    whatever it left running (:func:`_sweep`) and send ``("exited", status)``; ends when ``control`` closes or
    sends None. Without ``os.fork`` (spawn) the template does one job itself and ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in _ENDING:
        signal.signal(signum, _end_template)
    die_with_parent(signal.SIGTERM, parent)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # orphans of the jobs' processes come here, to be swept
    gc.freeze()  # what the template holds is never collected in a job: a collection would copy every page
    global _ONE_BLAS_THREAD
    blas_threads(1).__enter__()  # for the template's life (it ends with the run)
    _ONE_BLAS_THREAD = True
    while True:
        try:
            job = control.recv()
            if job is None:
                return
            conn = Connection(recv_handle(control))
        except (EOFError, OSError):
            return
        if not hasattr(os, "fork"):
            _do_job(conn, job, frozenset(sys.modules))
            control.send(("exited", 0))
            return
        control.send(("exited", _fork_job(conn, job)))


_ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that end a template (:func:`_end_template`): SIGTERM from the calling process, SIGHUP from a terminal
that hung up (it reaches the calling process's group, the templates')."""

_child: int | None = None
"""The process doing the template's current job (None: none)."""


def _fork_job(conn: Connection, job: Job) -> int:
    """Fork a process that does ``job``, reporting on ``conn``; wait for it, sweep what it left, and return its exit
    status (negative: the signal that killed it). A signal that ends the template (:data:`_ENDING`), blocked from
    the fork until :data:`_child` is set and while the process is reaped, finds :data:`_child` naming a live
    process or None."""
    global _child
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    template = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    pid = os.fork()
    if pid == 0:
        for signum in _ENDING:
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)
        _job_process(conn, job, template)
    _child = pid
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)
    conn.close()
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped: its pid is still its own
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # what it started in its group
    signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING)
    _, status = os.waitpid(pid, 0)
    _child = None
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _ENDING)
    _sweep()
    return os.waitstatus_to_exitcode(status)


def _job_process(conn: Connection, job: Job, template: int) -> NoReturn:
    """A job's process: in a process group of its own, dying with the template, its prints going to stderr (so
    stdout holds only the report), it does ``job`` and ends; never returns to the template's code."""
    status = 0
    try:
        os.setpgid(0, 0)  # its own process group: stopping it stops whatever its claims started too
        die_with_parent(signal.SIGKILL, template)
        os.dup2(2, 1)
        _do_job(conn, job, frozenset(sys.modules))
    except BaseException:  # an extra's exit, or the connection lost: the claims done were reported
        status = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)


def _do_job(conn: Connection, job: Job, baseline: frozenset[str]) -> None:
    """Send ``("start", name)`` and ``("done", name, outcome)`` per claim of ``job``, then ``("start", None)`` per
    extra as it runs. A process a claim forked without exec that comes back here ends silently."""
    me = os.getpid()
    for name in job.names:
        conn.send(("start", name))
        outcome = checked(name, job, baseline)
        if os.getpid() != me:
            os._exit(0)
        try:
            conn.send(("done", name, outcome))
        except Exception as exc:  # an outcome that does not pickle
            conn.send(("done", name, error(f"the result could not be sent back: {exc}", job.seed, job.max_examples)))
    for extra in job.extras:
        conn.send(("start", None))
        with contextlib.suppress(Exception):  # done again, and reported, by whoever needs it
            extra()
        if os.getpid() != me:
            os._exit(0)


def _end_template(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP in the template (the run is over or interrupted, its job timed out, or the calling process died):
    kill its job's process group and everything left below it, then end."""
    if _child is not None:
        with contextlib.suppress(OSError):
            os.killpg(_child, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(_child, signal.SIGKILL)
    _sweep()
    os._exit(0)


def _sweep() -> None:
    """Kill and reap every process below this one: its children and, on Linux where it is their subreaper, the
    orphans of its jobs' processes (a daemon, a process in a session of its own), until none is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left
        if pid:
            continue
        children = _children(os.getpid())
        if not children:
            return  # alive but not found (no /proc): never wait for it
        for child in children:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(-1, 0)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, from /proc (empty where there is none)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        fields = f.read().rsplit(b")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if int(fields[1]) == pid:
                    found.append(int(entry))
    return found


_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    """Linux's ``prctl(option, value)``; False where there is none or it fails."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(sig: int, parent: int) -> None:
    """Receive ``sig`` when the parent process ends (Linux); end now if ``parent`` already has."""
    _prctl(_PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:
        os._exit(1)


class Worker:
    """One template process (see the module), its control connection, and the job its current process is doing."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.control, theirs = context.Pipe()
        self.process = context.Process(target=serve, args=(theirs, os.getpid()), name="icl-verify-template")
        self.process.start()
        theirs.close()
        self.conn: Connection | None = None  # the current job's
        self.job: Job | None = None
        self.current: str | None = None  # the claim in flight (None: an extra, or none since the last done)
        self.done: set[str] = set()
        self.since = time.monotonic()

    def give(self, job: Job) -> None:
        """Have the template fork a process for ``job``, reporting on a connection of its own."""
        self.job, self.current, self.done, self.since = job, None, set(), time.monotonic()
        ours, theirs = self.context.Pipe()
        self.control.send(job)
        send_handle(self.control, theirs.fileno(), self.process.pid)
        theirs.close()
        self.conn = ours

    def status(self) -> int | None:
        """The exit status of the job's process, once the template sent it; else the template's own (it died)."""
        with contextlib.suppress(EOFError, OSError):
            if self.control.poll():
                return self.control.recv()[1]
        self.process.join(1.0)
        return self.process.exitcode

    def stop(self) -> None:
        """End the template, its job's process and all they started (SIGTERM: see :func:`_end_template`); kill it
        if it has not ended within a second."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(1.0)
            if self.process.is_alive():
                self.process.kill()
        self.process.join()
        self.control.close()
        if self.conn is not None:
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
            ready = wait(
                [*(w.conn for w in busy if w.conn), *(w.control for w in busy), *(w.process.sentinel for w in busy)],
                timeout=self._wait(busy),
            )
            for w in busy:
                if w.conn in ready:
                    self._read(w)
                if w.control in ready or w.process.sentinel in ready:
                    queue.extendleft(self._ended(w))
                elif self.timeout is not None and time.monotonic() - w.since > self.timeout:
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
        """Handle every message the process of ``w``'s job has sent."""
        while w.conn is not None:
            try:
                if not w.conn.poll():
                    return
                message = w.conn.recv()
            except (EOFError, OSError):
                return
            if message[0] == "start":
                w.current, w.since = message[1], time.monotonic()
            else:
                w.done.add(message[1])
                w.current = None
                self.finish(message[1], message[2])

    def _ended(self, w: Worker) -> list[Job]:
        """The process of ``w``'s job ended (or its template died): what it sent, then the claim it was checking
        is ERROR when it did not finish it; the rest of its job, to do again elsewhere."""
        self._read(w)
        lost = self._lost(w, death(w.status()))
        assert w.conn is not None
        w.conn.close()
        w.conn = None
        return lost

    def _lost(self, w: Worker, reason: str) -> list[Job]:
        """The claim ``w`` was checking is ERROR for ``reason``; the rest of its job, to do again elsewhere."""
        job = w.job
        assert job is not None
        w.job = None
        rest = [n for n in job.names if n not in w.done and n != w.current]
        if w.current is not None:
            self.finish(w.current, error(reason, job.seed, job.max_examples))
        elif rest:  # it died with no claim in flight: none can be blamed, none is checked
            for name in rest:
                self.finish(name, error(reason, job.seed, job.max_examples))
            return []
        if not rest:
            return []  # the claims are done; lost extras are done again by whoever needs them
        return [dataclasses.replace(job, names=rest)]
