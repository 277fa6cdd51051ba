"""Evidence: what one check found, in the vocabulary of the JSON report (docs/json-report.md).

The kinds of evidence and the statuses of checks, controls and derivation steps are string
enums: their values are the strings the report and the verdict cache store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from icl_verify.maths import symbolic
from icl_verify.maths.symbolic import simplified


class Kind(StrEnum):
    """The kind of a row of evidence: the built-in checks, a control, or a worker that died."""

    SYMBOLIC = "symbolic"
    EXPLICIT = "explicit"
    NUMERIC = "numeric"
    MEASURED = "measured"
    MONTE_CARLO = "monte_carlo"  # an expectation by random draws (icl_verify.core.expectation.MonteCarlo)
    CONTROL = "control"
    CONSISTENCY = "consistency"  # two checks of one claim contradict each other
    WORKER = "worker"


class Status(StrEnum):
    """The status of a check's evidence."""

    PROVED = "proved"  # for every size
    VERIFIED = "verified"  # on what the check covered
    REFUTED = "refuted"
    UNDECIDED = "undecided"
    ERROR = "error"


class ControlStatus(StrEnum):
    """The status of a control row: the corrected form at the counterexample."""

    PASSED = "passed"
    FAILED = "failed"  # the refutation is hollow
    WAIVED = "waived"  # no corrected form exists, and the claim says why
    MISSING = "missing"  # no control ran
    UNDECIDED = "undecided"  # the corrected form's dimension-free proof is undecided: no pass, no failure
    ERROR = "error"


class StepStatus(StrEnum):
    """The mark of one step of a derivation."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNPROVEN = "unproven"
    ERROR = "error"


MAX_RESIDUAL_CHARS = 400
"""Longer residuals are cut to this many characters in reports (``Residual.truncated``)."""


@dataclass(frozen=True)
class Residual:
    """The simplified lhs − rhs of a statement, to explain a refutation (docs/json-report.md).

    ``sizes`` is ``None`` for a dimension-free residual, else the concrete sizes it was built at.
    ``text`` is SymPy's (deterministic) printing, cut to :data:`MAX_RESIDUAL_CHARS` when
    ``truncated``; ``latex`` is empty when truncated (a cut formula does not typeset).
    """

    text: str
    latex: str
    sizes: dict[str, int] | None
    truncated: bool

    @classmethod
    def of(cls, residual: Any, sizes: Mapping[str, int] | None) -> Residual:
        """The residual simplified for display (:func:`~icl_verify.maths.symbolic.simplified`).

        A list or tuple is the residual of every output the sides return (e.g. context and query
        tokens), shown as a tuple of its simplified parts, so no output's error is left out.
        """
        if isinstance(residual, (list, tuple)) and len(residual) > 1:
            expr: Any = tuple(simplified(p) for p in residual)
        else:
            expr = simplified(residual[0] if isinstance(residual, (list, tuple)) else residual)
        text = f"({', '.join(map(str, expr))})" if isinstance(expr, tuple) else str(expr)
        truncated = len(text) > MAX_RESIDUAL_CHARS
        latex = "" if truncated else symbolic.latex(expr)
        return cls(text[:MAX_RESIDUAL_CHARS] if truncated else text, latex, _none_or_dict(sizes), truncated)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "latex": self.latex, "sizes": self.sizes, "truncated": self.truncated}


def _none_or_dict(sizes: Mapping[str, int] | None) -> dict[str, int] | None:
    return None if sizes is None else {k: int(v) for k, v in sizes.items()}


def explain(residual: Any, sizes: Mapping[str, int] | None) -> Residual | None:
    """The residual for display, or ``None`` if SymPy cannot simplify it: an aid to reading, never a check."""
    try:
        return Residual.of(residual, sizes)
    except Exception:  # a residual that does not print must not turn the check into an error
        return None


@dataclass(frozen=True)
class Evidence:
    """What one check found.

    ``kind`` is a :class:`Kind` value or the kind of a user's own check. A check's status is a
    :class:`Status`; a ``control`` row's status is a :class:`ControlStatus`. ``residual`` is the
    simplified lhs − rhs of a symbolic or explicit check that did not reduce to zero. ``traceback`` is that of
    a check that crashed, its last frames in the user's code (:func:`icl_verify.core.tracebacks.user_traceback`).
    ``measurement`` is a
    measured check's verdict as data — estimand, estimate, interval, level, test, α per side, predicted value and
    tolerance (:func:`icl_verify.core.checks.measured.measurement`) — whatever its status.
    """

    kind: str
    status: str
    detail: str
    seconds: float
    counterexample: dict[str, Any] | None = None
    residual: Residual | None = None
    traceback: str | None = None
    measurement: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": str(self.kind),
            "status": str(self.status),
            "detail": self.detail,
            "seconds": round(self.seconds, 4),
            "counterexample": self.counterexample,
            "residual": None if self.residual is None else self.residual.to_dict(),
            "traceback": self.traceback,
            "measurement": self.measurement,
        }


def counterexample(
    kind: str,
    sizes: Mapping[str, int],
    values: Mapping[str, Any],
    residual: float,
    tolerance: float,
    seed: int | None,
    **extra: Any,
) -> dict[str, Any]:
    """A counterexample in the one vocabulary of every check (docs/json-report.md).

    ``sizes`` are the integer dimensions, ``values`` the other drawn or witness values, ``residual``
    the largest |lhs − rhs| (for a measurement |estimate − predicted|), ``tolerance`` what it
    exceeds (0 for an exact check) and ``seed`` the seed of the random search (``None`` if exact).
    """
    cex = {
        "kind": str(kind),
        "sizes": {k: int(v) for k, v in sizes.items()},
        "values": jsonable(dict(values)),
        "residual": float(residual),
        "tolerance": float(tolerance),
        "seed": seed,
    }
    return cex | extra


def jsonable(value: Any) -> Any:
    """``value`` with NumPy arrays and scalars as lists and numbers, other unknown objects as strings."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)
