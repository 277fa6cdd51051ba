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
