"""MkDocs hook: arrange the import package's source folders as griffe expects, for the API pages.

setuptools maps the package ``icl_verify`` to the folder ``theory/`` and ``icl_verify.numerics``
to ``numerics/`` (``[tool.setuptools.package-dir]`` in pyproject.toml). griffe, which reads the
source code for mkdocstrings, finds a package by the name of its folder. In this repository it
finds no folder named ``icl_verify``. From an editable install it then imports ``icl_verify``
and looks for its submodules in ``theory/`` only, so ``icl_verify.numerics`` is missing. Its
``paths``, ``allow_inspection`` and ``force_inspection`` options do not fix this.

Whenever MkDocs loads its configuration (at every build, and at every rebuild of `mkdocs
serve`), this hook lays the mapping out again as symlinks under ``build/api-src/``, which
mkdocs.yml gives to mkdocstrings as ``paths``. ``build/api-src/icl_verify/`` links every entry
of ``theory/``, and ``build/api-src/icl_verify/numerics/`` links every entry of ``numerics/``.
griffe then reads the whole package statically from the repository's own files, and the API
pages are the same whether icl-verify is installed editable, installed normally, or not at all.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

SOURCE_TREE = "build/api-src"  # mkdocs.yml: plugins → mkdocstrings → handlers → python → paths


def _package_dirs(repo: Path) -> dict[str, Path]:
    with (repo / "pyproject.toml").open("rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {package: repo / folder for package, folder in mapping.items() if package}


@event_priority(100)  # before mkdocstrings starts: it drops the ``paths`` that do not exist yet
def on_config(config: MkDocsConfig) -> None:
    """Lay out ``build/api-src/<package path>/`` as links to each mapped folder's entries."""
    repo = Path(config.config_file_path).resolve().parent
    tree = repo / SOURCE_TREE
    shutil.rmtree(tree, ignore_errors=True)  # removes the links only, never what they point to
    # Deepest packages first, so that icl_verify/numerics/ is a real folder before icl_verify's
    # own entries are linked next to it.
    for package, folder in sorted(_package_dirs(repo).items(), key=lambda kv: -kv[0].count(".")):
        target = tree.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for entry in sorted(folder.iterdir()):
            link = target / entry.name
            if entry.name != "__pycache__" and not link.exists():
                link.symlink_to(entry.resolve())


def on_serve(server, config: MkDocsConfig, builder):
    """Rebuild on `mkdocs serve` when the package's source changes."""
    for folder in _package_dirs(Path(config.config_file_path).resolve().parent).values():
        server.watch(str(folder))
    return server
