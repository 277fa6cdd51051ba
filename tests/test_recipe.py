"""CONTRIBUTING.md's recipe holds: its example family is three files, and with nothing else edited it is
discovered, checked, documented and passes the family-level checks.

The three files are taken from the code blocks of the section "Adding a result family", each named by
its path on the line before the block, and written into a copy of the repository's package, tests and
documents (``theory/`` as ``icl_verify``, ``numerics/`` as ``icl_verify.numerics``) that is put first on
``PYTHONPATH``, so the commands run in a subprocess import the copy rather than the installed package
(as in test_builtin_derivations.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Adding a result family"
BLOCK = re.compile(r"^`(?P<path>[\w./]+\.py)`[^\n]*:\n\n```python\n(?P<code>.*?)\n```$", re.M | re.S)
FAMILY = "ridge"
VERDICTS = {  # from the mathematics of ridge regression (see the section's explanation)
    "ridge-primal-equals-dual": r"PROVED\s+proved",  # (XᵀX + λI)Xᵀ = Xᵀ(XXᵀ + λI) for every n, d
    "ridge-mean-loss-penalty-n-lambda": r"VERIFIED\s+verified",  # the gradient vanishes at penalty nλ
    "ridge-mean-loss-same-lambda": r"REFUTED\s+refuted, as expected",  # gradient 2λw(1 − 1/n) ≠ 0 at n = 2
}
FAMILY_LEVEL = (  # the checks of tests/test_families.py that apply to a family without derivations
    "test_claims_reach_their_expected_verdicts",
    "test_refutations_have_passing_controls",
    "test_committed_document_is_up_to_date",
    "test_family_is_discovered_with_names_no_other_family_uses",
    "test_numerics_of_the_family_are_in_the_fuzz_table",
)
COPIED = {"theory": "icl_verify", "numerics": "icl_verify/numerics", "tests": "tests"}  # repository → copy

# one worker copies the package once for the whole module (its module-scoped fixture)
pytestmark = pytest.mark.xdist_group("recipe")


def example_files() -> dict[str, str]:
    """Repository path → contents of each file of the example, from CONTRIBUTING.md's code blocks."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return {m["path"]: m["code"] + "\n" for m in BLOCK.finditer(section)}


def in_copy(path: str) -> str:
    """Where the repository's file ``path`` lies in the copy."""
    top, _, rest = path.partition("/")
    return f"{COPIED[top]}/{rest}"


def tree(folder: Path) -> dict[str, bytes]:
    """Relative path → contents of every file under ``folder``, caches left out."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def original() -> dict[str, bytes]:
    """The repository's package and tests as they lie in the copy."""
    return {f"{dest}/{rel}": data for src, dest in COPIED.items() for rel, data in tree(ROOT / src).items()}


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The package, tests, committed documents and pytest configuration, plus the example's three files."""
    dest = tmp_path_factory.mktemp("recipe")
    ignore = shutil.ignore_patterns("__pycache__")
    for src, target in COPIED.items():
        shutil.copytree(ROOT / src, dest / target, ignore=ignore, dirs_exist_ok=True)
    shutil.copytree(ROOT / "docs" / "derivations", dest / "docs" / "derivations")
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    for path, code in example_files().items():
        (dest / in_copy(path)).write_text(code, encoding="utf-8")
    return dest


def run(copy: Path, *args: str) -> subprocess.CompletedProcess:
    """``python ARGS`` in the copy's folder, importing the package from the copy."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=copy, timeout=900, check=False
    )


def cli(copy: Path, *args: str) -> subprocess.CompletedProcess:
    return run(copy, "-c", "from icl_verify.cli.main import main; main()", *args)


def test_the_example_is_a_family_module_a_numerics_module_and_its_tests():
    assert sorted(example_files()) == [
        "numerics/literature/ridge.py",
        "tests/numerics/literature/test_ridge.py",
        "theory/families/ridge.py",
    ]
    assert all(not (ROOT / path).exists() for path in example_files())  # an example, not a built-in family


def test_the_copy_differs_from_the_repository_by_the_three_files_only(copy):
    before, after = (
        original(),
        {rel: data for rel, data in tree(copy).items() if rel.split("/")[0] in {"icl_verify", "tests"}},
    )
    assert {rel for rel in after if before.get(rel) != after[rel]} == {in_copy(p) for p in example_files()}
    assert before.keys() <= after.keys()  # nothing removed either


def test_the_subprocess_imports_the_copy(copy):
    result = run(
        copy, "-c", "import icl_verify.families.ridge as m, icl_verify.cli as c; print(m.__file__, c.__file__)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        str(copy / "icl_verify" / "families" / "ridge.py"),
        str(copy / "icl_verify" / "cli" / "__init__.py"),
    ]


def test_the_example_claims_reach_the_verdicts_the_mathematics_gives(copy):
    result = cli(copy, "check", *VERDICTS)
    assert result.returncode == 0, result.stdout + result.stderr
    for name, verdict in VERDICTS.items():
        assert re.search(rf"^{name}\s+{verdict}\s", result.stdout, re.M), (name, result.stdout)
    assert re.search(r"control\s+passed", result.stdout)  # the corrected penalty nλ holds at the counterexample
    assert "shrunk counterexample at {'n': 2, 'd': 1}" in result.stdout
    assert "3 claims: 1 proved, 1 refuted, 1 verified — all as expected" in result.stdout


KEYS = """
import json, sys
from pathlib import Path
from icl_verify.running import registry, runner

def keys():
    return runner.claim_keys(registry.builtin_claims(), {}, 0, 100)

module = Path(sys.argv[1])
source = module.read_text(encoding="utf-8")
before = keys()
module.write_text(source + "\\n# edited\\n", encoding="utf-8")
try:
    after = keys()
finally:
    module.write_text(source, encoding="utf-8")
families = {c.name: c.family for c in registry.builtin_claims()}
print(json.dumps({"before": before, "after": after, "undone": keys(), "families": families}))
"""


def test_editing_the_family_module_changes_the_cache_keys_of_its_claims_only(copy):
    """Keys of every built-in claim before and after the family module is edited, in one process, by
    ``icl_verify.running.runner.claim_keys`` (its modules' sources read again at each call)."""
    result = run(copy, "-c", KEYS, str(copy / "icl_verify" / "families" / f"{FAMILY}.py"))
    assert result.returncode == 0, result.stderr
    keys = json.loads(result.stdout)
    before, after = keys["before"], keys["after"]
    assert before.keys() == after.keys() == keys["families"].keys()
    changed = {name for name in before if before[name] != after[name]}
    assert changed == set(VERDICTS) == {name for name, family in keys["families"].items() if family == FAMILY}
    assert keys["undone"] == before  # the edit undone: the keys of before


def test_the_document_is_generated_and_the_family_level_checks_pass(copy):
    out = copy / "docs" / "derivations"
    committed = tree(out)
    docs = cli(copy, "docs", "--family", FAMILY, "--out", str(out), "--jobs", "1")
    assert docs.returncode == 0, docs.stdout + docs.stderr
    assert f"wrote 1 of 1 files to {out}" in docs.stdout
    assert set(tree(out)) - set(committed) == {f"{FAMILY}.md"}  # and no other document rewritten
    document = (out / f"{FAMILY}.md").read_text(encoding="utf-8")
    assert document.startswith("# Ridge regression in primal and dual form (an example family)\n")
    assert all(f"### `{name}`" in document for name in VERDICTS)

    tests = [
        "tests/test_families.py",
        "tests/numerics/test_fuzz.py",
        in_copy("tests/numerics/literature/test_ridge.py"),
    ]
    result = run(copy, "-m", "pytest", *tests, "-k", FAMILY, "-p", "no:cacheprovider", "-n", "0", "-v")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    passed = set(re.findall(r"::(\S+) PASSED", result.stdout))
    assert {f"{test}[{FAMILY}]" for test in FAMILY_LEVEL} <= passed
    for function in ("ridge_primal", "ridge_dual"):
        assert (
            f"test_bad_input_is_refused_naming_the_argument_or_gives_a_finite_result[literature.ridge.{function}]"
            in passed
        )
    assert {"test_both_forms_match_augmented_least_squares[3-5]", "test_mismatched_rows_are_refused_naming_y"} <= passed
