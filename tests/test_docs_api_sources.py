"""The MkDocs hook ``docs/hooks/api_sources.py``: it lays out the package's folders under
``build/api-src/`` as griffe expects them, and two builds of one checkout at the same time (as the
``docs_site`` tests' two xdist workers do) never see each other's tree missing a file.

Marked ``docs_site``: the hook imports MkDocs (the docs extra).
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

pytestmark = pytest.mark.docs_site

HOOK = Path(__file__).resolve().parents[1] / "docs" / "hooks" / "api_sources.py"
FILES = [f"m{i:03d}.py" for i in range(60)]  # enough entries that two layouts overlap in time


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("api_sources", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _checkout(root: Path) -> SimpleNamespace:
    """A checkout mapping ``pkg`` to ``src/`` and ``pkg.sub`` to ``sub/``, as pyproject.toml maps
    ``icl_verify`` and ``icl_verify.numerics``; returns the MkDocs config the hook reads."""
    (root / "pyproject.toml").write_text('[tool.setuptools.package-dir]\npkg = "src"\n"pkg.sub" = "sub"\n')
    for folder in ("src", "sub"):
        (root / folder).mkdir()
        for name in FILES:
            (root / folder / name).write_text(f"# {folder}/{name}\n")
        (root / folder / "__pycache__").mkdir()
    return SimpleNamespace(config_file_path=str(root / "mkdocs.yml"))


def _layout(root: Path) -> dict[str, str]:
    """Every entry under ``build/api-src``: a link's target, or ``dir`` for a real folder."""
    tree = root / "build" / "api-src"
    return {
        str(p.relative_to(tree)): os.readlink(p) if p.is_symlink() else "dir"
        for p in sorted(tree.rglob("*"))
        if p.is_symlink() or p.is_dir()
    }


def _expected(root: Path) -> dict[str, str]:
    links = {f"pkg/{n}": str((root / "src" / n).resolve()) for n in FILES}
    links |= {f"pkg/sub/{n}": str((root / "sub" / n).resolve()) for n in FILES}
    return {"pkg": "dir", "pkg/sub": "dir", **links}


def test_the_tree_links_each_mapped_folders_entries(tmp_path: Path) -> None:
    _hook().on_config(_checkout(tmp_path))
    assert _layout(tmp_path) == _expected(tmp_path)


def test_a_second_layout_keeps_every_right_link_and_mends_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook, config = _hook(), _checkout(tmp_path)
    hook.on_config(config)
    (tmp_path / "src" / FILES[0]).unlink()  # a module removed: its link goes
    (tmp_path / "src" / "new.py").write_text("")  # a module added: it gets a link
    pkg = tmp_path / "build" / "api-src" / "pkg"
    (pkg / FILES[1]).unlink()
    (pkg / FILES[1]).symlink_to(tmp_path / "src" / FILES[2])  # a link to the wrong file: it is remade
    touched: list[str] = []
    for method in ("symlink_to", "unlink"):
        original = getattr(Path, method)

        def record(path: Path, *args: object, _original=original, **kwargs: object) -> None:
            touched.append(path.name)
            _original(path, *args, **kwargs)

        monkeypatch.setattr(Path, method, record)
    hook.on_config(config)
    monkeypatch.undo()
    expected = _expected(tmp_path)
    del expected[f"pkg/{FILES[0]}"]
    expected["pkg/new.py"] = str((tmp_path / "src" / "new.py").resolve())
    assert _layout(tmp_path) == expected
    assert sorted(touched) == sorted([FILES[0], FILES[1], FILES[1], "new.py"])


def test_a_link_another_build_made_meanwhile_is_taken_as_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = Path.symlink_to

    def other_build_first(path: Path, target: Path, *args: object) -> None:
        os.symlink(target, path)  # the other build makes it after this one looked, before it makes it
        original(path, target, *args)

    monkeypatch.setattr(Path, "symlink_to", other_build_first)
    _hook().on_config(_checkout(tmp_path))
    monkeypatch.undo()
    assert _layout(tmp_path) == _expected(tmp_path)


def _lay_out_and_look(config_file_path: str, rounds: int) -> list[str]:
    """Run the hook ``rounds`` times, as one build would; the files missing from ``pkg/`` after any run."""
    hook, config = _hook(), SimpleNamespace(config_file_path=config_file_path)
    tree = Path(config_file_path).parent / "build" / "api-src" / "pkg"
    missing: list[str] = []
    for _ in range(rounds):
        hook.on_config(config)
        missing += [n for n in FILES if not (tree / n).exists()]
    return missing


def test_builds_at_the_same_time_never_see_a_file_missing(tmp_path: Path) -> None:
    config = _checkout(tmp_path)
    with ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("fork")) as builds:
        runs = [builds.submit(_lay_out_and_look, config.config_file_path, 40) for _ in range(4)]
        assert [run.result(timeout=120) for run in runs] == [[]] * 4
    assert _layout(tmp_path) == _expected(tmp_path)
