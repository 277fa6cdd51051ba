"""Tests for numerics.raw.compiler: each compiled block against its RAW semantics (Tracr style),
whole programs against closed forms, and the construction's invariants and error rate."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icl_verify.numerics.raw import compiler as rc
from icl_verify.numerics.raw.learners import ridge_weights, sgd_weights
from icl_verify.numerics.raw.primitives import Aff, Div, Mov, Mul, Program, Raw
from icl_verify.numerics.raw.programs import encode_examples, ridge_chain, sgd_chain, theorem1, theorem2
from icl_verify.numerics.raw.transformer import layer_forward

ATOL = 1e-7
RNG = np.random.default_rng(2026)
H = RNG.uniform(-1, 1, (4, 8))


def _check_block(ops, H=H, atol=ATOL):
    program = Program(H.shape[0], H.shape[1], tuple(ops))
    compiled = rc.compile_program(program)
    np.testing.assert_allclose(compiled.run(H), program.run(H), atol=atol, rtol=0)
    return compiled


@pytest.mark.parametrize(
    "op",
    [
        Mov(0, 3, (0, 3), (5, 8)),
        Mov(2, 2, (1, 2), (0, 1)),
        Aff((0, 2), (2, 5), (5, 7), RNG.normal(size=(2, 2)), RNG.normal(size=(2, 3)), RNG.normal(size=2)),
        Aff((0, 2), (2, 5), (0, 2), RNG.normal(size=(2, 2)), RNG.normal(size=(2, 3)), RNG.normal(size=2), (1, 3)),
        Mul(1, 3, 1, (0, 3), (3, 6), (7, 8)),
        Mul(2, 1, 2, (0, 2), (2, 4), (4, 8), (0, 2)),
        Mul(2, 2, 1, (0, 4), (4, 6), (0, 2)),  # in place: output overlaps an operand
    ],
)
def test_single_primitive_blocks(op):
    compiled = _check_block([op])
    assert compiled.depth == 1


def test_division_block():
    Hd = H.copy()
    Hd[:, 7] = [1.5, -2.0, 0.75, 3.0]
    _check_block([Div((0, 3), 7, (3, 6))], Hd)
    _check_block([Div((0, 3), 7, (0, 3), (1, 2))], Hd)  # in place, two timesteps only


def test_general_raw_with_past_reads_and_empty_sets():
    K = ((), (0,), (0, 1), (1, 3))
    for op in ("+", "*"):
        r = Raw(
            op,
            (0, 1),
            (2, 3),
            (4, 5),
            K,
            RNG.normal(size=(2, 2)),
            RNG.normal(size=(2, 2)),
            RNG.normal(size=(2, 2)),
            RNG.normal(size=2),
        )
        compiled = rc.compile_raws([r], 8)
        np.testing.assert_allclose(compiled.run(H), r.apply(H), atol=ATOL, rtol=0)


def test_parallel_raws_share_one_layer():
    ops = [
        Mov(0, 1, (0, 2), (6, 8)),
        Mul(1, 2, 1, (0, 2), (2, 4), (4, 5)),
        Aff((2, 3), (3, 4), (5, 6), np.eye(1), np.eye(1), np.ones(1)),
    ]
    compiled = _check_block(ops)
    assert compiled.depth == 1
    assert rc.compile_program(Program(4, 8, tuple(ops)), parallel=False).depth == 3


def test_dependent_ops_get_separate_layers():
    ops = [Mov(0, 1, (0, 1), (5, 6)), Mul(1, 1, 1, (5, 6), (1, 2), (6, 7))]
    assert _check_block(ops).depth == 2


def test_invariants_mean_zero_and_clean_sink():
    program, _ = theorem2(3, 0.5)
    Hp = encode_examples(RNG.normal(size=(1, 3)), RNG.normal(size=1), RNG.normal(size=3), program.D)
    compiled = rc.compile_program(program)
    h = rc.encode(Hp, compiled.geometry, compiled.scales)
    g = compiled.geometry
    for layer in compiled.layers:
        h = layer_forward(h, layer)
        np.testing.assert_allclose(h.sum(axis=1), 0.0, atol=1e-9 * compiled.scales.divide)
        np.testing.assert_allclose(h[0, : g.D], 0.0, atol=1e-12)  # the sink holds no data
        # temporaries at the sink are round-off (≈ 1e-16) amplified by at most N_d
        np.testing.assert_allclose(h[0, g.D : g.D + g.temps], 0.0, atol=1e-15 * compiled.scales.divide)


def test_overlapping_writes_and_mlp_conflicts_rejected():
    a, b = Mov(0, 1, (0, 1), (2, 3)).raws(4)[0], Mov(0, 1, (1, 2), (2, 3)).raws(4)[0]
    with pytest.raises(ValueError, match="overlapping write rows"):
        rc.compile_raws([a, b], 8)
    prod = Mul(1, 1, 1, (0, 1), (1, 2), (3, 4)).raws(4)[0]
    g = rc.Geometry(4, 8, 10)
    with pytest.raises(ValueError, match="MLP to itself"):
        rc.build_layer([prod, Div((0, 1), 2, (5, 6))], g, rc.Scales())
    with pytest.raises(ValueError, match="Program"):
        rc.compile_program([Mov(0, 1, (0, 1), (1, 2))])
    with pytest.raises(ValueError, match="T = 3 timesteps, expected 4"):
        rc.compile_raws([a, Mov(0, 1, (0, 1), (2, 3)).raws(3)[0]], 8)
    with pytest.raises(ValueError, match="positive"):
        rc.Scales(attention=0.0)
    with pytest.raises(ValueError, match="shape"):
        rc.compile_raws([a], 8).run(np.zeros((3, 8)))


def test_product_error_matches_the_derived_leading_term():
    """One product uv: error·N² → −uv(R/2 + (2u²+3uv+2v²)/6), R = ‖z‖² − 2N² at the MLP input."""
    u, v = 0.7, -1.3
    Hs = np.array([[u, v, 0.0]])
    op = Mul(1, 1, 1, (0, 1), (1, 2), (2, 3))
    n = 1e3
    compiled = rc.compile_program(Program(1, 3, (op,)), rc.Scales.uniform(n, attention=100.0))
    err = compiled.run(Hs)[0, 2] - u * v
    # z after the attention at timestep 1: units (u, v, 0), temporaries (u, v), one-hot (0, 1), anchors, balance
    others = np.array([u, v, 0.0, u, v, 0.0, 1.0])
    R = others @ others + others.sum() ** 2
    predicted = -u * v * (R / 2 + (2 * u * u + 3 * u * v + 2 * v * v) / 6) / n**2
    assert err == pytest.approx(predicted, rel=1e-2)


def test_error_falls_like_inverse_square_of_scale():
    op = Mul(1, 2, 1, (0, 2), (2, 4), (4, 5))
    errs = []
    for n in (100.0, 1000.0):
        compiled = rc.compile_raws(op.raws(4), 8, rc.Scales.uniform(n, attention=100.0))
        errs.append(np.max(np.abs(compiled.run(H, check_range=False) - op.apply(H))))  # N = 100 is out of range
    assert np.log10(errs[0] / errs[1]) == pytest.approx(2.0, abs=0.05)


def _trace_scale(program, Hp):
    m, s = np.abs(Hp).max(), np.abs(Hp).sum(axis=1).max()
    for op in program.ops:
        Hp = op.apply(Hp)
        m, s = max(m, np.abs(Hp).max()), max(s, np.abs(Hp).sum(axis=1).max())
    return (1 + m) ** 2 * (1 + s) ** 2


@settings(max_examples=15, deadline=None)
@given(d=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_theorem1_compiled_matches_closed_form_for_all_d(d, seed):
    rng = np.random.default_rng(seed)
    w, x1, x2 = rng.uniform(-2, 2, (3, d))
    y1, alpha, lam = rng.uniform(-2, 2), rng.uniform(0.05, 0.5), rng.uniform(0.05, 1)
    program, (blk, t) = theorem1(d, w, alpha, lam)
    Hp = encode_examples(x1[None], np.array([y1]), x2, program.D)
    pred = program.read(rc.compile_program(program).run(Hp), blk, t)[0]
    expected = (w - 2 * alpha * (x1 * (w @ x1) - y1 * x1 + lam * w)) @ x2
    assert abs(pred - expected) <= 1e-9 * _trace_scale(program, Hp)


@settings(max_examples=10, deadline=None)
@given(d=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_theorem2_compiled_matches_closed_form_for_all_d(d, seed):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.uniform(-2, 2, (2, d))
    y1, lam = rng.uniform(-2, 2), rng.uniform(0.25, 2)
    program, (blk, t) = theorem2(d, lam)
    Hp = encode_examples(x1[None], np.array([y1]), x2, program.D)
    pred = program.read(rc.compile_program(program).run(Hp), blk, t)[0]
    expected = np.linalg.solve(lam * np.eye(d) + np.outer(x1, x1), x1 * y1) @ x2
    assert abs(pred - expected) <= 1e-9 * _trace_scale(program, Hp)


def test_theorem1_and_2_at_d8_relative_error():
    """The d = 8 figures quoted in docs/performance.md (default scales)."""
    rng = np.random.default_rng(8)
    d = 8
    x1, x2, w = rng.normal(size=(3, d))
    y1 = rng.normal()
    p1, (b1, t1) = theorem1(d, w, 0.1, 0.3)
    H1 = encode_examples(x1[None], np.array([y1]), x2, p1.D)
    exact1 = (w - 0.2 * (x1 * (w @ x1) - y1 * x1 + 0.3 * w)) @ x2
    rel1 = abs(p1.read(rc.compile_program(p1).run(H1), b1, t1)[0] - exact1) / abs(exact1)
    p2, (b2, t2) = theorem2(d, 0.5)
    H2 = encode_examples(x1[None], np.array([y1]), x2, p2.D)
    exact2 = ridge_weights(x1[None], np.array([y1]), 0.5) @ x2
    rel2 = abs(p2.read(rc.compile_program(p2).run(H2), b2, t2)[0] - exact2) / abs(exact2)
    assert rel1 < 1e-7 and rel2 < 1e-5


def test_chains_compiled_match_learners():
    rng = np.random.default_rng(5)
    n, d = 4, 3
    X, xq = rng.normal(size=(n, d)), rng.normal(size=d)
    y = rng.normal(size=n)
    p, (b, t) = ridge_chain(n, d, 0.5)
    Hp = encode_examples(X, y, xq, p.D)
    assert p.read(rc.compile_program(p).run(Hp), b, t)[0] == pytest.approx(ridge_weights(X, y, 0.5) @ xq, rel=1e-6)
    w0 = rng.normal(size=d)
    p, (b, t) = sgd_chain(n, d, w0, 0.05, 0.1)
    Hp = encode_examples(X, y, xq, p.D)
    expected = sgd_weights(X, y, 0.05, 0.1, w0) @ xq
    assert p.read(rc.compile_program(p).run(Hp), b, t)[0] == pytest.approx(expected, rel=1e-6)


def test_compiled_sizes():
    for d in (1, 2, 8):
        c1 = rc.compile_program(theorem1(d, np.ones(d), 0.1, 0.1)[0])
        assert c1.depth == 9 and c1.width == 5 * d + 11
        assert c1.mlp_width == 3 * d  # d products of the d×1·1×1 mul, 3 GeLU units each
        # data 2d² + 4d + 4, temporaries 2d² + 2d (q and Z = zzᵀ in one layer), 4 positions, 3 scaffolding
        c2 = rc.compile_program(theorem2(d, 0.5)[0])
        assert c2.depth == 10 and c2.width == 4 * d * d + 6 * d + 11 and c2.mlp_width == 3 * (d * d + d)
    depths = [rc.compile_program(ridge_chain(n, 2, 0.5)[0]).depth for n in (1, 2, 3)]
    assert depths[2] - depths[1] == depths[1] - depths[0] == 6


# ---------------------------------------------------------------------------------------------
# The compiled range: inputs beyond the accuracy the network was built for are refused.
# Expected values are derived here from the construction, independently of product_error/division_error.


def _product_bound(u: float, v: float, n: float) -> float:
    """The relative-error bound of one compiled product uv at M = N_a = n: S/(2n² + S) + 7 f S/(12 n²).

    S = Σ z² over every unit but the anchors at the MLP input: data (u, v, 0), temporaries (u, v),
    the one-hot 1 and the balance −(2u + 2v + 1); f = 2n²/(2n² + S) (see test_product_error_matches...)."""
    others = np.array([u, v, 0.0, u, v, 1.0])
    S = others @ others + others.sum() ** 2
    f = 2 * n * n / (2 * n * n + S)
    return S / (2 * n * n + S) + 7 * f * S / (12 * n * n)


def _product_leading_error(u: float, v: float, n: float) -> float:
    """The leading relative error itself: (1 − f) + f (2u² + 3uv + 2v²)/(6n²) (the one-sided terms of the bound)."""
    others = np.array([u, v, 0.0, u, v, 1.0])
    S = others @ others + others.sum() ** 2
    f = 2 * n * n / (2 * n * n + S)
    return (1 - f) + f * (2 * u * u + 3 * u * v + 2 * v * v) / (6 * n * n)


def test_product_range_boundary_is_where_the_derived_bound_reaches_rtol():
    from scipy.optimize import brentq

    u0, v0, rtol = 0.8, 0.5, 1e-4
    compiled = rc.compile_program(Program(1, 3, (Mul(1, 1, 1, (0, 1), (1, 2), (2, 3)),)), rtol=rtol)
    n = compiled.scales.gelu
    assert compiled.scales.anchor == n and compiled.rtol == rtol
    edge = brentq(lambda s: _product_bound(s * u0, s * v0, n) - rtol, 1.0, 1e6, xtol=1e-12, rtol=1e-12)
    inside = np.array([[0.999 * edge * u0, 0.999 * edge * v0, 0.0]])
    u, v = inside[0, :2]
    rel = (compiled.run(inside)[0, 2] - u * v) / (u * v)
    assert -rel == pytest.approx(_product_leading_error(u, v, n), rel=1e-3)  # the derived term, measured
    assert -rel <= rtol
    with pytest.raises(ValueError, match=r"^H is outside the range this network was compiled for: .*norm") as exc:
        compiled.run(1.001 * edge * np.array([[u0, v0, 0.0]]))
    assert "\n" not in str(exc.value) and "rtol = 0.0001" in str(exc.value)


def test_division_range_boundary_is_where_the_layernorm_factor_reaches_rtol():
    from scipy.optimize import brentq

    rtol, y = 1e-6, 0.7
    compiled = rc.compile_program(Program(1, 3, (Div((0, 1), 1, (2, 3)),)), rtol=rtol)
    n_a, n_d = compiled.scales.anchor, compiled.scales.divide

    def derived(c: float) -> float:
        """1 − (1 + R/(2N_d²c²))^{−1/2}: R = y² + c² + (copy of y)² + 1 + balance² + 2N_a² (temporaries ±N_d c excluded)."""
        R = 2 * y * y + c * c + 1 + (2 * y + c + 1) ** 2 + 2 * n_a**2
        return 1 - (1 + R / (2 * n_d**2 * c * c)) ** -0.5

    edge = brentq(lambda c: derived(c) - rtol, 1e-9, 1.0, xtol=1e-15, rtol=1e-12)
    c_in = 1.01 * edge
    rel = compiled.run(np.array([[y, c_in, 0.0]]))[0, 2] / (y / c_in) - 1
    assert -rel == pytest.approx(derived(c_in), rel=1e-3) and -rel <= rtol
    with pytest.raises(ValueError, match=r"^H is outside the range .*denominator"):
        compiled.run(np.array([[y, 0.99 * edge, 0.0]]))


def test_theorem1_network_is_accurate_at_unit_inputs_and_refuses_huge_ones():
    """Before the range check: relative error 3e-9 at |x| = 1, but 0.98 at |x| = 1000 with no warning."""
    rng = np.random.default_rng(12)
    d = 4
    w, x1, x2 = rng.uniform(-1, 1, (3, d))
    program, (blk, t) = theorem1(d, w, 0.1, 0.3)
    compiled = rc.compile_program(program)
    for scale, ok in ((1.0, True), (1000.0, False)):
        Hp = encode_examples(scale * x1[None], np.array([scale * 0.5]), scale * x2, program.D)
        exact = program.read(program.run(Hp), blk, t)[0]
        if ok:
            assert abs(program.read(compiled.run(Hp), blk, t)[0] - exact) <= 1e-8 * abs(exact)
        else:
            with pytest.raises(ValueError, match="H is outside the range"):
                compiled.run(Hp)
            unchecked = program.read(compiled.run(Hp, check_range=False), blk, t)[0]
            assert abs(unchecked - exact) > 1e-3 * abs(exact)  # the refusal is not a false alarm


def test_max_norm_is_the_first_order_product_range():
    compiled = rc.compile_program(Program(1, 3, (Mul(1, 1, 1, (0, 1), (1, 2), (2, 3)),)), rc.Scales(), rtol=1e-6)
    s = compiled.max_norm**2
    assert s * (1 / (2 * 1e10) + 7 / (12 * 1e10)) == pytest.approx(1e-6)


@pytest.mark.parametrize("rtol", [0.0, -1e-3, 1.0, float("nan"), float("inf")])
def test_bad_rtol_is_refused(rtol):
    with pytest.raises(ValueError, match="rtol"):
        rc.compile_program(Program(1, 3, (Mul(1, 1, 1, (0, 1), (1, 2), (2, 3)),)), rtol=rtol)
