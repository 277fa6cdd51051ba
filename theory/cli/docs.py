"""``icl-verify docs``: generate the derivation documents, or report which are stale."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from icl_verify.cli.check import open_cache, runner_options, validate_runner
from icl_verify.engine import registry, runner
from icl_verify.output import docs


@click.command("docs")
@click.option("--out", type=click.Path(file_okay=False), default=str(docs.DEFAULT_OUT), show_default=True)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if the documents are stale.")
@click.option(
    "--strict",
    is_flag=True,
    help="With --check: compare bytes, measured digits and figures included (same machine only).",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--max-examples", default=100, show_default=True, type=click.IntRange(min=1))
@runner_options
def command(
    out: str,
    check_only: bool,
    strict: bool,
    seed: int,
    max_examples: int,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    no_cache: bool,
    cache_dir: str | None,
) -> None:
    """Generate the derivation documents (one per result family, an index, figures).

    --check compares what is deterministic by construction (statements, verdicts, evidence
    outcomes, counterexample sizes, derivation steps); --check --strict compares bytes.
    The claims are checked as by ``icl-verify check`` (in parallel, verdicts reused from the cache).
    """
    if strict and not check_only:
        raise click.UsageError("--strict is only used with --check")
    validate_runner(jobs, executor, scheduler)
    claims = registry.builtin_claims()
    checked = runner.check_claims(
        claims,
        seed=seed,
        max_examples=max_examples,
        jobs=jobs,
        executor=executor,
        scheduler=scheduler,
        cache=None if no_cache else open_cache(cache_dir),
        progress=sys.stderr.isatty(),
    )
    results = {r.claim.name: r for r in checked.results}
    files = docs.build(results, seed=seed, max_examples=max_examples)
    out_dir = Path(out)
    if check_only:
        stale = docs.stale_files(files, out_dir, strict=strict)
        for rel in stale:
            click.echo(f"stale: {out_dir / rel}")
        click.echo(f"{len(stale)} stale of {len(files)} files" if stale else f"up to date ({len(files)} files)")
        sys.exit(1 if stale else 0)
    docs.write(files, out_dir)
    click.echo(f"wrote {len(files)} files to {out_dir}")
