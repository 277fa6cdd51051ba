"""The Hypothesis strategies exported for users produce what they promise."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from icl_verify import Verdict, check
from icl_verify.engine.strategies import dims, matrices, reals, regression_cases, spd_matrices, token_batches

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
@given(regression_cases(max_dim=2, max_n=3))
def test_regression_cases_are_consistent(case):
    assert case["X"].shape == (case["N"], case["Nx"]) and case["Y"].shape == (case["N"], case["Ny"])
    assert case["W0"].shape == (case["Ny"], case["Nx"]) and case["eta"] > 0


def test_spd_rejects_bad_bounds():
    with pytest.raises(ValueError, match="min_eigenvalue"):
        spd_matrices(2, min_eigenvalue=0.0)


def test_readme_claim_snippet_runs_and_is_verified():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    snippet = re.search(r"## Write your own claim.*?```python\n(.*?)```", readme, re.S).group(1)
    namespace: dict = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    assert check(namespace["trace_cyclic"]).verdict is Verdict.VERIFIED
