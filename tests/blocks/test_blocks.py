"""The building blocks agree with independent implementations, on NumPy and on SymPy alike."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from sympy.matrices.expressions import MatrixSymbol

from icl_verify import blocks as b
from icl_verify.maths.strategies import matrices, regression_cases
from icl_verify.maths.symbolic import as_explicit, is_zero
from icl_verify.numerics.dual import attention as dual
from icl_verify.numerics.kinetics import ode as kinetics_ode
from icl_verify.numerics.lsa import layers
from icl_verify.numerics.lsa.regression import gd

FAST = settings(max_examples=30, deadline=None)


@FAST
@given(regression_cases(), st.booleans())
def test_lsa_layer_matches_the_numerics_row_implementation(case, include_query):
    """Blocks (columns, one task) against numerics.lsa.layers (rows, batched): the same layer."""
    X, Y, x_q, W0, eta, n = case["X"], case["Y"], case["x_q"], case["W0"], case["eta"], case["N"]
    rows = layers.lsa_layer(
        layers.make_tokens(X[None], Y[None], x_q[None], W0),
        layers.theta_gd(case["Nx"], case["Ny"], eta, n, W0),
        n,
        include_query=include_query,
    )[0]
    E, e_q = b.lsa_layer(
        b.theta_gd(W0, eta, n), b.context_tokens(X.T, Y.T), b.query_token(x_q.T, W0), include_query=include_query
    )
    np.testing.assert_allclose(np.hstack([E, e_q]).T, rows, rtol=1e-12, atol=1e-12)


@FAST
@given(regression_cases(), st.integers(0, 3))
def test_gd_steps_match_the_numerics_gd(case, K):
    X, Y, W0, eta = case["X"], case["Y"], case["W0"], case["eta"] / 4
    expected = gd(W0, X[None], Y[None], eta, K)[0]
    np.testing.assert_allclose(b.gd_steps(W0, X.T, Y.T, eta, K), expected, rtol=1e-10, atol=1e-10)


@FAST
@given(regression_cases(Nx=(1, 3)), st.floats(-1.0, 1.0))
def test_gdpp_moves_inputs_by_one_minus_gamma_xxt(case, gamma):
    """GD++ (von Oswald et al. eq. 23): x_j ↦ (I − γ XXᵀ) x_j, y_j ↦ y_j − ΔW x_j."""
    X, Y, W0, eta, x_q = case["X"].T, case["Y"].T, case["W0"], case["eta"], case["x_q"].T
    E, _ = b.lsa_layer(b.theta_gdpp(W0, eta, gamma, case["N"]), b.context_tokens(X, Y), b.query_token(x_q, W0))
    A = np.eye(len(X)) - gamma * X @ X.T
    expected = np.vstack([A @ X, Y - b.delta_w(W0, X, Y, eta) @ X])
    np.testing.assert_allclose(E, expected, rtol=1e-10, atol=1e-10)


@FAST
@given(st.integers(1, 3).flatmap(lambda d: st.tuples(matrices(3, d, 1.0), matrices(d, 1), matrices(d, 1))))
def test_sherman_morrison_is_the_inverse_of_the_rank_one_update(args):
    X, u, v = args
    A = X.T @ X + np.eye(X.shape[1])  # symmetric positive definite
    u = u / (1 + np.abs(u).max())
    expected = np.linalg.inv(A + u @ v.T)
    np.testing.assert_allclose(b.sherman_morrison(np.linalg.inv(A), u, v), expected, rtol=1e-8, atol=1e-8)


@FAST
@given(regression_cases(N=(1, 4)), st.floats(0.1, 2.0))
def test_ridge_solves_its_normal_equations(case, lam):
    X, Y = case["X"].T, case["Y"].T
    W = b.ridge(X, Y, lam)
    np.testing.assert_allclose(W @ (X @ X.T + lam * np.eye(len(X))), Y @ X.T, rtol=1e-9, atol=1e-9)


def _icl_case(rng):
    return {
        "W_V": rng.normal(size=(2, 3)),
        "W_K": rng.normal(size=(2, 3)),
        "demos": rng.normal(size=(4, 3)),
        "text": rng.normal(size=(2, 3)),
        "q": rng.normal(size=2),
    }


@pytest.mark.parametrize("seed", range(3))
def test_attention_blocks_match_numerics_dual(seed):
    c = _icl_case(np.random.default_rng(seed))
    cols = {k: c[k].T for k in ("demos", "text")}
    q = c["q"][:, None]
    for softmax in (False, True):
        expected = dual.icl_attention(c["W_V"], c["W_K"], c["demos"], c["text"], c["q"], use_softmax=softmax)
        got = b.icl_attention(c["W_V"], c["W_K"], cols["demos"], cols["text"], q, softmax=softmax)
        np.testing.assert_allclose(got[:, 0], expected, rtol=1e-12)
    np.testing.assert_allclose(
        b.w_zsl(c["W_V"], c["W_K"], cols["text"]), dual.zero_shot_weight(c["W_V"], c["W_K"], c["text"])
    )
    np.testing.assert_allclose(
        b.delta_w_icl(c["W_V"], c["W_K"], cols["demos"]), dual.delta_w_icl(c["W_V"], c["W_K"], c["demos"])
    )
    np.testing.assert_allclose(
        b.demo_mass(c["W_K"], cols["demos"], cols["text"], q), dual.demo_mass(c["W_K"], c["demos"], c["text"], c["q"])
    )


def test_gelu_is_x_times_the_normal_cdf_on_both_sides():
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(b.gelu(x), x * norm.cdf(x), rtol=1e-12, atol=1e-15)
    z = sp.Symbol("z", real=True)
    assert sp.simplify(sp.diff(b.gelu(z), z).subs(z, 0) - sp.Rational(1, 2)) == 0  # GeLU'(0) = Φ(0) = 1/2


def test_layer_norm_centres_and_scales_on_both_sides():
    x = np.array([[1.0], [2.0], [6.0]])
    expected = (x - 3.0) / np.sqrt(np.mean((x - 3.0) ** 2))
    np.testing.assert_allclose(b.layer_norm(x), expected, rtol=1e-14)
    a = sp.Symbol("a", positive=True)
    assert sp.simplify(b.layer_norm(sp.Matrix([a, -a])) - sp.Matrix([1, -1])) == sp.zeros(2, 1)


@pytest.mark.parametrize(("convention", "loss_factor"), [("half", sp.Rational(1, 2)), ("full", 1)])
def test_sgd_step_follows_the_gradient_of_its_convention(convention, loss_factor):
    """Akyürek et al. 2023, Theorem 1: w − α ∇ℓ(w) with ℓ computed and differentiated by SymPy."""
    w, x = sp.Matrix(sp.symbols("w0:2")), sp.Matrix(sp.symbols("x0:2"))
    y, alpha, lam = sp.symbols("y alpha lambda")
    loss = loss_factor * (((w.T * x)[0, 0] - y) ** 2 + lam * (w.T * w)[0, 0])
    expected = w - alpha * sp.Matrix([sp.diff(loss, wi) for wi in w])
    assert sp.expand(b.sgd_step(w, x, y, alpha, lam, convention=convention) - expected) == sp.zeros(2, 1)


def test_sgd_step_rejects_an_unknown_convention():
    with pytest.raises(ValueError, match="convention must be one of"):
        b.sgd_step(np.ones((1, 1)), np.ones((1, 1)), 1.0, 0.1, 0.0, convention="third")


def test_symbolic_blocks_prove_gd_at_every_size():
    """The dimension-free form of Proposition 1 from the blocks, and at a concrete size."""
    nx, ny, n = sp.symbols("N_x N_y N", positive=True, integer=True)
    eta = sp.Symbol("eta", positive=True)
    for sizes in ((nx, ny, n), (2, 1, 3)):
        X, Y = MatrixSymbol("X", sizes[0], sizes[2]), MatrixSymbol("Y", sizes[1], sizes[2])
        W0, x_q = MatrixSymbol("W_0", sizes[1], sizes[0]), MatrixSymbol("x_q", sizes[0], 1)
        residual = b.lsa_prediction(b.theta_gd(W0, eta, sizes[2]), X, Y, x_q, W0) - b.gd_step(W0, X, Y, eta) @ x_q
        assert is_zero(residual if sizes[0] is nx else as_explicit(residual)[0]) is True


def test_regression_symbols_reject_an_unknown_w0():
    with pytest.raises(ValueError, match="w0 must be"):
        b.regression_symbols(w0="sometimes")


@settings(max_examples=50, deadline=None)
@given(
    st.floats(-3, 3),
    st.floats(-6, 3),
    st.floats(0.1, 2),
    st.floats(0, 2),
    st.integers(2, 500),
    st.floats(0, 0.1),
    st.floats(0, 0.1),
)
def test_kinetics_flow_matches_the_integrators_arc_derivatives(w, beta, c1, c2, n, decay_w, decay_beta):
    # the integrator writes the same flow in the arc variable s, dt/ds = 1/(1 + r e^β) (numerics.kinetics.ode)
    log_r = np.log(np.array([0.7]))
    n_ = np.array([float(n)])
    state = (np.zeros(1), np.array([w]), np.array([beta]))
    # constant coefficients (their rates formed once) give what the same coefficients as schedules of t give
    constant = kinetics_ode._ArcFlow(n_, log_r, c1, c2, decay_w, decay_beta, 0.0)(*state)
    schedules = kinetics_ode._ArcFlow(
        n_, log_r, kinetics_ode.constant(c1), kinetics_ode.constant(c2), decay_w, decay_beta, 0.0
    )(*state)
    np.testing.assert_array_equal(constant, schedules)
    slow, dw_ds, db_ds = constant
    dw, db = b.kinetics_flow(w, beta, c1, c2, n, decay_w=decay_w, decay_beta=decay_beta)
    np.testing.assert_allclose([dw * slow[0], db * slow[0]], [dw_ds[0], db_ds[0]], rtol=1e-12, atol=1e-15)


def test_kinetics_flow_is_the_gradient_flow_of_the_simplified_loss():
    # L = −(c₁/N)(w e^β − (c₂/2) w²) (Nguyen & Reddy 2025, eq. 3): the flow is (−∂L/∂w, −∂L/∂β)
    w, beta, c1, c2, n = sp.symbols("w beta c_1 c_2 N")
    loss = -(c1 / n) * (w * sp.exp(beta) - c2 / 2 * w**2)
    flow = b.kinetics_flow(w, beta, c1, c2, n)
    assert all(is_zero(f + sp.diff(loss, v)) for f, v in zip(flow, (w, beta)))


# ---------------------------------------------------------------------------------------------
# Arguments are validated on the NumPy side, naming the argument


def _regression_arrays():
    rng = np.random.default_rng(0)
    return rng.standard_normal((1, 2)), rng.standard_normal((2, 3)), rng.standard_normal((1, 3))


@pytest.mark.parametrize(
    ("K", "match"),
    [
        (-1, "K must be a non-negative integer, got -1"),
        (2.5, "K must be a non-negative integer, got 2.5"),
        (True, "K must be a non-negative integer"),
        (10**12, "K must be at most 1000000"),
    ],
)
def test_gd_steps_refuses_a_step_count_that_is_not_a_bounded_integer(K, match):
    W, X, Y = _regression_arrays()
    with pytest.raises(ValueError, match=match):
        b.gd_steps(W, X, Y, 0.1, K)


def test_gd_gradient_refuses_a_transposed_y_instead_of_broadcasting():
    W, X, Y = _regression_arrays()
    with pytest.raises(ValueError, match=r"Y must have shape \(1, 3\), got \(3, 1\)"):
        b.gd_gradient(W, X, Y.T)
    with pytest.raises(ValueError, match=r"X must have shape \(2, 2\), got \(3, 2\)"):
        b.gd_gradient(W, X.T, Y)


@pytest.mark.parametrize("argument", ["W", "X", "Y"])
def test_complex_regression_data_is_refused_naming_the_argument(argument):
    args = dict(zip("WXY", _regression_arrays()))
    args[argument] = args[argument] + 1j
    with pytest.raises(ValueError, match=f"{argument} must be a matrix of real numbers"):
        b.gd_gradient(**args)


def test_attention_and_rank_one_update_refuse_nonconforming_arguments():
    V, K, q = np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 1))
    with pytest.raises(ValueError, match="K must have shape"):
        b.linear_attention(V, K.T, q)
    with pytest.raises(ValueError, match="q must have shape"):
        b.softmax_attention(V, K, q.T)
    with pytest.raises(ValueError, match="u must have shape"):
        b.sherman_morrison(np.eye(2), np.ones((3, 1)), np.ones((2, 1)))


def test_symbolic_sizes_that_may_agree_are_left_to_sympy():
    n, N = sp.symbols("n N", positive=True, integer=True)
    W, X, Y = sp.MatrixSymbol("W", 1, n), sp.MatrixSymbol("X", n, N), sp.MatrixSymbol("Y", 1, N)
    assert b.gd_gradient(W, X, Y).shape == (1, n)
    with pytest.raises(ValueError, match="Y must have shape"):
        b.gd_gradient(W, X, sp.MatrixSymbol("Y", 2, N))
