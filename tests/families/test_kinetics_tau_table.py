"""The τ* table at w₀ = 0 (Nguyen & Reddy 2025, §3.5): what ``icl-verify kinetics --tau-table`` prints and the
table in the kinetics document agree with an independent computation.

Independent of ``numerics.kinetics.ode`` (whose blow-up times come from its own Dormand–Prince loop): for
c₂ = 0 the closed form τ* = √(π/2) e^{−β₀} (§3.5); for c₂ > 0 SciPy's LSODA integrates eq. 4 in the clock
(dw/dτ = e^β − c₂ w, dβ/dτ = w e^β) up to β = 8, and the rest of the way to β = ∞ is the c₂ = 0 closed form
from there, e^{−β₁ + w₁²/2} √(π/2) erfc(w₁/√2): beyond β = 8 the neglected drift c₂w is below 10⁻³ e^β, and
the whole remainder is ≈ 10⁻⁴ of τ*, so the tail's error is ≈ 10⁻⁷ relative, far below the printed 4 digits.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.integrate import solve_ivp
from scipy.special import erfc

from icl_verify.cli.main import main
from icl_verify.families import kinetics as kc

BETA0 = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0)
SWITCH = 8.0  # β at which the integration hands over to the c₂ = 0 tail


def _independent_tau_star(beta0: float, c2: float) -> float:
    """τ*(w₀ = 0, β₀; c₂) by LSODA to β = SWITCH plus the closed-form tail (module docstring)."""

    def reached(_t: float, y: np.ndarray) -> float:
        return y[1] - SWITCH

    reached.terminal = True
    sol = solve_ivp(
        lambda _t, y: [np.exp(y[1]) - c2 * y[0], y[0] * np.exp(y[1])],
        (0.0, 1e4),
        [0.0, beta0],
        method="LSODA",
        rtol=1e-10,
        atol=1e-12,
        events=reached,
    )
    (t1,), ((w1, b1),) = sol.t_events[0], sol.y_events[0]
    return float(t1 + np.exp(-b1 + w1**2 / 2) * np.sqrt(np.pi / 2) * erfc(w1 / np.sqrt(2)))


@pytest.fixture(scope="module")
def expected() -> dict[str, np.ndarray]:
    """The table's columns from the independent computation and the paper's formulas (§3.5)."""
    b = np.array(BETA0)
    return {
        "c2=0": np.sqrt(np.pi / 2) * np.exp(-b),
        "c2=1": np.array([_independent_tau_star(x, 1.0) for x in BETA0]),
        "kappa": np.exp(-b),
        "slaved": 0.5 * np.exp(-2 * b),
    }


def _same_to_printed_digits(printed: list[float], exact: np.ndarray) -> None:
    """Each printed number is the exact value rounded to 4 significant digits (as ``{:.4g}`` rounds it)."""
    assert list(printed) == [float(f"{x:.4g}") for x in exact]


def test_the_independent_solve_reproduces_the_closed_form_at_c2_zero(expected):
    """The LSODA-plus-tail computation, run at c₂ = 0, gives √(π/2) e^{−β₀} (its own control)."""
    got = [_independent_tau_star(x, 0.0) for x in BETA0]
    np.testing.assert_allclose(got, expected["c2=0"], rtol=1e-8)


def test_tau_table_command_prints_the_independent_values(expected):
    result = CliRunner().invoke(main, ["kinetics", "--tau-table"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()[1:] if line.strip()]
    assert [float(r[0]) for r in rows] == list(BETA0)
    cols = np.array([[float(v) for v in r[1:]] for r in rows])
    _same_to_printed_digits(cols[:, 0], expected["c2=0"])
    _same_to_printed_digits(cols[:, 1], expected["c2=0"])
    _same_to_printed_digits(cols[:, 2], expected["c2=1"])


def test_kinetics_document_tau_table_holds_the_independent_values(expected):
    """The table in the family's prose (rendered in docs/derivations/kinetics.md), column by column."""
    doc = kc.__doc__ or ""
    rows = [
        [float(cell.replace("−", "-")) for cell in line.strip("|").split("|")]
        for line in doc.splitlines()
        if re.match(r"^\| [−\d]", line)
    ]
    table = np.array(rows)
    assert table[:, 0].tolist() == list(BETA0)
    for col, key in zip(range(1, 6), ("c2=0", "c2=0", "c2=1", "kappa", "slaved")):
        _same_to_printed_digits(table[:, col], expected[key])
