"""The numeric check: a property over random sizes and values drawn by Hypothesis, within a tolerance."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import HypothesisException, NoSuchExample
from hypothesis.strategies import SearchStrategy
from numpy.typing import NDArray

from icl_verify.core.checks.base import Check, Found
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.errors import IclVerifyError, InvalidArgument
from icl_verify.maths.strategies import source_independent_draws


class MalformedComparison(IclVerifyError, ValueError):
    """A side's value cannot be compared at this case (a shape, a complex or non-numeric value): no counterexample."""


class NonFiniteComparison(MalformedComparison):
    """A comparison met NaN or inf: the check is broken there, which is no counterexample."""


def side_values(name: str, value: Any) -> NDArray[np.float64]:
    """A side's value as a float64 array of its own shape; complex, object or non-numeric values name the side.

    A complex value is never cast to its real part (``iA = −iA`` would pass) and a value NumPy can only
    hold as objects (ragged lists, SymPy numbers, ``None``) is no number: both raise
    :class:`MalformedComparison`.
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise MalformedComparison(f"{name} is not an array of numbers ({exc})") from None
    if arr.dtype.kind not in "biuf":
        what = "complex" if arr.dtype.kind == "c" else "non-numeric"
        raise MalformedComparison(
            f"{name} has {what} values (dtype {arr.dtype}); a numeric comparison needs real numbers"
        )
    return arr.astype(np.float64)


def same_shape(lhs: NDArray[np.float64], rhs: NDArray[np.float64], what: str = "lhs and rhs") -> None:
    """Raise :class:`MalformedComparison` unless the two sides have the same shape (x and xᵀ differ)."""
    if lhs.shape != rhs.shape:
        raise MalformedComparison(f"{what} have different shapes {lhs.shape} and {rhs.shape}")


def compare_with_tolerance(result: tuple, rtol: float, atol: float) -> tuple[bool, float, float]:
    """Return ``(ok, max |lhs − rhs|, tolerance)`` with tolerance ``atol + rtol · scale``.

    ``scale`` is the largest magnitude among lhs, rhs and an optional third element. The shapes are
    compared before the values, and each side must be real: a shape mismatch, a complex or a
    non-numeric value is :class:`MalformedComparison` naming the side; NaN or inf anywhere is no
    comparison at all (:class:`NonFiniteComparison` names the part).
    """
    if not isinstance(result, tuple) or len(result) not in (2, 3):
        raise InvalidArgument("compare must return (lhs, rhs) or (lhs, rhs, scale)")
    lhs, rhs = side_values("lhs", result[0]), side_values("rhs", result[1])
    same_shape(lhs, rhs)
    extra = side_values("scale", result[2]) if len(result) == 3 else np.zeros(())
    if extra.shape != ():
        raise MalformedComparison(f"scale must be one number, got shape {extra.shape}")
    for name, part in (("lhs", lhs), ("rhs", rhs), ("scale", extra)):
        if not np.all(np.isfinite(part)):
            raise NonFiniteComparison(f"{name} is not finite (NaN or inf)")
    err = float(np.max(np.abs(lhs - rhs), initial=0.0))
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), abs(float(extra)))
    tol = atol + rtol * scale
    return err <= tol, err, tol


def read_only(value: Any) -> Any:
    """A copy of ``value`` whose arrays (also inside lists, tuples and dicts) cannot be written.

    Each array is a read-only view of a read-only copy, so a side cannot make it writeable again
    (``setflags(write=True)`` refuses a view of a read-only base): an in-place update of an input
    raises instead of changing what the other side, a re-run or the control sees.
    """
    if isinstance(value, np.ndarray):
        base = np.array(value, copy=True)
        base.flags.writeable = False
        view = base.view()
        view.flags.writeable = False
        return view
    if isinstance(value, dict):
        return {k: read_only(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(read_only(v) for v in value) if type(value) in (list, tuple) else value
    return value


def _compared(compare: Callable[[Mapping[str, Any]], tuple], case: Mapping[str, Any]) -> tuple:
    """``compare`` at a read-only copy of ``case`` (see :func:`read_only`)."""
    return compare(read_only(dict(case)))


def _sizes_of(case: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}


def _coverage(seen: Iterable[Mapping[str, int]]) -> str:
    seen = list(seen)
    keys = sorted({k for s in seen for k in s})
    return ", ".join(f"{k}∈[{min(s[k] for s in seen)},{max(s[k] for s in seen)}]" for k in keys)


def _describe(error: Exception) -> str:
    """The error of a broken case; a write to a read-only input says that the inputs are read-only."""
    if isinstance(error, MalformedComparison):
        return str(error)
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, ValueError) and "read-only" in str(error):
        text += " (a side modified its inputs in place: the case's arrays are read-only)"
    return text


class _BrokenCase(Exception):
    """Carries a case whose comparison was malformed, or whose compare raised, out of Hypothesis' search."""

    def __init__(self, case: Mapping[str, Any], error: Exception) -> None:
        super().__init__(str(error))
        self.case, self.error = case, error


def _settings(max_examples: int) -> settings:
    return settings(
        settings.get_profile("default"),  # Hypothesis' own defaults: a profile the user loaded changes no verdict
        max_examples=max_examples,
        derandomize=False,  # the search is seeded by ``seed`` (``random=`` in :meth:`Numeric.run`)
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.shrink],
    )


@dataclass(frozen=True)
class Numeric(Check):
    """Numeric property: ``compare(case)`` returns ``(lhs, rhs)`` or ``(lhs, rhs, scale)`` for a drawn case.

    ``cases`` draws a ``dict``; its ``int`` entries are reported as the dimensions covered.
    ``scale`` (optional) is the magnitude of the terms that cancel, for the tolerance
    ``|lhs − rhs| ≤ atol + rtol · scale``. A failing case is shrunk to a minimal counterexample.
    The corrected form is another ``compare``, run at the shrunk case with the same tolerance.
    ``compare`` receives a read-only copy of the case (:func:`read_only`): a side that modifies its
    inputs in place is an error, never a pass. A crash, a shape mismatch, a complex or non-numeric
    side at any case is an error naming that case's sizes (:func:`compare_with_tolerance`).
    """

    cases: SearchStrategy[Mapping[str, Any]]
    compare: Callable[[Mapping[str, Any]], tuple]
    rtol: float = 1e-9
    atol: float = 1e-12

    kind: ClassVar[str] = Kind.NUMERIC
    rank: ClassVar[int] = 0

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        seen: list[dict[str, int]] = []

        def fails(case: Mapping[str, Any]) -> bool:
            seen.append(_sizes_of(case))
            try:
                ok, _, _ = compare_with_tolerance(_compared(self.compare, case), self.rtol, self.atol)
            except HypothesisException:  # assume() in a compare: Hypothesis' own control flow
                raise
            except Exception as exc:  # a crash or a malformed comparison at a case is no counterexample
                raise _BrokenCase(case, exc) from exc
            return not ok

        try:
            with source_independent_draws():
                case = find(self.cases, fails, settings=_settings(max_examples), random=random.Random(seed))
        except NoSuchExample:
            detail = f"{len(seen)} random cases pass (seed {seed})"
            if any(seen):
                detail += f"; {_coverage(seen)}"
            return Found(Evidence(self.kind, Status.VERIFIED, detail, time.perf_counter() - t0))
        except _BrokenCase as broken:
            detail = f"{_describe(broken.error)} in case {len(seen)} at sizes {_sizes_of(broken.case)} (seed {seed})"
            return Found(Evidence(self.kind, Status.ERROR, detail, time.perf_counter() - t0))
        _, err, tol = compare_with_tolerance(_compared(self.compare, case), self.rtol, self.atol)
        sizes = _sizes_of(case)
        values = {k: v for k, v in case.items() if k not in sizes}
        cex = counterexample(self.kind, sizes, values, err, tol, seed)
        detail = f"shrunk counterexample at {sizes}: |lhs − rhs| = {err:.3g} > {tol:.3g} (seed {seed})"
        return Found(Evidence(self.kind, Status.REFUTED, detail, time.perf_counter() - t0, cex), case)

    def control_at(self, at: Mapping[str, Any], corrected: Callable[[Mapping[str, Any]], tuple]) -> Evidence:
        """The corrected compare on the shrunk case must pass the refutation's own tolerance (same rtol, atol, scale)."""
        t0 = time.perf_counter()
        _, _, tol = compare_with_tolerance(_compared(self.compare, at), self.rtol, self.atol)  # the case's own
        _, err, _ = compare_with_tolerance(_compared(corrected, at), self.rtol, self.atol)
        ok = err <= tol
        relation = "≤" if ok else ">"
        detail = (
            f"numeric: the corrected form at the shrunk counterexample, |lhs − rhs| = {err:.3g} {relation} {tol:.3g}"
        )
        status = ControlStatus.PASSED if ok else ControlStatus.FAILED
        return Evidence(Kind.CONTROL, status, detail, time.perf_counter() - t0)
