"""``icl-verify check``: check built-in claims, named ones, or a user's file, and report the verdicts."""

from __future__ import annotations

import sys

import click
from tqdm import tqdm

from icl_verify.cli import InputError
from icl_verify.cli._params import MAX_EXAMPLES, count
from icl_verify.engine import registry
from icl_verify.engine.claims import Claim, check
from icl_verify.output import report, strict_json


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
def command(targets: tuple[str, ...], as_json: bool, seed: int, max_examples: int) -> None:
    """Check claims and report their verdicts.

    TARGETS are claim names and/or paths to Python files of claims; none means every
    built-in claim. A file alone checks the claims it defines.

    A claim file is Python code, executed with your user's rights when it is loaded, like a
    test file given to pytest: check only files you trust.
    """
    claims = _gather(targets)
    progress = tqdm(claims, desc="checking", unit="claim", file=sys.stderr, disable=as_json or not sys.stderr.isatty())
    results = [check(claim, seed=seed, max_examples=max_examples) for claim in progress]
    if as_json:
        text = strict_json.dumps(report.to_json(results, seed=seed, max_examples=max_examples), indent=2)
        click.echo(text)
    else:
        click.echo(report.table(results))
    sys.exit(0 if all(r.as_expected for r in results) else 1)
