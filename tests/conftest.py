"""Shared fixtures: every built-in claim is checked at most once (seed 0, 100 examples).

The default run spreads the tests over pytest-xdist workers (``-n auto`` in pyproject). Their
results of the built-in claims are shared through a verdict cache: a claim is checked by the first
worker that needs it (a file lock per claim keeps the others from checking it again; a worker that
finds its claim locked checks a free one meanwhile), and read by the rest. The cache is kept in
pytest's cache folder (``.pytest_cache``) between sessions, under the verdict cache's keys — the
source of each claim's family module and of what it imports, the library versions, the seed and
the budget — so a session reads the verdicts a previous session checked, and an edit of a module
checks again the claims of the families that import it; ``pytest --cache-clear`` (or ``-p no:cacheprovider``)
checks them all afresh. The documents' drawn figures are kept there too (:func:`figure_cache`).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from filelock import FileLock, Timeout
from hypothesis import settings

from icl_verify import Claim, Kind, Result, Verdict
from icl_verify.maths.strategies import source_independent_draws
from icl_verify.running import options, registry, runner
from icl_verify.running.store import ENV_VAR
from icl_verify.running.verdict_cache import VerdictCache

SEED, MAX_EXAMPLES = 0, 100  # the CLI's defaults

SIMULATION_FAMILIES = frozenset({"kinetics", "optimal-lsa", "raw-probe", "scaling"})
"""Families whose measured claims train networks or integrate ensembles of ODEs: minutes of CPU in all,
most of the built-in suite's (docs/performance.md). Their verdicts, controls and documents are checked
with ``-m slow`` (as in CI) and by ``icl-verify check``; the default run checks every other claim."""


def simulates(claim: Claim) -> bool:
    """Whether the claim's verdict is left to the slow run: a measured claim of a simulation family."""
    return claim.family in SIMULATION_FAMILIES and Kind.MEASURED in claim.kinds


LONGEST_FIRST = (
    "tests/test_families.py",
    "tests/test_recipe.py",
    "tests/test_tutorial.py",
    "tests/test_builtin_derivations.py",
    "tests/running/test_runner.py",
    "tests/cli/test_imports.py",
)
"""Modules whose tests run whole workflows (all built-in claims, a family written from scratch, the tutorial, a
package copy, worker processes): collected first, so that pytest-xdist hands them out while the short tests
remain to fill the gaps, and the workers finish together (longest-processing-time-first scheduling)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests of :data:`LONGEST_FIRST` to the front, in that order; the rest keep the file order."""
    rank = {module: i for i, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


# The property tests draw the same examples on every run and every machine, so a red run is
# reproducible and never a chance draw; HYPOTHESIS_PROFILE=explore draws fresh examples each run
# (and shows the seed to replay), to hunt for new counterexamples.
settings.register_profile("reproducible", derandomize=True, database=None)
settings.register_profile("explore", database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


@pytest.fixture(autouse=True, scope="session")
def _source_independent_draws() -> Iterator[None]:
    """The property tests draw the same examples whichever modules a worker has imported before them."""
    with source_independent_draws():
        yield


class SessionResults(Mapping[str, Result]):
    """Results of the built-in claims by name, each checked on first use, once for all workers."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.claims = {c.name: c for c in registry.builtin_claims()}
        self.cache = VerdictCache(folder)
        self._keys = runner.claim_keys(list(self.claims.values()), {}, SEED, MAX_EXAMPLES)
        self.results: dict[str, Result] = {}

    def _lock(self, name: str) -> FileLock:
        return FileLock(self.folder / f"{self._keys[name]}.lock")

    def _load_or_check(self, name: str) -> Result:
        """The claim's result from the shared cache, checking it there if no worker has (lock held)."""
        outcome = self.cache.get(self._keys[name])
        if outcome is None:
            outcome = runner.check_one(self.claims[name], SEED, MAX_EXAMPLES)
            if outcome.verdict is not Verdict.ERROR:  # as in icl-verify check: an ERROR is checked again next time
                self.cache.put(self._keys[name], outcome)
        return outcome.result(self.claims[name])

    def _check_if_free(self, name: str) -> bool:
        """Check (or read) ``name`` unless another worker holds its lock; whether its result is now known."""
        if name not in self.results:
            try:
                with self._lock(name).acquire(timeout=0):
                    self.results[name] = self._load_or_check(name)
            except Timeout:
                return False
        return True

    def _check_a_free_claim(self) -> bool:
        """Check (or read) one claim this worker has not got and no worker is checking, taken from the end;
        False if there is none. Measured claims are left to the worker that takes them in order: those of
        a family share their simulations (``engine.caches.cached``), which two workers would both run."""
        return any(
            name not in self.results and Kind.MEASURED not in self.claims[name].kinds and self._check_if_free(name)
            for name in reversed(list(self.claims))
        )

    def __getitem__(self, name: str) -> Result:
        """``name``'s result; while another worker checks it, this one checks free claims, then waits for it."""
        while not self._check_if_free(name):
            if not self._check_a_free_claim():
                with self._lock(name):
                    self.results[name] = self._load_or_check(name)
        return self.results[name]

    def __iter__(self) -> Iterator[str]:
        """Every name; first checks each claim no other worker is checking, then waits for the rest.

        The free claims are taken from the end, so a worker asking for them one by one from the
        start (the parametrized test of every claim) meets this one in the middle.
        """
        for name in reversed(list(self.claims)):
            self._check_if_free(name)
        return iter(self.claims)

    def __len__(self) -> int:
        return len(self.claims)


USER_CLAIMS = """
from icl_verify import Claim, Corrected, Numeric
from hypothesis import strategies as st

SQUARE = Claim(
    name="user-square-of-sum",
    source="algebra",
    statement="(a + b)^2 = a^2 + 2ab + b^2",
    checks=(
        Numeric(
            cases=st.fixed_dictionaries({"a": st.floats(-10, 10), "b": st.floats(-10, 10)}),
            compare=lambda c: ((c["a"] + c["b"]) ** 2, c["a"] ** 2 + 2 * c["a"] * c["b"] + c["b"] ** 2),
        ),
    ),
)
WRONG = Claim(
    name="user-wrong-square",
    source="algebra",
    statement="(a + b)^2 = a^2 + b^2",
    holds=False,
    checks=(
        Numeric(
            cases=st.fixed_dictionaries({"a": st.floats(-10, 10), "b": st.floats(-10, 10)}),
            compare=lambda c: ((c["a"] + c["b"]) ** 2, c["a"] ** 2 + c["b"] ** 2),
        ),
    ),
    corrected=Corrected("user-square-of-sum", numeric=SQUARE.checks[0].compare),
)
"""


@pytest.fixture(autouse=True)
def _own_verdict_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's commands use a fresh verdict cache of their own, never the user's, and check their
    claims in their own process unless the test asks for workers (``--jobs``, ``jobs=``): the test
    workers already use every core (:func:`icl_verify.running.options.default_jobs`)."""
    monkeypatch.setenv(ENV_VAR, str(tmp_path_factory.mktemp("verdict-cache")))
    monkeypatch.setenv(options.JOBS_VAR, "1")


@pytest.fixture(autouse=True)
def _signal_dispositions_restored() -> Iterator[None]:
    """Each test starts with the test process's own handlers of Ctrl-C, SIGTERM and SIGHUP. A command invoked in the
    test process that ends by an interruption ignores them from then on, as a process about to exit does
    (``cli.main.ignore_interruptions``); a process started later by another test would inherit the ignored SIGHUP and
    SIGTERM, and the command keeps a signal it was started ignoring ignored (nohup): it would not end on them."""
    signals = [s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s]
    saved = {signum: signal.getsignal(signum) for signum in signals}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """A user's claims file (a true and an expected-false numeric claim) alone in its own folder."""
    path = tmp_path / "claims" / "my_claims.py"
    path.parent.mkdir()
    path.write_text(USER_CLAIMS)
    return path


def _kept_folder(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the built-in verdicts and figures are kept: pytest's cache folder, else the session's temporary one."""
    cache = getattr(config, "cache", None)  # None with -p no:cacheprovider
    if cache is not None:
        return cache.mkdir("icl-verify-builtin")
    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the workers' common folder
    folder = session / "icl-verify-builtin"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def builtin_results(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> SessionResults:
    """Results of all built-in claims at the CLI's defaults, by claim name (shared by the workers and sessions)."""
    return SessionResults(_kept_folder(pytestconfig, tmp_path_factory))


@pytest.fixture(scope="session")
def figure_cache(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> VerdictCache:
    """The cache of the built-in documents' drawn figures, kept beside :func:`builtin_results`' verdicts."""
    return VerdictCache(_kept_folder(pytestconfig, tmp_path_factory))
