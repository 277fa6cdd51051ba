"""Every built-in derivation is as expected, and a wrong step in one fails `icl-verify check` and `docs`.

The failing case edits one step of a family module in a copy of the package (``theory/`` as
``icl_verify``, ``numerics/`` as ``icl_verify.numerics``) put first on ``PYTHONPATH``, so the
commands run in a subprocess import the copy rather than the installed package.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from icl_verify import Verdict
from icl_verify.running import registry

ROOT = Path(__file__).resolve().parents[1]
BUILTIN = {d.name: d for fam in registry.families() for d in fam.derivations}

CORRECT_STEP = 'steps=[Step(C2 * W**2, "the e^β terms cancel")],'
WRONG_STEP = 'steps=[Step(2 * C2 * W**2, "the e^β terms cancel")],'


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_builtin_derivation_is_as_expected(name):
    result = BUILTIN[name].check()
    assert result.as_expected, [m.status for m in result.marks]
    assert result.verdict is (Verdict.PROVED if BUILTIN[name].holds else Verdict.REFUTED)
    assert all(m.status == "proved" for m in result.marks) or not BUILTIN[name].holds


def test_builtin_derivations_are_found():
    assert {"prop1-query", "kinetics-conservation", "kinetics-tau-star", "optimal-one-step-rate"} <= set(BUILTIN)


def copy_package(dest: Path) -> Path:
    """A copy of the package's sources importable as ``icl_verify`` with ``dest`` on the path; returns ``dest``."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "theory", dest / "icl_verify", ignore=ignore)
    shutil.copytree(ROOT / "numerics", dest / "icl_verify" / "numerics", ignore=ignore)
    return dest


def run_copy(copy: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``icl-verify ARGS`` in a subprocess importing the package from ``copy``."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    code = "from icl_verify.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600
    )


@pytest.fixture(scope="module")
def broken_copy(tmp_path_factory) -> Path:
    """A copy of the package whose kinetics-conservation derivation has one wrong step (a factor 2)."""
    copy = copy_package(tmp_path_factory.mktemp("broken"))
    module = copy / "icl_verify" / "families" / "kinetics.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(CORRECT_STEP) == 1
    module.write_text(source.replace(CORRECT_STEP, WRONG_STEP), encoding="utf-8")
    return copy


def test_the_copy_is_what_the_subprocess_imports(broken_copy, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(broken_copy)}
    code = "import icl_verify.families.kinetics as k; print(k.__file__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert Path(out.strip()) == broken_copy / "icl_verify" / "families" / "kinetics.py"


def test_check_of_a_broken_builtin_derivation_exits_1_naming_it(broken_copy, tmp_path):
    result = run_copy(broken_copy, "check", "kinetics-conservation", "kinetics-tau-star", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"^kinetics-conservation\s+REFUTED\s+!refuted, expected proved", result.stdout, re.M)
    assert re.search(r"^kinetics-tau-star\s+PROVED\s+ proved", result.stdout, re.M)  # the other one still holds
    assert "2 derivations: 1 proved, 1 refuted — 1 NOT as expected" in result.stdout


def _documents(tmp_path: Path) -> Path:
    out = tmp_path / "derivations"
    shutil.copytree(ROOT / "docs" / "derivations", out)
    return out


@pytest.mark.parametrize("check_only", [True, False], ids=["docs --check", "docs"])
def test_docs_names_the_failed_derivation_and_writes_nothing(broken_copy, tmp_path, check_only):
    out = _documents(tmp_path)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    args = ["docs", "--out", str(out), "--jobs", "1", *(["--check"] if check_only else [])]
    result = run_copy(broken_copy, *args, cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED derivation kinetics-conservation: refuted, expected proved (step 1 refuted)" in result.stdout
    assert "regenerate" not in result.stdout and "stale" not in result.stdout
    assert "icl-verify docs" not in result.stdout  # no remedy that would write the broken step down
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
