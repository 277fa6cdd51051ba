"""A wrong step in a built-in derivation fails `icl-verify check` and `docs`; derivations are targets of `check`.

The failing case edits one step of a family module in a copy of the package (``theory/`` as
``icl_verify``, ``numerics/`` as ``icl_verify.numerics``) put first on ``PYTHONPATH``, so the
commands run in a subprocess import the copy rather than the installed package.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify import Step
from icl_verify.cli.main import main
from icl_verify.running import registry

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = registry.families()
BUILTIN = {d.name: d for fam in FAMILIES for d in fam.derivations}

CORRECT_STEP = 'steps=[Step(C2 * W**2, "the e^β terms cancel")],'
WRONG_STEP = 'steps=[Step(2 * C2 * W**2, "the e^β terms cancel")],'

# one worker copies the package once for the whole module (its module-scoped fixture)
pytestmark = pytest.mark.xdist_group("broken-copy")


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


# ---------------------------------------------------------------------------------------------
# `icl-verify check` in this process: derivations are targets, and checked with every claim


def _check(*args: str):
    return CliRunner().invoke(main, ["check", "--jobs", "1", *args])


def test_a_derivation_is_checked_alone_by_name():
    result = _check("kinetics-conservation")
    assert result.exit_code == 0, result.output
    assert re.search(r"^kinetics-conservation\s+PROVED\s+ proved", result.output, re.M)
    assert "1 derivation: 1 proved — all as expected" in result.output
    assert "claims:" not in result.output  # no claim was checked
    report = json.loads(_check("kinetics-conservation", "--json").output)
    assert report["ok"] is True and report["claims"] == [] and report["summary"] == "0 claims"
    assert [d["name"] for d in report["derivations"]] == ["kinetics-conservation"]
    assert report["derivations_summary"] == "1 derivation: 1 proved — all as expected"


def test_claims_and_derivations_are_named_together_in_the_order_given():
    result = _check("kinetics-tau-star", "newton-residual-squares", "kinetics-conservation", "--json")
    report = json.loads(result.output)
    assert result.exit_code == 0, result.output
    assert [c["name"] for c in report["claims"]] == ["newton-residual-squares"]
    assert [d["name"] for d in report["derivations"]] == ["kinetics-tau-star", "kinetics-conservation"]


def test_an_unknown_name_is_neither_claim_nor_derivation():
    result = _check("kinetics-conservation", "no-such-thing")
    assert result.exit_code == 2 and "unknown claim(s) or derivation(s): no-such-thing" in result.output


def _two_families(broken: bool) -> list[registry.Family]:
    """The newton family as built in, and the kinetics family's derivations without its claims (one step
    multiplied by 2 when ``broken``)."""
    fams = {f.name: f for f in FAMILIES}
    derivations = list(fams["kinetics"].derivations)
    if broken:
        first = derivations[0]
        wrong = Step(2 * first.steps[0].expr, first.steps[0].why)
        derivations[0] = dataclasses.replace(first, steps=[wrong])
    return [fams["newton"], dataclasses.replace(fams["kinetics"], claims=[], derivations=derivations)]


@pytest.mark.parametrize("broken", [False, True], ids=["as expected", "one wrong step"])
def test_check_without_targets_checks_every_claim_then_every_derivation(monkeypatch, broken):
    monkeypatch.setattr(registry, "families", lambda: _two_families(broken))
    result = _check("--no-cache")
    assert result.exit_code == (1 if broken else 0), result.output
    out = result.output
    assert out.index("newton-residual-squares") < out.index("kinetics-conservation") < out.index("kinetics-tau-star")
    assert "2 claims: " in out and "— all as expected" in out.split("2 claims: ")[1].splitlines()[0]
    if broken:
        assert re.search(r"^kinetics-conservation\s+REFUTED\s+!refuted, expected proved", out, re.M)
        assert "2 derivations: 1 proved, 1 refuted — 1 NOT as expected" in out
    else:
        assert "2 derivations: 2 proved — all as expected" in out
