"""The documents' figures as drawn, kept in the verdict cache so a warm ``icl-verify docs`` neither re-runs
a figure's simulation nor redraws it.

An entry (:class:`DrawnFigure`: the digest of the figure's data, its SVG and its PDF) is keyed by
:func:`figure_key`: the family and figure names, the source of the files the figure depends on —
its family's module (or the user's file) with everything it imports, and the drawing code
(:mod:`icl_verify.output.figures`) with everything that imports
(:func:`icl_verify.running.sources.files_of`) — the versions of the libraries a verdict depends on and
Matplotlib's, the seed and the example budget. An entry is the drawn files (``KEY.figure.svg``,
``KEY.figure.pdf``) and a JSON digest beside them (``KEY.figure.json``: the data's digest and the
files' SHA-256s, authenticated like a verdict: :meth:`icl_verify.running.verdict_cache.VerdictCache.load`);
any of them missing, unparsable, forged or not matching, and the figure is drawn again. Nothing is
unpickled.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from icl_verify.core.figure import Figure
from icl_verify.output.figures import digest, render
from icl_verify.running import registry, runner, sources
from icl_verify.running.store import keyed, read_entry
from icl_verify.running.verdict_cache import LIBRARIES, VerdictCache, environment

DRAWING = "icl_verify.output.figures"
"""The module that draws every figure: part of every figure's key."""
SUFFIX = ".figure"
"""The figures' entries are ``KEY.figure.json``, ``KEY.figure.svg`` and ``KEY.figure.pdf`` in the cache's folder."""


@dataclasses.dataclass(frozen=True)
class DrawnFigure:
    """A figure as its documents hold it: the digest of its data, its SVG (Markdown) and PDF (LaTeX) files' bytes."""

    digest: str
    svg: bytes
    pdf: bytes


def figure_key(family: str, figure: str, *, sources: str, seed: int, max_examples: int) -> str:
    """The key of one drawn figure; ``sources``: :func:`family_sources` of its family.

    The seed and the budget are part of the key because a document is generated for them, although
    a figure's ``data()`` takes no argument (it seeds itself).
    """
    inputs = {"figure": [family, figure], "sources": sources, "seed": seed, "max_examples": max_examples}
    return keyed(inputs | {"environment": environment((*LIBRARIES, "matplotlib"))})


def family_sources(family: registry.Family, finder: sources.Finder = sources.installed_file) -> str:
    """The digest of the files the figures of ``family`` depend on: its module's (or file's) and the drawing code's."""
    where = str(family.path) if family.path is not None else family.module.__name__
    return sources.digest({*sources.files_of(where, finder), *sources.files_of(DRAWING, finder)})


def drawn_figure(
    family: registry.Family, fig: Figure, cache: VerdictCache | None, *, seed: int, max_examples: int
) -> DrawnFigure:
    """``fig``'s data digest, SVG and PDF: from ``cache`` (None: no cache) when it holds them, else computed and stored.

    Any edit of a file the figure depends on (:func:`figure_key`) redraws it; an unreadable entry is redrawn.
    """
    key = None
    if cache is not None:
        key = figure_key(family.name, fig.name, sources=family_sources(family), seed=seed, max_examples=max_examples)
        found = load(cache, key)
        if found is not None:
            return found
    data = fig.data()
    drawn = DrawnFigure(digest(data), render(fig, data, "svg"), render(fig, data, "pdf"))
    if key is not None:
        store(cache, key, drawn)
    return drawn


FORMATS = ("svg", "pdf")
"""The drawn files of a figure, each ``KEY.figure.<format>`` beside the digest ``KEY.figure.json``."""


def _file(cache: VerdictCache, key: str, fmt: str) -> Path:
    return cache.path(key, SUFFIX).with_suffix(f".{fmt}")


def load(cache: VerdictCache, key: str) -> DrawnFigure | None:
    """The figure stored under ``key``: its SVG and PDF, if the authenticated digest beside them names their
    SHA-256s."""
    body = cache.load(key, SUFFIX)
    if body is None or not isinstance(body.get("digest"), str):
        return None
    read = {fmt: read_entry(_file(cache, key, fmt)) for fmt in FORMATS}
    drawn = {fmt: data for fmt, data in read.items() if data is not None}
    if len(drawn) < len(FORMATS) or any(body.get(f"{fmt}_sha256") != _sha256(data) for fmt, data in drawn.items()):
        return None
    return DrawnFigure(body["digest"], drawn["svg"], drawn["pdf"])


def store(cache: VerdictCache, key: str, drawn: DrawnFigure) -> None:
    """Store ``drawn`` under ``key``: the drawn files first, then their digest (which never names a missing file)."""
    files = {"svg": drawn.svg, "pdf": drawn.pdf}
    if not all(cache.write(_file(cache, key, fmt), data) for fmt, data in files.items()):
        return
    cache.store(
        key, {"digest": drawn.digest, **{f"{fmt}_sha256": _sha256(data) for fmt, data in files.items()}}, SUFFIX
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclasses.dataclass(frozen=True)
class DrawInto:
    """Draw the figures of a family (built-in, or the user's ``file``) into the cache at ``cache_dir``: the
    :class:`~icl_verify.running.runner.Extra` work a checking worker does for ``icl-verify docs``."""

    cache_dir: str
    seed: int
    max_examples: int
    file: str | None
    family: str

    def __call__(self) -> None:
        fam = runner.loaded_family(self.file) if self.file is not None else _builtin(self.family)
        cache = VerdictCache(self.cache_dir)
        for fig in fam.figures:
            drawn_figure(fam, fig, cache, seed=self.seed, max_examples=self.max_examples)


def _builtin(name: str) -> registry.Family:
    return next(f for f in registry.families() if f.name == name)


def extras(fams: list[registry.Family], cache: VerdictCache, *, seed: int, max_examples: int) -> list[runner.Extra]:
    """The drawing of the figures of ``fams`` into ``cache``, as work for the checking workers (``extras`` of
    :func:`icl_verify.running.runner.check_claims`), beside the claims they share simulations with."""
    jobs = []
    for fam in fams:
        if fam.figures:
            file = str(fam.path) if fam.path is not None else None
            draw = DrawInto(str(cache.folder), seed, max_examples, file, fam.name)
            jobs.append(runner.Extra(file, fam.name, draw))
    return jobs
