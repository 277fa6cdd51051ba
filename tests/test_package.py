"""The package: one import name, a public API at the top, and layers that load only what they need."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import icl_verify as iv

PUBLIC = {
    "Claim", "Numeric", "Explicit", "Measured", "Estimate", "Derivation", "Step", "check", "check_all",
    "Verdict", "Evidence", "Result", "Report", "Figure", "clear_caches", "compare_with_tolerance",
    "statement", "matrix", "scalar", "load_family",
    "gaussian", "iid", "expect", "trace", "argmin", "integer", "recursion", "matpow", "exp", "log", "sqrt", "abs",
    "Check", "Found", "Symbolic", "Corrected", "NoControl", "Kind", "Status", "ControlStatus", "StepStatus",
    "IclVerifyError", "InvalidArgument",
}  # fmt: skip


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_public_api_is_importable_from_the_top():
    assert set(iv.__all__) == PUBLIC
    for name in PUBLIC:
        assert getattr(iv, name).__module__.startswith("icl_verify.")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        iv.nope  # noqa: B018


@pytest.mark.parametrize("name", ["theory", "numerics"])
def test_generic_top_level_names_are_not_ours(name, tmp_path):
    run = _python(f"import {name}", tmp_path)
    assert "ModuleNotFoundError" in run.stderr


def test_a_users_own_theory_and_numerics_do_not_shadow_the_package(tmp_path):
    (tmp_path / "numerics.py").write_text("raise SystemExit('the user numerics was imported')\n")
    (tmp_path / "theory").mkdir()
    (tmp_path / "theory" / "__init__.py").write_text("raise SystemExit('the user theory was imported')\n")
    run = _python("import icl_verify.families.kinetics, icl_verify.numerics.lsa.layers; print('ok')", tmp_path)
    assert run.stdout.strip() == "ok", run.stderr


def test_numerics_loads_neither_sympy_nor_the_engine(tmp_path):
    code = "import sys, icl_verify.numerics.lsa.layers; print(sorted(m for m in ('sympy', 'icl_verify.core.claims') if m in sys.modules))"
    assert _python(code, tmp_path).stdout.strip() == "[]"


def test_rich_display_works_when_only_the_engine_is_imported(tmp_path):
    code = (
        "from icl_verify.core.claims import Claim\n"
        "from icl_verify.core.checks.symbolic import Symbolic\n"
        "c = Claim(name='n', source='s', statement='x = x', checks=(Symbolic(lambda: 0),))\n"
        "print(c._repr_markdown_().splitlines()[0])"
    )
    assert _python(code, tmp_path).stdout.strip() == "### `n`"


def test_clear_caches_empties_the_compiled_networks():
    from icl_verify.families import raw_programs

    first = raw_programs._compiled_theorem2(2, 0.5)
    assert raw_programs._compiled_theorem2(2, 0.5) is first  # memoised
    iv.clear_caches()
    assert raw_programs._compiled_theorem2.cache_info().currsize == 0
    assert raw_programs._compiled_theorem2(2, 0.5) is not first


# ---------------------------------------------------------------------------------------------
# Every subpackage is installed and documented


ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"icl_verify": "theory", "icl_verify.numerics": "numerics"}  # [tool.setuptools.package-dir]


def subpackages() -> list[str]:
    """Every subpackage of the imported icl_verify (numerics walked from its own folder: setuptools maps it)."""
    import icl_verify.numerics

    found = set()
    for package in (iv, icl_verify.numerics):
        prefix = package.__name__ + "."
        found |= {m.name for m in pkgutil.walk_packages(package.__path__, prefix) if m.ispkg}
    return sorted(found | {"icl_verify.numerics"})


def folder(package: str) -> str:
    """The repository folder of ``package``, e.g. ``theory/core/checks/``."""
    base = "icl_verify.numerics" if package.startswith("icl_verify.numerics") else "icl_verify"
    rest = package.removeprefix(base).lstrip(".").replace(".", "/")
    return "/".join(filter(None, (FOLDERS[base], rest))) + "/"


def tree_folders(text: str) -> set[str]:
    """The folders of the indented trees (```-blocks of ``name/`` lines) in ``text``, as full paths."""
    paths: set[str] = set()
    for block in re.findall(r"^```\n(.*?)^```", text, re.M | re.S):
        stack: list[tuple[int, str]] = []
        for line in block.splitlines():
            entry = re.match(r"^( *)([\w.]+/)(\s|$)", line)
            if entry:
                indent = len(entry[1])
                stack = [(i, name) for i, name in stack if i < indent] + [(indent, entry[2])]
                paths.add("".join(name for _, name in stack))
    return paths


def section(path: Path, title: str) -> str:
    return path.read_text(encoding="utf-8").split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_subpackage_is_listed_for_setuptools():
    with (ROOT / "pyproject.toml").open("rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    assert set(subpackages()) | {"icl_verify"} == listed  # a folder missing here is missing from a plain install


@pytest.mark.parametrize(("document", "title"), [("README.md", "Architecture"), ("CONTRIBUTING.md", "Layout")])
def test_every_subpackage_is_described_in_the_architecture(document, title):
    text = section(ROOT / document, title)
    mentioned = tree_folders(text)
    missing = [
        p for p in subpackages() if f"`{p}`" not in text and folder(p) not in text and folder(p) not in mentioned
    ]
    assert not missing, f"{document}, section {title}: describe {missing} (by dotted name or folder)"


# ---------------------------------------------------------------------------------------------
# Packaging: version, type hints, licence, changelog, metadata


def _pyproject() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def test_version_is_the_installed_distributions():
    from importlib.metadata import version

    assert iv.__version__ == version("icl-verify") == _pyproject()["project"]["version"]
    assert "__version__" in dir(iv)


def test_type_hints_are_shipped():
    assert "py.typed" in _pyproject()["tool"]["setuptools"]["package-data"]["icl_verify"]
    assert (Path(iv.__file__).parent / "py.typed").is_file()  # PEP 561's marker, in the package's folder


def test_licence_is_the_apache_2_text_the_metadata_names():
    from importlib.metadata import metadata

    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert (
        "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text and "END OF TERMS AND CONDITIONS" in text
    )
    assert len(re.findall(r"^\s+\d\. [A-Z]", text, re.M)) == 9  # sections 1–9 of the licence
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert metadata("icl-verify")["License-Expression"] == "Apache-2.0"


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n") and "keepachangelog.com" in text
    releases = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert releases[0] == ("Unreleased", "")
    assert (_pyproject()["project"]["version"], "2026-12-01") in releases
    assert all(date for name, date in releases[1:])  # every release is dated
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    linked = set(re.findall(r"^\[([^\]]+)\]: https://", text, re.M))
    assert linked == {name for name, _ in releases}  # each heading links to its diff


def test_metadata_lists_urls_and_classifiers():
    from importlib.metadata import metadata

    meta = metadata("icl-verify")
    classifiers = set(meta.get_all("Classifier"))
    assert {"Framework :: Pytest", "Typing :: Typed", "Programming Language :: Python :: 3.11"} <= classifiers
    assert any(c.startswith("Topic :: Scientific/Engineering") for c in classifiers)
    minimum = _pyproject()["project"]["requires-python"].removeprefix(">=")
    versions = [
        c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert min(versions, key=lambda v: tuple(map(int, v.split(".")))) == minimum  # none below requires-python
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Source", "Issues", "Changelog", "Documentation"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())


def test_check_all_runs_through_the_runner_and_the_verdict_cache(tmp_path):
    from icl_verify.running.registry import builtin_claims

    claim = next(c for c in builtin_claims() if c.name == "newton-residual-squares")  # symbolic: cheap, cacheable
    first = iv.check_all([claim], jobs=1, cache_dir=tmp_path, progress=False)
    again = iv.check_all([claim], jobs=1, cache_dir=tmp_path, progress=False)
    fresh = iv.check_all([claim], jobs=1, cache=False, progress=False)
    assert first.cached == frozenset() and again.cached == {claim.name} and fresh.cached == frozenset()
    assert [r.verdict for r in (*first.results, *again.results, *fresh.results)] == [iv.Verdict.PROVED] * 3
    assert "(cached)" in again.table() and again.to_json()["claims"][0]["cached"] is True
