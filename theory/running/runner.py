"""Checking many claims: in worker processes, longest first, reusing cached verdicts.

:func:`check_claims` is what ``icl-verify check`` and ``icl-verify docs`` run. Every claim is
checked in a process of its own (:mod:`icl_verify.running.workers`: forked from a template process
that ran no claim), so that a claim that exits, is killed or hangs past ``timeout`` is that claim's
ERROR and every other claim is still checked, and nothing a claim changes in its process reaches
another. Small work (estimated by the durations the cache recorded, else a static guess:
:func:`workers_for`) goes to one worker, so a user's file of a few statements pays for no second
template; ``jobs`` forces a number. With a Dask cluster the
claims go to its workers by reference (:func:`check_job`), and any the cluster cannot find come
back to local workers. Whatever the number of workers the results are the same: every claim is
checked with the same seed, example budget and one BLAS thread (so sums run in the same order,
and workers never oversubscribe the cores), and results come back in the order the claims were
given; ``on_result`` is told of each one as it completes.

A worker's job is one claim, except for the claims with a measured check: those of one family go
to one worker together (:func:`jobs_of`), checked one after another, because such claims share
their simulations through :func:`icl_verify.core.caches.cached` (the scaling family's two claims
share 30 MLP trainings) — in two workers each simulation would run twice. Other work that uses a
family's simulations (an :class:`Extra`, e.g. drawing its figures) joins that job, after its claims.

A result is reused from the cache only while nothing it was seen to depend on changed
(:mod:`icl_verify.running.verdict_cache`): its key (:func:`claim_keys`) holds the source of the
modules its family's module (or the user's file) imports, transitively
(:func:`icl_verify.running.sources.dependencies`), and its entry the hashes of every source file
the worker had loaded when the check ended and the versions of the distributions imported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from functools import cache
from typing import Any

from tqdm import tqdm

from icl_verify.core.claims import Claim, Result
from icl_verify.core.evidence import Kind
from icl_verify.core.verdicts import Verdict
from icl_verify.numerics.shared import sweep
from icl_verify.running import registry, sources, workers
from icl_verify.running.depends import Depends, distributions_of, loaded_since, versions_read_once
from icl_verify.running.options import DEFAULT_TIMEOUT, default_jobs, validate, validate_timeout
from icl_verify.running.verdict_cache import Outcome, VerdictCache, entry_key, environment
from icl_verify.running.workers import Job, claims_of, error, loaded_family

__all__ = ["Checked", "Extra", "check_claims", "check_one", "claim_keys", "jobs_of", "loaded_family", "validate"]

SMALL_WORK = 2.0
"""Estimated seconds of work below which one worker checks everything: a second one would not pay."""
_STATIC_COST = {
    Kind.MEASURED: 100.0,
    Kind.MONTE_CARLO: 100.0,
    Kind.NUMERIC: 10.0,
    Kind.EXPLICIT: 1.0,
    Kind.SYMBOLIC: 0.1,
}
"""Seconds assumed for a claim never timed before, by its most expensive check."""


@dataclass(frozen=True)
class Checked:
    """The results in the order the claims were given, the names of those read from the cache, and what they
    all depend on together when every one of them is in the cache now (else None: the next run checks again);
    after a run stopped at its first failure (``exitfirst``), the names of the claims not run, in order."""

    results: list[Result]
    cached: frozenset[str]
    depends: Depends | None = None
    not_run: tuple[str, ...] = ()


class _StopEarly(Exception):
    """Raised out of the workers' loop at the first claim not as expected, when the run is to stop there."""


@dataclass(frozen=True)
class Extra:
    """Work for the workers besides the claims: ``run()`` (picklable) in the worker that checks the measured
    claims of the built-in ``family`` (``file`` None) or of the user's ``file``, after them — where the
    simulations they computed are still cached — else as a job of its own.

    Its failure is not reported: whoever needs its effect (e.g. a figure in the cache) does it again.
    """

    file: str | None
    family: str
    run: Callable[[], object]


class NotFoundInWorker(LookupError):
    """The worker's registry has no claim of that name (e.g. a family added to the search path at run time)."""


def check_one(claim: Claim, seed: int, max_examples: int, origin: str | None = None) -> Outcome:
    """Check ``claim`` in this process (no protection from its exits: the test suite's shared results, the pytest
    plugin), with what it was seen to depend on (:class:`~icl_verify.running.depends.Depends`) when its origin is
    known (a built-in claim's family, or the file ``origin``): its origin's files, and those of the modules loaded
    during the check."""
    before = frozenset(sys.modules)
    outcome = workers.check_one(claim, seed, max_examples).vetted(claim)
    where = claim_origins([claim], {claim.name: origin} if origin else {}).get(claim.name)
    if where is None:
        return outcome
    files, distributions = loaded_since(before)
    return dataclasses.replace(outcome, depends=Depends.record({*_static_files(where), *files}, distributions))


_ONE_JOB_AT_A_TIME = threading.Lock()
"""A Dask worker's process checks one job at a time, even when it runs several threads (a cluster of threads, or
a worker with ``nthreads`` > 1): a check sets state of the whole process — Hypothesis's use of the global random
generators, the BLAS thread limit, the modules loaded since the check began — which two threads would share."""


def check_job(config: Mapping[str, Any]) -> dict[str, Outcome]:
    """A Dask worker's side: re-load the claims ``config`` names (``file`` None: built-in), check them in order
    (recording what each depends on when ``config["static"]`` is given), then run the job's extra work; one job
    at a time in a process (:data:`_ONE_JOB_AT_A_TIME`).

    Nothing is checked when one of them is unknown here (:class:`NotFoundInWorker`).
    """
    with _ONE_JOB_AT_A_TIME:
        return _check_job(config)


def _check_job(config: Mapping[str, Any]) -> dict[str, Outcome]:
    baseline = frozenset(sys.modules)
    claims = claims_of(config["file"]) if config["names"] else {}
    missing = [name for name in config["names"] if name not in claims]
    if missing:
        raise NotFoundInWorker(", ".join(missing))
    job = Job(config["names"], config["file"], config["seed"], config["max_examples"], static=config["static"])
    outcomes = {name: workers.checked(name, job, baseline) for name in job.names}
    for extra in config["extras"]:
        with contextlib.suppress(Exception):  # done again, and reported, by whoever needs it
            extra()
    return outcomes


def estimated_cost(claim: Claim, recorded: Mapping[str, float]) -> float:
    """The claim's last recorded duration, else a static guess from the kinds of check it has."""
    if claim.name in recorded:
        return recorded[claim.name]
    return sum(cost for kind, cost in _STATIC_COST.items() if kind in claim.kinds)


def jobs_of(claims: Sequence[Claim], origin: Mapping[str, str], recorded: Mapping[str, float]) -> list[list[Claim]]:
    """The workers' jobs: one per claim, but one per family (and file, ``origin``) for the measured claims.

    A family's measured claims stay in the order given, so the first one computes a shared
    simulation and the next ones find it cached. Jobs come longest first by their summed
    :func:`estimated_cost`; ties keep their order.
    """
    jobs: dict[tuple[str, ...], list[Claim]] = {}
    for c in claims:
        group = ("measured", origin.get(c.name, ""), c.family) if Kind.MEASURED in c.kinds else ("claim", c.name)
        jobs.setdefault(group, []).append(c)
    return sorted(jobs.values(), key=lambda job: -sum(estimated_cost(c, recorded) for c in job))


def workers_for(jobs: int | None, todo: Sequence[Sequence[Claim]], recorded: Mapping[str, float]) -> int:
    """How many local workers check ``todo``: ``jobs`` when given (else :func:`default_jobs`), but one when the
    estimated work (:func:`estimated_cost`) is under :data:`SMALL_WORK` seconds; never more than the jobs."""
    if jobs is None:
        work = sum(estimated_cost(c, recorded) for job in todo for c in job)
        jobs = 1 if work < SMALL_WORK else default_jobs()
    return max(1, min(jobs, len(todo)))


def check_claims(
    claims: Sequence[Claim],
    *,
    files: Sequence[str] = (),
    seed: int = 0,
    max_examples: int = 100,
    jobs: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    cache: VerdictCache | None = None,
    progress: bool = False,
    extras: Sequence[Extra] = (),
    timeout: float | None = DEFAULT_TIMEOUT,
    on_result: Callable[[Result], None] | None = None,
    exitfirst: bool = False,
) -> Checked:
    """Check ``claims`` (built-in ones, or from the user's ``files``) and return their results in order.

    The claims not in ``cache`` (None: no cache) are checked in worker processes, longest first by
    the durations the cache recorded: ``jobs`` of them (default: one for small work, else
    :func:`default_jobs`; :func:`workers_for`), each claim within ``timeout`` seconds (None: no
    limit), or on the Dask cluster at ``scheduler`` with ``executor`` "dask" (None: a local cluster of
    ``jobs`` workers, started and closed here). ``on_result(result)`` is called as each claim checked
    completes (not for those read from the cache). ERROR verdicts are never stored: they are checked again next time, and so is a
    claim of unknown origin (made at run time: what it depends on is not known). The workers also
    run ``extras`` (:class:`Extra`).

    With ``exitfirst`` the run stops at the first claim not as expected (a cached one stops it before any
    check): the claims pending are cancelled, the workers ended, and :attr:`Checked.not_run` names them.
    """
    validate(jobs, executor, scheduler)
    validate_timeout(timeout)
    origin = {c.name: str(f) for f in files for c in registry.loaded(f).claims}
    keys: dict[str, str] = {}
    static: dict[str, list[str]] | None = None
    outcomes: dict[str, Outcome] = {}
    by_name = {c.name: c for c in claims}
    if cache is not None:
        where = claim_origins(claims, origin)
        files_of = {w: _static_files(w) for w in set(where.values())}
        keys = claim_keys(claims, origin, seed, max_examples)
        static = {name: [str(p) for p in files_of[w]] for name, w in where.items()}
        with versions_read_once():
            for name, key in keys.items():
                found = cache.get(key)
                if found is not None:
                    outcomes[name] = found.vetted(by_name[name])
    cached = frozenset(outcomes)
    recorded = cache.costs() if cache is not None else {}
    todo = jobs_of([c for c in claims if c.name not in outcomes], origin, recorded)
    fresh: dict[str, Outcome] = {}

    def finish(name: str, outcome: Outcome) -> None:
        """Keep the outcome (:meth:`Outcome.vetted`: checked here, where no claim ran), and store it at once (an
        interrupted run keeps what it finished)."""
        fresh[name] = outcome = outcome.vetted(by_name[name])
        if cache is not None and name in keys and outcome.verdict is not Verdict.ERROR:
            cache.put(keys[name], outcome)
        bar.update(1)
        if on_result is not None:
            on_result(outcome.result(by_name[name]))
        if exitfirst and not outcome.result(by_name[name]).as_expected:
            raise _StopEarly

    tqdm.monitor_interval = 0  # no monitor thread: workers are forked while the bar is shown
    failed_before = exitfirst and any(not outcomes[n].result(by_name[n]).as_expected for n in cached)
    with (
        tqdm(
            total=len(claims), initial=len(cached), desc="checking", unit="claim", file=sys.stderr, disable=not progress
        ) as bar,
        contextlib.suppress(_StopEarly),
    ):
        if failed_before:
            raise _StopEarly
        configs = [
            Job([c.name for c in job], origin.get(job[0].name), seed, max_examples, static=_only(static, job))
            for job in todo
        ]
        configs = _with_extras(configs, todo, extras)
        if executor == "dask" and configs:
            size = validate(jobs, executor, scheduler)  # a local cluster (no scheduler) has that many workers
            with sweep.dask_executor(scheduler, size) as ex:
                unknown = _on_dask(configs, ex, min(size, len(configs)), bar, finish)
            configs = [c for c in configs if set(c.names) & unknown]
        if configs:
            _local(configs, workers_for(jobs, todo, recorded), timeout, bar, finish, by_name)
    timed = {name: round(o.seconds, 3) for name, o in fresh.items() if o.verdict is not Verdict.ERROR}
    if cache is not None and timed:
        cache.record_costs(timed)
    outcomes.update(fresh)
    not_run = tuple(c.name for c in claims if c.name not in outcomes)
    kept = None if not_run else _all_kept(outcomes, keys)
    return Checked([outcomes[c.name].result(c) for c in claims if c.name in outcomes], cached, kept, not_run)


def _all_kept(outcomes: Mapping[str, Outcome], keys: Mapping[str, str]) -> Depends | None:
    """What ``outcomes`` depend on together (:meth:`Depends.merged`) when each of them is stored under its key
    (no ERROR, its dependencies recorded), else None."""
    parts = [o.depends for name, o in outcomes.items() if name in keys and o.verdict is not Verdict.ERROR]
    if len(parts) < len(outcomes) or any(part is None for part in parts):
        return None
    return Depends.merged(part for part in parts if part is not None)


def _only(static: Mapping[str, list[str]] | None, job: Sequence[Claim]) -> dict[str, list[str]] | None:
    """The static files of the claims of ``job`` (None: no cache, nothing recorded), empty for one of unknown
    origin (it is not stored anyway)."""
    return None if static is None else {c.name: static.get(c.name, []) for c in job}


def _local(
    configs: Sequence[Job],
    size: int,
    timeout: float | None,
    bar: tqdm,
    finish: Callable[[str, Outcome], None],
    claims: Mapping[str, Claim],
) -> None:
    """Do ``configs`` in ``size`` forked workers (:class:`icl_verify.running.workers.Pool`); the bar names the
    claim running longest."""

    def show(busy: Sequence[workers.Worker]) -> None:
        running = [w for w in busy if w.current is not None]
        if running:
            w = min(running, key=lambda w: w.since)
            bar.set_postfix_str(f"longest running: {w.current} ({time.monotonic() - w.since:.0f} s)")

    if any(job.static is not None for job in configs):
        distributions_of()  # read once here, not in every worker
    workers.INHERITED.clear()
    workers.INHERITED.update(claims)
    with workers.Pool(size, timeout, finish) as pool:
        pool.run(configs, show)


def _with_extras(configs: list[Job], todo: Sequence[Sequence[Claim]], extras: Sequence[Extra]) -> list[Job]:
    """``configs`` with each extra attached to its family's measured claims' job, else first as a job of its own.

    A job of extras alone goes first: its cost was never recorded, and it may run a simulation.
    """
    # a family is its file (whose claims are all labelled "user"), else its name
    owner = {
        config.file or job[0].family: config for config, job in zip(configs, todo) if Kind.MEASURED in job[0].kinds
    }
    alone = []
    for extra in extras:
        config = owner.get(extra.file or extra.family)
        if config is None:
            seed, budget = (configs[0].seed, configs[0].max_examples) if configs else (0, 0)
            config = Job([], extra.file, seed, budget)
            alone.append(config)
        config.extras.append(extra.run)
    return alone + configs


@cache
def _builtin_origins() -> dict[str, tuple[Claim, str]]:
    """Every built-in claim and its family's module, by name."""
    return {c.name: (c, fam.module.__name__) for fam in registry.families() for c in fam.claims}


def claim_origins(claims: Sequence[Claim], origin: Mapping[str, str]) -> dict[str, str]:
    """Where each claim whose origin is known comes from, by name: a user's file (``origin``: claim name → file)
    or a built-in family's module (a claim equal to the built-in one of its name)."""
    where = {c.name: origin[c.name] for c in claims if c.name in origin}
    if any(c.name not in origin for c in claims):
        builtin = _builtin_origins()
        where |= {
            c.name: builtin[c.name][1] for c in claims if c.name not in origin and builtin.get(c.name, (None,))[0] == c
        }
    return where


def _static_files(where: str, finder: sources.Finder = sources.installed_file) -> list:
    """:func:`icl_verify.running.sources.files_of` ``where``, and for a user's file the files of the modules
    loaded while it was imported (:func:`icl_verify.running.registry.loaded_by`)."""
    found = set(sources.files_of(where, finder))
    if where.endswith(".py"):
        found |= set(registry.loaded_by(where))
    return sorted(found)


def claim_keys(
    claims: Sequence[Claim],
    origin: Mapping[str, str],
    seed: int,
    max_examples: int,
    finder: sources.Finder = sources.installed_file,
) -> dict[str, str]:
    """The cache key of each claim whose origin is known (:func:`claim_origins`), by name:
    :func:`~icl_verify.running.verdict_cache.entry_key` of the digest of the files it depends on statically
    (:func:`icl_verify.running.sources.files_of`, modules found by ``finder``)."""
    where = claim_origins(claims, origin)
    digests = {w: sources.digest(_static_files(w, finder)) for w in set(where.values())}
    versions = environment()
    return {
        name: entry_key(name, sources=digests[w], seed=seed, max_examples=max_examples, versions=versions)
        for name, w in where.items()
    }


def _on_dask(
    configs: Sequence[Job], ex: Executor, jobs: int, bar: tqdm, finish: Callable[[str, Outcome], None]
) -> set[str]:
    """Keep ``jobs`` jobs in flight on the cluster, longest first; the names of the claims its workers did not
    know (:class:`NotFoundInWorker`), to be checked by local workers."""
    queue = list(configs)
    running: dict[Future, Job] = {}
    unknown: set[str] = set()
    try:
        while queue or running:
            while queue and len(running) < jobs:
                job = queue.pop(0)
                config = {"names": job.names, "file": job.file, "seed": job.seed, "max_examples": job.max_examples}
                running[ex.submit(check_job, config | {"static": job.static, "extras": job.extras})] = job
            finished, _ = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
            for fut in finished:
                job = running.pop(fut)
                if isinstance(fut.exception(), NotFoundInWorker):
                    unknown.update(job.names)
                    continue
                try:
                    results = fut.result()
                except Exception as exc:
                    detail = f"the worker failed: {type(exc).__name__}: {exc}"
                    results = dict.fromkeys(job.names, error(detail, job.seed, job.max_examples))
                for name, outcome in results.items():
                    finish(name, outcome)
    except BaseException:  # the run stops (at a failure, with exitfirst): what is still on the cluster is cancelled
        for fut in running:
            fut.cancel()
        raise
    return unknown
