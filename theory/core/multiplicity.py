"""Multiplicity across the measured claims of a run: which VERIFIED and REFUTED verdicts survive a
family-wise (Holm 1979) or false-discovery-rate (Benjamini & Hochberg 1995) reading.

Each measured verdict is a test at (1 − L)/2 per side (``core.checks.measured``): VERIFIED rejects "θ outside
the band" (the larger of the two one-sided p-values of the TOST), REFUTED rejects "θ inside the band" (the
one-sided p-value beyond the nearer edge); one-sided claims have one p-value each way. A claim contributes the
smaller of its two p-values — only one of its two nulls can be true, and an error is a rejection of that one,
whose p-value is at least the contributed one, so Holm's and BH's guarantees carry over. The p-values are read
off the interval as if it were normal: the standard error on each side is that side's half-width over
z_{(1+L)/2}. For a t-interval of few runs this understates p (the t has heavier tails), for a sequential claim it
ignores the earlier looks; both make the reading optimistic, and the report says so. An interval of no stated
level gives no p-value and is left out of the family (and counted).

The report's hook is one call: ``family_reading({name: measurement for each measured evidence row})`` with the
rows' ``measurement`` dicts (``core.checks.measured.measurement``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scipy import special

from icl_verify.core.checks.measured import Rule
from icl_verify.numerics.shared.stats import benjamini_hochberg, holm

FAMILY_ALPHA = 0.025
"""Family-wise error rate (Holm) and false-discovery rate (BH) of the reading: the per-claim rate of one side."""


def _above(x: float, se: float) -> float:
    """P(Z ≥ x/se), 0 or 1 for a zero standard error."""
    if se <= 0:
        return float(x <= 0)
    return float(special.ndtr(-x / se))


def p_values(m: Mapping[str, Any]) -> tuple[float, float] | None:
    """(p of "the claim holds" being wrong — the VERIFIED direction, p of the REFUTED direction) for one
    ``measurement`` dict, or ``None`` when its interval has no level."""
    if m["level"] is None:
        return None
    z = float(-special.ndtri((1 - m["level"]) / 2))
    value, (low, high) = m["estimate"], m["interval"]
    se_low, se_high = (value - low) / z, (high - value) / z
    rule, pred, tol = m["test"], m["predicted"], m["tolerance"]
    if rule == Rule.AT_MOST:  # VERIFIED rejects θ > pred by the upper end; REFUTED rejects θ ≤ pred by the lower
        return _above(pred - value, se_high), _above(value - pred, se_low)
    if rule == Rule.AT_LEAST:
        return _above(value - pred, se_low), _above(pred - value, se_high)
    edge_low, edge_high = pred - tol, pred + tol
    verified = max(_above(value - edge_low, se_low), _above(edge_high - value, se_high))
    refuted = min(_above(value - edge_high, se_low), _above(edge_low - value, se_high))
    return verified, refuted


def family_reading(measurements: Mapping[str, Mapping[str, Any]], alpha: float = FAMILY_ALPHA) -> dict[str, Any]:
    """For each claim with a stated level: its p-value, the direction it points ("verified"/"refuted") and whether
    that decision survives Holm (family-wise rate ``alpha``) and Benjamini–Hochberg (false-discovery rate
    ``alpha``); and the claims left out for want of a level."""
    names, ps, directions, left_out = [], [], [], []
    for name, m in measurements.items():
        p = p_values(m)
        if p is None:
            left_out.append(name)
            continue
        names.append(name)
        ps.append(min(p))
        directions.append("verified" if p[0] <= p[1] else "refuted")
    if not names:
        return {"alpha": alpha, "claims": {}, "left_out": left_out}
    h, b = holm(ps, alpha), benjamini_hochberg(ps, alpha)
    claims = {
        n: {"p": p, "direction": d, "holm": hi, "benjamini_hochberg": bi}
        for n, p, d, hi, bi in zip(names, ps, directions, h, b, strict=True)
    }
    return {"alpha": alpha, "claims": claims, "left_out": left_out}
