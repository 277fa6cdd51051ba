"""The converged one-layer LSA of Zhang, Frei & Bartlett (2024) on prompts from another distribution.

Trained by gradient flow on prompts of N examples x ~ N(0, Λ), w ~ N(0, I_d), y = xᵀw, the
one-layer linear self-attention model converges to the predictor ŷ = x_qᵀ Γ⁻¹ (1/M) Σᵢ yᵢxᵢ on a
prompt of M examples, with Γ = (1 + 1/N)Λ + (tr Λ/N) I (ZFB 2024, Thm 4.1). On test prompts with
x ~ N(0, Λ'), a query x_q ~ N(0, Λ') and tasks with E[wwᵀ] = Σ_w, write A = Γ⁻¹ and h = (1/M)XᵀXw.
The error is x_qᵀ(Ah − w), so the risk is tr(Λ' E[(Ah − w)(Ah − w)ᵀ]) with E[h wᵀ] = Λ'Σ_w and, from
the Wishart moment E[W B W] = M(M + 1)Λ'BΛ' + M tr(BΛ')Λ' for W = XᵀX and symmetric B (Isserlis),
E[hhᵀ] = (1 + 1/M)Λ'Σ_wΛ' + tr(Σ_wΛ')Λ'/M:

    R = tr(Λ' (A E[hhᵀ] Aᵀ − AΛ'Σ_w − Σ_wΛ'Aᵀ + Σ_w)).

It depends on the task distribution only through Σ_w, and on the covariates through Λ'.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, positive_int, same_size, seed_value
from icl_verify.numerics.shared.fuzz import Fuzz


def _spd(name: str, value: object) -> NDArray[np.float64]:
    M = finite_array(name, value, ndim=2, nonempty=True)
    if M.shape[0] != M.shape[1] or not np.allclose(M, M.T, rtol=0, atol=1e-12 * np.abs(M).max()):
        raise InvalidArgument(f"{name} must be a symmetric square matrix, got shape {M.shape}")
    if not np.linalg.eigvalsh(M)[0] > 0:
        raise InvalidArgument(f"{name} must be positive definite")
    return M


def zfb_preconditioner(Lambda: ArrayLike, n: int) -> NDArray[np.float64]:
    """Γ = (1 + 1/N)Λ + (tr Λ/N) I, the converged LSA's preconditioner (ZFB 2024, Thm 4.1)."""
    Lambda, n = _spd("Lambda", Lambda), positive_int("n", n)
    with np.errstate(over="ignore"):
        gamma = (1 + 1 / n) * Lambda + np.trace(Lambda) / n * np.eye(len(Lambda))
    return finite_result(gamma, "Lambda overflows float64 in Γ")


def _shapes(
    A: ArrayLike, Lambda_test: ArrayLike, Sigma_w: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    A = finite_array("A", A, ndim=2, nonempty=True)
    Lambda_test, Sigma_w = _spd("Lambda_test", Lambda_test), _spd("Sigma_w", Sigma_w)
    same_size("A", A.shape[0], len(Lambda_test), "rows = the size of Lambda_test")
    same_size("A", A.shape[1], len(Lambda_test), "columns = the size of Lambda_test")
    same_size("Sigma_w", len(Sigma_w), len(Lambda_test), "size = the size of Lambda_test")
    return A, Lambda_test, Sigma_w


def shifted_risk(A: ArrayLike, Lambda_test: ArrayLike, Sigma_w: ArrayLike, m: int) -> float:
    """The closed-form risk E[(x_qᵀA(1/M)Xᵀy − x_qᵀw)²] of the module docstring, noiseless labels."""
    A, L, S = _shapes(A, Lambda_test, Sigma_w)
    m = positive_int("m", m)
    hh = (1 + 1 / m) * L @ S @ L + np.trace(S @ L) / m * L
    with np.errstate(over="ignore", invalid="ignore"):
        risk = float(np.trace(L @ (A @ hh @ A.T - A @ L @ S - S @ L @ A.T + S)))
    return finite_result(risk, "A, Lambda_test and Sigma_w make the risk overflow float64")


def simulated_errors(
    A: ArrayLike,
    Lambda_test: ArrayLike,
    Sigma_w: ArrayLike,
    m: int,
    prompts: int,
    seed: int,
    *,
    tasks: str = "gaussian",
    query: str = "drawn",
) -> NDArray[np.float64]:
    """Squared query errors of ŷ = x_qᵀA(1/M)Xᵀy on ``prompts`` fresh prompts; w ~ N(0, Σ_w)
    (``tasks="gaussian"``) or w = Σ_w^{1/2}√d·u with u uniform on the sphere (``"sphere"``).

    ``query="drawn"``: the error (x_qᵀr)² at a drawn query x_q ~ N(0, Λ'), r = A h − w.
    ``query="averaged"``: its mean over the query, E[(x_qᵀr)² | r] = rᵀΛ'r (x_q is independent of r),
    the same mean with a lighter tail: the drawn error is rᵀΛ'r times a χ²₁ factor (kurtosis 15), which
    makes the t-interval of its mean cover less than its level at these sample sizes.
    """
    A, L, S = _shapes(A, Lambda_test, Sigma_w)
    m, prompts = positive_int("m", m), positive_int("prompts", prompts)
    if tasks not in ("gaussian", "sphere"):
        raise InvalidArgument(f"tasks must be 'gaussian' or 'sphere', got {tasks!r}")
    if query not in ("drawn", "averaged"):
        raise InvalidArgument(f"query must be 'drawn' or 'averaged', got {query!r}")
    rng = np.random.default_rng(seed_value("seed", seed))
    d = len(L)
    x_root, w_root = np.linalg.cholesky(L), np.linalg.cholesky(S)
    X = rng.standard_normal((prompts, m, d)) @ x_root.T
    x_q = rng.standard_normal((prompts, d)) @ x_root.T
    u = rng.standard_normal((prompts, d))
    if tasks == "sphere":
        u *= np.sqrt(d) / np.linalg.norm(u, axis=1, keepdims=True)
    w = u @ w_root.T
    with np.errstate(over="ignore", invalid="ignore"):
        h = np.einsum("pmd,pm->pd", X, np.einsum("pmd,pd->pm", X, w)) / m
        r = h @ A.T - w
        errors = np.einsum("pd,pd->p", x_q, r) ** 2 if query == "drawn" else np.einsum("pd,de,pe->p", r, L, r)
    return finite_result(errors, "A, Lambda_test and Sigma_w make the errors overflow float64")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "zfb_preconditioner": Fuzz(lambda: {"Lambda": np.diag([1.0, 2.0]), "n": 5}),
    "shifted_risk": Fuzz(lambda: {"A": np.eye(2), "Lambda_test": np.diag([1.0, 2.0]), "Sigma_w": np.eye(2), "m": 5}),
    "simulated_errors": Fuzz(
        lambda: {
            "A": np.eye(2),
            "Lambda_test": np.diag([1.0, 2.0]),
            "Sigma_w": np.eye(2),
            "m": 5,
            "prompts": 4,
            "seed": 0,
        }
    ),
}
