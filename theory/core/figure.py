"""A figure as data: what a family — or a user's claim file — declares for its document.

The figure API is public (``iv.Figure``). A module declares its figures in a module-level
``FIGURES`` list; ``icl-verify docs`` (and ``icl-verify docs FILE.py`` for a user's file) calls each
figure's ``data()``, draws it with :mod:`icl_verify.output.figures` on one Matplotlib axes as a
deterministic SVG (``figures/<family>-<name>.svg``), and records a digest of the data beside it::

    import numpy as np
    import icl_verify as iv

    FIGURES = [
        iv.Figure(
            "parabola",
            "The square on [-1, 1].",
            data=lambda: {"t": np.linspace(-1, 1, 21), "t2": np.linspace(-1, 1, 21) ** 2},
            draw=lambda ax, d: ax.plot(d["t"], d["t2"]),
        )
    ]

``data`` must be deterministic (seed any simulation explicitly); ``draw`` only draws on ``ax``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Figure:
    """A named figure: ``data()`` computes the arrays, ``draw(ax, data)`` plots them on one Matplotlib axes.

    ``name`` names the SVG file (with the family's name) and ``caption`` is printed under it.
    """

    name: str
    caption: str
    data: Callable[[], Mapping[str, np.ndarray]]
    draw: Callable[[Any, Mapping[str, np.ndarray]], None]
