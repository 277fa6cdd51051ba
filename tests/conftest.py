"""Shared fixtures: every built-in claim is checked at most once per session (seed 0, 100 examples).

The default run spreads the tests over pytest-xdist workers (``-n auto`` in pyproject). Their
results of the built-in claims are shared through a verdict cache in the session's temporary
folder, fresh for every session: a claim is checked by the first worker that needs it (a file
lock per claim keeps the others waiting for it rather than checking it again), and read by the rest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from filelock import FileLock, Timeout
from hypothesis import settings

from icl_verify import Result
from icl_verify.engine import registry, runner
from icl_verify.engine.verdict_cache import ENV_VAR, VerdictCache, entry_key, package_digest

SEED, MAX_EXAMPLES = 0, 100  # the CLI's defaults

# The property tests draw the same examples on every run and every machine, so a red run is
# reproducible and never a chance draw; HYPOTHESIS_PROFILE=explore draws fresh examples each run
# (and shows the seed to replay), to hunt for new counterexamples.
settings.register_profile("reproducible", derandomize=True, database=None)
settings.register_profile("explore", database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


class SessionResults(Mapping[str, Result]):
    """Results of the built-in claims by name, each checked on first use, once for all workers."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.claims = {c.name: c for c in registry.builtin_claims()}
        self.cache = VerdictCache(folder)
        package = package_digest()
        self._keys = {
            name: entry_key(name, package=package, source="", seed=SEED, max_examples=MAX_EXAMPLES)
            for name in self.claims
        }
        self.results: dict[str, Result] = {}

    def _lock(self, name: str) -> FileLock:
        return FileLock(self.folder / f"{self._keys[name]}.lock")

    def _load_or_check(self, name: str) -> Result:
        """The claim's result from the shared cache, checking it there if no worker has (lock held)."""
        outcome = self.cache.get(self._keys[name])
        if outcome is None:
            outcome = runner.check_one(self.claims[name], SEED, MAX_EXAMPLES)
            self.cache.put(self._keys[name], outcome)
        return outcome.result(self.claims[name])

    def __getitem__(self, name: str) -> Result:
        if name not in self.results:
            with self._lock(name):
                self.results[name] = self._load_or_check(name)
        return self.results[name]

    def __iter__(self) -> Iterator[str]:
        """Every name; first checks each claim no other worker is checking, then waits for the rest.

        The free claims are taken from the end, so a worker asking for them one by one from the
        start (the parametrized test of every claim) meets this one in the middle.
        """
        for name in reversed(list(self.claims)):
            if name in self.results:
                continue
            try:
                with self._lock(name).acquire(timeout=0):
                    self.results[name] = self._load_or_check(name)
            except Timeout:
                continue
        return iter(self.claims)

    def __len__(self) -> int:
        return len(self.claims)


USER_CLAIMS = """
from icl_verify import Claim, Numeric
from hypothesis import strategies as st

SQUARE = Claim(
    name="user-square-of-sum",
    source="algebra",
    statement="(a + b)^2 = a^2 + 2ab + b^2",
    numeric=Numeric(
        cases=st.fixed_dictionaries({"a": st.floats(-10, 10), "b": st.floats(-10, 10)}),
        compare=lambda c: ((c["a"] + c["b"]) ** 2, c["a"] ** 2 + 2 * c["a"] * c["b"] + c["b"] ** 2),
    ),
)
WRONG = Claim(
    name="user-wrong-square",
    source="algebra",
    statement="(a + b)^2 = a^2 + b^2",
    holds=False,
    numeric=Numeric(
        cases=st.fixed_dictionaries({"a": st.floats(-10, 10), "b": st.floats(-10, 10)}),
        compare=lambda c: ((c["a"] + c["b"]) ** 2, c["a"] ** 2 + c["b"] ** 2),
    ),
)
"""


@pytest.fixture(autouse=True)
def _own_verdict_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's commands use a fresh verdict cache of their own, never the user's."""
    monkeypatch.setenv(ENV_VAR, str(tmp_path_factory.mktemp("verdict-cache")))


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """A user's claims file (a true and an expected-false numeric claim) alone in its own folder."""
    path = tmp_path / "claims" / "my_claims.py"
    path.parent.mkdir()
    path.write_text(USER_CLAIMS)
    return path


@pytest.fixture(scope="session")
def builtin_results(tmp_path_factory: pytest.TempPathFactory) -> SessionResults:
    """Results of all built-in claims at the CLI's defaults, by claim name (shared by the xdist workers)."""
    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the workers' common folder
    folder = session / "builtin-verdicts"
    folder.mkdir(exist_ok=True)
    return SessionResults(folder)
