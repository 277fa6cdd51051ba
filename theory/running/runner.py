"""Checking many claims: in worker processes, longest first, reusing cached verdicts.

:func:`check_claims` is what ``icl-verify check`` and ``icl-verify docs`` run. Claims hold
lambdas and do not pickle, so a worker is sent a claim's *reference* — its name, and the user's
file it comes from (none for a built-in claim) — re-loads the claim there (:func:`check_job`) and
sends back its :class:`~icl_verify.running.verdict_cache.Outcome`; a claim the workers cannot
find (one made at run time) is checked in this process instead. Workers come from the same
executor layer as the sweeps (:mod:`icl_verify.numerics.shared.sweep`): local processes, or a
Dask cluster. Whatever the number of workers the results are the same: every claim is checked
with the same seed, example budget and one BLAS thread (so sums run in the same order, and
workers never oversubscribe the cores), and results come back in the order the claims were given.

A worker's job is one claim, except for the claims with a measured check: those of one family go
to one worker together (:func:`jobs_of`), checked one after another, because such claims share
their simulations through :func:`icl_verify.core.caches.cached` (the scaling family's two claims
share 30 MLP trainings) — in two workers each simulation would run twice. Other work that uses a
family's simulations (an :class:`Extra`, e.g. drawing its figures) joins that job, after its claims.

A result is reused from the cache while nothing it depends on changed: its key
(:func:`claim_keys`, :func:`icl_verify.running.verdict_cache.entry_key`) holds the source of the
modules its family's module (or the user's file) imports, transitively
(:func:`icl_verify.running.sources.dependencies`), so editing one family re-checks that family's claims.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from functools import cache
from typing import Any

from tqdm import tqdm

from icl_verify.core.claims import Claim, Result, check
from icl_verify.core.evidence import Evidence, Kind, Status
from icl_verify.core.verdicts import Verdict
from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared import sweep
from icl_verify.numerics.shared.checks import positive_int
from icl_verify.numerics.shared.threads import blas_threads
from icl_verify.running import registry, sources
from icl_verify.running.verdict_cache import Outcome, VerdictCache, entry_key, environment

EXECUTORS = ("local", "dask")
JOBS_VAR = "ICL_VERIFY_JOBS"
_STATIC_COST = {Kind.MEASURED: 100.0, Kind.NUMERIC: 10.0, Kind.EXPLICIT: 1.0, Kind.SYMBOLIC: 0.1}
"""Seconds assumed for a claim never timed before, by its most expensive check."""


@dataclass(frozen=True)
class Checked:
    """The results in the order the claims were given, and the names of those read from the cache."""

    results: list[Result]
    cached: frozenset[str]


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


@cache
def loaded_family(file: str) -> registry.Family:
    """A user's file as a family, loaded once per worker: its claims and figures share the module's caches."""
    return registry.load_family(file)


@cache
def _claims_of(file: str | None) -> dict[str, Claim]:
    """The built-in claims (``file`` None) or a user's file's, by name, loaded once per worker."""
    return {c.name: c for c in (registry.builtin_claims() if file is None else loaded_family(file).claims)}


def check_one(claim: Claim, seed: int, max_examples: int) -> Outcome:
    """Check ``claim`` with one BLAS thread (the same in every worker, whatever their number)."""
    with blas_threads(1):
        return Outcome.of(check(claim, seed=seed, max_examples=max_examples))


def check_job(config: Mapping[str, Any]) -> dict[str, Outcome]:
    """The worker's side: re-load the claims ``config`` names (``file`` None: built-in), check them in order,
    then run the job's :class:`Extra` work.

    Nothing is checked when one of them is unknown here (:class:`NotFoundInWorker`).
    """
    claims = _claims_of(config["file"]) if config["names"] else {}
    missing = [name for name in config["names"] if name not in claims]
    if missing:
        raise NotFoundInWorker(", ".join(missing))
    outcomes = {name: check_one(claims[name], config["seed"], config["max_examples"]) for name in config["names"]}
    for extra in config.get("extras", ()):
        with contextlib.suppress(Exception):  # done again, and reported, by whoever needs it
            extra.run()
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


@contextlib.contextmanager
def _executor(jobs: int, scheduler: str | None) -> Iterator[Executor]:
    """The Dask cluster's executor at ``scheduler`` if given (:func:`validate`: only with executor 'dask'), else
    ``jobs`` local worker processes."""
    if scheduler is not None:
        with sweep.dask_executor(scheduler) as ex:
            yield ex
    else:
        with sweep.local_executor(jobs, threads_per_worker=1) as ex:
            yield ex


def validate(jobs: int | None, executor: str, scheduler: str | None) -> int:
    """The number of workers; :class:`InvalidArgument` naming the argument when the three do not go together."""
    if executor not in EXECUTORS:
        raise InvalidArgument(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "dask" and not scheduler:
        raise InvalidArgument("executor 'dask' needs scheduler, the address of a Dask scheduler")
    if executor == "dask" and importlib.util.find_spec("distributed") is None:
        raise InvalidArgument("executor 'dask' needs the optional extra: pip install \"icl-verify[dask]\"")
    if scheduler is not None and executor != "dask":
        raise InvalidArgument("scheduler is only used with executor 'dask'")
    return default_jobs() if jobs is None else positive_int("jobs", jobs)


def default_jobs() -> int:
    """The number of workers when none is given: ``$ICL_VERIFY_JOBS`` if set, else every core.

    The test suite sets it to 1: its own pytest-xdist workers already use every core, and two
    check workers more, each importing SymPy and every family, would cost more than the claims
    of a command under test (the reports are the same for every number of workers).
    """
    value = os.environ.get(JOBS_VAR)
    if not value:
        return os.cpu_count() or 1
    try:
        return positive_int(JOBS_VAR, int(value))
    except ValueError:
        raise InvalidArgument(f"{JOBS_VAR} must be a positive integer, got {value!r}") from None


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
) -> Checked:
    """Check ``claims`` (built-in ones, or from the user's ``files``) and return their results in order.

    ``jobs`` workers (default: :func:`default_jobs`) check the claims not in ``cache`` (None: no cache),
    longest first by the durations the cache recorded; ``jobs=1`` with the local executor checks
    in this process. ERROR verdicts are never stored: they are checked again next time, and so is a
    claim of unknown origin (made at run time: what it depends on is not known).

    The workers also run ``extras`` (:class:`Extra`). With no worker to start they are not run
    here: the caller does what is missing.
    """
    jobs = validate(jobs, executor, scheduler)
    origin = {c.name: str(f) for f in files for c in registry.load_file(f)}
    keys: dict[str, str] = {}
    outcomes: dict[str, Outcome] = {}
    if cache is not None:
        keys = claim_keys(claims, origin, seed, max_examples)
        for name, key in keys.items():
            found = cache.get(key)
            if found is not None:
                outcomes[name] = found
    cached = frozenset(outcomes)
    recorded = cache.costs() if cache is not None else {}
    todo = jobs_of([c for c in claims if c.name not in outcomes], origin, recorded)
    fresh: dict[str, Outcome] = {}

    def finish(name: str, outcome: Outcome) -> None:
        """Keep the outcome, and store it at once (an interrupted run keeps what it finished)."""
        fresh[name] = outcome
        if cache is not None and name in keys and outcome.verdict is not Verdict.ERROR:
            cache.put(keys[name], outcome)
        bar.update(1)

    with tqdm(
        total=len(claims), initial=len(cached), desc="checking", unit="claim", file=sys.stderr, disable=not progress
    ) as bar:
        if len(todo) <= 1 or (jobs == 1 and executor == "local"):  # one job: no worker to start
            _serial([c for job in todo for c in job], seed, max_examples, bar, finish)
        else:
            configs = [
                {
                    "names": [c.name for c in job],
                    "file": origin.get(job[0].name),
                    "seed": seed,
                    "max_examples": max_examples,
                }
                for job in todo
            ]
            configs = _with_extras(configs, todo, extras)
            with _executor(min(jobs, len(configs)), scheduler) as ex:
                unknown = _parallel(configs, ex, jobs, bar, finish)
            _serial([c for job in todo for c in job if c.name in unknown], seed, max_examples, bar, finish)
    if cache is not None and fresh:
        cache.record_costs({name: round(o.seconds, 3) for name, o in fresh.items()})
    outcomes.update(fresh)
    return Checked([outcomes[c.name].result(c) for c in claims], cached)


def _with_extras(
    configs: list[dict[str, Any]], todo: Sequence[Sequence[Claim]], extras: Sequence[Extra]
) -> list[dict[str, Any]]:
    """``configs`` with each extra attached to its family's measured claims' job, else first as a job of its own.

    A job of extras alone goes first: its cost was never recorded, and it may run a simulation.
    """
    # a family is its file (whose claims are all labelled "user"), else its name
    owner = {
        config["file"] or job[0].family: config for config, job in zip(configs, todo) if Kind.MEASURED in job[0].kinds
    }
    alone = []
    for extra in extras:
        config = owner.get(extra.file or extra.family)
        if config is None:
            config = {
                "names": [],
                "file": extra.file,
                "seed": configs[0]["seed"],
                "max_examples": configs[0]["max_examples"],
            }
            alone.append(config)
        config.setdefault("extras", []).append(extra)
    return alone + configs


def claim_keys(
    claims: Sequence[Claim],
    origin: Mapping[str, str],
    seed: int,
    max_examples: int,
    finder: sources.Finder = sources.installed_file,
) -> dict[str, str]:
    """The cache key of each claim whose origin is known, by name: a user's file (``origin``: claim name →
    file) or a built-in family's module (a claim equal to the built-in one of its name);
    :func:`~icl_verify.running.verdict_cache.entry_key` of the digest of the files it depends on
    (:func:`icl_verify.running.sources.files_of`, modules found by ``finder``)."""
    where = dict(origin)
    if any(c.name not in origin for c in claims):
        builtin = {c.name: (c, fam.module.__name__) for fam in registry.families() for c in fam.claims}
        where |= {
            c.name: builtin[c.name][1] for c in claims if c.name not in origin and builtin.get(c.name, (None,))[0] == c
        }
    known = {where[c.name] for c in claims if c.name in where}
    digests = {w: sources.digest(sources.files_of(w, finder)) for w in known}
    versions = environment()
    return {
        c.name: entry_key(
            c.name, sources=digests[where[c.name]], seed=seed, max_examples=max_examples, versions=versions
        )
        for c in claims
        if c.name in where
    }


def _serial(
    todo: Sequence[Claim], seed: int, max_examples: int, bar: tqdm, finish: Callable[[str, Outcome], None]
) -> None:
    for claim in todo:
        bar.set_postfix_str(claim.name)
        finish(claim.name, check_one(claim, seed, max_examples))


def _parallel(
    configs: Sequence[Mapping[str, Any]],
    ex: Executor,
    jobs: int,
    bar: tqdm,
    finish: Callable[[str, Outcome], None],
) -> set[str]:
    """Keep ``jobs`` jobs in flight, longest first; the bar names the one running longest.

    Returns the names of the jobs' claims the workers did not know (:class:`NotFoundInWorker`), to be checked here.
    """
    queue = list(configs)
    running: dict[Future, tuple[Mapping[str, Any], float]] = {}
    unknown: set[str] = set()
    while queue or running:
        while queue and len(running) < jobs:
            config = queue.pop(0)
            running[ex.submit(check_job, config)] = (config, time.monotonic())
        finished, _ = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
        for fut in finished:
            config, _ = running.pop(fut)
            if isinstance(fut.exception(), NotFoundInWorker):
                unknown.update(config["names"])
            else:
                for name, outcome in _outcomes(fut, config).items():
                    finish(name, outcome)
        if running:
            config, started = min(running.values(), key=lambda item: item[1])
            names = " + ".join(config["names"])
            bar.set_postfix_str(f"longest running: {names} ({time.monotonic() - started:.0f} s)")
    return unknown


def _outcomes(fut: Future, config: Mapping[str, Any]) -> dict[str, Outcome]:
    """The worker's outcomes; a worker that failed outside the checks (it died, a claim did not load) is an ERROR."""
    try:
        return fut.result()
    except Exception as exc:
        detail = f"the worker failed: {type(exc).__name__}: {exc}"
        error = Outcome(
            Verdict.ERROR,
            (Evidence(Kind.WORKER, Status.ERROR, detail, 0.0),),
            config["seed"],
            config["max_examples"],
            0.0,
        )
        return dict.fromkeys(config["names"], error)
