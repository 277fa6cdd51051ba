"""The moment algebra against textbook moments, exact enumeration at concrete sizes and Monte Carlo."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
import sympy as sp
from sympy.matrices.expressions import Identity, MatrixSymbol, Trace

from icl_verify.experiments import lsa
from icl_verify.families.optimal_lsa import moments as optimal_moments
from icl_verify.maths.moments import (
    MAX_PAIRINGS,
    Law,
    OutsideFragment,
    commutative_value,
    expectation,
    normal_form,
    trace_gradient,
)

N, D = sp.symbols("N d", positive=True, integer=True)
S2, KAPPA = sp.symbols("s2 kappa", positive=True)
X = MatrixSymbol("X", N, D)
LAM = MatrixSymbol("Lambda", D, D)
M = MatrixSymbol("M", D, D)


def same(a, b) -> bool:
    """Equal after both sides' traces are put in canonical rotation."""
    diff = sp.expand(normal_form(a) - normal_form(b))
    return diff == 0 or diff.is_ZeroMatrix is True


# ---------------------------------------------------------------------------------------------
# Closed forms: Isserlis (1918) pairings, Wishart moments (Gupta & Nagar 2000, Ch. 3), chi-square


def test_first_wishart_moment():
    assert same(expectation(X.T * X, {X: Law.gaussian(LAM)}), N * LAM)


def test_second_wishart_moment_with_a_matrix_between():
    """E[S M S] = N² ΛMΛ + N ΛMᵀΛ + N tr(ΛM) Λ for S = XᵀX, rows of X ~ N(0, Λ)."""
    got = expectation(X.T * X * M * X.T * X, {X: Law.gaussian(LAM)})
    assert same(got, N**2 * LAM * M * LAM + N * LAM * M.T * LAM + N * Trace(LAM * M) * LAM)


def test_second_wishart_moment():
    """E[S²] = N(N + 1) Λ² + N tr(Λ) Λ."""
    got = expectation(X.T * X * X.T * X, {X: Law.gaussian(LAM)})
    assert same(got, N * (N + 1) * LAM * LAM + N * Trace(LAM) * LAM)


def test_wishart_trace_moments_at_identity():
    """E tr S² = N d (N + d + 1); tr S ~ χ²_{Nd}, so E (tr S)² = Nd (Nd + 2)."""
    law = {X: Law.gaussian(sp.S.One)}
    assert sp.expand(expectation(Trace(X.T * X * X.T * X), law) - N * D * (N + D + 1)) == 0
    assert sp.expand(expectation(Trace(X.T * X) ** 2, law) - N * D * (N * D + 2)) == 0


def test_outer_gram_and_odd_moments():
    """E[X Xᵀ] = tr(Λ) I_N; a product with an odd number of X's has mean 0."""
    law = {X: Law.gaussian(LAM)}
    assert same(expectation(X * X.T, law), Trace(LAM) * Identity(N))
    assert same(expectation(X.T * X * X.T, law), sp.ZeroMatrix(D, N))


def test_fourth_cumulant_of_iid_entries():
    """E tr S² = Σ_{i,j,a,b} E X_ia X_ib X_ja X_jb: i = j gives N d s⁴ (d + κ − 1), i ≠ j needs a = b: N(N − 1) d s⁴."""
    got = expectation(Trace(X.T * X * X.T * X), {X: Law.iid(S2, KAPPA)})
    assert sp.expand(got - N * D * S2**2 * (D + KAPPA - 1) - N * (N - 1) * D * S2**2) == 0
    # κ = 3 is the Gaussian value
    assert sp.expand(got.subs(KAPPA, 3) - expectation(Trace(X.T * X * X.T * X), {X: Law.gaussian(S2)})) == 0


def test_independent_symbols_pair_only_among_themselves():
    """E[Xᵀ Y Yᵀ X] = E[Xᵀ E[YYᵀ] X] = tr(Σ_Y) N Σ_X for independent X, Y (rows N(0, Σ))."""
    Y = MatrixSymbol("Y", N, D)
    sy = MatrixSymbol("Sigma_Y", D, D)
    got = expectation(X.T * Y * Y.T * X, {X: Law.gaussian(LAM), Y: Law.gaussian(sy)})
    assert same(got, N * Trace(sy) * LAM)


# ---------------------------------------------------------------------------------------------
# Exact enumeration at concrete sizes (independent of the pairing code)


def entry_expectation(poly: sp.Expr, moment: dict[sp.Symbol, Callable[[int], sp.Expr]]) -> sp.Expr:
    """E of a polynomial in independent scalar variables, monomial by monomial."""
    syms = sorted(moment, key=str)
    total = sp.S.Zero
    for powers, coeff in sp.Poly(sp.expand(poly), *syms).terms():
        term = coeff
        for s, k in zip(syms, powers):
            term *= moment[s](k)
        total += term
    return sp.expand(total)


def gaussian_moment(variance: sp.Expr) -> Callable[[int], sp.Expr]:
    """E z^k for z ~ N(0, variance): (k − 1)!! variance^{k/2}, odd moments 0."""
    return lambda k: sp.S.Zero if k % 2 else sp.factorial2(k - 1) * variance ** (k // 2)


def iid_moment(k: int) -> sp.Expr:
    """E z^k of a symmetric variable with variance s² and kurtosis κ (k ≤ 4)."""
    return sp.S.Zero if k % 2 else {0: sp.S.One, 2: S2, 4: KAPPA * S2**2}[k]


def explicit(expr, n: int, d: int, values: dict) -> sp.Matrix:
    """``expr`` at N = n, d = d with its matrix symbols replaced by explicit matrices."""
    concrete = expr.subs({N: n, D: d})
    table = {MatrixSymbol(k, *shape): sp.ImmutableMatrix(v) for k, (shape, v) in values.items()}
    out = concrete.xreplace(table).doit()
    return sp.Matrix(out) if hasattr(out, "shape") else out


@pytest.mark.parametrize(("n", "d"), [(1, 2), (2, 2), (3, 1)])
def test_gaussian_moment_matches_entrywise_expectation(n, d):
    """E[S M S] with diagonal Λ = diag(λ): X_ia = √λ_a z_ia, expanded entry by entry."""
    lam = sp.symbols(f"l1:{d + 1}", positive=True)
    m = sp.Matrix(d, d, lambda a, b: sp.Symbol(f"m{a}{b}"))
    z = sp.Matrix(n, d, lambda i, a: sp.Symbol(f"z{i}{a}"))
    x = z * sp.diag(*[sp.sqrt(v) for v in lam])
    brute = (x.T * x * m * x.T * x).applyfunc(lambda e: entry_expectation(e, {s: gaussian_moment(1) for s in z}))
    got = expectation(X.T * X * M * X.T * X, {X: Law.gaussian(LAM)})
    values = {"Lambda": ((d, d), sp.diag(*lam)), "M": ((d, d), m)}
    assert (explicit(got, n, d, values) - brute).applyfunc(sp.expand) == sp.zeros(d, d)


@pytest.mark.parametrize(("n", "d"), [(2, 2), (1, 3), (3, 2)])
def test_iid_moment_matches_entrywise_expectation(n, d):
    """E[(XᵀX)²] and E tr(XᵀX)² for iid entries of variance s² and kurtosis κ, entry by entry."""
    z = sp.Matrix(n, d, lambda i, a: sp.Symbol(f"z{i}{a}"))
    moments = {s: iid_moment for s in z}
    law = {X: Law.iid(S2, KAPPA)}
    brute = (z.T * z * z.T * z).applyfunc(lambda e: entry_expectation(e, moments))
    got = sp.Matrix(expectation(X.T * X * X.T * X, law).subs({N: n, D: d}).doit().as_explicit())
    assert (got - brute).applyfunc(sp.expand) == sp.zeros(d, d)
    brute_sq = entry_expectation(((z.T * z).trace()) ** 2, moments)
    assert sp.expand(expectation(Trace(X.T * X) ** 2, law).subs({N: n, D: d}) - brute_sq) == 0


def test_rademacher_enumeration():
    """Rademacher entries (s² = 1, κ = 1): the exact average over all 2^(N d) sign matrices at N = 2, d = 3."""
    n, d = 2, 3
    signs = [np.array(s).reshape(n, d) for s in itertools.product((-1, 1), repeat=n * d)]
    mean_s2 = sp.Rational(sum(int(np.trace(x.T @ x @ x.T @ x)) for x in signs), len(signs))
    mean_cube = sp.Rational(sum(int(np.trace(np.linalg.matrix_power(x.T @ x, 3))) for x in signs), len(signs))
    law = {X: Law.iid(1, 1)}
    assert expectation(Trace(X.T * X * X.T * X), law).subs({N: n, D: d}) == mean_s2
    with pytest.raises(OutsideFragment, match="above the fourth"):
        expectation(Trace(X.T * X * X.T * X * X.T * X), law)
    # the sixth moment is fixed for a Gaussian law only; the Rademacher value differs from it
    gaussian_cube = expectation(Trace(X.T * X * X.T * X * X.T * X), {X: Law.gaussian(1)}).subs({N: n, D: d})
    assert gaussian_cube != mean_cube


def test_one_step_loss_matches_entrywise_expectation():
    """The LSA one-step loss at N = 2, d = 2 equals the expectation of the written-out loss."""
    n, d = 2, 2
    x = sp.Matrix(n, d, lambda i, a: sp.Symbol(f"x{i}{a}"))
    q = sp.Matrix(1, d, lambda _, a: sp.Symbol(f"q{a}"))
    w = sp.Matrix(1, d, lambda _, a: sp.Symbol(f"w{a}"))
    y = x * w.T
    pred = lsa.ETA / n * sum(y[i] * (x[i, :] * q.T)[0] for i in range(n))
    moments = {**{s: iid_moment for s in [*x, *q]}, **{s: gaussian_moment(1) for s in w}}
    brute = entry_expectation((pred - (q * w.T)[0]) ** 2 / 2, moments)
    general = lsa.one_step_loss(lsa.symmetric_moments(S2, KAPPA)).subs(
        {lsa.N: n, lsa.D: d, lsa.S2: S2, lsa.KAPPA: KAPPA}
    )
    assert sp.expand(general - brute) == 0


# ---------------------------------------------------------------------------------------------
# Monte Carlo with a non-diagonal covariance


def test_monte_carlo_second_moment_with_correlated_columns():
    """E[S M S] at d = 3, N = 4, a dense Λ and M: sample mean within 5 standard errors of the formula."""
    rng = np.random.default_rng(20260)
    n, d, samples = 4, 3, 20_000
    root = np.array([[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [-0.3, 0.4, 0.8]])
    lam, m = root @ root.T, np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 1.0], [0.3, 0.0, -2.0]])
    x = rng.standard_normal((samples, n, d)) @ root.T
    s = np.swapaxes(x, 1, 2) @ x
    draws = s @ m @ s
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(samples)
    got = expectation(X.T * X * M * X.T * X, {X: Law.gaussian(LAM)})
    predicted = np.array(explicit(got, n, d, {"Lambda": ((d, d), sp.Matrix(lam)), "M": ((d, d), sp.Matrix(m))}), float)
    assert np.all(np.abs(mean - predicted) <= 5 * se)
    wrong = n * n * lam @ m @ lam  # only the leading pairing: far outside the band
    assert np.any(np.abs(mean - wrong) > 20 * se)


# ---------------------------------------------------------------------------------------------
# Gradients, the commutative check and bad input


def test_trace_gradient_matches_entrywise_derivative():
    """d tr(Aᵀ Λ A M) = tr(Gᵀ dA) with G = Λ A M + Λᵀ A Mᵀ, checked entrywise at d = 2."""
    A, B = MatrixSymbol("A", D, D), MatrixSymbol("B", D, D)
    directional = Trace(B.T * LAM * A * M) + Trace(A.T * LAM * B * M)
    grad = trace_gradient(directional, B)
    a, lam, m = (sp.Matrix(2, 2, lambda i, j, s=s: sp.Symbol(f"{s}{i}{j}")) for s in "alm")
    loss = (a.T * lam * a * m).trace()
    by_hand = sp.Matrix(2, 2, lambda i, j: sp.diff(loss, a[i, j]))
    values = {"A": ((2, 2), a), "Lambda": ((2, 2), lam), "M": ((2, 2), m)}
    assert (explicit(grad, 2, 2, values) - by_hand).applyfunc(sp.expand) == sp.zeros(2, 2)
    with pytest.raises(ValueError, match="linear"):
        trace_gradient(Trace(B * B), B)


def test_commutative_value():
    lam = sp.Symbol("lambda")
    gamma = 2 * LAM + Trace(LAM) * Identity(D)
    assert commutative_value(gamma.I * gamma * LAM - LAM, LAM, lam) == 0
    assert commutative_value(gamma.I * LAM - LAM, LAM, lam) != 0
    with pytest.raises(ValueError, match="not a function of Lambda"):
        commutative_value(M * LAM, LAM, lam)


def test_gamma_gradient_vanishes_only_at_gamma_inverse():
    """G(Γ⁻¹) = 0 for every d, N, Λ; at Λ⁻¹ it is λ(λ + tr Λ)/N ≠ 0 (the 1/N corrections)."""
    assert optimal_moments.gradient_at(optimal_moments.GAMMA_MATRIX.I) == 0
    lam, tr = sp.Symbol("lambda", positive=True), sp.Symbol("tr_0", real=True)
    assert sp.simplify(optimal_moments.gradient_at(optimal_moments.LAMBDA.I) - lam * (lam + tr) / lsa.N) == 0


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="Hadamard"):
        expectation(X.T * X * M * X.T * X, {X: Law.iid(S2, KAPPA)})
    with pytest.raises(ValueError, match="keys must be MatrixSymbols"):
        expectation(X.T * X, {"X": Law.gaussian(1)})
    with pytest.raises(ValueError, match="unsupported scalar factor"):
        expectation(sp.sqrt(Trace(X.T * X)), {X: Law.gaussian(1)})


# ---------------------------------------------------------------------------------------------
# Any SymPy matrix type: mutable sp.Matrix, ImmutableMatrix and matrix expressions alike


def test_a_mutable_matrix_covariance_and_factor_give_the_wishart_moment():
    """E[XᵀX A XᵀX] = N² ΣAΣ + N ΣAᵀΣ + N tr(ΣA) Σ (Gupta & Nagar 2000, Ch. 3) with Σ, A mutable sp.Matrix."""
    n, sigma, a = 3, sp.Matrix([[1, 2], [2, 5]]), sp.Matrix([[1, 0], [0, 0]])
    x = MatrixSymbol("X", n, 2)
    closed = n**2 * sigma * a * sigma + n * sigma * a.T * sigma + n * (sigma * a).trace() * sigma
    assert sp.Matrix(expectation(x.T * x * a * x.T * x, {x: Law.gaussian(sigma)})) == closed
    assert sp.Matrix(expectation(x.T * x * a * x.T * x, {x: Law.gaussian(sp.ImmutableMatrix(sigma))})) == closed


def test_a_mutable_matrix_is_its_own_expectation():
    assert sp.Matrix(expectation(sp.Matrix([[1, 2], [3, 4]]), {})) == sp.Matrix([[1, 2], [3, 4]])


# ---------------------------------------------------------------------------------------------
# The fragment: polynomials in the random symbols, moments the law fixes, pairings bounded (issue 39)


def test_a_random_symbol_under_an_inverse_or_a_root_is_outside_the_fragment():
    """E[X (XᵀX)⁻¹ Xᵀ] and E √tr(XᵀX) are no polynomial moments: never computed as if XᵀX were constant."""
    law = {X: Law.gaussian(LAM)}
    with pytest.raises(OutsideFragment, match="inside"):
        expectation(X * (X.T * X).I * X.T, law)
    with pytest.raises(OutsideFragment, match="unsupported scalar factor"):
        expectation(sp.sqrt(Trace(X.T * X)), law)
    with pytest.raises(OutsideFragment, match="unsupported scalar factor"):
        expectation(X.T * X / Trace(X.T * X), law)


def test_a_constant_scalar_factor_is_a_coefficient_and_a_trace_factor_is_a_moment():
    """E[XᵀX / tr Λ] = N Λ / tr Λ; E[tr(XᵀX) XᵀX] = N² tr(Λ) Λ + 2N Λ² (Isserlis)."""
    law = {X: Law.gaussian(LAM)}
    assert same(expectation(X.T * X / Trace(LAM), law), N * LAM / Trace(LAM))
    assert same(expectation(Trace(X.T * X) * X.T * X, law), N**2 * Trace(LAM) * LAM + 2 * N * LAM * LAM)


def test_a_random_coefficient_inside_a_trace_is_a_moment_not_a_constant():
    """E tr((xᵀx) x xᵀ) = E (xᵀx)² = 2 tr Λ² + (tr Λ)² (Isserlis): the scalar xᵀx inside the trace is random too.

    Taken as a constant it left N·tr(xᵀx) behind, and the statement E[xᵀx xᵀx] = … written with a 1 × 1
    product came out REFUTED."""
    row = MatrixSymbol("r", 1, D)  # x = rᵀ, one draw of N(0, Λ)
    x, law = row.T, {row: Law.gaussian(LAM)}
    fourth = 2 * Trace(LAM * LAM) + Trace(LAM) ** 2
    assert same(expectation(Trace(Trace(x.T * x) * x * x.T), law), fourth)
    assert same(expectation(Trace(Trace(x.T * x) * x.T * x), law), fourth)


def test_an_iid_law_of_kurtosis_three_is_not_gaussian_beyond_the_fourth_moment():
    """κ = 3 fixes E r⁴ = 3s⁴ only: the three-point law ±√3 has E r⁶ = 9, a Gaussian 15."""
    with pytest.raises(OutsideFragment, match="above the fourth"):
        expectation(Trace(X.T * X * X.T * X * X.T * X), {X: Law.iid(1, 3)})
    fourth = expectation(Trace(X.T * X * X.T * X), {X: Law.iid(1, 3)})
    assert sp.expand(fourth - expectation(Trace(X.T * X * X.T * X), {X: Law.gaussian(1)})) == 0


def test_a_scalar_gaussian_moment_has_its_closed_form():
    """E z²ᵏ = (2k − 1)!! σ²ᵏ for z ~ N(0, σ²), k up to 10 (19!! = 654729075 pairings), odd moments 0."""
    z, s2 = MatrixSymbol("z", 1, 1), sp.Symbol("s2", positive=True)
    for k in (1, 2, 5, 10):
        got = expectation(Trace(z * z.T) ** k, {z: Law.gaussian(s2)})
        assert sp.expand(got - sp.factorial2(2 * k - 1) * s2**k) == 0
    assert expectation(Trace(z * z.T) ** 3 * Trace(z), {z: Law.gaussian(s2)}) == 0


def test_pairings_beyond_the_bound_are_outside_the_fragment():
    """E (xᵀx)⁷ for x of symbolic dimension has 13!! = 135135 pairings: refused at once, not enumerated."""
    x = MatrixSymbol("x", 1, D)
    assert sp.factorial2(13) > MAX_PAIRINGS >= sp.factorial2(11)
    with pytest.raises(OutsideFragment, match="pairings"):
        expectation(Trace(x * x.T) ** 7, {x: Law.gaussian(1)})


def test_a_transposed_covariance_comes_out_untransposed():
    assert expectation(X.T * X * LAM.T, {X: Law.gaussian(LAM)}) == N * LAM**2


def test_an_inner_product_of_vectors_leaves_the_matrix_product():
    """At a node of dimension 1 a product factorises: m bᵀ m mᵀ = tr(bᵀm) m mᵀ. For a column x = zᵀ with
    z ~ N(0, Λ) a row: E[x bᵀx xᵀ] = 0 (odd) and E[x xᵀ b bᵀ x xᵀ] = E[(bᵀx)² x xᵀ] = 2Λbbᵀ Λ + (bᵀΛb) Λ (Isserlis)."""
    m, b = MatrixSymbol("m", D, 1), MatrixSymbol("b", D, 1)
    assert same(normal_form(m * b.T * m * m.T), Trace(b.T * m) * m * m.T)
    z = MatrixSymbol("z", 1, D)
    assert same(expectation(z.T * b.T * z.T * z, {z: Law.gaussian(LAM)}), sp.ZeroMatrix(D, D))
    assert same(expectation(z.T * z * b * b.T * z.T * z, {z: Law.gaussian(LAM)}),
                2 * LAM * b * b.T * LAM + Trace(b.T * LAM * b) * LAM)  # fmt: skip
