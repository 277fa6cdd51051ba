"""icl-verify: check the mathematics of in-context learning — SymPy proofs, NumPy simulations,
Hypothesis counterexamples.

The public API for writing and checking claims::

    import icl_verify as iv
    from icl_verify.maths.strategies import dims, matrices, reals, spd_matrices, regression_cases

    from icl_verify.blocks import gd_step, theta_gd  # the papers' objects, on SymPy and NumPy alike

    claim = iv.statement(name=..., source=..., statement=..., symbols={"X": iv.matrix("Nx", "N"), ...},
                         lhs=lambda X, ...: ..., rhs=lambda X, ...: ...)  # symbolic, explicit, numeric
    bound = iv.statement(..., relation="<=")       # an inequality: z3 proof (scalars) or a steered search
    moment = iv.statement(..., symbols={"x": iv.gaussian("d", cov="Lambda"), ...},
                          lhs=iv.expect(lambda x: ...), rhs=...)   # also iv.iid, iv.trace, iv.argmin(loss, over=)
    every_k = iv.statement(..., symbols={..., "K": iv.integer(low=0)},
                           lhs=iv.recursion(base=..., step=..., over="K"), rhs=...)  # PROVED by induction
    iv.matpow(M, K), iv.log(x), iv.exp(x), iv.sqrt(x), iv.abs(x)  # one meaning on SymPy and NumPy sides
    claim = iv.Claim(name=..., source=..., statement=..., checks=(iv.Numeric(cases, compare),))
    result = iv.check(claim, seed=0)        # an iv.Result with an iv.Verdict
    report = iv.check_all()                 # every built-in claim, in worker processes, through the verdict cache
    family = iv.load_family("my_claims.py") # a claim file: its claims, derivations and FIGURES

``iv.__version__`` is the installed release (``importlib.metadata``).

Bad input anywhere raises ``iv.InvalidArgument``, a ``ValueError`` and, like every exception
icl-verify raises on purpose, an ``iv.IclVerifyError``.

Layers (each a subpackage; dependencies point one way, checked in CI): ``icl_verify.numerics``
(simulations and fits, no SymPy) ← ``icl_verify.maths`` (zero-testing, identities, tolerances) ←
``icl_verify.core`` (claims, checks, verdicts, derivations) ← ``icl_verify.running`` (discovery,
worker processes, the verdict cache) and ``icl_verify.blocks`` ← ``icl_verify.experiments`` ←
``icl_verify.families`` (the papers' results) ← ``icl_verify.output`` (rendering, report,
documents) ← ``icl_verify.cli`` (the command line).

The names below are imported on first use, so ``import icl_verify.numerics`` loads neither SymPy
nor the claim core. Type checkers and IDEs read the same names from the explicit re-exports under
``TYPE_CHECKING``, so ``iv.check`` has its real signature there.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from icl_verify.core import display

if TYPE_CHECKING:  # the names of _EXPORTS, imported eagerly for mypy and IDEs only (explicit re-exports)
    from icl_verify.blocks.backend import abs as abs
    from icl_verify.blocks.backend import exp as exp
    from icl_verify.blocks.backend import log as log
    from icl_verify.blocks.backend import sqrt as sqrt
    from icl_verify.blocks.linalg import matpow as matpow
    from icl_verify.core.caches import clear_caches as clear_caches
    from icl_verify.core.checks.base import Check as Check
    from icl_verify.core.checks.base import Found as Found
    from icl_verify.core.checks.explicit import Explicit as Explicit
    from icl_verify.core.checks.measured import Estimate as Estimate
    from icl_verify.core.checks.measured import Measured as Measured
    from icl_verify.core.checks.numeric import Numeric as Numeric
    from icl_verify.core.checks.numeric import compare_with_tolerance as compare_with_tolerance
    from icl_verify.core.checks.symbolic import Symbolic as Symbolic
    from icl_verify.core.claims import Claim as Claim
    from icl_verify.core.claims import Corrected as Corrected
    from icl_verify.core.claims import NoControl as NoControl
    from icl_verify.core.claims import Result as Result
    from icl_verify.core.claims import check as check
    from icl_verify.core.derivation import Derivation as Derivation
    from icl_verify.core.derivation import Step as Step
    from icl_verify.core.evidence import ControlStatus as ControlStatus
    from icl_verify.core.evidence import Evidence as Evidence
    from icl_verify.core.evidence import Kind as Kind
    from icl_verify.core.evidence import Status as Status
    from icl_verify.core.evidence import StepStatus as StepStatus
    from icl_verify.core.expectation import expect as expect
    from icl_verify.core.expectation import gaussian as gaussian
    from icl_verify.core.expectation import iid as iid
    from icl_verify.core.expectation import trace as trace
    from icl_verify.core.figure import Figure as Figure
    from icl_verify.core.induction import integer as integer
    from icl_verify.core.induction import recursion as recursion
    from icl_verify.core.optimality import argmin as argmin
    from icl_verify.core.statement import statement as statement
    from icl_verify.core.symbols import matrix as matrix
    from icl_verify.core.symbols import scalar as scalar
    from icl_verify.core.verdicts import Verdict as Verdict
    from icl_verify.errors import IclVerifyError as IclVerifyError
    from icl_verify.errors import InvalidArgument as InvalidArgument
    from icl_verify.output.report import Report as Report
    from icl_verify.output.report import check_all as check_all
    from icl_verify.running.registry import load_family as load_family


display.provide("icl_verify.output.render")  # Markdown for claims, results and derivations in Jupyter
display.provide("icl_verify.output.docs")  # and for a family (a user's file) as its whole document

_EXPORTS = {
    "Claim": "icl_verify.core.claims",
    "Corrected": "icl_verify.core.claims",
    "NoControl": "icl_verify.core.claims",
    "Result": "icl_verify.core.claims",
    "check": "icl_verify.core.claims",
    "Check": "icl_verify.core.checks.base",
    "Found": "icl_verify.core.checks.base",
    "Symbolic": "icl_verify.core.checks.symbolic",
    "Explicit": "icl_verify.core.checks.explicit",
    "Numeric": "icl_verify.core.checks.numeric",
    "compare_with_tolerance": "icl_verify.core.checks.numeric",
    "Measured": "icl_verify.core.checks.measured",
    "Estimate": "icl_verify.core.checks.measured",
    "Evidence": "icl_verify.core.evidence",
    "Kind": "icl_verify.core.evidence",
    "Status": "icl_verify.core.evidence",
    "ControlStatus": "icl_verify.core.evidence",
    "StepStatus": "icl_verify.core.evidence",
    "Verdict": "icl_verify.core.verdicts",
    "matrix": "icl_verify.core.symbols",
    "scalar": "icl_verify.core.symbols",
    "statement": "icl_verify.core.statement",
    "gaussian": "icl_verify.core.expectation",
    "iid": "icl_verify.core.expectation",
    "expect": "icl_verify.core.expectation",
    "trace": "icl_verify.core.expectation",
    "argmin": "icl_verify.core.optimality",
    "integer": "icl_verify.core.induction",
    "recursion": "icl_verify.core.induction",
    "matpow": "icl_verify.blocks.linalg",
    "exp": "icl_verify.blocks.backend",
    "log": "icl_verify.blocks.backend",
    "sqrt": "icl_verify.blocks.backend",
    "abs": "icl_verify.blocks.backend",
    "Derivation": "icl_verify.core.derivation",
    "Step": "icl_verify.core.derivation",
    "Figure": "icl_verify.core.figure",
    "load_family": "icl_verify.running.registry",
    "clear_caches": "icl_verify.core.caches",
    "Report": "icl_verify.output.report",
    "check_all": "icl_verify.output.report",
    "IclVerifyError": "icl_verify.errors",
    "InvalidArgument": "icl_verify.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562); ``__version__`` from the installed metadata."""
    if name == "__version__":
        from importlib.metadata import version

        globals()[name] = version("icl-verify")
        return globals()[name]
    if name not in _EXPORTS:
        raise AttributeError(f"module 'icl_verify' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"__version__"})
