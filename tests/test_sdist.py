"""The source distribution holds what its tests and documents need (MANIFEST.in), and its tests run from it; the
package description (README.md) has only absolute links, and its Documentation URL is the site.

The sdist is built offline by setuptools' own backend (``setuptools.build_meta``, the backend ``pyproject.toml``
names), unpacked, and a test module in a test subfolder is run from the unpacked tree: that needs the tests'
``conftest.py``, their package ``__init__.py`` files and the files the tests read.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

NEEDED = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "CONTRIBUTING.md",
    "mkdocs.yml",
    "tests/__init__.py",
    "tests/conftest.py",
    "tests/clusters.py",
    "tests/output/__init__.py",
    "tests/output/test_files.py",
    "tests/numerics/lsa/__init__.py",
    "docs/tutorial.md",
    "docs/derivations/index.md",
    "docs/derivations/figures/ledger.svg",
    "docs/hooks/repo_pages.py",
    "benchmarks",
)


CLEAN_IGNORE = ("*.egg-info", ".git", "build", "dist", "site", "__pycache__", ".hypothesis", ".*_cache")


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist of a clean copy of the checkout (no ``*.egg-info``, whose file list setuptools would reuse),
    unpacked: the folder ``icl_verify-<version>``."""
    out = tmp_path_factory.mktemp("sdist")
    clean = out / "checkout"
    shutil.copytree(REPO, clean, ignore=shutil.ignore_patterns(*CLEAN_IGNORE))
    build = subprocess.run(
        [sys.executable, "-c", f"from setuptools.build_meta import build_sdist; print(build_sdist({str(out)!r}))"],
        cwd=clean,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    archive = out / build.stdout.split()[-1]
    with tarfile.open(archive) as tar:
        tar.extractall(out / "x", filter="data")
    (root,) = (out / "x").iterdir()
    return root


def test_sdist_holds_the_tests_the_documents_and_the_project_files(unpacked: Path):
    missing = [rel for rel in NEEDED if not (unpacked / rel).exists()]
    assert not missing, f"not in the sdist: {missing}"
    assert not list(unpacked.rglob("*.pyc")) and not list(unpacked.rglob("__pycache__"))


def test_a_test_module_runs_from_the_sdist(unpacked: Path):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/output/test_files.py"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "error" not in run.stdout.lower()


def test_the_package_description_has_only_absolute_links_and_the_documentation_is_the_site():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    prose = re.sub(r"(?ms)^```.*?^```$", "", readme)
    relative = [t for t in re.findall(r"\]\(([^)\s]+)", prose) if not re.match(r"https?://|#", t)]
    assert not relative, f"relative links break on a package index: {relative}"
    urls = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    site_url = re.search(r"(?m)^site_url: (\S+)", (REPO / "mkdocs.yml").read_text(encoding="utf-8"))[1]
    assert urls["Documentation"] == site_url and not site_url.endswith(".md")
