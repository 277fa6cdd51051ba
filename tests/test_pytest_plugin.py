"""The pytest plugin in a scratch project: loading it imports nothing heavy, bad option values are a usage error
(exit 4) before any test runs, the header shows the seed, the budget and the cache, and verdicts are reused from
the verdict cache the command line uses. Collecting claims and derivations: tests/output/test_user_documents.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("sympy", "hypothesis", "numpy", "scipy", "matplotlib", "icl_verify.core.claims", "icl_verify.output")
"""What a run with no claim must not import because the plugin loaded (Hypothesis' own plugin does not
import Hypothesis either)."""

CONFTEST = """
import json, sys

def pytest_sessionfinish(session):
    with open("modules.json", "w") as f:
        json.dump(sorted(sys.modules), f)
"""


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A project with one test that has nothing to do with claims, recording the modules imported."""
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert 2 + 2 == 4\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    return tmp_path


def _modules(scratch: Path, *args: str) -> set[str]:
    run = _pytest(scratch, *args, "test_plain.py")
    assert run.returncode == 0, run.stdout + run.stderr
    return set(json.loads((scratch / "modules.json").read_text()))


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)}


def test_loading_the_plugin_imports_nothing_heavy(scratch):
    loaded = _modules(scratch)
    assert "icl_verify.pytest_plugin" in loaded  # the entry point did load it
    without = _modules(scratch, "-p", "no:icl_verify")
    assert "icl_verify.pytest_plugin" not in without
    assert not _heavy(loaded) - without, sorted(_heavy(loaded) - without)  # nothing heavy the plugin brought
    assert not {"sympy", "hypothesis", "icl_verify.core.claims"} & loaded
    assert {m for m in loaded - without if m.startswith("icl_verify")} <= {
        "icl_verify",
        "icl_verify.pytest_plugin",
        "icl_verify.core",
        "icl_verify.core.display",
    }


def test_a_claim_is_still_collected_and_checked(scratch):
    (scratch / "test_claim.py").write_text(
        "import sympy as sp\nimport icl_verify as iv\nx = sp.Symbol('x')\n"
        "double = iv.Claim(name='double', source='arithmetic', statement='2x = x + x',"
        " checks=(iv.Symbolic(lambda: 2 * x - (x + x)),))\n"
    )
    run = _pytest(scratch, "test_claim.py")
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr  # the claim is the only test


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--icl-seed", "-1", "--icl-seed must be an integer ≥ 0, got -1"),
        ("--icl-max-examples", "0", "--icl-max-examples must be an integer ≥ 1, got 0"),
        ("--icl-max-examples", "-5", "--icl-max-examples must be an integer ≥ 1, got -5"),
    ],
)
def test_bad_option_values_are_a_usage_error(scratch, option, value, message):
    run = _pytest(scratch, option, value, "test_plain.py")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR == 4, run.stdout + run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr + run.stdout
    assert "passed" not in run.stdout  # no test ran


def test_the_least_valid_values_are_accepted(scratch):
    run = _pytest(scratch, "--icl-seed", "0", "--icl-max-examples", "1", "test_plain.py")
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr


COUNTED_CLAIM = """
import sympy as sp
import icl_verify as iv

x = sp.Symbol("x")


def _counted():
    with open("checks.txt", "a") as f:
        f.write("checked\\n")
    return 2 * x - (x + x)


double = iv.Claim(name="double", source="arithmetic", statement="2x = x + x", checks=(iv.Symbolic(_counted),))
"""


def _checks(folder: Path) -> int:
    counted = folder / "checks.txt"
    return len(counted.read_text().splitlines()) if counted.exists() else 0


def test_the_header_shows_the_seed_the_budget_and_the_cache(scratch):
    run = _pytest(scratch, "-v", "--icl-seed", "3", "--icl-max-examples", "7", "test_plain.py")  # -v: the header
    assert "icl-verify: seed 3, max examples 7, verdict cache on" in run.stdout.splitlines(), run.stdout
    off = _pytest(scratch, "-v", "--icl-no-cache", "test_plain.py")
    assert "icl-verify: seed 0, max examples 100, verdict cache off" in off.stdout.splitlines(), off.stdout


def test_a_claims_verdict_is_reused_from_the_verdict_cache(scratch):
    (scratch / "test_claim.py").write_text(COUNTED_CLAIM)
    for expected in (1, 1):  # checked once, then read from the cache
        run = _pytest(scratch, "test_claim.py")
        assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr
        assert _checks(scratch) == expected
    assert _pytest(scratch, "--icl-seed", "1", "test_claim.py").returncode == 0
    assert _checks(scratch) == 2  # another seed is another key
    assert _pytest(scratch, "--icl-no-cache", "test_claim.py").returncode == 0
    assert _checks(scratch) == 3  # --icl-no-cache checks afresh
    (scratch / "pytest.ini").write_text("[pytest]\nicl_cache = false\n")
    assert _pytest(scratch, "test_claim.py").returncode == 0
    assert _checks(scratch) == 4  # and so does icl_cache = false


def test_the_plugin_and_the_command_line_share_the_cache(scratch, monkeypatch):
    from click.testing import CliRunner

    from icl_verify.cli.main import main

    (scratch / "test_claim.py").write_text(COUNTED_CLAIM)
    monkeypatch.chdir(scratch)
    run = CliRunner().invoke(main, ["check", "test_claim.py", "--jobs", "1"])
    assert run.exit_code == 0 and _checks(scratch) == 1, run.output
    assert _pytest(scratch, "test_claim.py").returncode == 0
    assert _checks(scratch) == 1  # the command line's verdict, same key
