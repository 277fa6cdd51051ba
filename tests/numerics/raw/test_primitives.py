"""Tests for numerics.raw.primitives: RAW semantics, primitives and programs (Akyürek et al. Appendix C)."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.raw.primitives import Aff, Mov, Mul, Program, Raw, aff, apply_parallel, div, dot, mov, mul, raw

H3 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])


def test_raw_sum_averages_the_read_set():
    # timestep 2 reads timesteps {0, 1}: mean of unit 0 = 2.5, plus 10·h_2[1] = 80, written to unit 2
    op = Raw("+", (0,), (1,), (2,), ((), (), (0, 1)), np.eye(1), 10 * np.eye(1), np.eye(1))
    out = raw(H3, op)
    expected = H3.copy()
    expected[2, 2] = 2.5 + 80.0
    np.testing.assert_array_equal(out, expected)


def test_raw_product_and_bias_and_output_map():
    # ⊙: (h_1[0:2] read from timestep 0) ⊙ (h_1[1:3]) summed by W_o = 1ᵀ, plus bias 0.5
    op = Raw("*", (0, 1), (1, 2), (0,), ((), (0,), ()), np.eye(2), np.eye(2), np.ones((1, 2)), np.array([0.5]))
    out = op.apply(H3)
    assert out[1, 0] == 1 * 5 + 2 * 6 + 0.5
    np.testing.assert_array_equal(np.delete(out.ravel(), 3), np.delete(H3.ravel(), 3))


def test_empty_read_set_leaves_timestep_unchanged():
    op = Raw("+", (0,), (), (1,), ((), (), ()), np.eye(1), None, np.eye(1))
    np.testing.assert_array_equal(op.apply(H3), H3)


def test_strict_mask_drops_the_current_timestep():
    op = Aff((0, 1), (1, 2), (2, 3), np.eye(1), np.eye(1), np.zeros(1)).raws(3)[0]
    np.testing.assert_array_equal(op.apply(H3, mask="strict"), H3)
    np.testing.assert_array_equal(op.apply(H3)[:, 2], H3[:, 0] + H3[:, 1])


def test_raw_rejects_bad_definitions():
    eye = np.eye(1)
    with pytest.raises(ValueError, match="future timestep"):
        Raw("+", (0,), (), (1,), ((1,), ()), eye, None, eye)
    with pytest.raises(ValueError, match="overlapping write rows"):
        Raw("+", (0,), (), (1, 1), ((0,),), eye, None, np.ones((2, 1)))
    with pytest.raises(ValueError, match="op"):
        Raw("-", (0,), (), (1,), ((0,),), eye, None, eye)
    with pytest.raises(ValueError, match="W_o"):
        Raw("+", (0,), (), (1,), ((0,),), eye, None, np.eye(2))
    with pytest.raises(ValueError, match="needs W"):
        Raw("*", (0,), (), (1,), ((0,),), eye, None, eye)
    with pytest.raises(ValueError, match="out of range"):
        Raw("+", (0,), (), (7,), ((0,), (), ()), eye, None, eye).apply(H3)
    with pytest.raises(ValueError, match="T = 2"):
        Raw("+", (0,), (), (1,), ((0,), ()), eye, None, eye).apply(H3)


def test_primitives_by_hand():
    np.testing.assert_array_equal(mov(H3, 0, 2, (0, 2), (1, 3))[2], [7.0, 1.0, 2.0])
    out = aff(H3, (0, 1), (1, 3), (2, 3), np.array([[2.0]]), np.array([[1.0, -1.0]]), np.array([0.5]), columns=(1,))
    assert out[1, 2] == 2 * 4 + (5 - 6) + 0.5 and out[0, 2] == 3.0 and out[2, 2] == 9.0
    H = np.arange(1.0, 11.0)[None]  # A = [[1, 2], [3, 4]], B = [[5], [6]]
    np.testing.assert_array_equal(mul(H, 2, 2, 1, (0, 4), (4, 6), (6, 8))[0, 6:8], [17.0, 39.0])
    assert dot(H3, (0, 1), (1, 2), 2)[2, 2] == 56.0
    Hd = np.array([[2.0, 4.0, -2.0]])
    np.testing.assert_array_equal(div(Hd, (0, 2), 2, (0, 2))[0], [1.0, 2.0, -2.0])


def test_primitive_errors():
    with pytest.raises(ValueError, match="future timestep"):
        mov(H3, 2, 0, (0, 1), (0, 1))
    with pytest.raises(ValueError, match="out of range"):
        mov(H3, 0, 1, (2, 4), (0, 2))
    with pytest.raises(ValueError, match="same length"):
        mov(H3, 0, 1, (0, 2), (0, 1))
    with pytest.raises(ValueError, match="span 4 units"):
        mul(H3, 2, 2, 1, (0, 3), (0, 2), (0, 2))
    with pytest.raises(ValueError, match="denominator"):
        div(np.array([[1.0, 0.0]]), (0, 1), 1, (0, 1))
    with pytest.raises(ValueError, match="finite"):
        mov(np.array([[np.inf]]), 0, 0, (0, 1), (0, 1))
    with pytest.raises(ValueError, match="W1"):
        aff(H3, (0, 1), (0, 1), (0, 2), np.eye(1), np.ones((2, 1)), np.zeros(2))


def test_parallel_raws_reject_overlapping_writes():
    a = Mov(0, 1, (0, 1), (2, 3)).raws(3)[0]
    b = Mov(0, 1, (1, 2), (2, 3)).raws(3)[0]
    with pytest.raises(ValueError, match="both write unit 2 at timestep 1"):
        apply_parallel(H3, [a, b])
    c = Mov(0, 2, (1, 2), (2, 3)).raws(3)[0]  # same unit, different timestep: allowed
    out = apply_parallel(H3, [a, c])
    assert out[1, 2] == 1.0 and out[2, 2] == 2.0


def test_program_validates_ops_and_runs_in_order():
    with pytest.raises(ValueError, match=r"ops\[1\] \(Mov\).*future"):
        Program(3, 3, (Mov(0, 1, (0, 1), (1, 2)), Mov(2, 1, (0, 1), (1, 2))))
    with pytest.raises(ValueError, match=r"ops\[0\] \(Aff\).*out of range"):
        Program(3, 3, (Aff((0, 1), (0, 1), (3, 4), np.eye(1), np.eye(1), np.zeros(1)),))
    with pytest.raises(ValueError, match="not a supported primitive"):
        Program(3, 3, ("softmax",))
    prog = Program(3, 3, (Mov(0, 1, (0, 1), (2, 3)), Mul(1, 1, 1, (2, 3), (2, 3), (0, 1), (1,))), {"out": (0, 1)})
    assert prog.read(prog.run(H3), "out", 1)[0] == 1.0  # h_1[2] = 1 then squared
    with pytest.raises(ValueError, match="no block"):
        prog.read(H3, "nope", 0)
