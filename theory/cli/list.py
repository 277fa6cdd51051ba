"""``icl-verify list``: the built-in claims with their family and source."""

from __future__ import annotations

import click


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
def command(as_json: bool) -> None:
    """List the built-in claims with their family and source."""
    from icl_verify.output import strict_json
    from icl_verify.running.catalogue import builtin_claims_listed

    claims = builtin_claims_listed()
    if as_json:
        click.echo(strict_json.dumps(claims, indent=2))
        return
    width = max(len(c["name"]) for c in claims)
    for c in claims:
        flag = "" if c["holds"] else "  [expected false]"
        click.echo(f"{c['name']:<{width}}  {c['family']:<12}  {c['source']}{flag}")
