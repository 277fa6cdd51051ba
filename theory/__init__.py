"""icl-verify's theory side: claims, their checks and verdicts (SymPy + Hypothesis).

The public API for writing claims::

    from theory import Claim, Estimate, Explicit, Measured, Numeric, Verdict, check, check_all
    from theory import Derivation, Step           # step-by-step derivations checked by SymPy
    from theory.strategies import dims, matrices, reals, spd_matrices, regression_cases, token_batches

Every claim, result, report and derivation renders itself as Markdown/LaTeX in Jupyter.
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
from theory.derivation import Derivation, Step
from theory.report import Report, check_all

__all__ = [
    "Claim",
    "Derivation",
    "Estimate",
    "Evidence",
    "Explicit",
    "Measured",
    "Numeric",
    "Report",
    "Result",
    "Step",
    "Verdict",
    "check",
    "check_all",
    "compare_with_tolerance",
]
