"""The decision procedure for matrix identities against a table of identities and non-identities.

Every expected answer comes from the mathematics: classical identities (Woodbury, push-through,
Sherman–Morrison, Hua, trace cyclicity) hold for every size; the non-identities fail already at
n = 1 or 2; the traps hold at small sizes only — the standard polynomial s₄ and Hall's identity
[[A, B]², C] on 2 × 2 matrices (Amitsur & Levitzki 1950), Cayley–Hamilton for 2 × 2 — and must
never be proved for every size.
"""

import itertools

import pytest
import sympy as sp
from sympy import Determinant, Identity, MatrixSymbol, Trace
from sympy.combinatorics import Permutation

from icl_verify.maths import identities
from icl_verify.maths.identities import TARGET_BITS, canonical_zero, cleared_zero, decide, expanded

n, d, k = sp.symbols("n d k", integer=True, positive=True)
A, B, C, D = (MatrixSymbol(s, n, n) for s in "ABCD")
X, U, V, W = MatrixSymbol("X", n, d), MatrixSymbol("U", n, k), MatrixSymbol("V", k, n), MatrixSymbol("W", k, k)
u, v = MatrixSymbol("u", n, 1), MatrixSymbol("v", n, 1)
lam = sp.Symbol("lam", positive=True)


def standard_polynomial(*ms):
    """s_k = Σ_σ sgn(σ) M_σ(1) ⋯ M_σ(k)."""
    terms = [
        Permutation(list(p)).signature() * sp.MatMul(*(ms[i] for i in p))
        for p in itertools.permutations(range(len(ms)))
    ]
    return sp.MatAdd(*terms)


def commutator(a, b):
    return a * b - b * a


IDENTITIES = {
    "push-through": (X.T * X + lam * Identity(d)).I * X.T - X.T * (X * X.T + lam * Identity(n)).I,
    "Woodbury": (A + U * W * V).I - (A.I - A.I * U * (W.I + V * A.I * U).I * V * A.I),
    "Sherman–Morrison": (A + u * v.T).I - (A.I - A.I * u * (Identity(1) + v.T * A.I * u).I * v.T * A.I),
    "push-through, square": (B * A + lam * Identity(n)).I * B - B * (A * B + lam * Identity(n)).I,
    "Woodbury, square": (A + B * C * D).I - (A.I - A.I * B * (C.I + D * A.I * B).I * D * A.I),
    "Hua": A - (A.I + (B.I - A).I).I - A * B * A,
    "inverse of a product": (A * B).I - B.I * A.I,
    "transpose of a product": (A * B).T - B.T * A.T,
    "tr(AB) = tr(BA)": Trace(A * B) - Trace(B * A),
    "tr(ABC) = tr(CAB)": Trace(A * B * C) - Trace(C * A * B),
    "tr(ABC) = tr(CᵀBᵀAᵀ)": Trace(A * B * C) - Trace(C.T * B.T * A.T),
    "tr(XᵀX) = tr(XXᵀ)": Trace(X.T * X) - Trace(X * X.T),
    "tr((A+B)⁻¹C) = tr(C(A+B)⁻¹)": Trace((A + B).I * C) - Trace(C * (A + B).I),
}

NON_IDENTITIES = {
    "(A + B)⁻¹ = A⁻¹ + B⁻¹": (A + B).I - A.I - B.I,
    "(AB)⁻¹ = A⁻¹B⁻¹": (A * B).I - A.I * B.I,
    "AB = BA": commutator(A, B),
    "tr(ABC) = tr(BAC)": Trace(A * B * C) - Trace(B * A * C),
    "det(A + B) = det A + det B": Determinant(A + B) - Determinant(A) - Determinant(B),
    "tr(Iₙ) = tr(I_d)": Trace(X * X.T) - Trace(X.T * X) + n - d,
}

SMALL_SIZES_ONLY = {  # identities of 2 × 2 matrices, not of larger ones
    "s₄ = 0": standard_polynomial(A, B, C, D),
    "[[A, B]², C] = 0": commutator(commutator(A, B) ** 2, C),
    "Cayley–Hamilton for n = 2": A**2 - Trace(A) * A + (Trace(A) ** 2 - Trace(A**2)) / 2 * Identity(n),
}


@pytest.mark.parametrize("name", IDENTITIES)
def test_identities_are_proved_for_every_size(name):
    decision = decide(IDENTITIES[name], seed=3)
    assert decision.holds is True, decision.how
    assert decision.failure <= 2.0**-TARGET_BITS


def test_a_projection_true_only_for_square_matrices_is_refuted_at_n_greater_than_d():
    # X(XᵀX)⁻¹Xᵀ = Iₙ holds for square invertible X, so one common size would prove it; for n > d it
    # is the projection onto the column space of X, of rank d < n.
    decision = decide(X * (X.T * X).I * X.T - Identity(n), seed=0)
    assert decision.holds is False
    assert decision.sizes is not None and decision.sizes[n] > decision.sizes[d]


@pytest.mark.parametrize("name", NON_IDENTITIES)
def test_non_identities_are_refuted(name):
    decision = decide(NON_IDENTITIES[name], seed=3)
    assert decision.holds is False, decision.how
    assert decision.sizes is not None


@pytest.mark.parametrize("name", SMALL_SIZES_ONLY)
def test_identities_of_small_sizes_only_are_never_proved_for_every_size(name):
    assert decide(SMALL_SIZES_ONLY[name], seed=3).holds is False


@pytest.mark.parametrize("name", SMALL_SIZES_ONLY)
def test_identities_of_2_by_2_matrices_are_not_refuted_there(name):
    at_two = SMALL_SIZES_ONLY[name].xreplace({n: 2})
    assert decide(at_two, seed=3).holds is not False


def test_a_randomized_proof_states_its_theorems_and_failure_probability(monkeypatch):
    monkeypatch.setattr(identities, "CLEARING_DEPTH", 0)  # keep the deterministic route from proving it first
    how = decide(IDENTITIES["Woodbury, square"], seed=1).how
    for phrase in (
        "GF(2³¹−1)",
        "Hrubeš & Wigderson 2015",
        "Derksen & Makam 2017",
        "failure probability ≤ 2^",
        "seed 1",
    ):
        assert phrase in how


def test_the_canonical_form_proves_without_randomness():
    decision = decide(IDENTITIES["tr(ABC) = tr(CᵀBᵀAᵀ)"], seed=0)
    assert decision.failure == 0 and "canonical form is 0" in decision.how


def test_sizes_used_as_scalars_are_not_identified():
    # With every size set to one N, n − d would vanish: the test must keep them apart.
    assert decide((n - d) * (X.T * X + lam * Identity(d)).I, seed=0).holds is not True
    assert canonical_zero(Trace(Identity(n)) - Trace(Identity(d))) == (False, False)


def test_inverses_of_identities_of_different_sizes_are_different_letters():
    residual = Trace((2 * Identity(n)).I * A) - Trace(A) / 2
    assert decide(residual, seed=0).holds is True
    assert canonical_zero(Trace(sp.Inverse(lam * Identity(n))) - Trace(sp.Inverse(lam * Identity(d))))[0] is False


def test_expanded_collects_a_commutator():
    assert expanded((A + B) ** 2 - A**2 - B**2 - 2 * A * B) == B * A - A * B


def test_sums_of_all_entries_of_symbolic_size_cancel():
    # total() of a symbolic-size matrix is tr(1ᵀ M 1): equal totals cancel, no Sum(…) is left over
    from icl_verify.blocks.backend import total

    s, alpha = MatrixSymbol("s", n, 1), sp.Symbol("alpha")
    assert decide(-2 * alpha * total(A * s) + 2 * alpha * total(A * s) + total(s) - total(s.T)).holds is True
    assert decide(total(A * s) - total(s)).holds is False


@pytest.mark.parametrize("name", ["push-through", "Woodbury", "Sherman–Morrison", "Hua"])
def test_clearing_denominators_proves_rational_identities_of_any_shape_without_randomness(name):
    decision = decide(IDENTITIES[name], seed=0)
    assert decision.holds is True and decision.failure == 0 and "clearing denominators" in decision.how


@pytest.mark.parametrize("name", ["(A + B)⁻¹ = A⁻¹ + B⁻¹", "(AB)⁻¹ = A⁻¹B⁻¹"])
def test_clearing_denominators_never_proves_a_non_identity(name):
    assert cleared_zero(NON_IDENTITIES[name]) is False
    assert cleared_zero(X * (X.T * X).I * X.T - Identity(n)) is False


K = sp.Symbol("K", integer=True, nonnegative=True)
eta = sp.Symbol("eta")
G = Identity(n) - eta * A  # the gradient-descent iteration matrix I − ηA

POWER_IDENTITIES = {
    "M^(K+1) = M·M^K": sp.MatPow(G, K + 1) - G * sp.MatPow(G, K),
    "M^(K+1) = M^K·M": sp.MatPow(G, K + 1) - sp.MatPow(G, K) * G,
    "M^(2K+1) = M^K·M·M^K": sp.MatPow(A, 2 * K + 1) - sp.MatPow(A, K) * A * sp.MatPow(A, K),
    "A commutes with (I − ηA)^K": A * sp.MatPow(G, K) - sp.MatPow(G, K) * A,
    "(I − ηA)⁻¹ commutes with A^K": G.I * sp.MatPow(A, K) - sp.MatPow(A, K) * G.I,
    "((I − ηA)^K)ᵀ = (I − ηAᵀ)^K": sp.Transpose(sp.MatPow(G, K)) - sp.MatPow(Identity(n) - eta * A.T, K),
    "I^K = I": sp.MatPow(Identity(n), K) - Identity(n),
    "tr(A^K B A) = tr(A^(K+1) B)": Trace(sp.MatPow(A, K) * B * A) - Trace(sp.MatPow(A, K + 1) * B),
    # a power of a polynomial in one product: XᵀX is one matrix, and (I − ηXᵀX)ᴷ commutes with it
    "XᵀX commutes with (I − ηXᵀX)^K": X.T * X * sp.MatPow(Identity(d) - eta * X.T * X, K)
    - sp.MatPow(Identity(d) - eta * X.T * X, K) * X.T * X,
    "(I − ηXᵀX)^(K+1) = (I − ηXᵀX)^K (I − ηXᵀX)": sp.MatPow(Identity(d) - eta * X.T * X, K + 1)
    - sp.MatPow(Identity(d) - eta * X.T * X, K) * (Identity(d) - eta * X.T * X),
    "(AB)^K AB = AB (AB)^K": sp.MatPow(A * B, K) * A * B - A * B * sp.MatPow(A * B, K),
    # with an inverse, by clearing denominators: the geometric sum's induction step
    "I + A(I − A)⁻¹(I − A^K) = (I − A)⁻¹(I − A^(K+1))": Identity(n)
    + A * (Identity(n) - A).I * (Identity(n) - sp.MatPow(A, K))
    - (Identity(n) - A).I * (Identity(n) - sp.MatPow(A, K + 1)),
}

POWER_NON_IDENTITIES = {  # false for some K and matrices: never proved
    "B commutes with A^K": B * sp.MatPow(A, K) - sp.MatPow(A, K) * B,
    "A commutes with (A + B)^K": A * sp.MatPow(A + B, K) - sp.MatPow(A + B, K) * A,
    "Aᵀ commutes with A^K": A.T * sp.MatPow(A, K) - sp.MatPow(A, K) * A.T,
    "M^(K+1) = M^K": sp.MatPow(G, K + 1) - sp.MatPow(G, K),
    "(AB)^K = A^K B^K": sp.MatPow(A * B, K) - sp.MatPow(A, K) * sp.MatPow(B, K),
    # the product AB stands for one matrix; its factors alone do not commute with (AB)^K
    "A commutes with (AB)^K": A * sp.MatPow(A * B, K) - sp.MatPow(A * B, K) * A,
    "BA commutes with (AB)^K": B * A * sp.MatPow(A * B, K) - sp.MatPow(A * B, K) * B * A,
    "I + A(I − A)⁻¹(I − A^K) = (I − A)⁻¹(I − A^K)": Identity(n)
    + A * (Identity(n) - A).I * (Identity(n) - sp.MatPow(A, K))
    - (Identity(n) - A).I * (Identity(n) - sp.MatPow(A, K)),
    "(I − A)⁻¹ commutes with B^K": (Identity(n) - A).I * sp.MatPow(B, K) - sp.MatPow(B, K) * (Identity(n) - A).I,
    "Xᵀ(I − ηXXᵀ)^K X = (I − ηXᵀX)^(K+1) XᵀX": X.T * sp.MatPow(Identity(n) - eta * X * X.T, K) * X
    - sp.MatPow(Identity(d) - eta * X.T * X, K + 1) * X.T * X,
}


@pytest.mark.parametrize("name", POWER_IDENTITIES)
def test_powers_with_a_symbolic_exponent_are_proved_by_their_canonical_form(name):
    decision = decide(POWER_IDENTITIES[name], seed=0)
    assert decision.holds is True and decision.failure == 0, decision.how


def test_a_proof_that_takes_a_product_as_one_matrix_says_so():
    decision = decide(POWER_IDENTITIES["XᵀX commutes with (I − ηXᵀX)^K"], seed=0)
    assert decision.holds is True and "XᵀX that M is a polynomial in taken as one matrix" in decision.how
    assert "one matrix" not in decide(POWER_IDENTITIES["A commutes with (I − ηA)^K"], seed=0).how


@pytest.mark.parametrize("name", POWER_NON_IDENTITIES)
def test_false_power_identities_are_never_proved(name):
    decision = decide(POWER_NON_IDENTITIES[name], seed=0)
    assert decision.holds is None and "symbolic exponent" in decision.how


def test_a_refutation_is_reported_at_the_smallest_sizes():
    decision = decide(commutator(A, B), seed=0)  # AB = BA holds at n = 1, fails at n = 2
    assert decision.holds is False and decision.sizes == {n: 2}
    assert decide(X.T * X - lam * Identity(d), seed=0).sizes == {d: 1, n: 2}


Ank, Bkn = MatrixSymbol("A", n, k), MatrixSymbol("B", k, n)
c = sp.Symbol("c")
RIDGE = (X.T * X + lam * Identity(d)).I  # G = (XᵀX + λI_d)⁻¹, X n × d

TRACE_AND_DETERMINANT_IDENTITIES = {  # name: (residual, the theorem the evidence must cite)
    "tr(XGXᵀ) = d − λ tr G": (Trace(X * RIDGE * X.T) - (d - lam * Trace(RIDGE)), "M⁻¹M = MM⁻¹ = I"),
    "tr(X(XᵀX)⁻¹Xᵀ) = d": (Trace(X * (X.T * X).I * X.T) - d, "M⁻¹M = MM⁻¹ = I"),
    "Sylvester": (Determinant(Identity(n) + Ank * Bkn) - Determinant(Identity(k) + Bkn * Ank), "Sylvester"),
    "determinant lemma": (
        Determinant(A + u * v.T) - Determinant(A) * (1 + Trace(v.T * A.I * u)),
        "matrix determinant lemma",
    ),
    "det(cA) = cⁿ det A": (Determinant(c * A) - c**n * Determinant(A), "det(cA) = cⁿ det A"),
    "det(AB) = det A det B": (Determinant(A * B) - Determinant(A) * Determinant(B), "Binet–Cauchy"),
    "det A · det A⁻¹ = 1": (Determinant(A) * Determinant(A.I) - 1, "det(M⁻¹) = 1 / det M"),
}

TRACE_AND_DETERMINANT_TWINS = {  # name: (residual, sizes of the smallest refutation)
    "tr(XGXᵀ) = n − λ tr G": (Trace(X * RIDGE * X.T) - (n - lam * Trace(RIDGE)), {d: 1, n: 2}),
    "tr(X(XᵀX)⁻¹Xᵀ) = n": (Trace(X * (X.T * X).I * X.T) - n, {d: 1, n: 2}),
    "det(I_n + AB) = det(I_k − BA)": (
        Determinant(Identity(n) + Ank * Bkn) - Determinant(Identity(k) - Bkn * Ank),
        {k: 1, n: 2},
    ),
    "det(A + uvᵀ) = det A (1 + uᵀA⁻¹v)": (
        Determinant(A + u * v.T) - Determinant(A) * (1 + Trace(u.T * A.I * v)),
        {n: 2},
    ),
    "det(cA) = c det A": (Determinant(c * A) - c * Determinant(A), {n: 2}),
    "det(A + B) = det A + det B": (Determinant(A + B) - Determinant(A) - Determinant(B), {n: 2}),  # n = 1: a + b
}


@pytest.mark.parametrize("name", TRACE_AND_DETERMINANT_IDENTITIES)
def test_traces_of_inverses_and_determinants_are_proved_for_every_size_citing_the_theorem(name):
    residual, theorem = TRACE_AND_DETERMINANT_IDENTITIES[name]
    decision = decide(residual, seed=0)
    assert decision.holds is True and decision.failure == 0, decision.how
    assert decision.how.startswith("reduced to 0 for every size by") and theorem in decision.how


@pytest.mark.parametrize("name", TRACE_AND_DETERMINANT_TWINS)
def test_false_twins_of_trace_and_determinant_identities_are_refuted_at_their_smallest_sizes(name):
    residual, sizes = TRACE_AND_DETERMINANT_TWINS[name]
    decision = decide(residual, seed=0)
    assert decision.holds is False and decision.sizes == sizes, decision.how


def test_an_irreducible_trace_of_an_inverse_says_what_was_tried():
    # tr((A + B)⁻¹) = tr(A⁻¹) + tr(B⁻¹) is false: the reduction does not claim it, an exact evaluation refutes it
    residual = Trace((A + B).I) - Trace(A.I) - Trace(B.I)
    assert identities.reduced_zero(residual)[0] is False
    assert decide(residual, seed=0).holds is False
    # tr((A + B)⁻¹A) + tr((A + B)⁻¹B) = n is true, but A + B has no single longest word: undecided, with what was tried
    decision = decide(Trace((A + B).I * A) + Trace((A + B).I * B) - n, seed=0)
    assert decision.holds is None and "not reduced to 0 (theorems tried: none applied" in decision.how


def test_the_trace_of_a_matrix_identity_is_proved_by_the_identity():
    decision = decide(Trace(IDENTITIES["Woodbury, square"]), seed=0)
    assert decision.holds is True and decision.how.startswith("the trace of a matrix identity: clearing denominators")


def test_the_reduction_never_divides_by_a_coefficient_that_vanishes_at_some_sizes():
    # M = (n − d)·XᵀX + λI: rewriting M⁻¹XᵀX = (I − λM⁻¹)/(n − d) holds only for n ≠ d, and n = d is not
    # a negligible set of sizes; the reduction refuses to divide by a coefficient with a size in it (this
    # residual happens to be 0 at n = d too, but the argument would not show it)
    m_inv = ((n - d) * X.T * X + lam * Identity(d)).I
    residual = (n - d) * Trace(m_inv * X.T * X) - (d - lam * Trace(m_inv))
    assert identities.reduced_zero(residual)[0] is False
    # with a real scalar coefficient the same rewriting is valid (c ≠ 0 on a dense set) and proves it
    c_inv = (c * X.T * X + lam * Identity(d)).I
    assert identities.reduced_zero(c * Trace(c_inv * X.T * X) - (d - lam * Trace(c_inv)))[0] is True


def test_traces_and_determinants_of_concrete_size_are_evaluated_and_symbolic_ones_left_to_the_procedure():
    """tr I₂ = 2 and det of an explicit 2 × 2 are evaluated (their false twins, tr I₂ = 3 and a sign slip in the
    determinant, are not zero); a trace of symbolic size is left undecided by is_zero (decide decides it)."""
    from icl_verify.maths.symbolic import is_zero

    M = sp.Matrix(MatrixSymbol("M", 2, 2))
    assert is_zero(Trace(Identity(2)) - 2) is True and is_zero(Trace(Identity(2)) - 3) is False
    assert is_zero(sp.Determinant(M) - (M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0])) is True
    assert is_zero(sp.Determinant(M) - (M[0, 0] * M[1, 1] + M[0, 1] * M[1, 0])) is not True
    assert is_zero(Trace(A * B) - Trace(B * A)) is None and decide(Trace(A * B) - Trace(B * A)).holds is True
