"""MkDocs hook: a nav entry that names a folder lists that folder's pages.

``- Derivations: derivations/`` in mkdocs.yml (a folder under ``docs/``, written with a trailing
slash) becomes a section holding every Markdown page of that folder: ``index.md`` first, then the
pages in the order ``index.md`` links to them, then any others alphabetically. Each page keeps its
first heading as its title, and its sidebar entry gets the heading's first clause (before a
parenthesis, comma, dash or colon; at most :data:`SHORT` characters): a family's title is a sentence, the
sidebar needs a name. A new ``docs/derivations/<family>.md`` written by ``icl-verify docs``
therefore appears in the site without editing mkdocs.yml.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

SHORT = 44
"""The longest sidebar title, in characters: two lines of Material's sidebar."""
_CLAUSE = re.compile(r" \(| — | – |, |: ")
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
        return [{short_title(docs / value / name): value + name} for name in _pages(docs / value)]
    return value


def short_title(page: Path) -> str:
    """The sidebar title of ``page``: the first clause of its first heading, without a leading "The", at most
    :data:`SHORT` characters (cut at a word, with an ellipsis)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    heading = next((line.lstrip("#").strip() for line in lines if line.startswith("# ")), page.stem)
    title = _CLAUSE.split(heading)[0].removeprefix("The ")
    title = title[:1].upper() + title[1:]
    if len(title) <= SHORT:
        return title
    return title[: title.rfind(" ", 0, SHORT)].rstrip(",;") + "…"


def _pages(folder: Path) -> list[str]:
    names = sorted(p.name for p in folder.glob("*.md"))
    index = folder / "index.md"
    linked = _MD_LINK.findall(index.read_text(encoding="utf-8")) if index.is_file() else []
    order = ["index.md", *linked]
    return sorted(set(names), key=lambda n: (order.index(n) if n in order else len(order), n))
