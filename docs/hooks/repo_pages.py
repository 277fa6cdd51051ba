"""MkDocs hook: publish the top-level README.md and CONTRIBUTING.md as pages, and fix links that
point at files outside ``docs/``.

``README.md`` becomes the home page (``index.md``) and ``CONTRIBUTING.md`` the page
``contributing.md``. Their text is read from the repository root at build time, so it is never
copied. Their links are written for GitHub, relative to the repository root
(``docs/tutorial.md``, ``theory/core/claims.py``). Before MkDocs checks links, this hook
rewrites every relative link (inline ``[text](target)`` or ``![alt](target)``) on every page,
according to where its target is in the repository:

- inside ``docs/``: the link goes to that page or file of the site;
- a published top-level file (README.md, CONTRIBUTING.md): the link goes to its page;
- any other file or folder that exists (source code, pyproject.toml): the link goes to the
  file in the repository on ``repo_url`` if mkdocs.yml sets one, and otherwise only the link's
  text is kept;
- a target that exists nowhere: the link is left as written, so ``mkdocs build --strict``
  reports it.

A link to a page of the published site (``site_url`` in mkdocs.yml, such as README's links, which are
absolute so that they also work in the package's description on a package index) becomes a link to that
page of the site being built, so that it is checked and works offline.

Links inside code blocks and code spans are never touched. Reference-style link definitions
(``[id]: target``) are left as written. In a table row, ``\\|`` inside a code span becomes ``|``,
as GitHub shows it (Python-Markdown keeps the backslash there but does not split cells at
pipes inside code).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT_PAGES = {"README.md": "index.md", "CONTRIBUTING.md": "contributing.md"}
"""Top-level file of the repository → the page it becomes in the site."""

_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n.*?^[ \t]*(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(`+).+?(?<!`)\1(?!`)")  # a code span
_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, mailto:, ...
_TABLE_ROW = re.compile(r"^[ \t]*\|.*$", re.MULTILINE)


def _repo(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each top-level file that exists as the page ROOT_PAGES names."""
    for name, page in ROOT_PAGES.items():
        source = _repo(config) / name
        if not source.is_file():
            continue
        if files.get_file_from_path(page) is not None:
            raise PluginError(f"docs/{page} would hide {name}, which repo_pages.py publishes as {page}")
        files.append(File.generated(config, page, abs_src_path=str(source)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Rewrite the page's relative links by where their targets are in the repository."""
    repo = _repo(config)
    docs = Path(config.docs_dir).resolve().relative_to(repo).as_posix()
    source = Path(page.file.abs_src_path or "/").resolve()
    if not source.is_relative_to(repo):
        return markdown  # a page made by a plugin: no place in the repository
    repo_dir = posixpath.dirname(source.relative_to(repo).as_posix())
    site_dir = posixpath.dirname(page.file.src_uri)

    site_url = (config.site_url or "").rstrip("/") + "/"

    def rewrite(link: re.Match[str]) -> str:
        target = link["target"]
        if config.site_url and target.startswith(site_url):
            path, hash_, fragment = target.removeprefix(site_url).partition("#")
            page = (path or "index.html").removesuffix(".html") + ".md"
            new = posixpath.relpath(page, site_dir or ".")
            return f"{link['bang']}[{link['text']}]({new}{hash_}{fragment}{link['title'] or ''})"
        if _URL.match(target) or target.startswith(("#", "/")):
            return link[0]  # a URL, an anchor on this page, or a path from the site's root
        path, hash_, fragment = target.partition("#")
        in_repo = posixpath.normpath(posixpath.join(repo_dir, path))
        if in_repo == docs or in_repo.startswith(docs + "/"):
            site_path = posixpath.relpath(in_repo, docs)
            if (repo / in_repo / "index.md").is_file():
                site_path = posixpath.join(site_path, "index.md")
            new = posixpath.relpath(site_path, site_dir or ".")
        elif in_repo in ROOT_PAGES:
            new = posixpath.relpath(ROOT_PAGES[in_repo], site_dir or ".")
        elif in_repo.startswith("..") or not (repo / in_repo).exists():
            return link[0]  # a broken link: MkDocs reports it
        elif config.repo_url:
            new = f"{config.repo_url.rstrip('/')}/blob/HEAD/{in_repo}"
        else:
            return link["text"]
        return f"{link['bang']}[{link['text']}]({new}{hash_}{fragment}{link['title'] or ''})"

    def prose(text: str) -> str:  # text outside fenced code blocks
        text = _TABLE_ROW.sub(_unescape_pipes_in_code, text)
        return _outside(_SPAN, text, lambda rest: _LINK.sub(rewrite, rest))

    return _outside(_FENCE, markdown, prose)


def _outside(pattern: re.Pattern[str], text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to every part that ``pattern`` does not match."""
    pieces, end = [], 0
    for match in pattern.finditer(text):
        pieces += [change(text[end : match.start()]), match[0]]
        end = match.end()
    return "".join([*pieces, change(text[end:])])


def _unescape_pipes_in_code(row: re.Match[str]) -> str:
    return _SPAN.sub(lambda span: span[0].replace("\\|", "|"), row[0])


def on_serve(server, config: MkDocsConfig, builder):
    """Rebuild on `mkdocs serve` when a published top-level file changes."""
    for name in ROOT_PAGES:
        if (_repo(config) / name).is_file():
            server.watch(str(_repo(config) / name))
    return server
