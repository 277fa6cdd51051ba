"""Pages written by hand read as a user's pages: the Performance page holds no engineering log (commit hashes,
issue numbers, test tallies; those are in docs/performance-history.md), and the tutorial's sections are numbered
1, 2, 3… once each."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_performance_page_is_a_users_page():
    text = (DOCS / "performance.md").read_text(encoding="utf-8")
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"\d", h) and re.search(r"[a-f]", h)]
    assert not hashes, f"commit hashes: {hashes}"
    assert not re.search(r"\bissue \d+|\d+ passed|\d+ failed", text), "issue numbers or test tallies"
    assert "performance-history.md" in text  # the measurements are a link away
    assert len(text.splitlines()) < 80


def test_the_tutorials_sections_are_numbered_once_each():
    numbers = [int(n) for n in re.findall(r"(?m)^## (\d+)\. ", (DOCS / "tutorial.md").read_text(encoding="utf-8"))]
    assert numbers == list(range(1, len(numbers) + 1))


def test_the_package_page_lists_the_statement_language_readable_without_the_site():
    """docs/api/index.md names every option of the declarations and of a statement, and the building blocks,
    in text (not only as a directive that the site renders from docstrings)."""
    import inspect

    import icl_verify as iv

    text = (DOCS / "api" / "index.md").read_text(encoding="utf-8")
    page = text.split("::: icl_verify", 1)[0]
    for fn in (iv.matrix, iv.scalar, iv.integer, iv.gaussian, iv.iid, iv.statement):
        for name, parameter in inspect.signature(fn).parameters.items():
            if parameter.kind is parameter.KEYWORD_ONLY and name not in ("symbols", "lhs", "rhs", "correction"):
                assert f"{name}=" in page, f"{fn.__name__}({name}=…) is not on the page"
    for block in ("inverse", "trace", "det", "matpow", "eye", "ones", "broadcast", "block", "softmax", "elementwise"):
        assert f"{block}(" in page, block
