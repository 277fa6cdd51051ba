"""``icl-verify check``: check built-in claims, named ones, or a user's file, and report the verdicts."""

from __future__ import annotations

import json
import sys

import click

from icl_verify.cli import InputError
from icl_verify.engine import registry, runner
from icl_verify.engine.claims import Claim
from icl_verify.engine.verdict_cache import ENV_VAR, VerdictCache
from icl_verify.output import report


def _gather(targets: tuple[str, ...]) -> list[Claim]:
    files = [t for t in targets if t.endswith(".py")]
    names = [t for t in targets if not t.endswith(".py")]
    try:
        user = [c for f in files for c in registry.load_file(f)]
        if files and not names:
            return user
        pool = registry.builtin_claims() + user
        return registry.select(pool, names) if names else pool
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
    "--max-examples", default=100, show_default=True, type=click.IntRange(min=1), help="Random cases per claim."
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
    built-in claim. A file alone checks the claims it defines. Verdicts are reused from the
    cache while nothing they depend on changed (docs/performance.md); --no-cache checks afresh.
    """
    validate_runner(jobs, executor, scheduler)
    claims = _gather(targets)
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
    if as_json:
        data = report.to_json(results, seed=seed, max_examples=max_examples, cached=checked.cached)
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(report.table(results, cached=checked.cached))
    sys.exit(0 if all(r.as_expected for r in results) else 1)
