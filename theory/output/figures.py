"""Figures for the derivation documents: data from the numerics, drawn deterministically.

A :class:`Figure` separates the data (NumPy arrays from a seeded simulation) from the drawing,
so a document can record a digest of the data — a stale figure is then caught by comparing
Markdown alone — and the SVG (and the PDF for LaTeX) is byte-identical on regeneration (fixed font
rendered as paths, fixed hash salt, no date, creator or producer metadata). matplotlib is imported only when drawing.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from icl_verify.core.figure import Figure


def digest(data: Mapping[str, np.ndarray]) -> str:
    """sha256 of the data quantised, per array, to a power of ten 10⁻⁶ below its largest entry
    (and never below 1e-12).

    Quantising makes the digest insensitive to last-bit rounding (which differs between BLAS
    builds), while a real change of the data — including a uniform rescaling — changes it.
    """
    h = hashlib.sha256()
    for key in sorted(data):
        values = np.asarray(data[key], dtype=np.float64).ravel()
        largest = float(np.max(np.abs(values), initial=0.0))
        quantum = max(1e-12, 10.0 ** (np.floor(np.log10(largest)) - 6) if largest > 0 else 0.0)
        steps = np.round(values / quantum).astype(np.int64)
        h.update(f"{key}:{quantum:.3e}:".encode() + steps.tobytes() + b";")
    return h.hexdigest()


STYLE: dict[Any, Any] = {  # matplotlib rc keys (typed as literals there)
    "svg.hashsalt": "icl-verify",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
METADATA = {  # no date, creator or producer: the bytes depend on the data alone
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
}


def render(figure: Figure, data: Mapping[str, np.ndarray], fmt: str = "svg") -> bytes:
    """Draw ``figure`` as ``fmt`` (``svg`` for the Markdown documents, ``pdf`` for LaTeX) and return the
    bytes, identical for identical data."""
    import matplotlib
    from matplotlib.figure import Figure as MplFigure

    with matplotlib.rc_context(STYLE):
        fig = MplFigure(figsize=(6.0, 3.4))
        ax = fig.add_subplot()
        figure.draw(ax, data)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, metadata=METADATA[fmt])
    return buffer.getvalue()


def render_svg(figure: Figure, data: Mapping[str, np.ndarray]) -> bytes:
    """Draw ``figure`` and return the SVG bytes, identical for identical data."""
    return render(figure, data, "svg")
