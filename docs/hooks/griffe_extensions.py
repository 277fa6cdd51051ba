"""griffe extensions for the API pages (mkdocs.yml: mkdocstrings → python → options → extensions).

- ``LazyExports``: ``icl_verify/__init__.py`` lists its public names in a dict
  ``_EXPORTS = {name: module}``. ``__getattr__`` imports each name on first use (PEP 562), and
  ``__all__ = sorted(_EXPORTS)``. griffe reads the source code without running it, so it finds
  neither these names nor ``__all__``. This extension adds each name of a literal ``_EXPORTS``
  dict as an exported alias of ``module.name``, so the package's page documents them.
- ``SphinxMarkup``: the docstrings cross-reference with Sphinx roles (``:func:`integrate```,
  ``:class:`~icl_verify.core.claims.Claim```). Markdown would print these as they are. This
  extension turns each one into an *optional* mkdocs-autorefs link: it links to the object
  when the site documents it, and it is plain code otherwise, with no warning. A name without
  a dot is looked up in the docstring's module, or in its class for ``:meth:`` and ``:attr:``.
  It also shows reST's ``text::`` (which introduces a code block) as ``text:``, and writes the
  script braces of prose (``e^{−β₀}``) as ``<sup>``/``<sub>``
  (:func:`icl_verify.output.render.prose_markdown`), leaving indented code blocks as they are and
  showing doctests as code.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Iterator
from typing import Any

import griffe

from icl_verify.output.render import prose_markdown


class LazyExports(griffe.Extension):
    """Add the names of a module's ``_EXPORTS`` table as exported aliases."""

    def on_module(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        table = mod.members.get("_EXPORTS")
        if not isinstance(table, griffe.Attribute) or table.value is None:
            return
        exports: dict[str, str] = ast.literal_eval(str(table.value))
        for name, module in exports.items():
            mod.set_member(name, griffe.Alias(name, f"{module}.{name}", parent=mod))
        mod.exports = list(exports)


_ROLE = re.compile(r":(?:py:)?(?P<role>[a-z]+):`(?P<body>[^`]+)`")
_TITLED = re.compile(r"(?P<title>.*?)\s*<(?P<target>[^<>]+)>")
_LITERAL_MARKER = re.compile(r"(?<=\S)::$(?=\n\n[ \t])", re.MULTILINE)  # "claims::" before a code block


class SphinxMarkup(griffe.Extension):
    """Turn Sphinx roles in docstrings into optional autorefs links, and ``text::`` into ``text:``."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            if obj.docstring is not None:
                text = _ROLE.sub(lambda m, obj=obj: _link(m, obj), obj.docstring.value)
                obj.docstring.value = _prose_scripts(_LITERAL_MARKER.sub(":", text))


def _prose_scripts(text: str) -> str:
    """``text`` with each doctest as a ``pycon`` code block (Markdown would quote ``>>>`` lines), and
    :func:`prose_markdown` applied to each other block (between blank lines) that is not indented code."""
    blocks = text.split("\n\n")
    return "\n\n".join(_block(b) for b in blocks)


def _block(block: str) -> str:
    if block.startswith(">>>"):
        return f"```pycon\n{block}\n```"
    return block if block[:1] in (" ", "\t") else prose_markdown(block)


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def _link(role: re.Match[str], obj: griffe.Object) -> str:
    body = role["body"]
    if titled := _TITLED.fullmatch(body):
        title, target = titled["title"], titled["target"]
    else:
        target = body.lstrip("~")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target
    if "." not in target:
        cls = obj if obj.is_class else obj.parent if obj.parent is not None and obj.parent.is_class else None
        scope = cls if cls is not None and role["role"] in ("meth", "attr") else obj.module
        target = f"{scope.path}.{target}"
    return f'<autoref identifier="{html.escape(target)}" optional><code>{html.escape(title)}</code></autoref>'
