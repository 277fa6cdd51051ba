"""Claims: the symmetry behind the preconditioned-GD critical points of Ahn et al. (NeurIPS 2023, §3–4).

Ahn, Cheng, Daneshmand & Sra show that a linear transformer of L layers whose x-rows are left
unchanged (their B_i = 0) predicts with L steps of preconditioned gradient descent
W ← W − η∇L(W)A_i on the in-context loss (their Lemma 1, with the preconditioners A_i as
parameters), and that for x ~ N(0, Σ) and tasks w ~ N(0, Σ⁻¹) the choice A_i = a_iΣ⁻¹ is a critical
point of the in-context risk for suitable scalars a_i (their Thm 3; Thm 4 adds B_i = b_i I, the
GD++ case of von Oswald et al.). Both rest on one exact identity, claimed here for every size
(``preconditioned-gd-change-of-variables``): if the inputs are x = Rz (columns, X = RZ), then one
preconditioned step with Γ on X, followed by the change of variables W̃ = WR, is the step with
RᵀΓR on Z, and the predictions agree, W'(Rz_q) = W̃'z_q.

Taking R = Σ^{1/2} whitens the inputs (z ~ N(0, I)) and turns w ~ N(0, Σ⁻¹) into w̃ = wR ~ N(0, I),
and A_i = a_iΣ⁻¹ into RᵀA_iR = a_i I: the risk in Σ-coordinates is the isotropic risk of scalar
preconditioners. Taking R = U orthogonal shows that the isotropic risk g is invariant under
A_i → UᵀA_iU, because N(0, I) is; so its gradient at (a_0 I, …, a_{L−1} I) commutes with every U
and is a multiple of I, and it vanishes exactly when the scalar risk is stationary in (a_0, …). That
is the structure of Ahn et al.'s Thm 3. What is not checked here is the scalar stationarity itself
(the values a_i, which need the L-step risk in closed form).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icl_verify.blocks import preconditioned_gd_step
from icl_verify.core.figure import Figure
from icl_verify.core.statement import statement
from icl_verify.core.symbols import matrix, scalar

FAMILY = "preconditioned-gd"
PAPER = "Ahn et al. 2023"


def step_then_change(Z: Any, R: Any, W: Any, Y: Any, Gamma: Any, eta: Any, z_q: Any) -> tuple[Any, Any]:
    """One step with Γ on the inputs X = RZ, then W̃ = W'R, and the prediction W'(R z_q)."""
    W_next = preconditioned_gd_step(W, R @ Z, Y, eta, Gamma)
    return W_next @ R, W_next @ (R @ z_q)


def change_then_step(Z: Any, R: Any, W: Any, Y: Any, Gamma: Any, eta: Any, z_q: Any) -> tuple[Any, Any]:
    """W̃ = WR first, then one step with RᵀΓR on Z, and the prediction W̃' z_q."""
    W_next = preconditioned_gd_step(W @ R, Z, Y, eta, R.T @ Gamma @ R)
    return W_next, W_next @ z_q


CHANGE_OF_VARIABLES = statement(
    name="preconditioned-gd-change-of-variables",
    source=f"{PAPER}, Lemma 1 and Thm 3 (preconditioned GD, inputs x = Rz)",
    statement=r"\big(W - \eta \nabla L_{RZ}(W)\,\Gamma\big) R = \tilde W - \eta \nabla L_Z(\tilde W)\, R^\top \Gamma R,"
    r"\quad \tilde W = WR,\quad \text{and } W'(Rz_q) = \tilde W' z_q",
    symbols={
        "Z": matrix("Nx", "N"),
        "R": matrix("Nx", "Nx"),
        "W": matrix("Ny", "Nx"),
        "Y": matrix("Ny", "N"),
        "Gamma": matrix("Nx", "Nx"),
        "eta": scalar(),
        "z_q": matrix("Nx", 1),
    },
    lhs=step_then_change,
    rhs=change_then_step,
    sizes={"Nx": (1, 4), "Ny": (1, 2), "N": (1, 5)},
    explicit_sizes={"Nx": (1, 2), "Ny": (1,), "N": (1, 2)},
    assumptions=("squared in-context loss L(W) = 1/(2N) Σ‖W x_i − y_i‖²",),
    note="R need not be invertible or symmetric; Σ^{1/2} (whitening) and an orthogonal U are the two uses.",
    expect="proved",
)


# ---------------------------------------------------------------------------------------------
# Figure: the two-step risk over scalar multiples of Σ⁻¹, in Σ-coordinates and whitened


SIGMA = np.diag([0.25, 1.0, 4.0])


def _two_step_risk(X: np.ndarray, w: np.ndarray, x_q: np.ndarray, Gamma: np.ndarray, eta: float) -> float:
    """(W₂x_q − wᵀx_q)² after two preconditioned steps from W₀ = 0 on one task (columns: X is d × N)."""
    W = np.zeros((1, X.shape[0]))
    for _ in range(2):
        W = preconditioned_gd_step(W, X, w.T @ X, eta, Gamma)
    return float(((W - w.T) @ x_q)[0, 0] ** 2)


def _risk_data(seed: int = 0, tasks: int = 300, n: int = 8) -> dict:
    """Mean two-step risk at A = aΣ⁻¹ (x ~ N(0, Σ), w ~ N(0, Σ⁻¹)) and at a·I on the whitened tasks."""
    rng = np.random.default_rng(seed)
    root = np.sqrt(SIGMA)  # Σ^{1/2} (diagonal)
    scales = np.linspace(0.05, 0.6, 12)
    draws = [
        (rng.standard_normal((3, n)), rng.standard_normal((3, 1)), rng.standard_normal((3, 1))) for _ in range(tasks)
    ]
    original, whitened = [], []
    for a in scales:
        original.append(
            np.mean(
                [
                    _two_step_risk(root @ Z, np.linalg.solve(root, v), root @ z, a * np.linalg.inv(SIGMA), 1.0)
                    for Z, v, z in draws
                ]
            )
        )
        whitened.append(np.mean([_two_step_risk(Z, v, z, a * np.eye(3), 1.0) for Z, v, z in draws]))
    return {"a": scales, "original": np.array(original), "whitened": np.array(whitened)}


def _draw_risk(ax, data) -> None:
    ax.plot(data["a"], data["original"], "o", label="A = aΣ⁻¹ on x ~ N(0, Σ), w ~ N(0, Σ⁻¹)")
    ax.plot(data["a"], data["whitened"], "-", label="a·I on the whitened tasks z, w̃ ~ N(0, I)")
    ax.set_xlabel("scalar a of the preconditioner (both steps)")
    ax.set_ylabel("mean squared query error after 2 steps")
    ax.legend()


FIGURES = (
    Figure(
        name="whitened-risk",
        caption="Two preconditioned GD steps (η = 1, N = 8, Σ = diag(0.25, 1, 4), 300 tasks, seed 0): the risk of "
        "A = aΣ⁻¹ on tasks with w ~ N(0, Σ⁻¹) is, task by task, the risk of a·I on the whitened tasks — the "
        "change of variables of the claim — so the critical points in a are those of the isotropic problem.",
        data=_risk_data,
        draw=_draw_risk,
    ),
)
