"""Shared fixtures: every built-in claim is checked once per session (seed 0, 100 examples)."""

from __future__ import annotations

import pytest

from icl_verify import check
from icl_verify.engine import registry


@pytest.fixture(scope="session")
def builtin_results():
    """Results of all built-in claims at the CLI's defaults, by claim name."""
    return {c.name: check(c, seed=0, max_examples=100) for c in registry.builtin_claims()}
