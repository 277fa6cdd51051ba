"""The Hypothesis strategies exported for users produce what they promise."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from icl_verify import Claim, Numeric, Verdict, check
from icl_verify.maths.strategies import (
    dims,
    matrices,
    nonzero_matrices,
    reals,
    regression_cases,
    spd_matrices,
    token_batches,
    wide_integers,
)

FAST = settings(max_examples=30, deadline=None)


@FAST
@given(dims(1, 5).flatmap(lambda n: spd_matrices(n, min_eigenvalue=0.5, max_eigenvalue=4.0)))
def test_spd_matrices_are_symmetric_with_bounded_spectrum(S):
    np.testing.assert_allclose(S, S.T, atol=1e-12)
    eig = np.linalg.eigvalsh(S)
    assert eig.min() >= 0.5 - 1e-9 and eig.max() <= 4.0 + 1e-9


@FAST
@given(token_batches(2, 3, 4), matrices(2, 5, bound=1.5), reals(2.0, positive=True))
def test_shapes_and_bounds(tokens, M, r):
    assert tokens.shape == (2, 3, 4) and np.all(np.isfinite(tokens))
    assert M.shape == (2, 5) and np.all(np.abs(M) <= 1.5)
    assert 1 / 16 <= r <= 2.0


@FAST
@given(regression_cases(Nx=(1, 2), N=(1, 3)))
def test_regression_cases_are_consistent(case):
    assert case["X"].shape == (case["N"], case["Nx"]) and case["Y"].shape == (case["N"], case["Ny"])
    assert case["W0"].shape == (case["Ny"], case["Nx"]) and case["eta"] > 0
    assert case["Nx"] <= 2 and case["N"] <= 3


@FAST
@given(regression_cases(Ny=1, N=(1, 5), w0="nonzero"))
def test_regression_dimensions_can_be_fixed_and_w0_forced_nonzero(case):
    assert case["Ny"] == 1 and 1 <= case["N"] <= 5
    assert np.any(case["W0"] != 0)


def test_w0_can_be_forced_nonzero_even_when_every_draw_is_zero():
    assert np.array_equal(find(nonzero_matrices(2, 3), lambda _: True), [[1, 0, 0], [0, 0, 0]])


@FAST
@given(regression_cases(w0=False))
def test_w0_false_is_zero(case):
    assert not np.any(case["W0"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"Ny": 0}, "Ny must be a positive int"), ({"N": (4, 2)}, r"N must be .* \(low, high\)"), ({"w0": "x"}, "w0")],
)
def test_regression_cases_reject_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        find(regression_cases(**kwargs), lambda _: True)


def test_spd_rejects_bad_bounds():
    with pytest.raises(ValueError, match="min_eigenvalue"):
        spd_matrices(2, min_eigenvalue=0.0)


def test_readme_claim_snippet_runs_with_a_proved_and_a_refuted_lsa_statement():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    snippet = re.search(r"## Write your own claim.*?```python\n(.*?)```", readme, re.S).group(1)
    claims = re.findall(r"^(\w+) = iv\.statement\(.*?$\n(.*?)^\)$", snippet, re.S | re.M)
    assert [name for name, _ in claims] == ["lsa_is_gd", "query_in_keys"]
    assert all(len(body.strip().splitlines()) <= 10 for _, body in claims)
    namespace: dict = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    assert check(namespace["lsa_is_gd"], max_examples=30).verdict is Verdict.PROVED
    refuted = check(namespace["query_in_keys"], max_examples=30)
    assert refuted.verdict is Verdict.REFUTED and refuted.as_expected
    assert refuted.counterexample["sizes"] == {"Nx": 1, "Ny": 1, "N": 1}


def _draws(seed: int) -> list[float]:
    """The values a numeric check draws at ``seed`` (its comparison always passes)."""
    seen: list[float] = []

    def compare(case: dict) -> tuple:
        seen.append(case["x"])
        return np.zeros(1), np.zeros(1)

    check(
        Claim("draws", "test", "x = x", checks=(Numeric(st.fixed_dictionaries({"x": reals(10.0)}), compare),)),
        seed=seed,
    )
    return seen


def test_numeric_draws_do_not_depend_on_the_loaded_modules(tmp_path, monkeypatch):
    """Hypothesis mixes literal constants of loaded local modules into its draws; a check is a function of its seed."""
    before = _draws(3)
    name = "module_with_many_constants"
    (tmp_path / f"{name}.py").write_text("VALUES = [" + ", ".join(f"{0.037 * k:.4f}" for k in range(1, 270)) + "]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    importlib.import_module(name)
    after = _draws(3)
    monkeypatch.delitem(sys.modules, name)
    assert len(before) == 100 and after == before


def test_wide_integers_cover_every_order_of_magnitude_and_shrink_to_a_failure():
    """Over [0, 10⁶]: the first values, each bit length up to 20 (a uniform draw would show almost no
    value below 1000), nothing outside; a failing search shrinks to a failure. Whether it reaches the first
    one, K = 11 for K² > 10K + 1 (11² = 121 > 111, 10² = 100 ≤ 101), is up to Hypothesis's release (6.90 stops
    at 16): a bound finds the first failure by its simple cases at the first values
    (tests/core/test_soundness_bounds.py), the same on every release."""
    seen: set[int] = set()

    @settings(max_examples=400, deadline=None, database=None, derandomize=True)
    @given(wide_integers(0, 10**6))
    def collect(k: int) -> None:
        seen.add(k)

    collect()
    assert all(0 <= k <= 10**6 for k in seen)
    assert set(range(16)) <= seen
    assert {k.bit_length() for k in seen} >= set(range(21))
    found = find(wide_integers(0, 10**6), lambda k: k * k > 10 * k + 1)
    assert found >= 11 and found * found > 10 * found + 1
    assert find(wide_integers(5, 5), lambda k: True) == 5
