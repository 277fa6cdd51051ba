"""A figure as data: what a family declares for its document, drawn by :mod:`icl_verify.output.figures`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Figure:
    """A named figure: ``data()`` computes the arrays, ``draw(ax, data)`` plots them on one axes."""

    name: str
    caption: str
    data: Callable[[], Mapping[str, np.ndarray]]
    draw: Callable[[Any, Mapping[str, np.ndarray]], None]
