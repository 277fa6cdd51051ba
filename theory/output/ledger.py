"""The claims ledger drawn: a Mermaid dependency graph coloured by verdict, and its text fallback.

``icl-verify docs`` writes :func:`document` as ``docs/derivations/ledger.md``; ``icl-verify check``
appends :func:`report_lines` to its table when a claim builds on a failed one. The graph is a
Mermaid ``flowchart`` (rendered by GitHub, and by MkDocs Material through pymdownx.superfences'
``mermaid`` fence): one node per claim, in the order given, classed by its verdict; an arrow
``a --> b`` reads "b builds on a" (:attr:`~icl_verify.core.claims.Claim.builds_on`); a claim
that builds on a failed claim (:func:`icl_verify.core.ledger.undermined`) gets a dashed red
border and "builds on a failed claim" in its label. Every line depends only on the claims and
their verdicts, so the text is the same on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from icl_verify.core.claims import Result
from icl_verify.core.ledger import failed, undermined
from icl_verify.core.verdicts import Verdict

CLASS_STYLES = {  # verdict → Mermaid class definition (fill, text colour)
    Verdict.PROVED: "fill:#1b5e20,stroke:#0d3311,color:#ffffff",
    Verdict.VERIFIED: "fill:#a5d6a7,stroke:#1b5e20,color:#000000",
    Verdict.REFUTED: "fill:#ef9a9a,stroke:#b71c1c,color:#000000",
    Verdict.UNPROVEN: "fill:#ffe082,stroke:#ff6f00,color:#000000",
    Verdict.ERROR: "fill:#ce93d8,stroke:#4a148c,color:#000000",
}
COLOUR_NAMES = {
    Verdict.PROVED: "dark green",
    Verdict.VERIFIED: "light green",
    Verdict.REFUTED: "red",
    Verdict.UNPROVEN: "amber",
    Verdict.ERROR: "purple",
}
UNDERMINED_STYLE = "stroke:#b71c1c,stroke-width:4px,stroke-dasharray:6 3"
UNDERMINED_LABEL = "builds on a failed claim"


def verdict_class(verdict: Verdict) -> str:
    """The Mermaid class of a node with this verdict: the verdict in lower case."""
    return verdict.value.lower()


def _quoted(text: str) -> str:
    """``text`` as a quoted Mermaid label (a double quote is written ``#quot;``)."""
    return '"' + text.replace('"', "#quot;") + '"'


def flowchart(groups: Mapping[str, Sequence[Result]]) -> str:
    """The Mermaid flowchart of the results, one subgraph per group (title → results), without the fence."""
    results = [r for rs in groups.values() for r in rs]
    ids = {r.claim.name: f"c{k}" for k, r in enumerate(results)}
    broken = undermined(results)
    lines = ["flowchart LR"]
    lines += [f"  classDef {verdict_class(v)} {style}" for v, style in CLASS_STYLES.items()]
    for g, (title, rs) in enumerate(groups.items()):
        lines.append(f"  subgraph g{g}[{_quoted(title)}]")
        for r in rs:
            label = f"{r.claim.name}<br/>{r.verdict.value}"
            if failed(r):
                label += " · not as expected"
            if r.claim.name in broken:
                label += f"<br/>{UNDERMINED_LABEL}"
            lines.append(f"    {ids[r.claim.name]}[{_quoted(label)}]:::{verdict_class(r.verdict)}")
        lines.append("  end")
    for r in results:
        lines += [f"  {ids[d]} --> {ids[r.claim.name]}" for d in r.claim.builds_on if d in ids]
    lines += [f"  style {ids[name]} {UNDERMINED_STYLE}" for name in broken]
    return "\n".join(lines)


def undermined_markdown(results: Sequence[Result]) -> str:
    """A Markdown list: each claim that builds on a failed claim, and the failed claims; or a sentence saying none does."""
    broken = undermined(results)
    if not broken:
        return "No claim builds on a claim that failed (refuted, unproven or errored while expected to hold)."
    return "\n".join(f"- `{name}` builds on {', '.join(f'`{f}`' for f in roots)}" for name, roots in broken.items())


def table_markdown(results: Sequence[Result]) -> str:
    """One row per claim that declares assumptions or claims it builds on."""
    lines = ["| claim | verdict | assumes | builds on |", "|---|---|---|---|"]
    for r in results:
        c = r.claim
        if c.assumptions or c.builds_on:
            built = ", ".join(f"`{d}`" for d in c.builds_on) or "—"
            lines.append(f"| `{c.name}` | {r.verdict.value} | {'; '.join(c.assumptions) or '—'} | {built} |")
    return "\n".join(lines)


def document(groups: Mapping[str, Sequence[Result]], note: str) -> str:
    """The ledger page: the graph, the claims that build on a failed claim, and every declared assumption."""
    results = [r for rs in groups.values() for r in rs]
    legend = ", ".join(f"{verdict_class(v)} {colour}" for v, colour in COLOUR_NAMES.items())
    lines = [
        "# Claims ledger",
        "",
        f"<!-- {note} -->",
        "",
        "Each claim may name the claims it builds on and the assumptions it needs. In the graph an "
        "arrow from a to b reads *b builds on a*; each node is coloured by its verdict — "
        f"{legend}. A dashed red border and “{UNDERMINED_LABEL}” mark a claim that builds, directly or "
        "through others, on a claim expected to hold that was refuted, left unproven or errored: its own "
        "checks may pass, but the argument it rests on does not stand.",
        "",
        "```mermaid",
        flowchart(groups),
        "```",
        "",
        "## Claims that build on a failed claim",
        "",
        undermined_markdown(results),
        "",
        "## Assumptions and dependencies",
        "",
        table_markdown(results),
    ]
    return "\n".join(lines) + "\n"


def report_lines(results: Sequence[Result]) -> list[str]:
    """Plain-text lines for ``icl-verify check``: each claim that builds on a failed claim; none if no claim does."""
    broken = undermined(results)
    if not broken:
        return []
    width = max(len(name) for name in broken)
    lines = [f"{UNDERMINED_LABEL} (its own verdict stands, its argument does not):"]
    return lines + [f"  {name:<{width}}  ← {', '.join(roots)}" for name, roots in broken.items()]
