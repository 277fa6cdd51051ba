"""A pytest plugin: module-level claims in test files run as ordinary tests.

Installed with icl-verify (entry point ``pytest11``). In any collected test module, every
module-level :class:`~icl_verify.core.claims.Claim` becomes a test item that passes exactly when the
claim reaches its expected verdict — PROVED / VERIFIED for a true claim, REFUTED for one
declared ``holds=False``; UNPROVEN and ERROR always fail. Every module-level
:class:`~icl_verify.core.derivation.Derivation` becomes one test item too, passing exactly when
it reaches its expected verdict (PROVED, or REFUTED for ``holds=False``), its steps and their marks
shown when it fails. Options: ``--icl-seed`` (an integer ≥ 0) and ``--icl-max-examples`` (≥ 1),
checked when pytest starts: a bad value is a usage error (exit status 4), as for pytest's own options;
the header of the run shows both, and whether the verdict cache is used.

A claim's verdict is reused from the verdict cache as ``icl-verify check`` reuses it — the same keys
(:func:`icl_verify.running.runner.claim_keys`: the test file and what it imports, the claim's name, the
seed, the budget, the libraries' versions), the same folder (``$ICL_VERIFY_CACHE_DIR``, else the user's
cache folder) — and stored after a check; ``--icl-no-cache`` or ``icl_cache = false`` in the ini file
checks every claim afresh. ERROR verdicts are never stored.

pytest loads the plugin in every run of the environment, so loading it imports only pytest: the
claim core (and with it SymPy and Hypothesis) is imported when a claim or derivation is first
collected or checked — an object can only be a ``Claim`` once :mod:`icl_verify.core.claims` is
imported, so collection looks the class up in :data:`sys.modules` rather than importing it.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from icl_verify.core.claims import Claim, Result
    from icl_verify.core.derivation import Derivation, DerivationResult

MINIMA = {"icl_seed": ("--icl-seed", 0), "icl_max_examples": ("--icl-max-examples", 1)}
"""Each option's destination → its name and least valid value."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("icl-verify")
    group.addoption("--icl-seed", type=int, default=0, help="seed for claims' random searches, ≥ 0 (default 0)")
    group.addoption("--icl-max-examples", type=int, default=100, help="random cases per claim, ≥ 1 (default 100)")
    group.addoption("--icl-no-cache", action="store_true", help="check every claim afresh; read and store no verdict")
    parser.addini("icl_cache", type="bool", default=True, help="reuse claims' verdicts from the verdict cache")


def cache_used(config: pytest.Config) -> bool:
    """Whether claims' verdicts are read from and stored in the verdict cache (not ``--icl-no-cache``, and not
    ``icl_cache = false``)."""
    return not config.getoption("icl_no_cache") and bool(config.getini("icl_cache"))


def pytest_report_header(config: pytest.Config) -> str:
    """The seed and example budget the claims are checked with, and whether the verdict cache is used."""
    cache = "on" if cache_used(config) else "off"
    return (
        f"icl-verify: seed {config.getoption('icl_seed')}, max examples {config.getoption('icl_max_examples')}, "
        f"verdict cache {cache}"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Reject option values no check accepts, before any test runs: pytest reports a usage error (exit 4)."""
    for dest, (option, least) in MINIMA.items():
        value = config.getoption(dest)
        if value < least:
            raise pytest.UsageError(f"{option} must be an integer ≥ {least}, got {value}")


def _instance(obj: object, module: str, name: str) -> bool:
    """True if ``obj`` is an instance of ``module.name`` — False at once while that module is not imported."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(obj, getattr(loaded, name))


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> pytest.Item | None:
    if not isinstance(collector, pytest.Module):
        return None
    if _instance(obj, "icl_verify.core.claims", "Claim"):
        return ClaimItem.from_parent(collector, name=obj.name, claim=obj)
    if _instance(obj, "icl_verify.core.derivation", "Derivation"):
        return DerivationItem.from_parent(collector, name=obj.name, derivation=obj)
    return None


class ClaimFailure(Exception):
    def __init__(self, result: Result | DerivationResult) -> None:
        super().__init__(result.summary)
        self.result = result


def checked(claim: Claim, file: str, config: pytest.Config) -> Result:
    """The result of ``claim`` (defined in ``file``) with the session's seed and budget: from the verdict cache
    when it holds it (and caching is on), else checked here and stored unless ERROR."""
    from icl_verify.core.verdicts import Verdict
    from icl_verify.running import runner

    seed, budget = config.getoption("icl_seed"), config.getoption("icl_max_examples")
    cache = _verdict_cache(config)
    key = runner.claim_keys([claim], {claim.name: file}, seed, budget).get(claim.name) if cache else None
    found = cache.get(key) if cache and key else None
    if found is not None:
        return found.vetted(claim).result(claim)
    outcome = runner.check_one(claim, seed, budget, origin=file)
    if cache and key and outcome.verdict is not Verdict.ERROR:
        with contextlib.suppress(OSError):  # a full disk: checked again next time
            cache.put(key, outcome)
    return outcome.result(claim)


_CACHE = pytest.StashKey[Any]()


def _verdict_cache(config: pytest.Config) -> Any:
    """The session's verdict cache (opened once), or None when caching is off or the folder cannot be used safely
    (then with a warning, and every claim is checked)."""
    if not cache_used(config):
        return None
    if _CACHE not in config.stash:
        from icl_verify.errors import InvalidArgument
        from icl_verify.running.verdict_cache import VerdictCache

        try:
            config.stash[_CACHE] = VerdictCache()
        except (InvalidArgument, OSError) as exc:  # a file, or a folder others can write (UnsafeCache)
            warnings.warn(f"icl-verify: checking claims without the verdict cache: {exc}", stacklevel=1)
            config.stash[_CACHE] = None
    return config.stash[_CACHE]


class ClaimItem(pytest.Item):
    """One claim, checked with the session's seed and example budget."""

    def __init__(self, *, claim: Claim, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def runtest(self) -> None:
        result = checked(self.claim, str(self.path), self.config)
        if not result.as_expected:
            raise ClaimFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ClaimFailure):
            from icl_verify.output.report import table

            result = excinfo.value.result
            return f"claim {self.claim.name!r}: {result.summary}\n" + table([result])
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple:
        return self.path, None, f"claim {self.claim.name}"


class DerivationItem(pytest.Item):
    """One derivation, every step checked by SymPy."""

    def __init__(self, *, derivation: Derivation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.derivation = derivation

    def runtest(self) -> None:
        result = self.derivation.check()
        if not result.as_expected:
            raise ClaimFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ClaimFailure):
            from icl_verify.output.report import derivations_table

            result = excinfo.value.result
            return f"derivation {self.derivation.name!r}: {result.summary}\n" + derivations_table([result])
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple:
        return self.path, None, f"derivation {self.derivation.name}"
