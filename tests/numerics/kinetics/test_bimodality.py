"""The dip test of the bimodality claims against closed forms, and the claims' p-value bands.

Closed forms (Hartigan & Hartigan, Ann. Statist. 13, 1985): the dip of n distinct equally spaced
points is 1/(2n), the smallest dip of any n-point sample; the dip of two separated atoms with weights
p ≤ 1 − p is p/2 (a unimodal distribution function must fill the gap between the two jumps and misses
the smaller by half its size).
"""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.core.checks.measured import Measured
from icl_verify.core.claims import Claim, Corrected
from icl_verify.families.scaling import final_accuracy
from icl_verify.numerics.kinetics import bimodality
from icl_verify.numerics.kinetics.models import ReducedConfig


@pytest.mark.parametrize("n", [8, 16, 31])
def test_dip_of_equally_spaced_points_is_one_over_2n(n):
    test = bimodality.dip_test(np.linspace(0.0, 1.0, n), resolution=0.0, seed=0)
    assert test.dip == pytest.approx(1 / (2 * n), rel=1e-12)
    assert test.p_value > 0.5  # the least dip an n-point sample can have: nothing against unimodality


@pytest.mark.parametrize(("minority", "n"), [(16, 32), (10, 32), (6, 40)])
def test_dip_of_two_atoms_is_half_the_smaller_weight(minority, n):
    values = np.r_[np.full(minority, 0.5), np.ones(n - minority)]
    test = bimodality.dip_test(values, resolution=0.0, seed=0)
    assert test.dip == pytest.approx(minority / n / 2, rel=1e-12)


@pytest.mark.parametrize("minority", [10, 16])
def test_two_separated_atoms_reject_unimodality(minority):
    """Dips 0.156 and 0.25 at n = 32, about twice the 5 % critical dip there (≈ 0.08, Hartigan's table)."""
    values = np.r_[np.full(minority, 0.5), np.ones(32 - minority)]
    assert bimodality.dip_test(values, resolution=0.0, seed=0).p_value < 1e-3


def test_noise_at_the_resolution_removes_sub_resolution_atoms_but_keeps_separated_modes():
    resolution = bimodality.accuracy_resolution(256)
    # accuracies on 256 sequences at three neighbouring levels near 1: tied counts, no real second mode
    tied = np.r_[np.full(5, 252 / 256), [253 / 256], np.full(10, 1.0)]
    assert bimodality.dip_test(tied, resolution=0.0, seed=0).p_value < 0.05  # the scale-free test reads ties as modes
    assert all(bimodality.dip_test(tied, resolution=resolution, seed=s).p_value > 0.05 for s in range(8))
    # two modes 0.5 apart, 16 σ: the noise cannot hide them
    modes = np.r_[np.full(16, 0.5), np.ones(16)]
    assert all(bimodality.dip_test(modes, resolution=resolution, seed=s).p_value < 1e-3 for s in range(8))


def test_dip_test_is_reproducible_and_records_what_it_did():
    values = np.linspace(0.0, 1.0, 9) ** 2
    a, b = (bimodality.dip_test(values, resolution=0.1, seed=3) for _ in range(2))
    assert a == b
    assert (a.n, a.resolution, a.seed) == (9, 0.1, 3)
    assert bimodality.dip_test(values, resolution=0.1, seed=4).dip != a.dip


def test_accuracy_resolution_is_the_largest_binomial_standard_error():
    m = 256
    assert bimodality.accuracy_resolution(m) == pytest.approx(max(np.sqrt(a * (1 - a) / m) for a in (0.3, 0.5, 0.9)))
    assert bimodality.accuracy_resolution(m) == 1 / 32


def test_initial_betas_are_uniform_on_the_interval_and_seeded():
    betas = bimodality.initial_betas(7, 4000, 1.0)
    assert np.all(np.abs(betas) <= 1.0)
    # U[−1, 1]: mean 0, variance 1/3; 4000 draws put each within 5 standard errors
    assert abs(betas.mean()) < 5 * np.sqrt(1 / 3 / 4000)
    assert abs(betas.var() - 1 / 3) < 5 * np.sqrt(4 / 45 / 4000)  # Var(β²) = 1/5 − 1/9 = 4/45
    np.testing.assert_array_equal(betas, bimodality.initial_betas(7, 4000, 1.0))
    np.testing.assert_array_equal(bimodality.initial_betas(7, 5, 0.0), np.zeros(5))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bimodality.dip_test([0.5, 1.0, 1.0], resolution=0.0, seed=0), "values must have at least 4"),
        (lambda: bimodality.dip_test([0.5, np.nan, 1.0, 1.0], resolution=0.0, seed=0), "values must contain only"),
        (lambda: bimodality.dip_test([0.5, 0.6, 1.0, 1.0], resolution=-0.1, seed=0), "resolution must be non-neg"),
        (lambda: bimodality.initial_betas(0, 4, -1.0), "half_width must be non-negative"),
        (lambda: bimodality.final_icl_accuracies(ReducedConfig(steps=1), [0, 1], [0.0]), "seeds must have length"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _p_claim(p: float, *, unimodal: bool, holds: bool = True) -> Claim:
    bimodal_band = final_accuracy.DIP_LEVEL - (1 - final_accuracy.DIP_LEVEL) / 2  # [.., α] at the same tolerance
    return Claim(
        name="p-band",
        source="test",
        statement="p",
        checks=(Measured(lambda seed: final_accuracy._p_estimate(p, "", unimodal=unimodal)),),
        holds=holds,
        corrected=None if holds else Corrected(measured=bimodal_band),
    )


@pytest.mark.parametrize(
    ("p", "unimodal", "verdict"),
    [
        (1e-4, False, Verdict.VERIFIED),  # rejects unimodality at the level: bimodal
        (0.0099, False, Verdict.VERIFIED),
        (0.0101, False, Verdict.REFUTED),  # the test saw one mode
        (0.2, False, Verdict.REFUTED),
        (0.2, True, Verdict.VERIFIED),
        (0.0101, True, Verdict.VERIFIED),
        (0.0099, True, Verdict.REFUTED),
    ],
)
def test_p_value_bands_decide_at_the_level_fixed_in_advance(p, unimodal, verdict):
    assert final_accuracy.DIP_LEVEL == 0.01
    assert check(_p_claim(p, unimodal=unimodal), seed=0).verdict is verdict


@pytest.mark.parametrize(("p", "control"), [(1e-5, "passed"), (0.0099, "passed")])
def test_the_misreadings_control_is_the_bimodal_band(p, control):
    result = check(_p_claim(p, unimodal=True, holds=False), seed=0)
    assert result.verdict is Verdict.REFUTED
    assert [e.status for e in result.evidence if e.kind == "control"] == [control]
    assert result.as_expected
