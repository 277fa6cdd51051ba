"""``icl-verify check``: check built-in claims, named ones, or a user's file, and report the verdicts.

A user's file contributes its module-level claims and derivations (each derivation checked step by
step); names must be unique in a run, built-ins included (:func:`icl_verify.running.registry.unique`).
"""

from __future__ import annotations

import sys

import click

from icl_verify.cli import InputError
from icl_verify.cli._params import MAX_EXAMPLES, count
from icl_verify.core.claims import Claim
from icl_verify.core.derivation import Derivation
from icl_verify.output import report, strict_json
from icl_verify.running import registry, runner
from icl_verify.running.verdict_cache import ENV_VAR, VerdictCache


def _gather(targets: tuple[str, ...]) -> tuple[list[Claim], list[Derivation]]:
    """The claims to check and the derivations of the user's files among ``targets``."""
    files = [t for t in targets if t.endswith(".py")]
    names = [t for t in targets if not t.endswith(".py")]
    try:
        user = registry.load_files(files)
        derivations = [d for fam in user for d in fam.derivations]
        if files and not names:
            chosen = [c for fam in user for c in fam.claims]
        else:
            fams = registry.families() + user
            registry.unique(fams)  # a user's claim never silently replaces a built-in one
            pool = [c for fam in fams for c in fam.claims]
            chosen = registry.select(pool, names) if names else pool
        registry.validate_ledger(chosen)
        return chosen, derivations
    except ValueError as exc:
        raise InputError(str(exc)) from None


def runner_options(fn):
    """The options of parallel, incremental checking (shared by ``check`` and ``docs``)."""
    options = [
        click.option(
            "--jobs",
            type=click.IntRange(min=1),
            default=None,
            help="Worker processes checking claims at once  [default: every core].",
        ),
        click.option(
            "--executor",
            type=click.Choice(runner.EXECUTORS),
            default="local",
            show_default=True,
            help="Local processes, or a Dask cluster (needs the dask extra and --scheduler).",
        ),
        click.option("--scheduler", default=None, help="Address of the Dask scheduler (with --executor dask)."),
        click.option("--no-cache", is_flag=True, help="Check every claim afresh; read and store no verdict."),
        click.option(
            "--cache-dir",
            type=click.Path(),
            default=None,
            help=f"Folder of the verdict cache  [default: ${ENV_VAR}, else the user's cache directory].",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def open_cache(cache_dir: str | None) -> VerdictCache:
    """The verdict cache in ``cache_dir`` (None: the default folder); a bad folder is an input error."""
    try:
        return VerdictCache(cache_dir)
    except ValueError as exc:
        raise InputError(str(exc).replace("cache_dir", "--cache-dir", 1)) from None


def validate_runner(jobs: int | None, executor: str, scheduler: str | None) -> None:
    """Exit 2 with one line when --executor and --scheduler do not go together (:func:`runner.validate`)."""
    if executor == "dask" and not scheduler:
        raise InputError("--executor dask needs --scheduler ADDRESS, the address of a Dask scheduler")
    if scheduler is not None and executor != "dask":
        raise InputError("--scheduler is only used with --executor dask")
    try:
        runner.validate(jobs, executor, scheduler)
    except ValueError as exc:
        raise InputError(str(exc)) from None


@click.command("check")
@click.argument("targets", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (docs/json-report.md).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Seed for Hypothesis.")
@click.option(
    "--max-examples",
    default=100,
    show_default=True,
    type=count(1, MAX_EXAMPLES),
    help="Random cases per numeric check.",
)
@runner_options
def command(
    targets: tuple[str, ...],
    as_json: bool,
    seed: int,
    max_examples: int,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    no_cache: bool,
    cache_dir: str | None,
) -> None:
    """Check claims and report their verdicts.

    TARGETS are claim names and/or paths to Python files of claims; none means every
    built-in claim. A file alone checks the claims and derivations it defines. Verdicts are reused
    from the cache while nothing they depend on changed (docs/performance.md); --no-cache checks afresh.

    A claim file is Python code, executed with your user's rights when it is loaded, like a
    test file given to pytest: check only files you trust.
    """
    validate_runner(jobs, executor, scheduler)
    claims, derivations = _gather(targets)
    checked = runner.check_claims(
        claims,
        files=[t for t in targets if t.endswith(".py")],
        seed=seed,
        max_examples=max_examples,
        jobs=jobs,
        executor=executor,
        scheduler=scheduler,
        cache=None if no_cache else open_cache(cache_dir),
        progress=not as_json and sys.stderr.isatty(),
    )
    results = checked.results
    steps = [d.check() for d in derivations]
    if as_json:
        record = report.to_json(results, seed=seed, max_examples=max_examples, derivations=steps, cached=checked.cached)
        click.echo(strict_json.dumps(record, indent=2))
    else:
        if results or not steps:
            click.echo(report.table(results, cached=checked.cached))
        if steps:
            click.echo(report.derivations_table(steps))
    sys.exit(0 if all(r.as_expected for r in [*results, *steps]) else 1)
