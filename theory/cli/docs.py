"""``icl-verify docs``: generate the derivation documents, or report which are stale."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from tqdm import tqdm

from icl_verify.cli._params import MAX_EXAMPLES, OutputDir, count
from icl_verify.output import docs


@click.command("docs")
@click.option(
    "--out",
    type=OutputDir("folder of icl-verify documents", lambda path: docs.is_generated(path / "index.md")),
    default=str(docs.DEFAULT_OUT),
    show_default=True,
    help="Folder of the documents (created if missing; an existing one must hold icl-verify's documents).",
)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if the documents are stale.")
@click.option(
    "--strict",
    is_flag=True,
    help="With --check: compare bytes, measured digits and figures included (same machine only).",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--max-examples", default=100, show_default=True, type=count(1, MAX_EXAMPLES))
def command(out: str, check_only: bool, strict: bool, seed: int, max_examples: int) -> None:
    """Generate the derivation documents (one per result family, an index, figures).

    --check compares what is deterministic by construction (statements, verdicts, evidence
    outcomes, counterexample sizes, derivation steps); --check --strict compares bytes.
    """
    if strict and not check_only:
        raise click.UsageError("--strict is only used with --check")

    def progress(items):
        return tqdm(list(items), desc="checking", unit="claim", file=sys.stderr, disable=not sys.stderr.isatty())

    files = docs.build(seed=seed, max_examples=max_examples, progress=progress)
    out_dir = Path(out)
    if check_only:
        stale = docs.stale_files(files, out_dir, strict=strict)
        for rel in stale:
            click.echo(f"stale: {out_dir / rel}")
        click.echo(f"{len(stale)} stale of {len(files)} files" if stale else f"up to date ({len(files)} files)")
        sys.exit(1 if stale else 0)
    docs.write(files, out_dir)
    click.echo(f"wrote {len(files)} files to {out_dir}")
