"""The claims ledger drawn: a dependency graph coloured by verdict (an SVG), and its text fallback.

``icl-verify docs`` writes :func:`document` as ``docs/derivations/ledger.md`` and :func:`graph_svg` as
``docs/derivations/figures/ledger.svg``; ``icl-verify check`` appends :func:`report_lines` to its table
when a claim builds on a failed one. The graph is drawn by Matplotlib when the documents are written —
no script, nothing loaded from another host: one box per claim, filled by its verdict, in one band
per group (family); an arrow from a to b reads "b builds on a"
(:attr:`~icl_verify.core.claims.Claim.builds_on`); a claim that builds on a failed claim
(:func:`icl_verify.core.ledger.undermined`) gets a dashed red border. The :func:`layout` is a pure
function of the claims and their verdicts — a claim's column is the length of the longest chain of
claims it builds on, its row the next free one of its band in that column — and the SVG is drawn
with a fixed font as paths and no date, so the file is the same on every machine.
"""

from __future__ import annotations

import hashlib
import io
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from icl_verify.core.claims import Result
from icl_verify.core.ledger import failed, undermined
from icl_verify.core.verdicts import Verdict

FILLS = {  # verdict → (fill, border, text colour)
    Verdict.PROVED: ("#1b5e20", "#0d3311", "#ffffff"),
    Verdict.VERIFIED: ("#a5d6a7", "#1b5e20", "#000000"),
    Verdict.REFUTED: ("#ef9a9a", "#b71c1c", "#000000"),
    Verdict.UNPROVEN: ("#ffe082", "#ff6f00", "#000000"),
    Verdict.ERROR: ("#ce93d8", "#4a148c", "#000000"),
}
COLOUR_NAMES = {
    Verdict.PROVED: "dark green",
    Verdict.VERIFIED: "light green",
    Verdict.REFUTED: "red",
    Verdict.UNPROVEN: "amber",
    Verdict.ERROR: "purple",
}
UNDERMINED_BORDER = "#b71c1c"
UNDERMINED_LABEL = "builds on a failed claim"
GRAPH_FILE = "figures/ledger.svg"
"""Where the graph is written, relative to the ledger page."""

BOX = (2.1, 0.5)  # a claim's box, inches (width, height): three lines of LABEL_FONT
GAP = (0.5, 0.1)  # between columns, between rows
TITLE = 0.36  # a band's title line
MARGIN = 0.2
LABEL_FONT = 8.0
"""Points of a claim's name in its box: the page shows the graph at its own size (scrolling sideways in its box,
never scaled to the column), where 8 pt is about 10.7 CSS pixels — as legible as the page's small print."""
TITLE_FONT = 9.5


@dataclass(frozen=True)
class Node:
    """One claim in the graph: its band (group), column (depth of builds_on), row within the band, and state."""

    name: str
    verdict: Verdict
    band: int
    column: int
    row: int
    failed: bool
    undermined: bool


@dataclass(frozen=True)
class Layout:
    """The graph: the bands' titles and heights in rows, the nodes in the order given, the edges (a, b): b builds on a."""

    titles: tuple[str, ...]
    rows: tuple[int, ...]
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, str], ...]


def layout(groups: Mapping[str, Sequence[Result]]) -> Layout:
    """Place each claim: band = its group, column = the longest chain of claims it builds on (among those drawn),
    row = the first free row of its band in that column, in the order given."""
    results = [r for rs in groups.values() for r in rs]
    drawn = {r.claim.name: r for r in results}
    depth: dict[str, int] = {}

    def column(name: str) -> int:
        if name not in depth:
            depth[name] = 1 + max((column(d) for d in drawn[name].claim.builds_on if d in drawn), default=-1)
        return depth[name]

    broken = undermined(results)
    nodes, rows = [], []
    for band, rs in enumerate(groups.values()):
        used: dict[int, int] = {}
        for r in rs:
            col = column(r.claim.name)
            used[col] = used.get(col, 0) + 1
            nodes.append(Node(r.claim.name, r.verdict, band, col, used[col] - 1, failed(r), r.claim.name in broken))
        rows.append(max(used.values(), default=0))
    edges = tuple((d, r.claim.name) for r in results for d in r.claim.builds_on if d in drawn)
    return Layout(tuple(groups), tuple(rows), tuple(nodes), edges)


def graph_digest(groups: Mapping[str, Sequence[Result]]) -> str:
    """sha256 of the :func:`layout` and the sizes it is drawn at: written in the ledger page, so the page changes —
    and its graph is drawn again — whenever a box, its colour, an arrow or the lettering would."""
    return hashlib.sha256(repr((layout(groups), BOX, GAP, TITLE, LABEL_FONT, TITLE_FONT)).encode()).hexdigest()


def _label(name: str) -> str:
    """A claim's name in lines of about 26 characters, broken after hyphens (three lines fit a box)."""
    lines = textwrap.wrap(name.replace("-", "- "), 26, break_on_hyphens=False)
    return "\n".join(line.replace("- ", "-") for line in lines)


def graph_svg(groups: Mapping[str, Sequence[Result]]) -> bytes:
    """The ledger's graph as SVG bytes (see the module's docstring); a box's SVG id is ``claim:NAME``."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    from icl_verify.output.figures import METADATA, STYLE

    plan = layout(groups)
    columns = 1 + max((n.column for n in plan.nodes), default=0)
    width = 2 * MARGIN + columns * BOX[0] + (columns - 1) * GAP[0]
    tops, y = [], MARGIN
    for rows in plan.rows:
        tops.append(y + TITLE)
        y += TITLE + rows * (BOX[1] + GAP[1]) + GAP[1]
    height = y + MARGIN
    centre = {
        n.name: (MARGIN + n.column * (BOX[0] + GAP[0]), tops[n.band] + n.row * (BOX[1] + GAP[1]) + BOX[1] / 2)
        for n in plan.nodes
    }
    with matplotlib.rc_context({**STYLE, "axes.grid": False}):
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
        ax.set_axis_off()
        for band, title in enumerate(plan.titles):
            ax.text(
                MARGIN, tops[band] - 0.06, textwrap.shorten(title, 150), fontsize=TITLE_FONT, weight="bold", va="bottom"
            )
        for a, b in plan.edges:
            (xa, ya), (xb, yb) = centre[a], centre[b]
            arrow = FancyArrowPatch(
                (xa + BOX[0], ya), (xb, yb), arrowstyle="-|>", mutation_scale=9, lw=0.7, color="#607d8b", zorder=1
            )
            ax.add_patch(arrow)
        for n in plan.nodes:
            fill, border, ink = FILLS[n.verdict]
            x, yc = centre[n.name]
            box = FancyBboxPatch(
                (x, yc - BOX[1] / 2),
                BOX[0],
                BOX[1],
                boxstyle="round,pad=0,rounding_size=0.04",
                facecolor=fill,
                edgecolor=UNDERMINED_BORDER if n.undermined else border,
                linewidth=1.6 if n.undermined else 0.6,
                linestyle=(0, (4, 2)) if n.undermined else "solid",
                zorder=2,
            )
            box.set_gid(f"claim:{n.name}")
            ax.add_patch(box)
            label = _label(n.name) + (" !" if n.failed else "")
            ax.text(
                x + 0.07, yc, label, fontsize=LABEL_FONT, color=ink, va="center", ha="left", zorder=3, linespacing=1.1
            )
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata=METADATA["svg"])
    return buffer.getvalue()


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
    """The ledger page: the graph (:data:`GRAPH_FILE`), the claims that build on a failed claim, and every
    declared assumption."""
    results = [r for rs in groups.values() for r in rs]
    legend = ", ".join(f"{v.value} {colour}" for v, colour in COLOUR_NAMES.items())
    lines = [
        "# Claims ledger",
        "",
        f"<!-- {note} -->",
        "",
        "Each claim may name the claims it builds on and the assumptions it needs. In the graph an "
        "arrow from a to b reads *b builds on a*, a claim's column is the length of the longest chain it "
        "builds on, and each box is filled by its verdict — "
        f"{legend}; “!” marks a claim that is not as expected. A dashed red border marks a claim that "
        f"{UNDERMINED_LABEL}, directly or through others — a claim expected to hold that was refuted, left "
        "unproven or errored: its own checks may pass, but the argument it rests on does not stand.",
        "",
        '<div class="ledger-graph" markdown>',
        "",
        f"[![The claims ledger: one box per claim, coloured by verdict, with arrows to the claims that build on it]"
        f"({GRAPH_FILE})]({GRAPH_FILE})",
        "",
        "</div>",
        "",
        f"<!-- graph sha256: {graph_digest(groups)} -->",
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
