"""Rich display by registration: Jupyter calls ``_repr_markdown_``, which asks this module.

The engine renders nothing itself and imports no output module. A renderer registers itself for
a type with :func:`register`; the package names the module that does so with :func:`provide`, and
that module is imported on the first display, so a user importing only the engine still gets
Markdown in a notebook.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_RENDERERS: dict[type, Callable[[Any], str]] = {}
_PROVIDERS: list[str] = []


def register(kind: type, render: Callable[[Any], str]) -> None:
    """Render instances of ``kind`` (and its subclasses) with ``render(obj) -> Markdown``."""
    _RENDERERS[kind] = render


def provide(module: str) -> None:
    """Import ``module`` (which calls :func:`register`) before the next display."""
    if module not in _PROVIDERS:
        _PROVIDERS.append(module)


def markdown(obj: Any) -> str | None:
    """The registered Markdown for ``obj``, or ``None`` (Jupyter then falls back to ``repr``)."""
    while _PROVIDERS:
        importlib.import_module(_PROVIDERS.pop(0))
    for kind in type(obj).__mro__:
        if kind in _RENDERERS:
            return _RENDERERS[kind](obj)
    return None
