"""The public API is typed through ``import icl_verify as iv``: mypy sees ``iv.check``, ``iv.statement``… with their
real signatures (the explicit re-exports under ``TYPE_CHECKING`` in ``icl_verify/__init__.py``), not as ``Any``.

mypy runs on a user's snippet against the package laid out as installed: a setuptools editable install in its
default mode maps ``icl_verify`` through an import hook that mypy cannot follow (CONTRIBUTING.md says how to
install for type checkers).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import icl_verify as iv

REPO = Path(__file__).resolve().parents[1]

SNIPPET = textwrap.dedent(
    """
    import icl_verify as iv

    reveal_type(iv.check)
    reveal_type(iv.statement)
    reveal_type(iv.check_all)
    result = iv.check("not a claim", seed="zero")
    reveal_type(result.verdict)
    """
)


def _type_checked_names() -> set[str]:
    """The names imported under ``if TYPE_CHECKING:`` in ``icl_verify/__init__.py``, as ``name as name``."""
    tree = ast.parse((REPO / "theory" / "__init__.py").read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    imports = [a for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names]
    assert all(a.asname == a.name for a in imports), "a re-export must be `name as name` (PEP 484)"
    return {a.name for a in imports}


def test_every_lazy_export_is_re_exported_for_type_checkers():
    assert _type_checked_names() == set(iv.__all__)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as an installed tree sees it: ``icl_verify/`` holding theory/'s files and ``numerics/``
    (``[tool.setuptools.package-dir]``), linked to the checkout's files."""
    root = tmp_path_factory.mktemp("site")
    package = root / "icl_verify"
    package.mkdir()
    for entry in (REPO / "theory").iterdir():
        (package / entry.name).symlink_to(entry)
    (package / "numerics").symlink_to(REPO / "numerics")
    return root


def test_mypy_sees_the_real_signatures_through_the_package(installed: Path, tmp_path: Path):
    (tmp_path / "user.py").write_text(SNIPPET)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental", "--show-error-codes", "user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MYPYPATH": str(installed)},
    )
    out = run.stdout
    assert "Cannot find implementation or library stub" not in out, out
    revealed = [line.split("Revealed type is ", 1)[1] for line in out.splitlines() if "Revealed type is" in line]
    assert len(revealed) == 4, out
    assert all(r.strip('"') != "Any" for r in revealed), out
    assert revealed[0].startswith('"def (claim: icl_verify.core.claims.Claim'), out
    assert "icl_verify.core.verdicts.Verdict" in revealed[3], out
    assert "[arg-type]" in out and 'Argument 1 to "check" has incompatible type "str"' in out, out
