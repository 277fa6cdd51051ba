"""The check abstraction: one engine, each kind of check a small declaration.

A :class:`Check` runs with a seed and a budget and returns what it :class:`Found`: its evidence
and, when it refuted, the counterexample its control runs at. :meth:`Check.control_at` runs the
corrected form (the claim's :class:`~icl_verify.core.claims.Corrected` gives each check its own)
at that counterexample with the same comparison and tolerance. A check whose pass proves the claim
for every size says so (``proves``); its evidence is then ``proved`` and its control needs no
counterexample. A new kind of check is a new subclass: the engine only iterates a claim's checks.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from icl_verify.core.evidence import Evidence, Status
from icl_verify.core.tracebacks import user_traceback
from icl_verify.maths.scalars import scalar_of


@dataclass(frozen=True)
class Found:
    """What a check's run found: its evidence, and ``at``, the counterexample its control runs at (or ``None``)."""

    evidence: Evidence
    at: Any = None


class Check(ABC):
    """One way to check a claim.

    Subclasses set ``kind`` (the evidence kind, a :class:`~icl_verify.core.evidence.Kind` value or
    a new string) and implement :meth:`run` and :meth:`control_at`.
    """

    kind: ClassVar[str]
    proves: ClassVar[bool] = False
    """A pass proves the claim for every size (status ``proved``); the control runs whenever the claim is refuted."""
    rank: ClassVar[int] = 100
    """When several checks refute, a result shows the counterexample of the lowest rank."""

    @abstractmethod
    def run(self, seed: int, max_examples: int) -> Found:
        """Check the claim (``seed`` seeds any random search, ``max_examples`` bounds it)."""

    @abstractmethod
    def control_at(self, at: Any, corrected: Any) -> Evidence:
        """Evidence of kind ``control``: the ``corrected`` form at the counterexample ``at``, same comparison."""


def guarded(kind: str, run: Callable[[], Found]) -> Found:
    """Run a check or a control; a crash becomes ``error`` evidence (with no control, with its traceback), never a
    pass."""
    t0 = time.perf_counter()
    try:
        return run()
    except Exception as exc:  # a crashing check is evidence of nothing: report it, never pass it
        detail = f"{type(exc).__name__}: {exc}"
        return Found(Evidence(kind, Status.ERROR, detail, time.perf_counter() - t0, traceback=user_traceback(exc)))


def parts(value: Any) -> list[Any]:
    """A check's value part by part: a list or tuple as its items, anything else as one part; a 1 × 1
    matrix is the scalar it stands for (:func:`icl_verify.maths.scalars.scalar_of`), on every side."""
    return [scalar_of(p) for p in (value if isinstance(value, (list, tuple)) else [value])]


def short(value: Any) -> str:
    """``value`` printed, cut to 80 characters."""
    text = str(value)
    return text if len(text) <= 80 else text[:80] + "…"


def defined_sizes_hint(size: Mapping[str, int], *, explicit: bool = False) -> str:
    """How to keep a statement off ``size``, where its sides are undefined at every point (X(XᵀX)⁻¹ for X n × d with
    n < d): raise the smallest of its dimensions, in ``sizes`` (and ``explicit_sizes`` with ``explicit``).

    >>> defined_sizes_hint({"n": 1, "d": 2}, explicit=True)
    "draw only the sizes where the sides are defined, e.g. sizes={'n': (2, 4)} and explicit_sizes={'n': [2]}"
    """
    name = min(size, key=size.__getitem__)
    low = size[name] + 1
    hint = f"draw only the sizes where the sides are defined, e.g. sizes={{{name!r}: ({low}, {max(low, 4)})}}"
    return hint + (f" and explicit_sizes={{{name!r}: [{low}]}}" if explicit else "")
