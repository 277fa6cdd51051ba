"""``icl-verify docs``: generate the derivation documents, or report which are stale.

Without FILES: one document per built-in result family, an index and figures, in docs/derivations.
With FILES (users' claim files): one document per file, in the same format, in ./derivations
(``--format latex``: one LaTeX fragment per file instead, for a paper).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from icl_verify.cli import InputError
from icl_verify.cli._params import MAX_EXAMPLES, OutputDir, count
from icl_verify.cli.check import open_cache, runner_options, validate_runner
from icl_verify.output import docs
from icl_verify.running import registry, runner

OUT_DIR = OutputDir("folder of icl-verify documents", docs.holds_documents)


@click.command("docs")
@click.argument("files", nargs=-1, metavar="[FILE.py]...")
@click.option(
    "--out",
    type=OUT_DIR,
    default=None,
    help=f"Folder to write to  [default: {docs.DEFAULT_OUT}, or {docs.USER_OUT} with FILES]",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(docs.FORMATS),
    default="markdown",
    show_default=True,
    help="With FILES: Markdown documents, or LaTeX fragments (amsmath, amssymb) for a paper.",
)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if the documents are stale.")
@click.option(
    "--strict",
    is_flag=True,
    help="With --check: compare bytes, measured digits and figures included (same machine only).",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--max-examples", default=100, show_default=True, type=count(1, MAX_EXAMPLES))
@runner_options
def command(
    files: tuple[str, ...],
    out: str | None,
    fmt: str,
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
    """Generate the derivation documents: one per built-in result family (with an index and
    figures), or one per FILE.py of your own claims, derivations and FIGURES.

    --check compares what is deterministic by construction (statements, verdicts, evidence
    outcomes, counterexample sizes, derivation steps); --check --strict compares bytes.
    The claims are checked as by ``icl-verify check`` (in parallel, verdicts reused from the cache),
    and the figures drawn are kept in the same cache (--no-cache: every figure is drawn again).
    """
    if strict and not check_only:
        raise click.UsageError("--strict is only used with --check")
    if fmt != "markdown" and not files:
        raise click.UsageError("--format latex needs FILE.py arguments (the built-in documents are Markdown)")
    validate_runner(jobs, executor, scheduler)
    if out is None:  # the default folder is held to the same rules as a given one, before any checking
        default = docs.USER_OUT if files else docs.DEFAULT_OUT
        ctx = click.get_current_context()
        out = OUT_DIR.convert(str(default), next(p for p in ctx.command.params if p.name == "out"), ctx)
    out_dir = Path(out)
    run = {"seed": seed, "max_examples": max_examples, "jobs": jobs, "executor": executor, "scheduler": scheduler}
    run |= {"cache": None if no_cache else open_cache(cache_dir), "progress": sys.stderr.isatty()}
    try:
        fams = registry.load_files(files) if files else registry.families()
        claims = [c for fam in fams for c in fam.claims]
        if (
            run["cache"] is not None
        ):  # the workers draw the figures into the cache, beside the claims they share runs with
            run["draw"] = functools.partial(docs.draw_into_cache, str(run["cache"].folder), seed, max_examples)
            run["drawings"] = [(str(f.path) if f.path is not None else None, f.name) for f in fams if f.figures]
        results = {r.claim.name: r for r in runner.check_claims(claims, files=list(files), **run).results}
        if files:
            rendered = docs.user_documents(
                fams, results, fmt=fmt, seed=seed, max_examples=max_examples, cache=run["cache"]
            )
        else:
            rendered = docs.build(results, seed=seed, max_examples=max_examples, cache=run["cache"])
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if check_only:
        stale = docs.stale_files(rendered, out_dir, strict=strict)
        for rel in stale:
            click.echo(f"stale: {out_dir / rel}")
        click.echo(f"{len(stale)} stale of {len(rendered)} files" if stale else f"up to date ({len(rendered)} files)")
        sys.exit(1 if stale else 0)
    docs.write(rendered, out_dir)
    click.echo(f"wrote {len(rendered)} files to {out_dir}")
