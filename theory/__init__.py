"""icl-verify's theory side: claims, their checks and verdicts (SymPy + Hypothesis).

The public API for writing claims::

    from theory import Claim, Estimate, Explicit, Measured, Numeric, Verdict, check
    from theory.strategies import dims, matrices, reals
"""

from theory.claims import (
    Claim,
    Estimate,
    Evidence,
    Explicit,
    Measured,
    Numeric,
    Result,
    Verdict,
    check,
    compare_with_tolerance,
)

__all__ = [
    "Claim",
    "Estimate",
    "Evidence",
    "Measured", "Explicit", "Numeric", "Result", "Verdict", "check", "compare_with_tolerance"]
