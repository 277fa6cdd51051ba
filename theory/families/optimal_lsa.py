"""The optimal single-layer LSA, derived from input moments and checked by Monte Carlo and training.

Results (docs/reference.md, von Oswald et al. 2023 and the optimal-LSA results):

* von Oswald et al. (ICML 2023): a meta-trained LSA layer is one GD step with the best rate.
  For iid input coordinates (variance s², kurtosis κ), w ~ N(0, I), ŷ = (η/N) Σ_i y_i x_iᵀ x_q:
  η* = N / (s² (N + d + κ − 2)) and ½·MSE* = ½ s² d (d + κ − 2) / (N + d + κ − 2).
* Ahn, Cheng, Daneshmand, Sra (NeurIPS 2023): Gaussian inputs (κ = 3) give rate N/(N + d + 1).
* Mahankali, Hashimoto, Ma (ICLR 2024): with label noise σ², c* = n / (n + d + 1 + σ²).
* Zhang, Frei, Bartlett (JMLR 2024, Thm. 4.1): for x ~ N(0, Λ) the optimum is ŷ = x_qᵀ Γ⁻¹ (1/N) Σ y_i x_i
  with Γ = (1 + 1/N) Λ + (tr Λ / N) I.

Nothing here is typed in: the expected loss is a product of data matrices X (N × d), x_q, w of
symbolic size whose expectation the moment algebra takes (:mod:`icl_verify.maths.moments`: Wick
pairings, plus the fourth cumulant for iid non-Gaussian inputs, whose variance and kurtosis come
from the input density, :func:`density_moment`); the loss is minimised with SymPy, or its matrix
gradient is evaluated at the stated preconditioner. The claims compare the derived optimum with the
papers' formulas for every N and d, then with Monte Carlo and with trained LSA.

Depth (von Oswald et al. 2023, §4 and Fig. 3): K trained layers are compared with K GD steps (η
line-searched) and K-layer GD++ (paper eq. 23: each layer also maps x ← (I − γ XᵀX) x; η, γ tuned).
Two weight-tied layers match GD++. Three untied layers contain GD++ as a point (every layer set to
θ_GD++), so their optimum is at or below it. Trained from random weights they often are not there
after 3000 Adam steps (a layer can stay near zero; 0.46–2.7 × GD++ over four seeds); trained
weight-tied for 1000 steps and then untied for 2000, on the median task they beat 3-step GD 60- to
100-fold and GD++ 5- to 9-fold (check seeds 0–31): noiseless tasks with N > d have zero Bayes risk, which three
GD++ steps do not reach. Their mean loss is dominated by rare tasks on which the trained polynomial
of the context errs badly (one task in 2¹⁶ at ½·MSE 10³), so the claims compare median task losses.
"Matches GD++" holds for the tied layers, not for untied ones in this setting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp
from sympy.matrices.expressions import Identity, MatrixSymbol, Trace

from icl_verify.core.caches import cached
from icl_verify.core.claims import Claim, Estimate, Explicit, Measured
from icl_verify.core.derivation import Derivation, Step
from icl_verify.core.figure import Figure
from icl_verify.maths.moments import Law, commutative_value, expectation, trace_gradient
from icl_verify.numerics.lsa.alignment import (
    Model,
    effective_preconditioner,
    fit_preconditioner,
    gd_model,
    gd_reference,
    gdpp_model,
    interpolate,
    line_search_rate,
    lsa_model,
    mean_interval,
    model_cos,
    model_diff,
    one_step_rate,
    preconditioner_moments,
    preds_diff,
    product_alignment,
    task_losses,
    tune_gdpp,
)
from icl_verify.numerics.lsa.deep_training import UntiedResult, train_tied_then_untied
from icl_verify.numerics.lsa.regression import CODE_X_RANGE, PAPER_X_RANGE, RegressionTasks
from icl_verify.numerics.lsa.training import TrainConfig, TrainResult, train
from icl_verify.numerics.shared.stats import Interval, student_interval, t_interval

Moment = Callable[[int], sp.Expr]


@cached()
def density_moment(kind: str, k: int, scale: sp.Expr) -> sp.Expr:
    """E x^k by integrating the density: ``"uniform"`` on (−scale, scale), ``"gaussian"`` N(0, scale²)."""
    x = sp.Symbol("x", real=True)
    if kind == "uniform":
        return sp.simplify(sp.integrate(x**k / (2 * scale), (x, -scale, scale)))
    if kind == "gaussian":
        density = sp.exp(-(x**2) / (2 * scale**2)) / sp.sqrt(2 * sp.pi * scale**2)
        return sp.simplify(sp.integrate(x**k * density, (x, -sp.oo, sp.oo)))
    raise ValueError(f"kind must be 'uniform' or 'gaussian', got {kind!r}")


def kurtosis(kind: str, scale: sp.Expr = sp.S.One) -> sp.Expr:
    """κ = E x⁴ / (E x²)² of a density (:func:`density_moment`)."""
    return sp.simplify(density_moment(kind, 4, scale) / density_moment(kind, 2, scale) ** 2)


def symmetric_moments(s2: sp.Expr, kappa: sp.Expr) -> Moment:
    """Moments of a symmetric variable with variance s2 and kurtosis κ: m₂ = s², m₄ = κ s⁴, odd ones 0."""

    def moment(k: int) -> sp.Expr:
        if k % 2:
            return sp.Integer(0)
        if k == 2:
            return s2
        if k == 4:
            return kappa * s2**2
        raise ValueError(f"moment of order {k} is not determined by variance and kurtosis")

    return moment


def gaussian_moments(variance: sp.Expr) -> Moment:
    """Moments of N(0, variance), from the density."""
    return lambda k: density_moment("gaussian", k, sp.sqrt(variance))


# ---------------------------------------------------------------------------------------------
# Derivations

FAMILY = "optimal-lsa"
N, D = sp.symbols("N d", positive=True, integer=True)
S2, KAPPA, SIGMA2, ETA = sp.symbols("s^2 kappa sigma^2 eta", positive=True)


X_CONTEXT = MatrixSymbol("X", N, D)
"""The N × d context inputs, one example per row (rows independent)."""
X_QUERY = MatrixSymbol("x_q", 1, D)
"""The query input, a 1 × d row."""
W_TASK = MatrixSymbol("w", 1, D)
"""The task weights as a 1 × d row, w ~ N(0, I_d); labels y = X wᵀ (+ noise)."""
NOISE = MatrixSymbol("epsilon", 1, N)
"""The context labels' noise as a 1 × N row."""


def one_step_loss(x_moments: Moment, noise_variance: sp.Expr = sp.S.Zero, *, per_example: bool = True) -> sp.Expr:
    """E ½(ŷ − y_q)² for ŷ = c Σ_i y_i x_iᵀ x_q = c x_q Xᵀ y, y = X wᵀ + ε, w ~ N(0, I_d), as a polynomial in η.

    ``per_example`` (the paper's θ_GD, P = η/N) uses c = η/N; otherwise c = η (the P = ηI reading).
    The input coordinates are iid with the variance s² = E x² and kurtosis κ = E x⁴ / s⁴ of ``x_moments``;
    the expectation is taken by the moment algebra (:mod:`icl_verify.maths.moments`) for symbolic N
    and d. The query label is noiseless (noise on y_q only adds σ²/2).
    """
    s2 = x_moments(2)
    law = Law.iid(s2, sp.simplify(x_moments(4) / s2**2))
    laws = {X_CONTEXT: law, X_QUERY: law, W_TASK: Law.gaussian(sp.S.One)}
    labels = X_CONTEXT * W_TASK.T
    if noise_variance != 0:
        laws[NOISE] = Law.gaussian(noise_variance)
        labels = labels + NOISE.T
    c = ETA / N if per_example else ETA
    error = c * X_QUERY * X_CONTEXT.T * labels - X_QUERY * W_TASK.T
    return sp.expand(expectation(Trace(error.T * error), laws) / 2)


def minimise(loss: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(η*, loss(η*)) of a loss quadratic in η."""
    (eta_star,) = sp.solve(sp.diff(loss, ETA), ETA)
    return sp.simplify(eta_star), sp.simplify(loss.subs(ETA, eta_star))


@cached()
def iid_optimum(per_example: bool = True) -> tuple[sp.Expr, sp.Expr]:
    """Derived (η*, ½·MSE*) for noiseless iid symmetric inputs of variance s² and kurtosis κ."""
    return minimise(one_step_loss(symmetric_moments(S2, KAPPA), per_example=per_example))


def stated_eta(n=N, d=D, s2=S2, kappa=KAPPA) -> sp.Expr:
    """η* = N / (s² (N + d + κ − 2)) for iid inputs of kurtosis κ (derived here)."""
    return n / (s2 * (n + d + kappa - 2))


GAUSSIAN_STATED = N / (S2 * (N + D + 1))
"""Ahn et al. (2023): the isotropic Gaussian rate n/(n + d + 1), here with input variance s²."""
MAHANKALI_STATED = N / (N + D + 1 + SIGMA2)
"""Mahankali et al. (2024): c* = n/(n + d + 1 + σ²) for x, w ~ N(0, I) and label noise σ²."""


def stated_loss(n=N, d=D, s2=S2, kappa=KAPPA) -> sp.Expr:
    """½·MSE* = ½ s² d (d + κ − 2) / (N + d + κ − 2) (derived here)."""
    return s2 * d * (d + kappa - 2) / (2 * (n + d + kappa - 2))


def paper_values(half_width: sp.Expr, n: int = 10, d: int = 10) -> tuple[sp.Expr, sp.Expr]:
    """Exact (η*, ½·MSE*) from the derived optimum for x ~ U(−a, a)^d (s², κ from the density), N examples."""
    eta, loss = iid_optimum()
    values = {N: n, D: d, S2: density_moment("uniform", 2, half_width), KAPPA: kurtosis("uniform")}
    return sp.nsimplify(eta.subs(values)), sp.nsimplify(loss.subs(values))


LAMBDA = MatrixSymbol("Lambda", D, D)
"""The input covariance Λ (symmetric positive definite, any d)."""
PRECONDITIONER = MatrixSymbol("A", D, D)
"""The preconditioner A of the readout ŷ = x_q A (1/N) Xᵀ y (row form of x_qᵀ A (1/N) Σ y_i x_i)."""
GAMMA_MATRIX = (1 + 1 / N) * LAMBDA + Trace(LAMBDA) / N * Identity(D)
"""Γ = (1 + 1/N) Λ + (tr Λ / N) I for symbolic d and Λ (Zhang–Frei–Bartlett 2024, Thm. 4.1)."""


@cached()
def preconditioner_gradient() -> sp.MatrixExpr:
    """G(A) with dL = tr(Gᵀ dA), L(A) = E ½(x_q A (1/N) Xᵀ X wᵀ − x_q wᵀ)², rows of X and x_q ~ N(0, Λ).

    The directional derivative E tr(errᵀ x_q B (1/N) Xᵀ X wᵀ) is expanded by the moment algebra, for
    symbolic d, N and Λ. L is the expectation of a square of a function affine in A, so convex: G = 0
    is a global minimum.
    """
    direction = MatrixSymbol("B", D, D)
    laws = {X_CONTEXT: Law.gaussian(LAMBDA), X_QUERY: Law.gaussian(LAMBDA), W_TASK: Law.gaussian(sp.S.One)}
    gram = X_CONTEXT.T * X_CONTEXT / N
    error = X_QUERY * PRECONDITIONER * gram * W_TASK.T - X_QUERY * W_TASK.T
    return trace_gradient(expectation(Trace(error.T * X_QUERY * direction * gram * W_TASK.T), laws), direction)


def gradient_at(preconditioner: sp.MatrixExpr) -> sp.Expr:
    """G(A) at a preconditioner that is a function of Λ, as a rational function of an eigenvalue λ of Λ
    (:func:`~icl_verify.maths.moments.commutative_value`): zero iff A is stationary, for every d and Λ."""
    lam = sp.Symbol("lambda", positive=True)
    return commutative_value(preconditioner_gradient().xreplace({PRECONDITIONER: preconditioner}), LAMBDA, lam)


def preconditioner_optimum(d: int) -> sp.Matrix:
    """The A solving G(A) = 0 at d, Λ = diag(λ₁..λ_d) with symbolic λ and N (G: :func:`preconditioner_gradient`)."""
    A = sp.Matrix(d, d, lambda a, b: sp.Symbol(f"a_{a}{b}"))
    explicit = {MatrixSymbol("Lambda", d, d): sp.ImmutableMatrix(sp.diag(*_lambdas(d))), MatrixSymbol("A", d, d): A}
    gradient = sp.Matrix(preconditioner_gradient().subs(D, d).xreplace(explicit).doit())
    (solution,) = sp.solve(list(gradient), list(A), dict=True)
    return A.subs(solution)


def stated_gamma(lam: Sequence[sp.Expr], n: sp.Expr = N) -> sp.Matrix:
    """Γ = (1 + 1/N) Λ + (tr Λ / N) I (Zhang–Frei–Bartlett 2024, Thm. 4.1)."""
    Lam = sp.diag(*lam)
    return (1 + 1 / n) * Lam + (sum(lam) / n) * sp.eye(len(lam))


def _lambdas(d: int) -> list[sp.Symbol]:
    return list(sp.symbols(f"lambda_1:{d + 1}", positive=True))


def _one_step_derivation() -> Derivation:
    """The expected one-step loss from the index-sum expansion to its completed square."""
    K = N + D + KAPPA - 2
    return Derivation(
        name="optimal-one-step-rate",
        title="The optimal one-step rate and loss for iid inputs",
        source="von Oswald et al. 2023 (tuned GD baseline) [derived]",
        start=one_step_loss(symmetric_moments(S2, KAPPA)),
        steps=[
            Step(
                S2 / 2 * (ETA**2 * S2**2 * D * K / N - 2 * ETA * S2 * D + D),
                "E over x_q gives s²‖ηg − w‖², g = (1/N)Σ y_i x_i; E gᵀw = s²d; E‖g‖² = s⁴d(N − 1)/N"
                " (pairs i ≠ j) + s⁴d(d + κ − 1)/N (i = j, E‖x‖⁴ = s⁴ d(d + κ − 1))",
                "",
            ),
            Step(
                S2 * D / 2 * (S2**2 * K / N * (ETA - N / (S2 * K)) ** 2 + (D + KAPPA - 2) / K),
                "complete the square: minimum at η* = N/(s²(N + d + κ − 2)), value ½ s² d (d + κ − 2)/(N + d + κ − 2)",
                "",
            ),
        ],
        intro="Inputs have iid symmetric coordinates with variance s² and kurtosis κ, w ~ N(0, I_d), no label "
        "noise, and ŷ = (η/N) Σ_i y_i x_iᵀ x_q. The first line is the expectation for symbolic N and d, taken by "
        "the moment algebra (Wick pairings of the data matrices plus the fourth cumulant), computed by "
        "`one_step_loss`.",
    )


ONE_STEP_DERIVATION = _one_step_derivation()


# ---------------------------------------------------------------------------------------------
# Monte Carlo estimates (numerics only; the closed forms enter as predictions)

MC_GROUPS, MC_TASKS, MC_QUERIES = 20, 4096, 8
"""Monte Carlo design: 20 independent groups of 4096 tasks × 8 queries; 99 % Student-t interval over groups."""
MC_LEVEL = 0.99
"""Confidence level of the Monte Carlo intervals."""

CODE = TrainConfig(x_range=CODE_X_RANGE)
"""von Oswald et al.'s setting as their code draws it: d = N = 10, x ~ U(−0.5, 0.5)^d, w ~ N(0, I)."""
TEXT = TrainConfig(x_range=PAPER_X_RANGE)
"""The same setting as the paper's text states it: x ~ U(−1, 1)^d."""
GAUSS = TrainConfig(x_dist="gaussian", nx=5, n_context=8)
"""Ahn et al.'s isotropic Gaussian case: x ~ N(0, I_5), N = 8."""
NOISY = TrainConfig(x_dist="gaussian", nx=5, n_context=8, noise_std=0.75)
"""Mahankali et al.'s setting with label noise σ = 0.75 (σ² = 9/16)."""
ANISO_LAMBDA = (0.25, 1.0, 4.0)
ANISO = TrainConfig(x_dist="gaussian", nx=3, n_context=5, x_std=tuple(float(np.sqrt(v)) for v in ANISO_LAMBDA))
"""Zhang–Frei–Bartlett's anisotropic case: x ~ N(0, diag(0.25, 1, 4)), N = 5 (Γ far from Λ)."""


def _groups(config: TrainConfig, seed: int, salt: int, tasks: int = MC_TASKS) -> Iterator[RegressionTasks]:
    """MC_GROUPS independent batches of test tasks from a generator seeded with (seed, salt)."""
    rng = np.random.default_rng([seed, salt])
    return (config.sample(rng, tasks, n_queries=MC_QUERIES, seed=seed) for _ in range(MC_GROUPS))


def _value(expr: sp.Expr, config: TrainConfig) -> float:
    """A closed form evaluated at a setting: N, d, σ², and s², κ of its input density."""
    kind = "uniform" if config.x_dist == "uniform" else "gaussian"
    scale = sp.nsimplify(config.x_range if kind == "uniform" else config.x_std)
    values = {N: config.n_context, D: config.nx, S2: density_moment(kind, 2, scale), KAPPA: kurtosis(kind)}
    return float(expr.subs({**values, SIGMA2: sp.nsimplify(config.noise_std) ** 2}))


def mc_rate(config: TrainConfig, seed: int, *, per_example: bool = True) -> Interval:
    """Monte Carlo optimal coefficient of the one-step readout: η̂ for (η/N) Σ y_i x_iᵀ x_q, or η̂/N for η Σ …."""
    rates = [one_step_rate(t) / (1 if per_example else config.n_context) for t in _groups(config, seed, 1)]
    return t_interval(rates, MC_LEVEL)


def mc_loss(config: TrainConfig, eta: float, seed: int) -> Interval:
    """Monte Carlo ½·MSE of one GD step with rate η (``numerics.lsa.alignment.gd_model``)."""
    return t_interval([float(np.mean(task_losses(gd_model(eta), t))) for t in _groups(config, seed, 2)], MC_LEVEL)


def mc_preconditioner_distance(config: TrainConfig, target: np.ndarray, seed: int) -> tuple[float, float, float]:
    """‖Â − target‖_F / ‖target‖_F for the least-squares preconditioner Â pooled over all groups.

    Uses 4 × MC_TASKS tasks per group (the fit has d² coefficients with heavy-tailed features).
    Interval: delete-one-group jackknife standard error × Student-t quantile (99 %), floored at 0.
    """
    stats_ = [preconditioner_moments(t) for t in _groups(config, seed, 3, 4 * MC_TASKS)]
    total = tuple(sum(s[j] for s in stats_) for j in range(2))

    def distance(moments: tuple[np.ndarray, np.ndarray]) -> float:
        return relative_distance(fit_preconditioner(moments), target)

    full = distance(total)
    loo = np.array([distance((total[0] - s[0], total[1] - s[1])) for s in stats_])
    g = len(stats_)
    jackknife_se = float(np.sqrt((g - 1) / g * np.sum((loo - loo.mean()) ** 2)))
    _, low, high = student_interval(full, jackknife_se, g - 1, MC_LEVEL)
    return full, max(0.0, low), high


def relative_distance(a: np.ndarray, target: np.ndarray) -> float:
    """‖a − target‖_F / ‖target‖_F."""
    return float(np.linalg.norm(a - target) / np.linalg.norm(target))


def gamma_inverse(lam: Sequence[float], n: int) -> np.ndarray:
    """Γ⁻¹ evaluated numerically from the stated form (:func:`stated_gamma`)."""
    return np.array(stated_gamma([sp.nsimplify(v) for v in lam], n).inv(), dtype=float)


def _estimate(
    interval: tuple[float, float, float],
    predicted: float,
    rel_tol: float,
    detail: str,
    control: float | None = None,
) -> Estimate:
    """The estimate against ``predicted`` ± ``rel_tol``·|predicted|; ``control``: the corrected prediction."""
    m, lo, hi = interval
    return Estimate(m, lo, hi, predicted, rel_tol * abs(predicted), detail, control)


# ---------------------------------------------------------------------------------------------
# Claims: closed forms, derived and checked by Monte Carlo

ETA_STAR = Claim(
    name="optimal-rate-iid-inputs",
    source="von Oswald et al. 2023 (tuned GD baseline) [derived]",
    assumptions=(
        "iid input coordinates (variance s², kurtosis κ)",
        "w ~ N(0, I), no label noise",
        "one GD step from W0 = 0: ŷ = (η/N) Σ_i y_i x_iᵀ x_q",
    ),
    statement=r"\eta^* = \arg\min_\eta \tfrac12 E(\tfrac{\eta}{N}\textstyle\sum_i y_i x_i^\top x_q - y_q)^2 = \frac{N}{s^2(N+d+\kappa-2)}",
    symbolic=lambda: [iid_optimum()[0] - stated_eta()],
    measured=Measured(
        lambda seed: _estimate(
            mc_rate(CODE, seed), _value(stated_eta(), CODE), 0.02, "MC line-search optimum, d = N = 10, x ~ U(−½, ½)"
        )
    ),
    note="Derived from E x² = s², E x⁴ = κ s⁴ by the moment algebra over symbolic N, d; MC tolerance 2 %.",
)

LOSS_STAR = Claim(
    name="optimal-one-step-loss-iid-inputs",
    source="von Oswald et al. 2023 (one-step GD loss) [derived]",
    assumptions=(
        "iid input coordinates (variance s², kurtosis κ)",
        "w ~ N(0, I), no label noise",
        "one GD step from W0 = 0: ŷ = (η/N) Σ_i y_i x_iᵀ x_q",
    ),
    builds_on=("optimal-rate-iid-inputs",),
    statement=r"\tfrac12\,\mathrm{MSE}(\eta^*) = \frac{s^2 d (d+\kappa-2)}{2(N+d+\kappa-2)}",
    symbolic=lambda: [iid_optimum()[1] - stated_loss()],
    measured=Measured(
        lambda seed: _estimate(
            mc_loss(CODE, _value(stated_eta(), CODE), seed),
            _value(stated_loss(), CODE),
            0.02,
            "MC ½·MSE of one GD step at η*, d = N = 10, x ~ U(−½, ½)",
        )
    ),
    note="Paper setting (code's range): η* = 200/33, ½·MSE* = 245/1188 ≈ 0.2062; MC tolerance 2 %.",
)

GAUSSIAN_RATE = Claim(
    name="kurtosis-uniform-gaussian-rate",
    source="Ahn et al. 2023 (isotropic rate n/(n+d+1))",
    assumptions=(
        "x ~ N(0, s² I)",
        "w ~ N(0, I), no label noise",
        "one GD step from W0 = 0: ŷ = (η/N) Σ_i y_i x_iᵀ x_q",
    ),
    statement=(
        r"\kappa_{U(-a,a)} = \tfrac95,\ \kappa_{\mathcal N} = 3;\ x \sim \mathcal N(0, s^2 I):\ "
        r"\eta^* = \frac{N}{s^2 (N + d + 1)}"
    ),
    symbolic=lambda: [
        kurtosis("uniform", sp.Symbol("a", positive=True)) - sp.Rational(9, 5),
        kurtosis("gaussian", sp.sqrt(S2)) - 3,
        minimise(one_step_loss(gaussian_moments(S2)))[0] - GAUSSIAN_STATED,
    ],
    measured=Measured(
        lambda seed: _estimate(
            mc_rate(GAUSS, seed), _value(GAUSSIAN_STATED, GAUSS), 0.02, "MC optimum, x ~ N(0, I_5), N = 8"
        )
    ),
    note="κ and the Gaussian moments are integrated from the densities; the rate is re-derived, not substituted.",
)

MAHANKALI = Claim(
    name="mahankali-noisy-rate",
    source="Mahankali, Hashimoto, Ma 2024 (optimal one-layer LSA = one GD step)",
    assumptions=("x, w ~ N(0, I)", "label noise N(0, σ²)", "one GD step from W0 = 0: ŷ = (η/N) Σ_i y_i x_iᵀ x_q"),
    statement=r"x, w \sim \mathcal N(0, I),\ \varepsilon \sim \mathcal N(0, \sigma^2):\ c^* = \frac{n}{n + d + 1 + \sigma^2}",
    symbolic=lambda: [
        minimise(one_step_loss(gaussian_moments(sp.Integer(1)), SIGMA2))[0] - MAHANKALI_STATED,
    ],
    measured=Measured(
        lambda seed: _estimate(
            mc_rate(NOISY, seed), _value(MAHANKALI_STATED, NOISY), 0.02, "MC optimum, x ~ N(0, I_5), N = 8, σ = 0.75"
        )
    ),
)

RATE_WITHOUT_1_OVER_N = Claim(
    name="optimal-rate-without-1-over-n",
    source="von Oswald et al. 2023, Proposition 1 with P = ηI instead of ηI/N",
    assumptions=("iid input coordinates (variance s², kurtosis κ)", "w ~ N(0, I), no label noise"),
    statement=r"\arg\min_c \tfrac12 E(c \textstyle\sum_i y_i x_i^\top x_q - y_q)^2 = \eta^* = \frac{N}{s^2(N+d+\kappa-2)}",
    explicit=Explicit(
        lambda n, d: [iid_optimum(per_example=False)[0].subs({N: n, D: d}) - stated_eta(n, d)],
        [{"n": 10, "d": 10}],
        control=lambda n, d: [iid_optimum(per_example=False)[0].subs({N: n, D: d}) - stated_eta(n, d) / n],
    ),
    measured=Measured(
        lambda seed: _estimate(
            mc_rate(CODE, seed, per_example=False),
            _value(stated_eta(), CODE),
            0.02,
            "MC optimum of c (no 1/N)",
            control=_value(stated_eta() / N, CODE),
        )
    ),
    holds=False,
    correction="optimal-rate-iid-inputs",
    note="Without the 1/N the optimal coefficient is η*/N: the paper's P = (η/N) I matters.",
)

X_RANGE_TEXT = Claim(
    name="one-step-loss-paper-text-range",
    source="von Oswald et al. 2023, text (x ~ U(−1, 1)) vs reported loss ≈ 0.2",
    assumptions=("x ~ U(−1, 1)^d, d = N = 10",),
    builds_on=("optimal-rate-iid-inputs",),
    statement=r"x \sim U(-1, 1)^{10},\ N = 10:\ \tfrac12\,\mathrm{MSE}(\text{tuned one-step GD}) \approx 0.2",
    measured=Measured(
        lambda seed: _estimate(
            mc_loss(TEXT, _value(stated_eta(), TEXT), seed),
            0.2,
            0.1,
            "MC at the paper text's range; ≈ read as ±10 %",
            control=_value(stated_loss(), TEXT),  # the derived ½·MSE* at U(−1, 1): 245/297
        )
    ),
    holds=False,
    correction="one-step-loss-code-range",
    note="The derived loss at U(−1, 1) is 245/297 ≈ 0.825: four times the code's; only U(−½, ½) gives ≈ 0.2.",
)

X_RANGE_CODE = Claim(
    name="one-step-loss-code-range",
    source="von Oswald et al. 2023, code (x ~ U(−0.5, 0.5)) vs reported loss ≈ 0.2",
    assumptions=("x ~ U(−½, ½)^d, d = N = 10",),
    builds_on=("optimal-rate-iid-inputs",),
    statement=r"x \sim U(-\tfrac12, \tfrac12)^{10},\ N = 10:\ \tfrac12\,\mathrm{MSE}(\text{tuned one-step GD}) \approx 0.2",
    measured=Measured(
        lambda seed: _estimate(
            mc_loss(CODE, _value(stated_eta(), CODE), seed), 0.2, 0.1, "MC at the code's range; ≈ read as ±10 %"
        )
    ),
)


def gamma_distance_to_inverse_covariance() -> float:
    """‖Γ⁻¹ − Λ⁻¹‖_F / ‖Λ⁻¹‖_F at Λ = diag(0.25, 1, 4), N = 5: what Γ⁻¹ (Zhang–Frei–Bartlett 2024, Thm. 4.1)
    predicts for a distance to Λ⁻¹ — the corrected form's value of the quantity the Λ⁻¹ claims measure."""
    return relative_distance(gamma_inverse(ANISO_LAMBDA, ANISO.n_context), np.diag(1 / np.array(ANISO_LAMBDA)))


@cached()
def _gamma_residual(d: int, inverse_covariance: bool = False) -> sp.Matrix:
    lam = _lambdas(d)
    target = sp.diag(*[1 / v for v in lam]) if inverse_covariance else stated_gamma(lam).inv()
    return preconditioner_optimum(d) - target


GAMMA = Claim(
    name="zfb-preconditioner-gamma",
    source="Zhang, Frei, Bartlett 2024, Thm. 4.1; Ahn et al. 2023 (one-layer global optimum)",
    assumptions=("x ~ N(0, Λ), Λ symmetric positive definite", "w ~ N(0, I), no label noise"),
    statement=(
        r"x \sim \mathcal N(0, \Lambda):\ \arg\min_A \tfrac12 E(x_q^\top A \tfrac1N \textstyle\sum_i y_i x_i - y_q)^2"
        r" = \Gamma^{-1},\ \Gamma = (1 + \tfrac1N)\Lambda + \tfrac{\operatorname{tr}\Lambda}{N} I"
    ),
    symbolic=lambda: [gradient_at(GAMMA_MATRIX.I)],
    measured=Measured(
        lambda seed: Estimate(
            *mc_preconditioner_distance(ANISO, gamma_inverse(ANISO_LAMBDA, ANISO.n_context), seed),
            predicted=0.0,
            tolerance=0.05,
            detail="‖Â − Γ⁻¹‖/‖Γ⁻¹‖, Â least squares pooled over groups (jackknife interval); Λ = diag(0.25, 1, 4), N = 5",
        )
    ),
    note="Proved for every d, N and symmetric Λ: the loss's gradient, expanded by the moment algebra, vanishes at"
    " A = Γ⁻¹ (a function of Λ, so the check is one in an eigenvalue of Λ); the loss is convex in A.",
)

GAMMA_AS_INVERSE_COVARIANCE = Claim(
    name="preconditioner-is-inverse-covariance",
    source="Tempting reading of Zhang–Frei–Bartlett 2024 (N → ∞ limit)",
    assumptions=("x ~ N(0, Λ)", "w ~ N(0, I), no label noise"),
    statement=r"\arg\min_A \tfrac12 E(x_q^\top A \tfrac1N \textstyle\sum_i y_i x_i - y_q)^2 = \Lambda^{-1}",
    explicit=Explicit(
        lambda d: [_gamma_residual(d, inverse_covariance=True)],
        [{"d": 1}, {"d": 2}],
        control=lambda d: [_gamma_residual(d)],
    ),
    measured=Measured(
        lambda seed: Estimate(
            *mc_preconditioner_distance(ANISO, np.diag(1 / np.array(ANISO_LAMBDA)), seed),
            predicted=0.0,
            tolerance=0.05,
            detail="‖Â − Λ⁻¹‖/‖Λ⁻¹‖, Λ = diag(0.25, 1, 4), N = 5",
            control=gamma_distance_to_inverse_covariance(),
        )
    ),
    holds=False,
    correction="zfb-preconditioner-gamma",
    note="Γ → Λ only as N → ∞; at finite N the tr Λ / N term and the 1/N correction remain.",
)


# ---------------------------------------------------------------------------------------------
# Claims checked by meta-training (small default budgets; `icl-verify train` runs the long ones)

ESCAPE = {"escape_step": 150, "escape_ratio": 0.7, "restarts": 3}
"""Plateau test of :func:`numerics.lsa.training.train` for the 600-step runs. Over training seeds 0–31 the
loss ratio (steps 125–150 over steps 0–25) was ≤ 0.59 for the 24 runs that converged and ≥ 0.80 for
the 8 still on the zero predictor's plateau (6 of which ended 11–96 % above ½·MSE*); 0.7 splits the two."""
SINGLE = replace(CODE, steps=600, batch=512, lr=3e-3, schedule="cosine", **ESCAPE)
"""Default-check training budget: 600 Adam steps, batch 512, lr 3e-3 cosine-decayed, init N(0, 0.01²),
at most 3 restarts by the plateau test."""
SINGLE_ANISO = replace(ANISO, steps=1500, batch=1024, lr=1e-2, schedule="cosine")
"""Anisotropic training budget: 1500 steps, batch 1024, lr 1e-2 cosine (the λ = 0.25 direction learns slowest)."""
SINGLE_NOISY = replace(NOISY, steps=600, batch=512, lr=3e-3, schedule="cosine", **(ESCAPE | {"restarts": 6}))
"""Noisy training budget: about 3 runs in 4 start on the rank-one saddle here (6 of 8 looked at), so up to
6 restarts per run: all of a claim's 3 runs stay on it with probability ≈ (0.75⁷)³ ≈ 2·10⁻³."""
TEST_TASKS = 1 << 15
TRAIN_SEEDS = 3


@cached(maxsize=8)
def trained(config: TrainConfig, seed: int) -> TrainResult:
    """A meta-trained LSA (cached: several claims read the same run)."""
    return train(config, seed)


def _test_tasks(config: TrainConfig, seed: int) -> RegressionTasks:
    return config.sample(np.random.default_rng([seed, 10]), TEST_TASKS, n_queries=MC_QUERIES, seed=seed)


def _settings(config: TrainConfig, seed: int) -> str:
    restarts = trained(config, seed).restart_note()
    return (
        f"trained seed {seed}: {config.steps} Adam steps, batch {config.batch}, lr {config.lr:g} {config.schedule},"
        f" {TEST_TASKS} test tasks × {MC_QUERIES} queries" + (f"; {restarts}" if restarts else "")
    )


def paired_loss(
    model: Model, reference: Model, tasks: RegressionTasks, reference_loss: float
) -> tuple[float, float, float]:
    """Loss of ``model`` as reference_loss + mean(ℓ_model − ℓ_reference) on shared tasks (control variate), 99 % CI."""
    diff = task_losses(model, tasks) - task_losses(reference, tasks)
    m, lo, hi = mean_interval(diff)
    return reference_loss + m, reference_loss + lo, reference_loss + hi


def measure_trained_loss(seed: int) -> Estimate:
    """Trained 1-layer LSA's ½·MSE vs the closed form ½·MSE*; GD(η*) with known mean ½·MSE* is the control variate."""
    eta, loss = (_value(e, CODE) for e in (stated_eta(), stated_loss()))
    tasks = _test_tasks(SINGLE, seed)
    est = paired_loss(lsa_model(trained(SINGLE, seed).layers), gd_model(eta), tasks, loss)
    return _estimate(est, loss, 0.01, _settings(SINGLE, seed))


def measure_vs_tuned_gd(seed: int) -> Estimate:
    """Trained loss / loss of GD with η line-searched on 10⁴ tasks (the paper's baseline), paired."""
    eta = line_search_rate(SINGLE.sample(np.random.default_rng([seed, 11]), 10_000))
    tasks = _test_tasks(SINGLE, seed)
    ref = task_losses(gd_model(eta), tasks)
    m, lo, hi = mean_interval(task_losses(lsa_model(trained(SINGLE, seed).layers), tasks) - ref)
    base = float(np.mean(ref))
    return Estimate(
        1 + m / base,
        1 + lo / base,
        1 + hi / base,
        1.0,
        0.01,
        f"line-searched η = {eta:.4f}; " + _settings(SINGLE, seed),
    )


def measure_model_cos(seed: int) -> Estimate:
    """Mean cos(∂ŷ_θ/∂x_q, ∂ŷ_GD/∂x_q) over test tasks (von Oswald et al. Fig. 2)."""
    tasks = _test_tasks(SINGLE, seed)
    model, gd = lsa_model(trained(SINGLE, seed).layers), gd_model(_value(stated_eta(), CODE))
    m, lo, hi = mean_interval(model_cos(model, gd, tasks))
    extra = f"preds diff {np.mean(preds_diff(model, gd, tasks)):.4f}, model diff {np.mean(model_diff(model, gd, tasks)):.4f}; "
    return Estimate(m, lo, min(hi, 1.0), 1.0, 0.01, extra + _settings(SINGLE, seed))


def measure_products(seed: int) -> Estimate:
    """Largest relative error of the readout blocks of P W_V and W_Kᵀ W_Q vs θ_GD(η*) after the best rescaling.

    One training run: the interval is degenerate (no sampling error; run-to-run spread is not covered).
    """
    ref = gd_reference(SINGLE.nx, SINGLE.ny, _value(stated_eta(), CODE), SINGLE.n_context)
    s, err_v, err_k = product_alignment(trained(SINGLE, seed).layers[0], ref, nx=SINGLE.nx)
    worst = max(err_v, err_k)
    detail = f"scale s = {s:.4g}, err(P W_V) = {err_v:.4f}, err(W_Kᵀ W_Q) = {err_k:.4f}; " + _settings(SINGLE, seed)
    return Estimate(worst, worst, worst, 0.0, 0.1, detail)


def measure_interpolation(seed: int) -> Estimate:
    """Loss of the rescaled average of trained and θ_GD(η*) weights vs ½·MSE* (von Oswald et al. Fig. 2, 'interpolated')."""
    eta, loss = (_value(e, CODE) for e in (stated_eta(), stated_loss()))
    ref = gd_reference(SINGLE.nx, SINGLE.ny, eta, SINGLE.n_context)
    mixed = interpolate(trained(SINGLE, seed).layers[0], ref)
    est = paired_loss(lsa_model([mixed]), gd_model(eta), _test_tasks(SINGLE, seed), loss)
    return _estimate(est, loss, 0.01, _settings(SINGLE, seed))


def measure_raw_scale(seed: int) -> Estimate:
    """The trained layer's raw rate −(P W_V)_yy (W_Kᵀ W_Q)_xx, read as a multiple of I: mean, min, max of its diagonal."""
    A = effective_preconditioner(trained(SINGLE, seed).layers[0], SINGLE.nx, SINGLE.n_context) / SINGLE.n_context
    diag = np.diag(A)
    detail = "interval = range of the diagonal; " + _settings(SINGLE, seed)
    return _estimate(
        (float(diag.mean()), float(diag.min()), float(diag.max())),
        _value(stated_eta(), CODE),
        0.05,
        detail,
        control=_value(stated_eta() / N, CODE),  # θ_GD's P = (η*/N) I: the raw product is η*/N
    )


EXTRA_RUNS = 3
"""Runs added (one at a time) when every run of :func:`best_run` is beaten by tuned one-step GD (see there)."""
EXTRA_SEED_BASE = 1 << 20
"""Training seeds of the added runs: EXTRA_SEED_BASE + EXTRA_RUNS·seed + j, disjoint from the first runs' TRAIN_SEEDS·seed + j
for check seeds below 2²⁰/3."""


@dataclass(frozen=True)
class BestRun:
    """The restarts of one check seed, their validation ½·MSE and preconditioners A_θ, and the GD certificate."""

    seeds: list[int]
    losses: list[float]
    precond: list[np.ndarray]
    gd_rate: float | None = None
    """η̂ of the one-step GD baseline (None when the certificate is not used)."""
    excess: list[tuple[float, float, float]] = field(default_factory=list)
    """mean(ℓ_best − ℓ_GD(η̂)) on the validation tasks with its 99 % interval, after each round of runs."""

    @property
    def best(self) -> int:
        """Index of the run with the lowest validation loss."""
        return int(np.argmin(self.losses))

    def note(self) -> str:
        """The certificate's rounds for the evidence ('' when it is not used)."""
        if self.gd_rate is None:
            return ""
        rounds = "; ".join(
            f"after {TRAIN_SEEDS + k} runs: best − GD {m:+.4f} [{lo:+.4f}, {hi:+.4f}]"
            for k, (m, lo, hi) in enumerate(self.excess)
        )
        added = len(self.seeds) - TRAIN_SEEDS
        return (
            f"certificate vs one-step GD (η̂ = {self.gd_rate:.4f}, a member of the LSA class): {rounds};"
            f" {added} run(s) added (at most {EXTRA_RUNS})"
        )


def beaten_by_gd(model_losses: np.ndarray, gd_losses: np.ndarray) -> tuple[bool, tuple[float, float, float]]:
    """Whether a trained layer is certainly not at the global minimum: one GD step with a tuned rate is
    an LSA layer (von Oswald et al. 2023, Prop. 1), so if the paired excess mean(ℓ_model − ℓ_GD) on
    shared tasks is above 0 at 99 % confidence, a better point of the class exists. Returns (beaten, excess)."""
    excess = mean_interval(model_losses - gd_losses)
    return excess[1] > 0, excess


@cached(maxsize=8)
def best_run(config: TrainConfig, seed: int, extra: int = 0) -> BestRun:
    """TRAIN_SEEDS restarts, the best by validation loss; with ``extra`` > 0, runs are added while the best is
    beaten by one tuned GD step (:func:`beaten_by_gd`).

    Restarts are needed: from a random full-matrix init some runs settle near a rank-one point that
    routes the label through the keys ((P W_V)_{y,x} and (W_Kᵀ W_Q)_{y,x}) and fits one input
    direction only (anisotropic setting: validation ½·MSE ≈ 1.25 vs ≈ 1.01). That point has no
    direction of negative curvature (see docs/performance.md), so training does not leave it and
    perturbing it does not help; but a tuned GD step (≈ 1.10) beats it, which certifies from training
    information alone that a run is stuck. Validation tasks and the GD rate's tuning tasks are fresh
    and independent of the target the claim compares with; the certificate never reads that target.
    """
    seeds = [seed * TRAIN_SEEDS + j for j in range(TRAIN_SEEDS)]
    val = config.sample(np.random.default_rng([seed, 12]), TEST_TASKS // 4, n_queries=MC_QUERIES)
    runs = [trained(config, s).layers for s in seeds]
    per_task = [task_losses(lsa_model(layers), val) for layers in runs]
    if not extra:
        return BestRun(seeds, _means(per_task), _preconditioners(runs, config))
    eta = line_search_rate(config.sample(np.random.default_rng([seed, 11]), 10_000))
    gd_losses = task_losses(gd_model(eta), val)
    excess = []
    for j in range(extra + 1):
        beaten, gap = beaten_by_gd(per_task[int(np.argmin(_means(per_task)))], gd_losses)
        excess.append(gap)
        if not beaten or j == extra:
            break
        seeds.append(EXTRA_SEED_BASE + extra * seed + j)
        runs.append(trained(config, seeds[-1]).layers)
        per_task.append(task_losses(lsa_model(runs[-1]), val))
    return BestRun(seeds, _means(per_task), _preconditioners(runs, config), eta, excess)


def _means(per_task: list[np.ndarray]) -> list[float]:
    """Validation ½·MSE of each run from its per-task losses."""
    return [float(np.mean(t)) for t in per_task]


def _preconditioners(runs: list[list], config: TrainConfig) -> list[np.ndarray]:
    """A_θ of each run's (single) layer."""
    return [effective_preconditioner(layers[0], config.nx, config.n_context) for layers in runs]


CONVERGED_REL = 0.01
"""A restart counts as converged when its validation loss is within 1 % of the best one's (the
rank-one point of :func:`best_run` sits about 25 % higher)."""


def measure_trained_preconditioner(
    config: TrainConfig, seed: int, target: np.ndarray, setting: str, extra: int = 0
) -> Estimate:
    """‖A_θ − target‖/‖target‖ of the lowest-validation-loss restart, with the range over the
    converged restarts as its interval (training-to-training spread; degenerate if only one converged)."""
    runs = best_run(config, seed, extra)
    best, seeds, losses = runs.best, runs.seeds, runs.losses
    dist = [relative_distance(A, target) for A in runs.precond]
    converged = [d for d, loss in zip(dist, losses) if loss <= losses[best] * (1 + CONVERGED_REL)]
    detail = (
        f"best of runs {seeds} by validation ½·MSE {np.round(losses, 4).tolist()}; distances"
        f" {np.round(dist, 4).tolist()}; interval: range over the {len(converged)} restart(s) within"
        f" {CONVERGED_REL:.0%} of the best loss; {setting}; {config.steps} Adam steps, batch {config.batch},"
        f" lr {config.lr:g} {config.schedule}"
    )
    restarts = [f"run {s}: {note}" for s in seeds if (note := trained(config, s).restart_note())]
    detail += "".join(f"; {note}" for note in [*restarts, runs.note()] if note)
    return Estimate(dist[best], min(converged), max(converged), predicted=0.0, tolerance=0.05, detail=detail)


def _aniso_precond(seed: int, target: np.ndarray) -> Estimate:
    return measure_trained_preconditioner(SINGLE_ANISO, seed, target, "Λ = diag(0.25, 1, 4), N = 5", EXTRA_RUNS)


def _noisy_precond(seed: int) -> Estimate:
    target = _value(MAHANKALI_STATED, NOISY) * np.eye(NOISY.nx)
    return measure_trained_preconditioner(SINGLE_NOISY, seed, target, "x, w ~ N(0, I_5), N = 8, σ = 0.75")


TRAINED_LOSS = Claim(
    name="trained-lsa-loss-closed-form",
    source="von Oswald et al. 2023, §3 and Fig. 2 (trained LSA = GD with the best rate)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step", "optimal-one-step-loss-iid-inputs"),
    statement=r"\tfrac12\,\mathrm{MSE}(\text{meta-trained 1-layer LSA}) = \tfrac12\,\mathrm{MSE}^* = \tfrac{245}{1188}\ (\pm 1\,\%)",
    measured=Measured(measure_trained_loss),
    note=(
        "d = N = 10, x ~ U(−½, ½); 600 Adam steps (batch 512, lr 3e-3 cosine), restarted (at most 3×, from"
        " [seed, k]) when the loss is still on the zero predictor's plateau at step 150. Interval: test sampling only."
    ),
)

TRAINED_VS_TUNED_GD = Claim(
    name="trained-lsa-vs-tuned-gd",
    source="von Oswald et al. 2023, Fig. 2 (GD baseline line-searched over 10⁴ tasks)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step",),
    statement=r"\mathrm{loss}(\text{trained LSA}) / \mathrm{loss}(\text{GD}, \hat\eta_{\text{line search}}) = 1 \pm 0.01",
    measured=Measured(measure_vs_tuned_gd),
)

TRAINED_MODEL_COS = Claim(
    name="trained-lsa-model-cos",
    source="von Oswald et al. 2023, Fig. 2 (model cos ≈ 1)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step",),
    statement=r"E\,\cos(\partial_{x_q}\hat y_\theta, \partial_{x_q}\hat y_{GD}) \ge 0.99",
    measured=Measured(measure_model_cos),
)

TRAINED_PRODUCTS = Claim(
    name="trained-lsa-products-theta-gd",
    source="von Oswald et al. 2023, §3 (trained P W_V, W_Kᵀ W_Q ∝ θ_GD's)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step", "lsa-rescaling-invariance"),
    statement=(
        r"\min_s \max\big(\tfrac{\|s\,P W_V - (P W_V)_{GD}\|}{\|(P W_V)_{GD}\|},"
        r" \tfrac{\|W_K^\top W_Q / s - (W_K^\top W_Q)_{GD}\|}{\|(W_K^\top W_Q)_{GD}\|}\big) \le 0.1"
    ),
    measured=Measured(measure_products),
    note="Readout blocks only (y-row of P W_V, x-columns of W_Kᵀ W_Q): a 1-layer readout sees nothing else.",
)

TRAINED_INTERPOLATION = Claim(
    name="trained-lsa-interpolation",
    source="von Oswald et al. 2023, Fig. 2 ('interpolated' model)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step", "lsa-rescaling-invariance", "optimal-rate-iid-inputs"),
    statement=r"\tfrac12\,\mathrm{MSE}\big(\tfrac12(\text{rescaled } \theta) + \tfrac12\theta_{GD}(\eta^*)\big) = \tfrac12\,\mathrm{MSE}^* \ (\pm 1\,\%)",
    measured=Measured(measure_interpolation),
)

TRAINED_RAW_RATE = Claim(
    name="trained-lsa-rate-without-1-over-n",
    source="von Oswald et al. 2023, Proposition 1 with P = ηI read as the rate",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step",),
    statement=r"-(P W_V)_{yy} (W_K^\top W_Q)_{xx} \text{ of the trained layer} = \eta^* I",
    measured=Measured(measure_raw_scale),
    holds=False,
    note=(
        "The trained raw product is η*/N · I: the 1/N of θ_GD's P = (η/N) I is learned too "
        "(the control: the same diagonal against η*/N ± the same tolerance)."
    ),
)

TRAINED_GAMMA = Claim(
    name="trained-lsa-preconditioner-gamma",
    source="Zhang, Frei, Bartlett 2024, Thm. 4.1 (trained LSA converges to Γ⁻¹-preconditioned GD)",
    assumptions=(
        "x ~ N(0, Λ), Λ = diag(0.25, 1, 4), N = 5",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("zfb-preconditioner-gamma",),
    statement=r"\|A_\theta - \Gamma^{-1}\|_F / \|\Gamma^{-1}\|_F \le 0.05,\ \hat y = x_q^\top A_\theta \tfrac1N \textstyle\sum_i y_i x_i",
    measured=Measured(lambda seed: _aniso_precond(seed, gamma_inverse(ANISO_LAMBDA, ANISO.n_context))),
    note=(
        "Best of 3 restarts by validation loss, 1500 Adam steps each (batch 1024, lr 1e-2 cosine); while the best is"
        " beaten by one tuned GD step (a member of the LSA class, so the run is certainly not at the minimum), up to"
        " 3 more runs are added."
    ),
)

TRAINED_NOISY_RATE = Claim(
    name="trained-lsa-noisy-rate",
    source="Mahankali, Hashimoto, Ma 2024 (trained one-layer LSA = one GD step with c*)",
    assumptions=(
        "x, w ~ N(0, I_5), N = 8, label noise σ = 0.75",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("mahankali-noisy-rate",),
    statement=r"\|A_\theta - c^* I\|_F / \|c^* I\|_F \le 0.05,\ c^* = \frac{n}{n + d + 1 + \sigma^2}",
    measured=Measured(_noisy_precond),
    note=(
        "x, w ~ N(0, I_5), N = 8, σ = 0.75; best of 3 runs by validation loss, 600 Adam steps each, a run"
        " restarted (at most 6×) when its loss is still on a plateau at step 150."
    ),
)

TRAINED_INVERSE_COVARIANCE = Claim(
    name="trained-lsa-preconditioner-inverse-covariance",
    source="Tempting reading of Zhang–Frei–Bartlett 2024 (N → ∞ limit)",
    assumptions=(
        "x ~ N(0, Λ), Λ = diag(0.25, 1, 4), N = 5",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    statement=r"\|A_\theta - \Lambda^{-1}\|_F / \|\Lambda^{-1}\|_F \le 0.05",
    measured=Measured(
        lambda seed: replace(
            _aniso_precond(seed, np.diag(1 / np.array(ANISO_LAMBDA))), control=gamma_distance_to_inverse_covariance()
        )
    ),
    holds=False,
    correction="trained-lsa-preconditioner-gamma",
)


# ---------------------------------------------------------------------------------------------
# Two weight-tied layers vs two GD steps and GD++ (von Oswald et al. §4, Fig. 3), small default run

DEEP = TrainConfig(
    nx=5, n_context=10, n_layers=2, recurrent=True, steps=1500, batch=512, lr=5e-3, schedule="cosine", **ESCAPE
)
"""d = 5, N = 10, x ~ U(−½, ½); 2 weight-tied layers; 1500 Adam steps, batch 512, lr 5e-3 cosine
(lr 1e-2 for 800 steps is unstable: 4 of 6 seeds ended 4–960 % above GD++). The plateau test catches
the run of seed 9 that stays at the rank-one saddle for all 1500 steps (½·MSE ≈ 0.175, loss ratio 0.84
at step 150; a converging run is at ratio ≈ 0.16 by then).
The paper-size run (d = 10, 3 layers) is ``icl-verify train deep``."""


DEEP_TEST_TASKS = 1 << 16
"""Test tasks of the 2-layer comparisons. The per-task losses of 2-step GD and GD++ are heavy-tailed (ill-conditioned
XᵀX), so with 2¹⁴ tasks the 99 % interval of loss(trained)/loss(GD++) was ±0.033 and seed 17 (ratio 0.982) reached
0.9497, just outside the band; 2¹⁶ tasks halve the width (evaluation is a small part of the cost, training the rest)."""


@cached(maxsize=4)
def deep_comparison(seed: int) -> dict[str, np.ndarray]:
    """Per-task losses and preds diffs of the trained 2-layer LSA, 2-step GD (η line-searched) and tuned 2-layer GD++."""
    model = lsa_model(trained(DEEP, seed).layers)
    tune = DEEP.sample(np.random.default_rng([seed, 11]), 10_000)
    eta = line_search_rate(tune, DEEP.n_layers)
    gdpp = gdpp_model(*tune_gdpp(tune, DEEP.n_layers, eta), DEEP.n_layers)
    gd = gd_model(eta, DEEP.n_layers)
    tasks = DEEP.sample(np.random.default_rng([seed, 10]), DEEP_TEST_TASKS, n_queries=MC_QUERIES, seed=seed)
    return {
        "trained": task_losses(model, tasks),
        "gd": task_losses(gd, tasks),
        "gdpp": task_losses(gdpp, tasks),
        "to_gd": preds_diff(model, gd, tasks),
        "to_gdpp": preds_diff(model, gdpp, tasks),
        "cos_gd": model_cos(model, gd, tasks),
        "cos_gdpp_gd": model_cos(gdpp, gd, tasks),
    }


def _grouped_ratio(num: np.ndarray, den: np.ndarray) -> Interval:
    """mean(num)/mean(den) with a 99 % t interval over MC_GROUPS contiguous groups of tasks."""
    groups = np.array_split(np.arange(num.size), MC_GROUPS)
    return t_interval([float(np.mean(num[g]) / np.mean(den[g])) for g in groups], MC_LEVEL)


def _deep_detail(seed: int) -> str:
    r, note = deep_comparison(seed), trained(DEEP, seed).restart_note()
    return (
        f"½·MSE trained {np.mean(r['trained']):.5f}, 2-step GD {np.mean(r['gd']):.5f}, GD++ {np.mean(r['gdpp']):.5f};"
        f" {DEEP.steps} Adam steps, batch {DEEP.batch}, lr {DEEP.lr:g} {DEEP.schedule}, seed {seed}"
        + (f"; {note}" if note else "")
    )


def _ratio_measured(
    runs: Callable[[int], dict[str, np.ndarray]],
    ratio: Callable[[np.ndarray, np.ndarray], Interval],
    detail: Callable[[int], str],
) -> Callable[..., Measured]:
    """Measured claims on ``ratio(r[num], r[den])`` of the task losses ``r = runs(seed)``, detailed by ``detail``."""

    def claim_on(num: str, den: str, *, predicted: float, tolerance: float) -> Measured:
        def measure(seed: int) -> Estimate:
            r = runs(seed)
            value, low, high = ratio(r[num], r[den])
            return Estimate(value, low, high, predicted=predicted, tolerance=tolerance, detail=detail(seed))

        return Measured(measure)

    return claim_on


_deep_ratio = _ratio_measured(deep_comparison, _grouped_ratio, _deep_detail)
"""A measured claim on mean(num)/mean(den) of :func:`deep_comparison` (99 % t interval over groups)."""


DEEP_BEATS_GD = Claim(
    name="trained-2-layer-beats-2-step-gd",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained deeper LSA outperforms plain GD)",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    builds_on=("k-layers-equal-k-gd-steps",),
    statement=r"\mathrm{loss}(\text{trained 2-layer tied LSA}) / \mathrm{loss}(\text{2 GD steps}, \hat\eta) \le 0.9",
    measured=_deep_ratio("trained", "gd", predicted=0.45, tolerance=0.45),
    note="d = 5, N = 10, x ~ U(−½, ½); the band [0, 0.9] encodes 'at least 10 % better than tuned 2-step GD'.",
)

DEEP_MATCHES_GDPP = Claim(
    name="trained-2-layer-matches-gdpp",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained recurrent LSA ≈ GD++)",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    builds_on=("gdpp-update",),
    statement=r"\mathrm{loss}(\text{trained 2-layer tied LSA}) / \mathrm{loss}(\text{2-layer GD++}, \hat\eta, \hat\gamma) = 1 \pm 0.05",
    measured=_deep_ratio("trained", "gdpp", predicted=1.0, tolerance=0.05),
)

DEEP_CLOSER_TO_GDPP = Claim(
    name="trained-2-layer-closer-to-gdpp",
    source="von Oswald et al. 2023, Fig. 3 (preds diff to GD++ ≪ to GD)",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    builds_on=("gdpp-update", "k-layers-equal-k-gd-steps"),
    statement=r"E\|\hat y_\theta - \hat y_{GD{+}{+}}\| / E\|\hat y_\theta - \hat y_{GD}\| \le 0.5",
    measured=_deep_ratio("to_gdpp", "to_gd", predicted=0.25, tolerance=0.25),
)

DEEP_IS_PLAIN_GD = Claim(
    name="trained-2-layer-is-plain-gd",
    source="Tempting extrapolation of the 1-layer result to depth",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    statement=r"E\cos(\partial_{x_q}\hat y_\theta, \partial_{x_q}\hat y_{\text{2 GD steps}}) \ge 0.99",
    measured=Measured(
        lambda seed: Estimate(
            *mean_interval(deep_comparison(seed)["cos_gd"]),
            predicted=1.0,
            tolerance=0.01,
            detail=_deep_detail(seed),
            control=float(np.mean(deep_comparison(seed)["cos_gdpp_gd"])),  # if the trained layers are GD++
        )
    ),
    holds=False,
    note=(
        "Two trained layers also transform the inputs (GD++'s x ← (I − γXXᵀ)x): not two plain GD steps. "
        "Control: read as GD++, the claim predicts the cosine of tuned GD++ with 2 GD steps on the same tasks."
    ),
)


# ---------------------------------------------------------------------------------------------
# Figure: the derived one-step loss against Monte Carlo, in the authors' code setting


def _loss_curve_data(seed: int = 0) -> dict:
    """Closed-form ½·MSE(η) of one GD step (x ~ U(−0.5, 0.5), d = N = 10) and Monte Carlo estimates."""
    loss = one_step_loss(symmetric_moments(S2, KAPPA))
    curve_eta = np.linspace(0.5, 12.0, 47)
    points = np.array([2.0, 4.0, _value(iid_optimum()[0], CODE), 8.0, 10.0])
    mc = np.array([mc_loss(CODE, float(eta), seed) for eta in points])
    return {
        "eta": curve_eta,
        "closed": np.array([_value(loss.subs(ETA, sp.nsimplify(e)), CODE) for e in curve_eta]),
        "mc_eta": points,
        "mc_mean": mc[:, 0],
        "mc_low": mc[:, 1],
        "mc_high": mc[:, 2],
    }


def _draw_loss_curve(ax, data) -> None:
    ax.plot(data["eta"], data["closed"], "-", color="0.3", label="derived ½·MSE(η)")
    err = np.vstack([data["mc_mean"] - data["mc_low"], data["mc_high"] - data["mc_mean"]])
    ax.errorbar(data["mc_eta"], data["mc_mean"], yerr=err, fmt="o", color="tab:blue", label="Monte Carlo (99 % CI)")
    ax.axvline(data["mc_eta"][2], color="tab:red", ls=":", label="η* = N / (s²(N + d + κ − 2))")
    ax.set_xlabel("rate η of the one-step readout (η/N) Σ y_i x_iᵀ x_q")
    ax.set_ylabel("½·MSE on the query")
    ax.legend()


FIGURES = (
    Figure(
        name="one-step-loss",
        caption="One GD step from W = 0 in the authors' code setting (d = N = 10, x ~ U(−0.5, 0.5), "
        "w ~ N(0, I)): the loss derived from the input moments against Monte Carlo, minimised at η* = 200/33.",
        data=_loss_curve_data,
        draw=_draw_loss_curve,
    ),
)


# ---------------------------------------------------------------------------------------------
# Three untied layers vs three GD steps and GD++ (von Oswald et al. §4, Fig. 3), tied start then untied

DEEP3_TIED = TrainConfig(
    nx=5,
    n_context=10,
    n_layers=3,
    recurrent=True,
    steps=1000,
    batch=256,
    lr=5e-3,
    schedule="cosine",
    clip=1.0,
    **ESCAPE,
)
"""Phase 1 of the untied 3-layer run: d = 5, N = 10, x ~ U(−½, ½) as in :data:`DEEP`; 3 weight-tied layers,
1000 Adam steps, batch 256, lr 5e-3 cosine, global-norm clip 1, the plateau test of the 600-step runs."""
DEEP3 = replace(DEEP3_TIED, recurrent=False, steps=2000, lr=1e-2, escape_step=0, restarts=0)
"""Phase 2: the three layers untied (copies of the tied layer), 2000 more Adam steps at lr 1e-2 cosine, clip 1.
From N(0, 0.01²) weights without the tied phase (3000 steps, batch 256, lr 1e-2 cosine, clip 10) training
seeds 0–3 ended at 0.46, 1.71, 2.71 and 0.51 × the loss of tuned GD++: a layer can stay near zero that long."""


@cached(maxsize=4)
def trained_untied(seed: int) -> UntiedResult:
    """The 3-layer LSA trained weight-tied, then untied (:func:`numerics.lsa.deep_training.train_tied_then_untied`)."""
    return train_tied_then_untied(DEEP3_TIED, DEEP3, seed)


@cached(maxsize=4)
def untied_comparison(seed: int) -> dict[str, np.ndarray]:
    """Per-task losses of the untied 3-layer LSA, 3-step GD (η line-searched) and tuned 3-layer GD++ (η, γ)."""
    model = lsa_model(trained_untied(seed).layers)
    tune = DEEP3.sample(np.random.default_rng([seed, 11]), 10_000)
    eta = line_search_rate(tune, DEEP3.n_layers)
    gdpp = gdpp_model(*tune_gdpp(tune, DEEP3.n_layers, eta), DEEP3.n_layers)
    tasks = DEEP3.sample(np.random.default_rng([seed, 10]), TEST_TASKS, n_queries=MC_QUERIES, seed=seed)
    return {
        "trained": task_losses(model, tasks),
        "tied": task_losses(lsa_model(trained_untied(seed).tied.layers), tasks),
        "gd": task_losses(gd_model(eta, DEEP3.n_layers), tasks),
        "gdpp": task_losses(gdpp, tasks),
    }


def _grouped_median_ratio(num: np.ndarray, den: np.ndarray) -> Interval:
    """median(num)/median(den) per group of tasks, 99 % t interval over MC_GROUPS contiguous groups."""
    groups = np.array_split(np.arange(num.size), MC_GROUPS)
    return t_interval([float(np.median(num[g]) / np.median(den[g])) for g in groups], MC_LEVEL)


def _untied_detail(seed: int) -> str:
    r, run = untied_comparison(seed), trained_untied(seed)
    note = run.tied.restart_note()
    medians = ", ".join(f"{k} {np.median(r[k]):.3g}" for k in ("trained", "tied", "gd", "gdpp"))
    return (
        f"median task ½·MSE: {medians}; mean ½·MSE trained {np.mean(r['trained']):.3g} (worst task"
        f" {np.max(r['trained']):.3g}), GD++ {np.mean(r['gdpp']):.3g} (worst {np.max(r['gdpp']):.3g});"
        f" {DEEP3_TIED.steps} tied + {DEEP3.steps} untied Adam steps, batch {DEEP3.batch}, lr {DEEP3_TIED.lr:g} then"
        f" {DEEP3.lr:g} cosine, {TEST_TASKS} test tasks, seed {seed}" + (f"; tied phase {note}" if note else "")
    )


_untied_ratio = _ratio_measured(untied_comparison, _grouped_median_ratio, _untied_detail)
"""A measured claim on the ratio of median task losses of :func:`untied_comparison` (99 % t interval)."""


UNTIED_ASSUMPTIONS = (
    "three untied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",
    "trained weight-tied for 1000 steps, then untied for 2000",
    "compared on the median task (the mean is dominated by rare tasks)",
)
UNTIED_MEDIAN_NOTE = (
    "Median, not mean, task loss: in a first run on 2¹⁶ test tasks, at check seeds 3 and 6 one task had ½·MSE 1005 and 50 under the "
    "trained layers (GD++'s worst: 2.2 and 2.7; median 1.7·10⁻⁴ against 1.0·10⁻³), so the 99 % interval of the "
    "mean-loss ratio spanned [−5, 11] and the mean comparison was undecided there, while seed 0's was 0.16 "
    "[0.15, 0.17]. Three layers compute a high-degree polynomial of the context, accurate on the bulk of the "
    "spectrum of XᵀX and far off on rare tasks outside it; training clips the gradients of those batches."
)

UNTIED_BEATS_GD = Claim(
    name="trained-3-layer-untied-beats-3-step-gd",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained deeper LSA outperforms plain GD)",
    assumptions=UNTIED_ASSUMPTIONS,
    builds_on=("k-layers-equal-k-gd-steps",),
    statement=r"\mathrm{med}\,\ell(\text{trained 3-layer untied LSA}) / \mathrm{med}\,\ell(\text{3 GD steps}, \hat\eta) \le 0.9",
    measured=_untied_ratio("trained", "gd", predicted=0.45, tolerance=0.45),
    note="The band [0, 0.9] encodes 'at least 10 % better than tuned 3-step GD', as for two tied layers. "
    + UNTIED_MEDIAN_NOTE,
)

UNTIED_REACHES_GDPP = Claim(
    name="trained-3-layer-untied-reaches-gdpp",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained deeper LSA approaches GD++)",
    assumptions=UNTIED_ASSUMPTIONS,
    builds_on=("gdpp-update",),
    statement=r"\mathrm{med}\,\ell(\text{trained 3-layer untied LSA}) / \mathrm{med}\,\ell(\text{3-layer GD++}, \hat\eta, \hat\gamma) \le 1",
    measured=_untied_ratio("trained", "gdpp", predicted=0.5, tolerance=0.5),
    note=(
        "Three untied layers set to θ_GD++(η, γ) (paper eq. 23) are 3-layer GD++, so untied LSA can do at least as "
        "well as GD++: the band [0, 1] is that bound, not a fit. Measured, the trained layers go well below it on the "
        "typical task (noiseless tasks with N > d have zero Bayes risk, which GD++ does not reach in three steps); "
        "'matches GD++' (ratio ≈ 1), true of two tied layers, is not what untied layers do here. Without the tied "
        "phase the same budget ended at 0.46–2.7 × GD++'s mean loss over training seeds 0–3. " + UNTIED_MEDIAN_NOTE
    ),
)


def _untied_curve_data(seed: int = 0) -> dict:
    """Training loss of the tied-then-untied 3-layer run (50-step running mean) and the mean test ½·MSE levels."""
    losses, window = trained_untied(seed).all_losses, 50
    r = untied_comparison(seed)
    return {
        "step": np.arange(window, losses.size + 1),
        "loss": np.convolve(losses, np.ones(window) / window, mode="valid"),
        "untie": np.array([DEEP3_TIED.steps]),
        "levels": np.array([np.mean(r[k]) for k in ("gd", "gdpp", "trained")]),
    }


def _draw_untied_curve(ax, data) -> None:
    ax.semilogy(data["step"], data["loss"], color="tab:blue", label="training ½·MSE (50-step mean)")
    ax.axvline(data["untie"][0], color="0.5", ls=":", label="layers untied")
    for level, style, label in zip(
        data["levels"], ("--", "-.", "-"), ("3-step GD (η̂), test", "3-layer GD++ (η̂, γ̂), test", "trained untied, test")
    ):
        ax.axhline(level, color="tab:red" if "GD" in label else "tab:blue", ls=style, lw=1, label=label)
    ax.set_xlabel("Adam step (weight-tied, then untied)")
    ax.set_ylabel("½·MSE on the query")
    ax.legend(loc="lower left")


FIGURES = (
    *FIGURES,
    Figure(
        name="untied-3-layer-training",
        caption="Three LSA layers on d = 5, N = 10, x ~ U(−½, ½) (seed 0): 1000 Adam steps weight-tied, then the "
        "layers untied for 2000 more. The tied phase stays above 3-layer GD++; once untied, the layers go below it "
        "(horizontal lines: mean test ½·MSE of tuned 3-step GD, tuned GD++ and the trained layers). The spikes are "
        "batches holding one of the rare tasks on which the untied layers err badly; the claims therefore compare "
        "median task losses.",
        data=_untied_curve_data,
        draw=_draw_untied_curve,
    ),
)
