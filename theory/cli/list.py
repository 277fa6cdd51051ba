"""``icl-verify list``: the built-in claims and derivations with their family and source."""

from __future__ import annotations

import shutil
import sys

import click

LIST_SCHEMA = 1
"""The version of ``list --json``'s layout: ``{"schema", "icl_verify_version", "claims": [{name, family, source,
holds}], "derivations": [the same fields]}``."""


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON (with its schema and version).")
def command(as_json: bool) -> None:
    """List the built-in claims, then the built-in derivations, with their family and source.

    On a terminal a source too long for the line is cut with "…"; piped, every line is whole.
    """
    from icl_verify.output import strict_json
    from icl_verify.output.strict_json import package_version
    from icl_verify.running.catalogue import builtin_listed

    listed = builtin_listed()
    if as_json:
        record = {"schema": LIST_SCHEMA, "icl_verify_version": package_version(), **listed}
        click.echo(strict_json.dumps(record, indent=2))
        return
    columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    lines = [*table(listed["claims"], "claim", columns), "", *table(listed["derivations"], "derivation", columns)]
    for line in lines:
        click.echo(line)


def table(rows: list[dict], noun: str, columns: int | None = None) -> list[str]:
    """The header and one row per claim or derivation (``noun``): name, family, source (``[expected false]`` after
    a misprint's), then their count; each row cut to ``columns`` characters with "…" when given."""
    width = max([len(c["name"]) for c in rows] + [len(noun)])
    family = max([len(c["family"]) for c in rows] + [6])
    lines = [f"{noun:<{width}}  {'family':<{family}}  source"]
    for c in rows:
        flag = "" if c["holds"] else "  [expected false]"
        lines.append(f"{c['name']:<{width}}  {c['family']:<{family}}  {c['source']}{flag}")
    lines.append(f"{len(rows)} {noun}{'' if len(rows) == 1 else 's'}")
    return [row if columns is None or len(row) <= columns else row[: columns - 1] + "…" for row in lines]
