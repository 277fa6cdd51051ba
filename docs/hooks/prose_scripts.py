"""MkDocs hook: superscripts and subscripts in prose typeset on every page.

The documents' prose is Unicode with TeX's script braces (``κ = c₂ e^{−β₀}``, ``X ∈ R^{Nx×N}``);
outside math and code these would show raw. :func:`icl_verify.output.render.prose_markdown` writes them
as ``<sup>``/``<sub>`` — the documents ``icl-verify docs`` generates already are; this hook does the same
for the pages written by hand (README, the tutorial, the reference, …). Math, code and comments are left
as they are.
"""

from __future__ import annotations

from typing import Any

from icl_verify.output.render import prose_markdown


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """The page's Markdown with the scripts of its prose as HTML."""
    return prose_markdown(markdown)
