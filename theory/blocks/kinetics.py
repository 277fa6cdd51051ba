"""The (w, β) learning-kinetics gradient flow of Nguyen & Reddy (ICLR 2025), on both sides."""

from __future__ import annotations

from typing import Any

from icl_verify.blocks.backend import exp


def kinetics_flow(
    w: Any, beta: Any, c1: Any, c2: Any, n: Any, *, decay_w: Any = 0, decay_beta: Any = 0
) -> tuple[Any, Any]:
    """(dw/dt, dβ/dt) of the reduced model's attention path (Nguyen & Reddy 2025, §3.4 eq. 4; decay §3.7).

    dw/dt = (c₁/N)(e^β − c₂ w) − λ_w w and dβ/dt = (c₁/N) w e^β − λ_β β, for SymPy symbols or
    NumPy scalars/arrays (element-wise) alike.

    >>> import sympy as sp
    >>> w, beta, c1, c2, n = sp.symbols("w beta c_1 c_2 N")
    >>> kinetics_flow(w, beta, c1, c2, n)[1]
    c_1*w*exp(beta)/N
    """
    drive = exp(beta)
    return c1 / n * (drive - c2 * w) - decay_w * w, c1 / n * w * drive - decay_beta * beta
