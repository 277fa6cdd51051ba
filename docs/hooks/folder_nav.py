"""MkDocs hook: a nav entry that names a folder lists that folder's pages.

``- Derivations: derivations/`` in mkdocs.yml (a folder under ``docs/``, written with a trailing
slash) becomes a section holding every Markdown page of that folder: ``index.md`` first, then the
pages in the order ``index.md`` links to them, then any others alphabetically. MkDocs titles each
page by its first heading. A new ``docs/derivations/<family>.md`` written by ``icl-verify docs``
therefore appears in the site without editing mkdocs.yml.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

_MD_LINK = re.compile(r"\]\(([^)#\s/]+\.md)[)#\s]")  # a link to a page in the same folder


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Expand every folder entry of the nav."""
    if config.nav is not None:
        config.nav = _expand(config.nav, Path(config.docs_dir))
    return config


def _expand(entries: list[Any], docs: Path) -> list[Any]:
    expanded = []
    for entry in entries:
        if isinstance(entry, dict):
            entry = {title: _expand_value(value, docs) for title, value in entry.items()}
        expanded.append(entry)
    return expanded


def _expand_value(value: Any, docs: Path) -> Any:
    if isinstance(value, list):
        return _expand(value, docs)
    if isinstance(value, str) and value.endswith("/") and (docs / value).is_dir():
        return [value + name for name in _pages(docs / value)]
    return value


def _pages(folder: Path) -> list[str]:
    names = sorted(p.name for p in folder.glob("*.md"))
    index = folder / "index.md"
    linked = _MD_LINK.findall(index.read_text(encoding="utf-8")) if index.is_file() else []
    order = ["index.md", *linked]
    return sorted(set(names), key=lambda n: (order.index(n) if n in order else len(order), n))
