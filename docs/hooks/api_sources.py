"""MkDocs hook: arrange the import package's source folders as griffe expects, for the API pages.

setuptools maps the package ``icl_verify`` to the folder ``theory/`` and ``icl_verify.numerics``
to ``numerics/`` (``[tool.setuptools.package-dir]`` in pyproject.toml). griffe, which reads the
source code for mkdocstrings, finds a package by the name of its folder. In this repository it
finds no folder named ``icl_verify``. From an editable install it then imports ``icl_verify``
and looks for its submodules in ``theory/`` only, so ``icl_verify.numerics`` is missing. Its
``paths``, ``allow_inspection`` and ``force_inspection`` options do not fix this.

Whenever MkDocs loads its configuration (at every build, and at every rebuild of `mkdocs
serve`), this hook brings the mapping up to date as symlinks under ``build/api-src/``, which
mkdocs.yml gives to mkdocstrings as ``paths``. ``build/api-src/icl_verify/`` links every entry
of ``theory/``, and ``build/api-src/icl_verify/numerics/`` links every entry of ``numerics/``.
griffe then reads the whole package statically from the repository's own files, and the API
pages are the same whether icl-verify is installed editable, installed normally, or not at all.

Two builds of one checkout may run at the same time (`mkdocs serve` beside `mkdocs build`, or
two test processes each building the site). So the hook never removes a link that is right, and
a link that another build made between its look and its own making is taken as made: neither
build sees the other's tree missing a file.
"""

from __future__ import annotations

import contextlib
import os
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
    """Bring ``build/api-src/<package path>/`` up to date as links to each mapped folder's entries."""
    repo = Path(config.config_file_path).resolve().parent
    # Deepest packages first, so that icl_verify/numerics/ is a real folder before icl_verify's
    # own entries are linked next to it.
    for package, folder in sorted(_package_dirs(repo).items(), key=lambda kv: -kv[0].count(".")):
        target = (repo / SOURCE_TREE).joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        _link_entries(folder, target)


def _link_entries(folder: Path, target: Path) -> None:
    """Make ``target/<name>`` a link to each entry of ``folder`` and drop links to anything else.

    Only links are ever removed, never what they point to, and only those that are wrong.
    """
    wanted = {entry.name: entry.resolve() for entry in folder.iterdir() if entry.name != "__pycache__"}
    for link in target.iterdir():
        with contextlib.suppress(FileNotFoundError):  # another build dropped the stale link already
            if link.is_symlink() and wanted.get(link.name) != Path(os.readlink(link)):
                link.unlink()
    for name, source in sorted(wanted.items()):
        link = target / name
        if not os.path.lexists(link):
            with contextlib.suppress(FileExistsError):  # another build made the same link meanwhile
                link.symlink_to(source)


def on_serve(server, config: MkDocsConfig, builder):
    """Rebuild on `mkdocs serve` when the package's source changes."""
    for folder in _package_dirs(Path(config.config_file_path).resolve().parent).values():
        server.watch(str(folder))
    return server
