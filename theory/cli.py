"""The ``icl-verify`` command line.

Exit status: 0 when every checked claim has its expected verdict, 1 when any does not,
2 for usage or input errors (a one-line message, no traceback).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from tqdm import tqdm

from theory import docs, registry, report
from theory.claims import Claim, check
from theory.cli_kinetics import kinetics_command
from theory.cli_raw import raw_command
from theory.cli_scaling import scaling_command
from theory.cli_train import train_group


class InputError(click.ClickException):
    """A bad argument or file: printed as one line, exit status 2."""

    exit_code = 2


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="icl-verify")
def main() -> None:
    """icl-verify: check the mathematics of in-context learning."""


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
def list_claims(as_json: bool) -> None:
    """List the built-in claims with their family and source."""
    claims = registry.builtin_claims()
    if as_json:
        rows = [{"name": c.name, "family": c.family, "source": c.source, "holds": c.holds} for c in claims]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max(len(c.name) for c in claims)
    for c in claims:
        flag = "" if c.holds else "  [expected false]"
        click.echo(f"{c.name:<{width}}  {c.family:<10}  {c.source}{flag}")


@main.command("check")
@click.argument("targets", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (docs/json-report.md).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Seed for Hypothesis.")
@click.option(
    "--max-examples", default=100, show_default=True, type=click.IntRange(min=1), help="Random cases per claim."
)
def check_claims(targets: tuple[str, ...], as_json: bool, seed: int, max_examples: int) -> None:
    """Check claims and report their verdicts.

    TARGETS are claim names and/or paths to Python files of claims; none means every
    built-in claim. A file alone checks the claims it defines.
    """
    claims = _gather(targets)
    progress = tqdm(claims, desc="checking", unit="claim", file=sys.stderr, disable=as_json or not sys.stderr.isatty())
    results = [check(claim, seed=seed, max_examples=max_examples) for claim in progress]
    if as_json:
        click.echo(json.dumps(report.to_json(results, seed=seed, max_examples=max_examples), indent=2, ensure_ascii=False))
    else:
        click.echo(report.table(results))
    sys.exit(0 if all(r.as_expected for r in results) else 1)


@main.command("docs")
@click.option("--out", type=click.Path(file_okay=False), default=str(docs.DEFAULT_OUT), show_default=True)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if the documents are stale.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--max-examples", default=100, show_default=True, type=click.IntRange(min=1))
def docs_command(out: str, check_only: bool, seed: int, max_examples: int) -> None:
    """Generate the derivation documents (one per result family, an index, figures)."""

    def progress(items):
        return tqdm(list(items), desc="checking", unit="claim", file=sys.stderr, disable=not sys.stderr.isatty())

    files = docs.build(seed=seed, max_examples=max_examples, progress=progress)
    out_dir = Path(out)
    if check_only:
        stale = docs.stale_files(files, out_dir)
        for rel in stale:
            click.echo(f"stale: {out_dir / rel}")
        click.echo(f"{len(stale)} stale of {len(files)} files" if stale else f"up to date ({len(files)} files)")
        sys.exit(1 if stale else 0)
    docs.write(files, out_dir)
    click.echo(f"wrote {len(files)} files to {out_dir}")


# Commands of the result families, one module each.
main.add_command(kinetics_command)
main.add_command(raw_command)
main.add_command(scaling_command)
main.add_command(train_group)
