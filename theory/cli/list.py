"""``icl-verify list``: the built-in claims with their family and source."""

from __future__ import annotations

import click


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
def command(as_json: bool) -> None:
    """List the built-in claims with their family and source."""
    from icl_verify.output import strict_json
    from icl_verify.running import registry  # imports every family: the claims are defined there

    claims = registry.builtin_claims()
    if as_json:
        rows = [{"name": c.name, "family": c.family, "source": c.source, "holds": c.holds} for c in claims]
        click.echo(strict_json.dumps(rows, indent=2))
        return
    width = max(len(c.name) for c in claims)
    for c in claims:
        flag = "" if c.holds else "  [expected false]"
        click.echo(f"{c.name:<{width}}  {c.family:<12}  {c.source}{flag}")
