"""``icl-verify check``: check built-in claims, named ones, or a user's file, and report the verdicts.

A user's file contributes its module-level claims and derivations (each derivation checked step by
step); names must be unique in a run, built-ins included (:func:`icl_verify.engine.registry.unique`).
"""

from __future__ import annotations

import sys

import click
from tqdm import tqdm

from icl_verify.cli import InputError
from icl_verify.cli._params import MAX_EXAMPLES, count
from icl_verify.engine import ledger, registry
from icl_verify.engine.claims import Claim, check
from icl_verify.engine.derivation import Derivation
from icl_verify.output import report, strict_json


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
        ledger.validate(chosen)
        return chosen, derivations
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
    built-in claim. A file alone checks the claims and derivations it defines.

    A claim file is Python code, executed with your user's rights when it is loaded, like a
    test file given to pytest: check only files you trust.
    """
    claims, derivations = _gather(targets)
    progress = tqdm(claims, desc="checking", unit="claim", file=sys.stderr, disable=as_json or not sys.stderr.isatty())
    results = [check(claim, seed=seed, max_examples=max_examples) for claim in progress]
    checked = [d.check() for d in derivations]
    if as_json:
        record = report.to_json(results, seed=seed, max_examples=max_examples, derivations=checked)
        click.echo(strict_json.dumps(record, indent=2))
    else:
        if results or not checked:
            click.echo(report.table(results))
        if checked:
            click.echo(report.derivations_table(checked))
    sys.exit(0 if all(r.as_expected for r in [*results, *checked]) else 1)
