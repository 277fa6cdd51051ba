"""Claims: learning kinetics of in-context learning (Nguyen & Reddy, ICLR 2025, arXiv 2412.00104).

Reduced model z = φ(x_t) + w Σ_j softmax_j(β x_t·x_j) ℓ_j, BCE loss log(1 + e^{−ℓ_t z}).
Everything the paper states about the attention path is *derived* here by SymPy from the loss:
the simplified loss (second-order expansion, leading order in 1/N), its gradient flow, the
conserved quantity, the blow-up time τ*, the K → ∞ law, the β₀ ≪ 0 regime and the K* threshold.
Each derivation is checked against the integrator in ``numerics.kinetics.ode`` (no SymPy there).

The measured claims at the end train the reduced model (``numerics.kinetics.models``) and compare it
with the ODE driven by the c₁(t), c₂(t) measured in the same run: trajectories, t_ICL ∝ N, the
β₀-dependence, transience under attention-only weight decay, and equalised contexts. The runs sample
only what the model reads — the query, the scores x_t·x_j and the labels: for K → ∞ from their exact
joint law (g_j | x_t ~ N(0, |x_t|²/D)), for finite K from the task's Gram matrix (``numerics.kinetics.task``).

Regimes (Nguyen & Reddy 2025, §3): D → ∞ so x_t·x_j → δ_tj; the query occurs once in its context;
|w| ≪ √N (second order in the attention term); e^β ≪ N (leading order in 1/N).
The clock is τ = ∫ c₁ dt / N and κ = c₂ e^{−β₀} separates the two regimes of τ*:
κ ≪ 1 gives τ* = √(π/2) e^{−β₀} (w₀ = 0), κ ≫ 1 gives τ* ≈ (c₂/2) e^{−2β₀}.

## τ* at w₀ = 0

The blow-up clock time τ* of eq. 4 with w₀ = 0 and constant c₂, as ``icl-verify kinetics --tau-table``
prints it (``numerics.kinetics.ode.tau_star_table``: the ODE integrated with N = c₁ = 1, so t = τ), to 4
significant digits, beside the paper's two formulas of §3.5 evaluated at the same β₀: √(π/2) e^{−β₀}, exact
for c₂ = 0, and (c₂/2) e^{−2β₀}, stated for κ = c₂ e^{−β₀} ≫ 1 (the column's last three rows have κ ≤ 1,
outside that regime).

| β₀ | τ* (c₂ = 0) | √(π/2) e^{−β₀} (§3.5) | τ* (c₂ = 1) | κ (c₂ = 1) | (c₂/2) e^{−2β₀} (§3.5, κ ≫ 1) |
|---:|---:|---:|---:|---:|---:|
| −3 | 25.17 | 25.17 | 205.6 | 20.09 | 201.7 |
| −2 | 9.261 | 9.261 | 30.22 | 7.389 | 27.30 |
| −1 | 3.407 | 3.407 | 5.614 | 2.718 | 3.695 |
| 0 | 1.253 | 1.253 | 1.499 | 1 | 0.5 |
| 1 | 0.4611 | 0.4611 | 0.4916 | 0.3679 | 0.06767 |
| 2 | 0.1696 | 0.1696 | 0.1736 | 0.1353 | 0.009158 |

The paper's own numerical values of τ* for these settings were not found, so the c₂ = 1 column is compared
with no printed number (the authors' released code, github anhhuyalex/icl-kinetics, integrates no ODE and
prints no τ*); the closed-form columns are the paper's formulas, evaluated here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import mpmath
import numpy as np
import sympy as sp
from hypothesis import strategies as st

from icl_verify.blocks import kinetics_flow
from icl_verify.core.caches import cached
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.measured import Estimate, Measured, over_runs
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.derivation import Derivation, Step
from icl_verify.core.figure import Figure
from icl_verify.numerics.kinetics import models as icl_models
from icl_verify.numerics.kinetics import ode as kin
from icl_verify.numerics.shared.items import constants
from icl_verify.numerics.shared.stats import first_crossing, fit_line, scipy_stats, t_interval

FAMILY = "kinetics"
PAPER = "Nguyen & Reddy 2025"

W, BETA = sp.symbols("w beta", real=True)
W0, BETA0 = sp.symbols("w_0 beta_0", real=True)
C1, C2, N, NU, A = sp.symbols("c_1 c_2 N nu A", positive=True)
U, DELTA, EPS, T, Y, K = sp.symbols("u delta epsilon t y K", positive=True)


def _sigma(z: sp.Expr) -> sp.Expr:
    return 1 / (1 + sp.exp(-z))


# ---------------------------------------------------------------------------------------------
# The simplified loss and its gradient flow, derived


def taylor_residuals() -> list:
    """BCE ℓ(δ) = log(1 + e^{−u−δ}): ℓ'(0) = −σ(−u) and ℓ''(0) = σ(−u)σ(u) = σ(−u) − σ(−u)²."""
    f = sp.log(1 + sp.exp(-U - DELTA))
    s = _sigma(-U)
    return [
        sp.diff(f, DELTA).subs(DELTA, 0) + s,
        sp.diff(f, DELTA, 2).subs(DELTA, 0) - (s - s**2),
    ]


def attention_moments(equalised: bool = False) -> tuple[sp.Expr, sp.Expr]:
    """⟨δ⟩ and ⟨δ²⟩ of the attention term δ = ℓ_t w Σ_j softmax_j ℓ_j (query once in the context).

    With x_t·x_j = δ_tj the weights are e^β on the query's copy and 1 on the N − 1 others, so
    δ = w (e^β + S)/(e^β + N − 1) with S = ℓ_t Σ_{j≠t} ℓ_j. Random labels: ⟨S⟩ = 0, ⟨S²⟩ = N − 1.
    Equalised contexts (exactly N/2 of each label, the query's copy included): S = −1.
    """
    den = sp.exp(BETA) + N - 1
    if equalised:
        d = W * (sp.exp(BETA) - 1) / den
        return d, d**2
    return W * sp.exp(BETA) / den, W**2 * (sp.exp(2 * BETA) + N - 1) / den**2


def derived_loss(equalised: bool = False) -> sp.Expr:
    """Leading order in 1/N of the w, β-dependent loss: ⟨ℓ'(0)⟩⟨δ⟩ + ½⟨ℓ''(0)⟩⟨δ²⟩ with
    ⟨σ(−u)⟩ = c₁ and ⟨σ(−u) − σ(−u)²⟩ = c₁ c₂ (the paper's definitions of c₁, c₂)."""
    m1, m2 = attention_moments(equalised)
    second_order = -C1 * m1 + C1 * C2 / 2 * m2
    series = sp.series(second_order.subs(N, 1 / EPS), EPS, 0, 2).removeO()
    return sp.simplify(series.coeff(EPS, 1)) / N


def paper_loss() -> sp.Expr:
    """The paper's simplified loss without L_IWL: −(c₁/N)(w e^β − (c₂/2) w²) (eq. 3)."""
    return -(C1 / N) * (W * sp.exp(BETA) - C2 / 2 * W**2)


def simplified_loss_residuals() -> list:
    """Derived minus printed simplified loss, the vanishing O(N⁰) term, and c₁c₂ = c₁ − ⟨σ(−u)²⟩."""
    m1, m2 = attention_moments()
    second_order = (-C1 * m1 + C1 * C2 / 2 * m2).subs(N, 1 / EPS)
    order0 = sp.series(second_order, EPS, 0, 1).removeO()
    m_sq = sp.Symbol("m_2", positive=True)  # ⟨σ(−u)²⟩
    return [derived_loss() - paper_loss(), order0, C1 * (1 - m_sq / C1) - (C1 - m_sq)]


SIMPLIFIED_LOSS = Claim(
    name="kinetics-simplified-loss",
    source=f"{PAPER}, §3.4 eq. 3",
    assumptions=("D → ∞ (x_t·x_j → δ_tj)", "the query occurs once in its context", "|w| ≪ √N", "e^β ≪ N"),
    statement=(
        r"L \approx L_{IWL} - \frac{c_1}{N}\left(w e^{\beta} - \frac{c_2}{2} w^2\right),\ "
        r"c_1 = \langle\sigma(-\phi_+)\rangle,\ c_2 = 1 - \langle\sigma(-\phi_+)^2\rangle / c_1"
        r"\quad (D\to\infty,\ |w| \ll \sqrt N,\ e^\beta \ll N)"
    ),
    checks=(Symbolic(lambda: taylor_residuals() + simplified_loss_residuals()),),
    note="Derived: 2nd-order Taylor expansion of the BCE in the attention term, averaged over context labels, "
    "then the O(1/N) coefficient of the series in ε = 1/N.",
)


@cached()
def _paper_loss_numeric() -> Callable[..., float]:
    return sp.lambdify((C1, C2, N, W, BETA), derived_loss(), modules="numpy")


def measure_simplified_loss_error(seed: int, u: float = 0.3, w: float = 1.0, beta: float = 0.5) -> Estimate:
    """Slope of ln|L_exact/L_simplified − 1| against ln N (N = 64 … 4096) for one item margin u
    (c₁ = σ(−u), c₂ = σ(u)); the neglected terms are O(e^β/N) and O(w⁴/N) relative, so −1."""
    ns = np.geomspace(64, 4096, 7).astype(int)
    c1, c2 = 1 / (1 + np.exp(u)), 1 / (1 + np.exp(-u))
    rel = np.array(
        [kin.exact_attention_loss(u, w, beta, n) / _paper_loss_numeric()(c1, c2, n, w, beta) - 1 for n in ns]
    )
    slope, lo, hi = fit_line(np.log(ns), np.log(np.abs(rel))).slope
    errors = ", ".join(f"{r:.2g}" for r in rel)  # two digits: the slope's evidence, not the last bits of a float
    return Estimate(slope, lo, hi, -1.0, 0.1, f"u {u}, w {w}, β {beta}; relative error [{errors}] (deterministic)")


SIMPLIFIED_LOSS_ACCURACY = Claim(
    name="kinetics-simplified-loss-error-is-order-one-over-n",
    source=f"{PAPER}, §3.4 eq. 3 (regime e^β ≪ N)",
    assumptions=("e^β ≪ N",),
    builds_on=("kinetics-simplified-loss",),
    statement=(
        r"\frac{\langle \log(1 + e^{-u-\delta})\rangle_S - \log(1 + e^{-u})}{-\frac{c_1}{N}(w e^\beta - \frac{c_2}{2}w^2)}"
        r" - 1 = O(N^{-1})"
    ),
    checks=(Measured(measure_simplified_loss_error),),
    note="Exact average over the context labels (numerics.kinetics.ode.exact_attention_loss) against the derived "
    "simplified loss (lambdified); the odd moments of S vanish, so the first neglected terms are O(1/N) relative.",
)


def flow(loss: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """Gradient flow (−∂L/∂w, −∂L/∂β) of a loss in (w, β)."""
    return -sp.diff(loss, W), -sp.diff(loss, BETA)


def paper_flow() -> tuple[sp.Expr, sp.Expr]:
    """The printed ODE: dw/dt = (c₁/N)(e^β − c₂ w), dβ/dt = (c₁/N) w e^β (eq. 4)."""
    return kinetics_flow(W, BETA, C1, C2, N)


GRADIENT_FLOW = Claim(
    name="kinetics-gradient-flow",
    source=f"{PAPER}, §3.4 eq. 4",
    builds_on=("kinetics-simplified-loss",),
    statement=r"\dot w = \frac{c_1}{N}(e^\beta - c_2 w),\quad \dot\beta = \frac{c_1}{N} w e^\beta",
    checks=(Symbolic(lambda: [d - p for d, p in zip(flow(derived_loss()), paper_flow())]),),
    note="The flow is obtained by differentiating the derived loss, not typed in.",
)


def conserved_residuals() -> list:
    """With c₂ = 0, in the clock τ (dτ = c₁dt/N): d/dτ (β − w²/2) = 0."""
    dw, db = (f.subs(C2, 0) * N / C1 for f in flow(derived_loss()))
    return [db - W * dw]


def _conserved_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries(
        {
            "w0": st.floats(-1.5, 1.5),
            "beta0": st.floats(-2.0, 1.0),
            "n": st.integers(1, 200),
            "c1_end": st.floats(0.0, 1.0),
            "t_decay": st.floats(0.5, 50.0),
        }
    )


def _conserved_along_trajectory(case: dict) -> tuple:
    """β − w²/2 on an integrated trajectory with c₂ = 0 and a time-varying c₁(t)."""
    n, w0, b0, td, end = case["n"], case["w0"], case["beta0"], case["t_decay"], case["c1_end"]
    c1 = lambda t: 0.5 * np.exp(-t / td) + end * (1 - np.exp(-t))  # noqa: E731
    horizon = 4 * n * float(kin.tau_star(w0, b0)[0])  # long enough to blow up when c₁ stays large
    grid = np.linspace(0.0, horizon, 20)
    sol = kin.integrate(w0, b0, n=n, c1=c1, c2=0.0, t_max=2 * horizon, t_eval=grid)
    keep = np.isfinite(sol.beta[0]) & (sol.beta[0] < 8.0)
    q = sol.beta[0, keep] - sol.w[0, keep] ** 2 / 2
    return q, np.full_like(q, b0 - w0**2 / 2), 1.0 + float(np.max(sol.w[0, keep] ** 2, initial=0.0))


CONSERVED = Claim(
    name="kinetics-conserved-quantity",
    source=f"{PAPER}, §3.5",
    assumptions=("c₂ = 0 (approximately: c₂ w ≪ e^β)", "c₁(t) ≥ 0"),
    builds_on=("kinetics-gradient-flow",),
    statement=r"c_2 = 0:\quad \frac{d}{d\tau}\left(\beta - \tfrac{w^2}{2}\right) = 0,\quad d\tau = c_1\,dt/N",
    checks=(
        Symbolic(conserved_residuals),
        Numeric(_conserved_cases(), _conserved_along_trajectory, rtol=1e-7, atol=1e-8),
    ),
    note="Exact for c₂ = 0 and any c₁(t) ≥ 0; an approximation when c₂ w ≪ e^β. Numeric side: integrated "
    "trajectories with c₁(t) = ½e^{−t/T} + c(1 − e^{−t}), β < 8.",
)


# ---------------------------------------------------------------------------------------------
# Blow-up time τ* and t_ICL


def tau_star_derived() -> sp.Expr:
    """τ* = ∫_{w₀}^∞ dw / e^{β(w)} along β(w) = β₀ + (w² − w₀²)/2 (dw/dτ = e^β when c₂ = 0)."""
    (q,) = conserved_residuals()  # proved zero: β − w²/2 is constant, so β(w) is the conserved curve
    assert sp.simplify(q) == 0
    wv = sp.Symbol("W", real=True)
    return sp.integrate(sp.exp(-(BETA0 + (wv**2 - W0**2) / 2)), (wv, W0, sp.oo))


def tau_star_paper() -> sp.Expr:
    """The printed τ* = e^{−β₀ + w₀²/2} √(π/2) erfc(w₀/√2)."""
    return sp.exp(-BETA0 + W0**2 / 2) * sp.sqrt(sp.pi / 2) * sp.erfc(W0 / sp.sqrt(2))


def _blowup_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries({"w0": st.floats(-2.0, 2.5), "beta0": st.floats(-3.0, 3.0)})


@cached()
def _tau_star_numeric() -> Callable[[float, float], float]:
    return sp.lambdify((W0, BETA0), tau_star_derived(), modules="scipy")


def _blowup_vs_derived(case: dict) -> tuple:
    """Integrated blow-up clock time (c₁ = N so t = τ) vs the SymPy-derived τ*, lambdified."""
    fn = _tau_star_numeric()
    sol = kin.integrate(case["w0"], case["beta0"], n=1.0, c1=1.0, c2=0.0, t_max=1e9)
    return sol.t_icl, np.atleast_1d(fn(case["w0"], case["beta0"]))


BLOWUP_TIME = Claim(
    name="kinetics-blowup-time",
    source=f"{PAPER}, §3.5",
    assumptions=("c₂ w ≪ e^β",),
    builds_on=("kinetics-conserved-quantity",),
    statement=(
        r"c_2 = 0:\ \beta \to \infty \text{ at } \tau^* = e^{-\beta_0 + w_0^2/2}\sqrt{\pi/2}\,"
        r"\mathrm{erfc}(w_0/\sqrt 2)"
    ),
    checks=(
        Symbolic(lambda: [tau_star_derived() - tau_star_paper()]),
        Numeric(_blowup_cases(), _blowup_vs_derived, rtol=1e-7, atol=0.0),
    ),
    note="Numeric side: solve_ivp (DOP853, rtol 1e-10) to β = 40 vs the derived integral; w₀ ∈ [−2, 2.5], "
    "β₀ ∈ [−3, 3].",
)


def t_icl_infinite_k_residuals() -> list:
    """K → ∞: c₁ = ½ so I(t) = t/2; solve I(t_ICL) = N τ*(w₀ = 0) and compare with √(2π) N e^{−β₀}."""
    tau0 = tau_star_derived().subs(W0, 0)
    (t_icl,) = sp.solve(sp.Eq(sp.integrate(sp.Rational(1, 2), (T, 0, T)), N * tau0), T)
    return [t_icl - sp.sqrt(2 * sp.pi) * N * sp.exp(-BETA0)]


def _k_infinity_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries({"n": st.integers(1, 500), "beta0": st.floats(-3.0, 3.0)})


def _k_infinity(case: dict) -> tuple:
    sol = kin.integrate(0.0, case["beta0"], n=case["n"], c1=0.5, c2=0.0, t_max=1e9)
    return sol.t_icl, kin.t_icl_infinite_k(case["n"], case["beta0"])


T_ICL_INFINITE_K = Claim(
    name="kinetics-t-icl-infinite-k",
    source=f"{PAPER}, §3.5",
    assumptions=("K → ∞: c₁ = ½", "w₀ = 0", "κ = c₂ e^{−β₀} ≪ 1"),
    builds_on=("kinetics-blowup-time",),
    statement=r"K\to\infty,\ c_1 = \tfrac12,\ w_0 = 0,\ c_2 w \ll e^\beta:\quad t_{ICL} = \sqrt{2\pi}\, N e^{-\beta_0}",
    checks=(
        Symbolic(t_icl_infinite_k_residuals),
        Numeric(_k_infinity_cases(), _k_infinity, rtol=1e-7, atol=0.0),
    ),
    note="Linear in N and exponential in −β₀ exactly, within the c₂ = 0 approximation (κ = c₂e^{−β₀} ≪ 1). "
    "At K → ∞ with φ ≈ 0, c₂ = ½ instead: see kinetics-small-kappa-correction.",
)


def _memorisation_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries(
        {
            "n": st.integers(1, 300),
            "beta0": st.floats(-1.0, 2.0),
            "c1_0": st.floats(0.05, 0.5),
            "t_mem": st.floats(1.0, 2000.0),
        }
    )


def _icl_iff_integral_exceeds(case: dict) -> tuple:
    """c₁(t) = c e^{−t/T}: ICL iff I(∞) = cT > N τ*, then t_ICL = −T ln(1 − Nτ*/(cT)); else never.

    Returned as (indicator, t_ICL or 0) pairs; cases within 1e-4 of the threshold are skipped.
    """
    n, b0, c, tm = case["n"], case["beta0"], case["c1_0"], case["t_mem"]
    need = n * float(kin.tau_star(0.0, b0)[0])
    margin = c * tm / need - 1
    if abs(margin) < 1e-4:
        return np.zeros(2), np.zeros(2)
    sol = kin.integrate(0.0, b0, n=n, c1=lambda t: c * np.exp(-t / tm), c2=0.0, t_max=60 * tm)
    got = np.isfinite(sol.t_icl[0])
    want = margin > 0
    predicted = -tm * np.log1p(-need / (c * tm)) if want else 0.0
    return np.array([float(got), sol.t_icl[0] if got else 0.0]), np.array([float(want), predicted])


ICL_IFF_MEMORISATION_SLOWER = Claim(
    name="kinetics-icl-iff-integral-exceeds",
    source=f"{PAPER}, §3.6 (I_K(t_ICL) = N τ*)",
    builds_on=("kinetics-blowup-time",),
    statement=(
        r"c_2 = 0:\ \text{ICL is acquired iff } I(\infty) = \int_0^\infty c_1\,dt > N\tau^*,"
        r" \text{ at } I(t_{ICL}) = N\tau^*"
    ),
    checks=(Numeric(_memorisation_cases(), _icl_iff_integral_exceeds, rtol=1e-6, atol=1e-9),),
    note="Checked with a memorisation schedule c₁(t) = c e^{−t/T} (I(∞) = cT), for which t_ICL has a closed form.",
)


# ---------------------------------------------------------------------------------------------
# The regimes of τ* when c₂ > 0 (κ = c₂ e^{−β₀})


def slaved_residuals() -> list:
    """β₀ ≪ 0: w follows the slow manifold w = h(y), y = e^β; derive h and τ* to the first correction.

    Invariance: dw/dτ = h'(β) dβ/dτ ⇔ y² h h_y = y − c₂ h. Order by order: h = y/c₂ − y³/c₂³ + O(y⁵).
    Then dτ = dy / (y² h) = (c₂/y³ + 1/(c₂ y) + O(y)) dy: the leading term integrates to (c₂/2)e^{−2β₀}.
    """
    h0 = Y / C2
    h1 = (Y - Y**2 * h0 * sp.diff(h0, Y)) / C2
    invariance = sp.expand(Y**2 * h1 * sp.diff(h1, Y) - Y + C2 * h1)
    dtau = sp.series(1 / (Y**2 * h1), Y, 0, 1).removeO()
    leading = sp.integrate(C2 * sp.exp(-2 * BETA), (BETA, BETA0, sp.oo))
    return [
        h1 - (Y / C2 - Y**3 / C2**3),
        sp.series(invariance, Y, 0, 5).removeO(),  # residual starts at O(y⁵)
        dtau - (C2 / Y**3 + 1 / (C2 * Y)),
        leading - C2 / 2 * sp.exp(-2 * BETA0),
    ]


def _slaved_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries({"beta0": st.floats(-3.0, -1.5), "c2": st.floats(0.2, 1.0)}).filter(
        lambda c: c["c2"] * np.exp(-c["beta0"]) >= 3.0
    )


def _slaved_remainder(case: dict) -> tuple:
    """(τ*/((c₂/2)e^{−2β₀}) − 1) κ² − 2 ln κ, which the slow-manifold expansion predicts is O(1)."""
    b0, c2 = case["beta0"], case["c2"]
    kappa = c2 * np.exp(-b0)
    sol = kin.integrate(0.0, b0, n=1.0, c1=1.0, c2=c2, t_max=1e12, rtol=1e-9)
    ratio = sol.t_icl[0] / kin.tau_star_slaved(c2, b0)[0]
    return np.array([(ratio - 1) * kappa**2 - 2 * np.log(kappa)]), np.zeros(1)


SLAVED_REGIME = Claim(
    name="kinetics-strongly-negative-beta0",
    source=f"{PAPER}, §3.5",
    assumptions=("β₀ ≪ 0 (κ ≫ 1)",),
    builds_on=("kinetics-gradient-flow",),
    statement=(
        r"\beta_0 \ll 0,\ c_2 > 0:\ \tau^* = \frac{c_2}{2} e^{-2\beta_0}\left(1 + \frac{2\ln\kappa + O(1)}{\kappa^2}\right)"
        r" \to \frac{c_2}{2}e^{-2\beta_0},\quad \kappa = c_2 e^{-\beta_0} \to \infty"
    ),
    checks=(
        Symbolic(slaved_residuals),
        Numeric(_slaved_cases(), _slaved_remainder, rtol=0.0, atol=5.0),
    ),
    note="Symbolic: slow-manifold expansion (leading term and the 1/(c₂y) correction whose integral up to "
    "y ≈ c₂ gives 2 ln κ/κ²). Numeric: the remainder (ratio − 1)κ² − 2 ln κ stays O(1) (|·| ≤ 5) for κ ≥ 3, β₀ ∈ [−3, −1.5]. "
    "Observed, not derived: the remainder tends to ≈ 1.8379 (= ln 2π to 1e-9 at κ ≈ 10–50).",
)


def small_kappa_residuals() -> list:
    """First order in c₂ (w₀ = 0, clock τ): w dw/dβ = 1 − c₂ w e^{−β}; with x = β − β₀ and
    w² = 2x + c₂ u(β), u(β₀) = 0, the O(c₂) balance gives u' = −2√(2x) e^{−β}, solved by
    u = −2 e^{−β₀} ∫₀ˣ √(2y) e^{−y} dy; and 1/w = 1/√(2x) − c₂ u/(2 (2x)^{3/2}) + O(c₂²).
    Hence τ* = ∫ e^{−β}/w dβ = τ*(0) (1 + C κ + O(κ²)), C = ∫₀^∞ e^{−x} (2x)^{−3/2} ∫₀ˣ √(2y)e^{−y}dy dx / √(π/2).
    """
    x, y = sp.symbols("x y", positive=True)
    u = sp.Function("u")
    w_sq = 2 * x + C2 * u(x)  # β = β₀ + x, so d/dβ = d/dx
    balance = sp.diff(w_sq, x) / 2 - (1 - C2 * sp.sqrt(w_sq) * sp.exp(-(BETA0 + x)))
    order1 = sp.series(balance, C2, 0, 2).removeO().coeff(C2, 1)
    u_solution = -2 * sp.exp(-BETA0) * sp.integrate(sp.sqrt(2 * y) * sp.exp(-y), (y, 0, x))
    inverse = sp.series(1 / sp.sqrt(2 * x + EPS * U), EPS, 0, 2).removeO()
    return [
        order1.subs(sp.Derivative(u(x), x), -2 * sp.sqrt(2 * x) * sp.exp(-(BETA0 + x))),
        sp.diff(u_solution, x) + 2 * sp.sqrt(2 * x) * sp.exp(-(BETA0 + x)),
        u_solution.subs(x, 0),
        inverse - (1 / sp.sqrt(2 * x) - EPS * U / (2 * (2 * x) ** sp.Rational(3, 2))),
    ]


@cached()
def small_kappa_coefficient() -> float:
    """C of τ*(c₂)/τ*(0) = 1 + Cκ + O(κ²): the derived double integral, inner one by SymPy, outer by mpmath."""
    x, y = sp.symbols("x y", positive=True)
    inner = sp.integrate(sp.sqrt(2 * y) * sp.exp(-y), (y, 0, x))
    f = sp.lambdify(x, sp.exp(-x) * inner / (2 * x) ** sp.Rational(3, 2), modules="mpmath")
    return float(mpmath.quad(f, [0, 1, mpmath.inf]) / mpmath.sqrt(mpmath.pi / 2))


def _small_kappa_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries({"beta0": st.floats(-1.0, 3.0), "c2": st.floats(0.0, 0.05)})


def _small_kappa(case: dict) -> tuple:
    """|τ*(c₂)/τ*(0) − 1 − Cκ| ≤ κ² (the remainder is second order), κ = c₂ e^{−β₀} ≤ 0.14."""
    b0, c2 = case["beta0"], case["c2"]
    sol = kin.integrate(0.0, b0, n=1.0, c1=1.0, c2=c2, t_max=1e9)
    rel = sol.t_icl[0] / kin.tau_star(0.0, b0)[0] - 1
    kappa = c2 * np.exp(-b0)
    return np.array([max(abs(rel - small_kappa_coefficient() * kappa) - kappa**2, 0.0)]), np.zeros(1)


SMALL_KAPPA = Claim(
    name="kinetics-small-kappa-correction",
    source=f"{PAPER}, §3.5 (regime of τ* = √(π/2) e^{{−β₀}})",
    assumptions=("κ ≪ 1",),
    builds_on=("kinetics-blowup-time",),
    statement=(
        r"w_0 = 0,\ \kappa = c_2 e^{-\beta_0} \ll 1:\ \tau^*(c_2) = \sqrt{\pi/2}\,e^{-\beta_0}"
        r"\left(1 + C\kappa + O(\kappa^2)\right),\ C = 0.17123"
    ),
    checks=(
        Symbolic(small_kappa_residuals),
        Numeric(_small_kappa_cases(), _small_kappa, rtol=0.0, atol=1e-8),
    ),
    note="Derived here (not in the paper): first-order perturbation in c₂ of the blow-up time. Numeric side: "
    "integrator vs 1 + Cκ with the O(κ²) remainder bounded by κ² for κ ≤ 0.14. So the paper's K → ∞ law, "
    "which assumes c₂ w ≪ e^β, is off by ≈ 0.17 κ (9 % at c₂ = ½, β₀ = 0).",
)


def measure_ode_slope_in_n(seed: int) -> Estimate:
    """Fitted d ln t_ICL / d ln N of the integrated ODE (c₁ = c₂ = ½, β₀ = 0), N from 10 to 1000."""
    n = np.geomspace(10, 1000, 9)
    t = np.array([kin.blowup_times(0.0, 0.0, n=x, c1=0.5, c2=0.5, t_max=1e9)[0] for x in n])
    slope, lo, hi = fit_line(np.log(n), np.log(t)).slope
    return Estimate(slope, lo, hi, 1.0, 0.01, f"N {np.round(n, 1).tolist()}; deterministic (seed {seed} unused)")


ODE_SLOPE_IN_N = Claim(
    name="kinetics-ode-t-icl-linear-in-n",
    source=f"{PAPER}, §3.5 (t_ICL ∝ N)",
    builds_on=("kinetics-gradient-flow",),
    statement=r"\text{ODE}, c_1 = c_2 = \tfrac12:\ d\ln t_{ICL}/d\ln N = 1 \pm 0.01 \text{ over } N \in [10, 1000]",
    checks=(Measured(measure_ode_slope_in_n),),
    note="Exact in theory (the ODE depends on N only through the clock τ = c₁t/N); the fit checks the integrator.",
)


def measure_ode_slope_in_beta0(seed: int) -> Estimate:
    """Fitted d ln t_ICL / d(−β₀) of the integrated ODE with c₂ = ½ over β₀ ∈ [1, 4] (κ ≤ 0.18)."""
    b = np.linspace(1.0, 4.0, 13)
    t = kin.blowup_times(0.0, b, n=100, c1=0.5, c2=0.5, t_max=1e9)
    slope, lo, hi = fit_line(-b, np.log(t)).slope
    return Estimate(slope, lo, hi, 1.0, 0.05, f"β₀ {b.tolist()}; deterministic (seed {seed} unused)")


ODE_SLOPE_IN_BETA0 = Claim(
    name="kinetics-ode-log-t-icl-linear-in-beta0",
    source=f"{PAPER}, §3.5 (t_ICL ∝ e^{{−β₀}})",
    builds_on=("kinetics-gradient-flow", "kinetics-small-kappa-correction"),
    statement=(
        r"\text{ODE}, c_2 = \tfrac12,\ \beta_0 \in [1, 4]\ (\kappa \le 0.18):\ "
        r"d\ln t_{ICL}/d(-\beta_0) = 1 \pm 0.05"
    ),
    checks=(Measured(measure_ode_slope_in_beta0),),
    note="With c₂ > 0 the local slope is 1 + Cκ/(1 + Cκ) (kinetics-small-kappa-correction), so ≈ 1.01 here and "
    "→ 2 for β₀ ≪ log c₂ (kinetics-strongly-negative-beta0); tolerance 0.05 ≥ 0.17·0.18.",
)


# ---------------------------------------------------------------------------------------------
# Task-diversity threshold K*


def k_star() -> sp.Expr:
    """K* solving I_K(∞) = A K^ν = N τ* (paper §3.6), with τ* the derived one at w₀ = 0."""
    (sol,) = sp.solve(sp.Eq(A * K**NU, N * tau_star_derived().subs(W0, 0)), K)
    return sol


def k_star_residuals() -> list:
    """d ln K*/d ln N = 1/ν and d ln K*/d β₀ = −1/ν, i.e. K* ∝ N^{1/ν} e^{−β₀/ν}."""
    log_k = sp.expand_log(sp.log(k_star()), force=True)
    return [sp.simplify(N * sp.diff(log_k, N) - 1 / NU), sp.simplify(sp.diff(log_k, BETA0) + 1 / NU)]


K_STAR = Claim(
    name="kinetics-k-star-threshold",
    source=f"{PAPER}, §3.6",
    assumptions=("I_K(∞) ~ K^ν (the memorisation law)", "κ ≪ 1", "w₀ = 0"),
    builds_on=("kinetics-icl-iff-integral-exceeds", "kinetics-t-icl-infinite-k"),
    statement=r"I_K(\infty) \sim K^\nu = N\tau^* \Rightarrow K^* \sim N^{1/\nu} e^{-\beta_0/\nu}\quad(\kappa \ll 1,\ w_0 = 0)",
    checks=(Symbolic(k_star_residuals),),
    note="With ν ≈ 0.7 the slope of log K* vs log N is 1/ν ≈ 1.43 (the memorisation law itself is the scaling family).",
)


def _k_star_slaved_log_derivative() -> sp.Expr:
    (sol,) = sp.solve(sp.Eq(A * K**NU, N * C2 / 2 * sp.exp(-2 * BETA0)), K)
    return sp.diff(sp.expand_log(sp.log(sol), force=True), BETA0)


def k_star_slaved_residuals() -> list:
    """d log K*/dβ₀ + 2/ν with τ* ∝ e^{−2β₀}: zero when K* ∼ e^{−2β₀/ν}."""
    return [sp.simplify(_k_star_slaved_log_derivative() + 2 / NU)]


K_STAR_SLAVED = Claim(
    name="kinetics-k-star-strongly-negative-beta0",
    source=f"{PAPER}, §3.5–3.6 combined",
    assumptions=("I_K(∞) ~ K^ν (the memorisation law)", "β₀ ≪ 0"),
    builds_on=("kinetics-icl-iff-integral-exceeds", "kinetics-strongly-negative-beta0"),
    statement=r"\beta_0 \ll 0:\ \tau^* \approx \tfrac{c_2}{2}e^{-2\beta_0} \Rightarrow K^* \sim N^{1/\nu} e^{-2\beta_0/\nu}",
    checks=(Symbolic(k_star_slaved_residuals),),
)

K_STAR_PRINTED_IN_SLAVED_REGIME = Claim(
    name="kinetics-k-star-e-beta0-over-nu-when-beta0-very-negative",
    source=f"{PAPER}, §3.6 formula applied in the β₀ ≪ 0 regime of §3.5",
    statement=r"\beta_0 \ll 0:\ K^* \sim N^{1/\nu} e^{-\beta_0/\nu}",
    checks=(Explicit(lambda: [sp.simplify(_k_star_slaved_log_derivative() + 1 / NU)], [{}]),),
    holds=False,
    corrected=Corrected("kinetics-k-star-strongly-negative-beta0", explicit=k_star_slaved_residuals),
    note="The printed exponent −β₀/ν uses τ* ∝ e^{−β₀} (κ ≪ 1); where τ* ∝ e^{−2β₀} it becomes −2β₀/ν.",
)


# ---------------------------------------------------------------------------------------------
# Equalised contexts


def equalised_residuals() -> list:
    """Exactly N/2 of each label: the derived flow is dw/dt = (c₁/N)(e^β − 1), dβ/dt = (c₁/N) w e^β."""
    dw, db = flow(derived_loss(equalised=True))
    return [dw - (C1 / N) * (sp.exp(BETA) - 1), db - (C1 / N) * W * sp.exp(BETA)]


EQUALISED_DRIVE = Claim(
    name="kinetics-equalised-context-drive",
    source=f"{PAPER}, §3.7",
    statement=(
        r"\text{equalised contexts: } \dot w = \frac{c_1}{N}(e^\beta - 1),\ \dot\beta = \frac{c_1}{N} w e^\beta"
        r"\ \ (\text{drive } \propto (e^\beta - 1)/N,\ \text{no } c_2 \text{ term at } O(1/N))"
    ),
    checks=(Symbolic(equalised_residuals),),
    note="S = −1 exactly, so the variance term is O(1/N²); at w₀ = β₀ = 0 the flow has a fixed point.",
)


def _equalised_cases() -> st.SearchStrategy:
    return st.fixed_dictionaries({"w0": st.floats(0.0, 1.5), "beta0": st.floats(0.2, 2.5)})


def _equalised_slower(case: dict) -> tuple:
    """Equalised blow-up time exceeds the random-context one (both c₂ = 0): returns (max(0, τ_r − τ_e), 0)."""
    tau_r = kin.integrate(case["w0"], case["beta0"], n=1.0, c1=1.0, c2=0.0, t_max=1e9).t_icl[0]
    tau_e = kin.integrate(case["w0"], case["beta0"], n=1.0, c1=1.0, c2=0.0, t_max=1e9, equalised=True).t_icl[0]
    return np.array([max(tau_r - tau_e, 0.0) if np.isfinite(tau_e) else 0.0]), np.zeros(1)


EQUALISED_SLOWER_ODE = Claim(
    name="kinetics-equalised-slower-ode",
    source=f"{PAPER}, §3.7",
    builds_on=("kinetics-equalised-context-drive",),
    statement=r"\tau^*_{\text{equalised}}(w_0, \beta_0) > \tau^*(w_0, \beta_0)\quad (w_0 \ge 0,\ \beta_0 > 0)",
    checks=(Numeric(_equalised_cases(), _equalised_slower, rtol=0.0, atol=0.0),),
)


# ---------------------------------------------------------------------------------------------
# Simulations of the reduced model against the ODE (numerics.kinetics.models)
#
# Default settings are small so that `icl-verify check` stays fast (all of them together take
# ~35 s of CPU: the runs sample only what the reduced model reads, numerics.kinetics.task); the
# paper's sizes (D = 63, MLP width 512) are available through the same functions. The ODE is valid
# while e^β ≪ N and |w| ≪ √N, so trajectories are compared up to the first time e^β = N/16 (LEVEL);
# the neglected terms are O(2 e^β / N) ≤ 12.5 % there and smaller integrated over the run, hence
# the stated 10 % tolerance.

LEVEL = 1 / 16
"""Trajectories are compared up to e^β = LEVEL · N (inside the regime e^β ≪ N)."""

FOLLOW = icl_models.ReducedConfig(
    d=32, k=512, n=64, hidden=128, lr=0.5, batch=128, steps=500, record_every=4, eval_batch=256
)
"""K = 512: the MLP memorises while ICL is acquired (c₁ falls from ½ to ≈ 0.42 by the comparison time)."""

SCALING = icl_models.ReducedConfig(
    d=32, k=None, n=32, hidden=64, lr=0.5, batch=128, steps=1, record_every=4, eval_batch=256
)
"""K → ∞ runs for the t_ICL scaling claims (N, β₀ and steps are set per run)."""

TRANSIENT = icl_models.ReducedConfig(
    d=32, k=512, n=64, hidden=128, lr=0.5, batch=64, steps=6000, record_every=100, eval_batch=1024, decay=3e-3
)
"""λ = 3·10⁻³ on (w, β) only, the paper's transience value; t runs to 3000."""


@cached(maxsize=64)
def _run(config: icl_models.ReducedConfig, seed: int) -> icl_models.ReducedRun:
    """One reduced-model run (cached: a sequential check's later look adds runs to those of its earlier looks)."""
    return icl_models.train_reduced(config, seed)


def _seeds(seed: int, count: int) -> list[int]:
    """Run seeds derived from the claim's seed (recorded in the estimate's detail)."""
    return [1000 * seed + i for i in range(count)]


def _crossing_times(run: icl_models.ReducedRun) -> tuple[float, float]:
    """First time β reaches ln(LEVEL·N) in the simulation and in the ODE driven by its measured c₁, c₂."""
    level = float(np.log(LEVEL * run.config.n))
    sim = first_crossing(np.asarray(run.t), np.asarray(run.beta), level)
    ode = icl_models.ode_for_run(run, beta_cap=level).t_icl[0]
    return (float("nan") if sim is None else sim), float(ode)


def _disagreement(detail: str, predicted: float, tolerance: float) -> Estimate:
    """An estimate that refutes: the simulation and the ODE disagree on whether ICL happens."""
    return Estimate(0.0, 0.0, 0.0, predicted, tolerance, "ICL reached in one of simulation/ODE only: " + detail)


def measure_follows_ode(
    seed: int, config: icl_models.ReducedConfig = FOLLOW, runs: int = 8, level: float = 0.95
) -> Estimate:
    """Ratio t_sim / t_ODE of the times at which β reaches ln(N/16), mean over seeds with a t-interval.

    8 runs: with 4 the t-interval's width (3 degrees of freedom) varies by 2× between check seeds and
    reaches the band at seed 8 ([0.893, 1.081]); with 8 the interval stays well inside at check seeds 0–31.
    """
    ratios, notes = [], []
    for s in _seeds(seed, runs):
        run = _run(config, s)
        t_sim, t_ode = _crossing_times(run)
        c1_at = float(np.interp(t_ode if np.isfinite(t_ode) else run.t[-1], run.t, run.c1))
        notes.append(f"seed {s}: t_sim {t_sim:.1f}, t_ode {t_ode:.1f}, c1 {c1_at:.3f}")
        if np.isfinite(t_sim) != np.isfinite(t_ode):
            return _disagreement("; ".join(notes), 1.0, 0.1)
        if np.isfinite(t_sim):
            ratios.append(t_sim / t_ode)
    if len(ratios) < 2:
        raise ValueError(f"fewer than two runs reached e^β = N/16, nothing to compare: {'; '.join(notes)}")
    m, lo, hi = t_interval(ratios, level)
    return Estimate(m, lo, hi, 1.0, 0.1, f"{config}; " + "; ".join(notes))


FOLLOWS_ODE = Claim(
    name="kinetics-reduced-model-follows-ode",
    source=f"{PAPER}, §3.4 (eq. 4) vs the reduced model of §3.2",
    builds_on=("kinetics-gradient-flow",),
    statement=(
        r"\text{SGD on } z = \phi(x_t) + w\sum_j \mathrm{softmax}_j(\beta x_t\cdot x_j)\ell_j:\ "
        r"t_{\beta = \ln(N/16)}^{\,sim} / t^{\,ODE} = 1 \pm 0.1,\ \text{ODE driven by the measured } c_1(t), c_2(t)"
    ),
    checks=(Measured(measure_follows_ode, looks=(5, 8)),),
    note="Defaults: D = 32, K = 512, N = 64, MLP width 128, SGD lr 0.5, batch 128, 8 seeds; t = lr × steps.",
)


AUTHORS_FOLLOW = replace(
    FOLLOW, context="with_query", clock="iterations", constants_labels="positive", c2_convention="code"
)
"""FOLLOW in the authors' code's conventions (numerics.kinetics.models): N = 64 counts the query (63
context pairs), time in iterations, c₁ and c₂ over the +1 items, c₂ recorded as the code's 1 − c₂
(converted back to drive the ODE); the rate stays 0.5 (their 0.01 would take 50 × the steps)."""


def measure_follows_ode_authors(seed: int, runs: int = 6, level: float = 0.95) -> Estimate:
    """:func:`measure_follows_ode` at :data:`AUTHORS_FOLLOW`, 6 runs (the ratio is clock-free)."""
    return measure_follows_ode(seed, AUTHORS_FOLLOW, runs, level)


FOLLOWS_ODE_AUTHORS = Claim(
    name="kinetics-reduced-model-follows-ode-authors-conventions",
    source=f"{PAPER}, §3.4 (eq. 4), in the conventions of the authors' code (github anhhuyalex/icl-kinetics)",
    builds_on=("kinetics-reduced-model-follows-ode",),
    statement=(
        r"N = \text{len\_context (query included)},\ t = \text{iterations},\ c_1 = \langle\sigma(-\phi_+)\rangle:"
        r"\ t_{\beta = \ln(N/16)}^{\,sim} / t^{\,ODE} = 1 \pm 0.1"
    ),
    checks=(Measured(measure_follows_ode_authors, looks=(4, 6)),),
    note="The ODE is driven with N − 1 context pairs and the +1-item constants (the paper's c₂, not the code's "
    "recorded 1 − c₂: kinetics-authors-code-c2-is-paper-c2), integrated in lr × steps and read in iterations. "
    "Defaults as kinetics-reduced-model-follows-ode (D = 32, K = 512, width 128, lr 0.5, "
    "batch 128), 6 seeds; what stays ours: the constants are measured on a fixed set of items at every "
    "record rather than on 10 training batches every 10 epochs, and every record is stamped with the steps done.",
)


def _c2_cases() -> st.SearchStrategy:
    """Logits φ₊ of the +1 items: 1 to 16 values in [−8, 8] (c₁ > 0 for every one)."""
    return st.fixed_dictionaries({"phi_plus": st.lists(st.floats(-8.0, 8.0), min_size=1, max_size=16)})


def _c2_conventions(case: dict, *, corrected: bool = False) -> tuple:
    """The code's ``c2`` (analysis.py l. 208) against the paper's c₂ = 1 − ⟨σ(−φ₊)²⟩/c₁ (§3.4), or 1 − c₂."""
    phi = np.asarray(case["phi_plus"], dtype=float)
    paper = constants(phi, np.ones_like(phi))["c2"]
    return icl_models.code_c2(phi), (1.0 - paper if corrected else paper), 1.0


CODE_C2 = Claim(
    name="kinetics-authors-code-c2-is-paper-c2",
    source=f"{PAPER}, §3.4 (c₂) vs the authors' code (github anhhuyalex/icl-kinetics, analysis.py l. 207–208)",
    statement=(
        r"c_2^{\text{code}} = 1 - \left(1 - \langle\sigma(-\phi_+)^2\rangle / c_1\right)"
        r"\;=\; c_2 = 1 - \langle\sigma(-\phi_+)^2\rangle / c_1"
    ),
    checks=(Numeric(_c2_cases(), _c2_conventions, rtol=1e-9, atol=1e-12),),
    holds=False,
    corrected=Corrected(numeric=lambda case: _c2_conventions(case, corrected=True)),
    note="The code's comment (l. 207) states the paper's c₂; its expression (l. 208) is ⟨σ(−φ₊)²⟩/c₁ = 1 − c₂, "
    'stored in a column named "1-c2" (l. 219) and plotted as "Supp Fig A2b: c2 vs. iterations" (l. 232–236). '
    "The two agree only where ⟨σ(−φ₊)²⟩ = c₁/2, e.g. φ₊ ≡ 0 at initialisation (both ½); as the MLP memorises, "
    "c₂ → 1 and the code's value → 0. `icl-verify kinetics --c2 code` records the code's value; the ODE is "
    "always driven by the paper's c₂.",
)


@cached(maxsize=1)
def _stopped_at_icl() -> dict[tuple[int, float, int], icl_models.ReducedRun]:
    """K → ∞ runs of :func:`_scaling_run` that stopped at t_ICL, by (N, β₀, seed) (filled by it)."""
    return {}


def _scaling_run(n: int, beta0: float, seed: int, t_max: float) -> icl_models.ReducedRun:
    """A K → ∞ run that stops once ICL accuracy exceeds 0.95 (t_ICL), or at ``t_max``.

    A run that stopped at t_ICL is the same run under any step budget that reaches t_ICL (the budget only
    ends the loop), so the claims that run the same (N, β₀, seed) with different ``t_max`` share it."""
    cfg = replace(SCALING, n=n, beta0=beta0, steps=int(np.ceil(t_max / SCALING.lr)), stop_icl=0.95)
    stopped = _stopped_at_icl()
    done = stopped.get((n, beta0, seed))
    if done is not None and (len(done.t) - 1) * cfg.record_every <= cfg.steps:
        return replace(done, config=cfg)
    run = _run(cfg, seed)
    if run.icl_acc[-1] > cfg.stop_icl:
        stopped[n, beta0, seed] = run
    return run


def _ode_t_icl(beta0: float, n: float, c1: float, c2: float) -> float:
    return float(kin.integrate(0.0, beta0, n=n, c1=c1, c2=c2, t_max=1e9).t_icl[0])


def measure_t_icl_linear_in_n(seed: int, ns: tuple[int, ...] = (32, 64, 96), runs: int = 6) -> Estimate:
    """Slope of the simulated t_ICL (ICL accuracy > 0.95) against N, by least squares with a t-interval,
    relative to the ODE's slope τ*(β₀ = 0; c₂)/c₁ with the measured c₁, c₂ (K → ∞).

    6 runs per N: with 3 (9 points, a 7-degree-of-freedom t-interval) the interval reaches the band's edge
    at some check seeds (1.058 [1.016, 1.1001] at seed 17, UNPROVEN); with 6 it is ≈ 0.6× as wide. K → ∞
    runs read only scores (numerics.kinetics.task), which keeps the 18 runs cheap.
    """
    xs, ts, c1s, c2s = [], [], [], []
    for n in ns:
        for s in _seeds(seed, runs):
            run = _scaling_run(n, 0.0, s, t_max=4.0 * n)
            xs.append(n), ts.append(run.t_icl()), c1s.append(np.mean(run.c1)), c2s.append(np.mean(run.c2))
    ts = np.asarray(ts)
    predicted = _ode_t_icl(0.0, 1.0, float(np.mean(c1s)), float(np.mean(c2s)))
    detail = f"N {list(xs)}, t_ICL {np.round(ts, 1).tolist()}, seeds {_seeds(seed, runs)}"
    if not np.all(np.isfinite(ts)):
        return _disagreement(detail, 1.0, 0.1)
    line = fit_line(xs, ts)
    slope, lo, hi = line.slope
    detail += f"; intercept {line.intercept:.1f}; log-log slope {fit_line(np.log(xs), np.log(ts)).slope.estimate:.3f}"
    return Estimate(
        slope / predicted,
        lo / predicted,
        hi / predicted,
        1.0,
        0.1,
        f"slope {slope:.3f} vs ODE {predicted:.3f}; " + detail,
    )


T_ICL_LINEAR_IN_N = Claim(
    name="kinetics-sim-t-icl-linear-in-n",
    source=f"{PAPER}, §3.5 (t_ICL ∝ N)",
    builds_on=("kinetics-reduced-model-follows-ode", "kinetics-ode-t-icl-linear-in-n"),
    statement=(
        r"K\to\infty:\ t_{ICL}^{sim} = a N + b \text{ with } a = \tau^*(\beta_0{=}0; c_2)/c_1 \ (\pm 10\%),"
        r"\ b = O(1)"
    ),
    checks=(Measured(measure_t_icl_linear_in_n),),
    note="t_ICL = first time ICL accuracy > 0.95 (the code's definition). The ODE's blow-up time is exactly "
    "∝ N; accuracy reaches 0.95 a short, N-independent time after the blow-up, hence the intercept b. "
    "Defaults: D = 32, N ∈ {32, 64, 96}, 6 seeds each, lr 0.5, batch 128, width 64, ICL accuracy on 256 sequences.",
)


def measure_t_icl_exponential_in_beta0(
    seed: int, betas: tuple[float, ...] = (-0.5, 0.0, 0.5, 1.0), runs: int = 6, n: int = 32, level: float = 0.95
) -> Estimate:
    """Regression slope of the simulated t_ICL on the ODE's t_ICL(β₀) (measured c₁, c₂): one least-squares slope
    per run seed (its runs at every β₀), then the mean of the seeds' slopes with its t-interval.

    The seeds' slopes are independent and identically distributed, so the interval holds whatever the noise's
    shape: the spread of t_ICL grows with t_ICL (sd ≈ 3.4 at t ≈ 160 against 1 at t ≈ 40, seed 0) and a seed's
    runs share its initial MLP, so the pooled least-squares interval (independent, equal-variance errors) covered
    the slope 0.953 of the time at its 98.4 % level and 0.910 at 96.6 % (errors sd ∝ t^0.76, 4000 draws;
    tests/families/test_interval_coverage.py). 6 runs per β₀, looked at after 4 (sequential).
    """
    preds, ts = [], []
    for b0 in betas:
        guess = _ode_t_icl(b0, n, 0.5, 0.5)
        for s in _seeds(seed, runs):
            run = _scaling_run(n, b0, s, t_max=1.5 * guess)
            preds.append(_ode_t_icl(b0, n, float(np.mean(run.c1)), float(np.mean(run.c2))))
            ts.append(run.t_icl())
    ts, preds = np.asarray(ts), np.asarray(preds)
    detail = f"β₀ {list(betas)}, t_ICL {np.round(ts, 1).tolist()}, ODE {np.round(preds, 1).tolist()}, seeds {_seeds(seed, runs)}"
    if not np.all(np.isfinite(ts)):
        return _disagreement(detail, 1.0, 0.1)
    slope, lo, hi = seed_slope_interval(preds.reshape(len(betas), runs), ts.reshape(len(betas), runs), level)
    b = np.repeat(betas, runs)
    detail += (
        f"; per-seed slopes' mean over {runs} seeds; intercept {fit_line(preds, ts).intercept:.1f};"
        f" d ln t/d(−β₀): sim {fit_line(-b, np.log(ts)).slope.estimate:.3f},"
        f" ODE {fit_line(-b, np.log(preds)).slope.estimate:.3f}"
    )
    return Estimate(slope, lo, hi, 1.0, 0.1, detail)


def seed_slope_interval(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Least-squares slope of y on x in each column (one run seed's points, one per row's setting), then the mean of
    the columns' slopes with its Student-t interval (:func:`~icl_verify.numerics.shared.stats.t_interval`)."""
    return t_interval([fit_line(x[:, j], y[:, j]).slope.estimate for j in range(x.shape[1])], level)


T_ICL_EXPONENTIAL_IN_BETA0 = Claim(
    name="kinetics-sim-t-icl-exponential-in-beta0",
    source=f"{PAPER}, §3.5 (t_ICL ∝ e^{{−β₀}} for κ ≪ 1)",
    builds_on=("kinetics-reduced-model-follows-ode", "kinetics-ode-log-t-icl-linear-in-beta0"),
    statement=(
        r"K\to\infty:\ t_{ICL}^{sim}(\beta_0) = a\, t_{ICL}^{ODE}(\beta_0) + b,\ a = 1 \pm 0.1,\quad"
        r" t_{ICL}^{ODE} \propto e^{-\beta_0} (\kappa \ll 1) \text{ to } e^{-2\beta_0} (\kappa \gg 1)"
    ),
    checks=(Measured(measure_t_icl_exponential_in_beta0, looks=(4, 6)),),
    note="The simulated β₀-dependence is the ODE's (with c₂ ≈ ½ its local log-slope lies between 1 and 2); "
    "b absorbs the short post-blow-up time to 95 % accuracy (so raw log-slopes of t_ICL are biased low). "
    "a is the mean over run seeds of each seed's least-squares slope (its runs at every β₀), with a t-interval over "
    "the seeds: t_ICL's spread grows with t_ICL and a seed's runs share its initial MLP, which a pooled fit's "
    "interval ignores. Defaults: N = 32, β₀ ∈ {−½, 0, ½, 1}, 6 seeds each, batch 128.",
)


PEAK_MIN = 0.75
"""A run counts as having acquired ICL when its accuracy on novel items has exceeded this."""

ATTEMPTS = 4
"""Runs tried per check by the transience claims. K = 512 is near the threshold K*, where some runs
memorise before ICL emerges (the bimodality of the scaling family): with decay, 3 of the 35 runs tried
over check seeds 0–31 did. ICL emerging is the claims' precondition, so the first run in which it
emerged is measured and the others are reported; all 4 fail with probability ≈ (3/35)⁴ ≈ 5·10⁻⁵."""


def _attempt_seeds(seed: int) -> list[int]:
    """The check seed first (so a run that acquires ICL is the one measured before), then seeds of their own."""
    return [seed, *(10**6 + 1000 * seed + k for k in range(1, ATTEMPTS))]


def _icl_history(seed: int, config: icl_models.ReducedConfig) -> tuple[np.ndarray, str]:
    """ICL accuracy at every record of the first run of :data:`ATTEMPTS` whose ICL accuracy exceeded
    :data:`PEAK_MIN`; ValueError (→ ERROR, never a pass) if ICL emerged in none."""
    without_icl = []
    for run_seed in _attempt_seeds(seed):
        run = icl_models.train_reduced(config, run_seed)
        acc = np.asarray(run.icl_acc, dtype=float)
        peak, final = float(acc.max()), float(acc[-1])
        detail = (
            f"seed {run_seed}: peak ICL {peak:.3f} at t = {run.t[int(acc.argmax())]:.0f}, final {final:.3f} at t = "
            f"{run.t[-1]:.0f}, final IWL {run.iwl_acc[-1]:.3f}, final w {run.w[-1]:.3g}, β {run.beta[-1]:.3g}"
        )
        if peak >= PEAK_MIN:
            if without_icl:
                detail += f"; before it, ICL never emerged in {'; '.join(without_icl)}"
            return acc, detail
        without_icl.append(detail)
    raise ValueError(f"ICL never emerged (peak accuracy below {PEAK_MIN}) in {ATTEMPTS} runs: {'; '.join(without_icl)}")


FADE_LOOKS = (4, 8)
"""Runs per look of the transience claim. The final accuracy varies between runs more than within one run's test
set: at held-out seed 1003 one run was still at 0.658 at t = 3000 (mostly 0.47–0.53), and the binomial interval of
that one run's 1024 sequences excluded the band. The interval is over independent runs instead."""


@cached(maxsize=64)
def _faded(run_seed: int) -> tuple[float, str]:
    """Final ICL accuracy at t = 3000 of the first run at ``run_seed`` in which ICL emerged (:func:`_icl_history`,
    setting :data:`TRANSIENT`), and that run's description."""
    acc, detail = _icl_history(run_seed, TRANSIENT)
    return float(acc[-1]), detail


def final_icl_accuracy(run_seed: int) -> float:
    """One run's final ICL accuracy (:func:`_faded`): the transience claim's value per training run."""
    return _faded(run_seed)[0]


PERSISTENT = replace(TRANSIENT, decay=0.0)
"""The transient setting without weight decay."""


def peak_minus_final(acc: np.ndarray, count: int, level: float = 0.95) -> tuple[float, float, float]:
    """max_t acc − acc(t_end) over a run's records, each an accuracy on the same ``count`` sequences, with an
    interval for the difference of the true accuracies p: [max_t lo_t − hi_end, max_t hi_t − lo_end], (lo_t, hi_t)
    Clopper–Pearson intervals (Clopper & Pearson 1934, Biometrika 26(4)) at level 1 − (1 − level)/m for the m records.

    The m intervals hold together with probability ≥ ``level`` (Bonferroni, whatever the dependence between
    records scored on one set of sequences), and then max_t p ≥ p_t ≥ lo_t at every t, max_t p = p_{t*} ≤ hi_{t*},
    so the interval holds. The plain peak is a maximum of noisy records, biased upward: an interval built from the
    peak's own 95 % interval and the final's covered the true difference 0 of a plateau at 0.8–0.99 in only
    89–93 % of simulations with independent scores per record (1024 sequences, 61 records).
    """
    k, m = np.rint(np.asarray(acc, dtype=float) * count), len(acc)
    alpha = (1 - level) / m
    with np.errstate(invalid="ignore"):  # k = 0 or k = count: the bound is the end of [0, 1], set below
        beta_law = scipy_stats().beta  # Clopper–Pearson bounds
        lo = np.where(k > 0, beta_law.ppf(alpha / 2, k, count - k + 1), 0.0)
        hi = np.where(k < count, beta_law.ppf(1 - alpha / 2, k + 1, count - k), 1.0)
    return float(acc.max() - acc[-1]), float(lo.max() - hi[-1]), float(hi.max() - lo[-1])


def measure_persistence(seed: int, config: icl_models.ReducedConfig = PERSISTENT) -> Estimate:
    """Peak minus final ICL accuracy without decay, with a 95 % interval for the true accuracies' difference
    (:func:`peak_minus_final`)."""
    acc, detail = _icl_history(seed, config)
    value, low, high = peak_minus_final(acc, config.eval_batch)
    detail += f"; 95 % interval: Clopper–Pearson at every one of the {len(acc)} records, Bonferroni"
    return Estimate(value, low, high, 0.0, 0.1, detail)


TRANSIENCE = Claim(
    name="kinetics-transience-with-attention-decay",
    source=f"{PAPER}, §3.7 (transient ICL)",
    builds_on=("kinetics-reduced-model-follows-ode",),
    statement=(
        r"\lambda > 0 \text{ on } (w,\beta) \text{ only}:\ \text{ICL emerges (acc} > 0.75\text{), then fades to chance:}"
        r"\ acc(t_{end}) = 0.5 \pm 0.1"
    ),
    checks=(
        over_runs(
            final_icl_accuracy,
            "the final ICL accuracy (t = 3000) of a run in which ICL emerged",
            0.5,
            0.1,
            looks=FADE_LOOKS,
            context=lambda seeds: f"{TRANSIENT}; " + "; ".join(_faded(s)[1] for s in seeds),
        ),
    ),
    note="Once the MLP has memorised (c₁ → 0) the drive vanishes and decay takes w, β to 0 (ODE: "
    "kinetics tests). Defaults: D = 32, K = 512, N = 64, width 128, lr 0.5, batch 64, λ = 3e-3, t to 3000. "
    "K = 512 is near the threshold: some seeds reach only ≈ 0.8 ICL accuracy before memorisation takes over, "
    "and with decay about one run in 12 memorises before ICL emerges at all; the claim is about runs in which ICL "
    "emerged, so each training run is the first of up to 4 attempts in which it did (the attempts without ICL are "
    "listed in the details). The interval is Student's t over 4, then 8 independent training runs (α spent over "
    "the two looks): how far ICL has faded by t = 3000 varies from run to run.",
)

PERSISTENCE = Claim(
    name="kinetics-no-transience-without-decay",
    source=f"{PAPER}, §3.7 (control)",
    statement=r"\lambda = 0:\ \max_t acc - acc(t_{end}) = 0 \pm 0.1 \ \text{(ICL, once acquired, persists)}",
    checks=(Measured(measure_persistence),),
    note="Same settings as kinetics-transience-with-attention-decay with λ = 0.",
)


EQUALISED = replace(SCALING, n=64, beta0=0.5, steps=300, eval_batch=64)
"""K → ∞, N = 64, β₀ = 0.5 (at β₀ = 0 the equalised ODE sits on a fixed point and never blows up)."""


def measure_equalised_slowdown(
    seed: int, config: icl_models.ReducedConfig = EQUALISED, runs: int = 4, level: float = 0.95
) -> Estimate:
    """t(β = ln(N/16)) with equalised over random contexts, per seed, against the same ratio of the driven ODEs.

    Common random numbers: the random-context and the equalised run of a seed draw from the same generator
    (``train_reduced``), so they share the task's items and the initial MLP and the ratio is paired by seed;
    their contexts differ, which is the comparison."""
    sims, odes, notes = [], [], []
    for s in _seeds(seed, runs):
        (r_sim, r_ode), (e_sim, e_ode) = (
            _crossing_times(_run(replace(config, equalised=eq), s)) for eq in (False, True)
        )
        sims.append(e_sim / r_sim), odes.append(e_ode / r_ode)
        notes.append(f"seed {s}: random {r_sim:.1f} (ODE {r_ode:.1f}), equalised {e_sim:.1f} (ODE {e_ode:.1f})")
    if not np.all(np.isfinite(sims + odes)):
        return _disagreement("; ".join(notes), 1.0, 0.1)
    predicted = float(np.mean(odes))
    m, lo, hi = t_interval(sims, level)
    return Estimate(m, lo, hi, predicted, 0.1 * predicted, "; ".join(notes))


EQUALISED_SLOWER_SIM = Claim(
    name="kinetics-sim-equalised-contexts-slower",
    source=f"{PAPER}, §3.7 (equalised contexts)",
    builds_on=("kinetics-equalised-slower-ode", "kinetics-reduced-model-follows-ode"),
    statement=(
        r"\frac{t^{sim}_{\text{equalised}}}{t^{sim}_{\text{random}}} = \frac{t^{ODE}_{\text{equalised}}}"
        r"{t^{ODE}_{\text{random}}} \pm 10\%\ (> 1),\ \ t = \text{first time } e^\beta = N/16"
    ),
    checks=(Measured(measure_equalised_slowdown, looks=(3, 4)),),
    note="Equalised ODE: drive (c₁/N)(e^β − 1) (kinetics-equalised-context-drive). Defaults: K → ∞, D = 32, "
    "N = 64, β₀ = ½, lr 0.5, batch 128, 4 seeds, t to 150; the ODE ratio is ≈ 1.42.",
)


# ---------------------------------------------------------------------------------------------
# Derivations (rendered by `icl-verify docs`; every step checked by SymPy)

CONSERVATION_DERIVATION = Derivation(
    name="kinetics-conservation",
    title="The drift of β − w²/2 along the gradient flow",
    source=f"{PAPER}, §3.4",
    start=W * sp.exp(BETA) - W * (sp.exp(BETA) - C2 * W),
    steps=[Step(C2 * W**2, "the e^β terms cancel")],
    intro="In the clock dτ = c₁ dt / N the flow is dw/dτ = e^β − c₂ w and dβ/dτ = w e^β, so "
    "d(β − w²/2)/dτ = dβ/dτ − w dw/dτ is the expression below. It is c₂ w², which vanishes when "
    "c₂ = 0 (and is negligible while c₂ w ≪ e^β): β − w²/2 is then conserved.",
)

_w = sp.Symbol("w", real=True)

TAU_STAR_DERIVATION = Derivation(
    name="kinetics-tau-star",
    title="The blow-up time τ* along the conserved curve",
    source=f"{PAPER}, §3.4",
    start=sp.Integral(sp.exp(-(BETA0 + (_w**2 - W0**2) / 2)), (_w, W0, sp.oo)),
    steps=[
        Step(
            sp.exp(-BETA0 + W0**2 / 2) * sp.Integral(sp.exp(-(_w**2) / 2), (_w, W0, sp.oo)),
            "take the constant factor e^{−β₀ + w₀²/2} out of the integral",
        ),
        Step(
            sp.exp(-BETA0 + W0**2 / 2) * sp.sqrt(sp.pi / 2) * sp.erfc(W0 / sp.sqrt(2)),
            "Gaussian tail: ∫_{w₀}^∞ e^{−w²/2} dw = √(π/2) erfc(w₀/√2)",
        ),
    ],
    intro="On the conserved curve β = β₀ + (w² − w₀²)/2 the flow dw/dτ = e^β gives dτ = e^{−β} dw, "
    "and β → ∞ exactly when w → ∞, so τ* = ∫_{w₀}^∞ e^{−β(w)} dw.",
)


# ---------------------------------------------------------------------------------------------
# Figure: the integrator's blow-up time against the closed form τ*


def _tau_star_data() -> dict:
    """Blow-up clock time τ* of the ODE with c₂ = 0 (integrated) and the closed form, over β₀ and w₀."""
    beta0 = np.linspace(-2.0, 4.0, 13)
    data: dict[str, np.ndarray] = {"beta0": beta0}
    for w0 in (0.0, 1.0):
        ws = np.full_like(beta0, w0)
        data[f"closed_w{w0:g}"] = kin.tau_star(ws, beta0)
        # n = 1 and c₁ = 1 make the clock τ equal to t
        data[f"ode_w{w0:g}"] = kin.blowup_times(ws, beta0, n=1.0, c1=1.0, c2=0.0, t_max=1e4)
    return data


def _draw_tau_star(ax, data) -> None:
    for w0, marker in (("0", "o"), ("1", "s")):
        ax.semilogy(data["beta0"], data[f"closed_w{w0}"], "-", color="0.4")
        ax.semilogy(data["beta0"], data[f"ode_w{w0}"], marker, label=f"integrated, w₀ = {w0}")
    ax.plot(
        [], [], "-", color="0.4", label=r"closed form $e^{-\beta_0+w_0^2/2}\,\sqrt{\pi/2}\,\mathrm{erfc}(w_0/\sqrt{2})$"
    )
    ax.set_xlabel("β₀")
    ax.set_ylabel("blow-up time τ*")
    ax.legend()


FIGURES = (
    Figure(
        name="tau-star",
        caption="The (w, β) ODE with c₂ = 0 integrated until β blows up, against the derived closed form τ*.",
        data=_tau_star_data,
        draw=_draw_tau_star,
    ),
)
