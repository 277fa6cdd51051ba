"""The cached claim list of ``icl-verify list``: the registry's claims, kept until a source file of the package
changes, and never taken from an entry this folder's secret did not sign."""

from __future__ import annotations

import json
import shutil

from icl_verify.running import catalogue, registry
from icl_verify.running.store import Store


def _rows_of_the_registry() -> dict[str, list[dict]]:
    claims = [
        {"name": c.name, "family": c.family, "source": c.source, "holds": c.holds} for c in registry.builtin_claims()
    ]
    derivations = [
        {"name": d.name, "family": fam.name, "source": d.source, "holds": d.holds}
        for fam in registry.families()
        for d in fam.derivations
    ]
    return {"claims": claims, "derivations": derivations}


def test_the_list_is_the_registry_s_and_is_read_back_from_the_cache(tmp_path):
    first = catalogue.builtin_listed(tmp_path)
    assert first == _rows_of_the_registry()
    (entry,) = tmp_path.glob(f"*{catalogue.SUFFIX}.json")
    assert catalogue.builtin_listed(tmp_path) == first
    assert entry.stem.removesuffix(catalogue.SUFFIX) == catalogue.package_digest(catalogue.package_roots())


def test_a_forged_or_malformed_entry_is_ignored_and_rewritten(tmp_path):
    key = catalogue.package_digest(catalogue.package_roots())
    catalogue.builtin_listed(tmp_path)
    path = Store(tmp_path).path(key, catalogue.SUFFIX)
    entry = json.loads(path.read_text())
    entry["body"]["claims"] = [{"name": "planted", "family": "x", "source": "y", "holds": True}]  # mac no longer fits
    path.write_text(json.dumps(entry))
    assert catalogue.builtin_listed(tmp_path) == _rows_of_the_registry()
    Store(tmp_path).store(key, {"claims": [{"name": "short"}]}, catalogue.SUFFIX)  # signed, but not a list's rows
    assert catalogue.builtin_listed(tmp_path) == _rows_of_the_registry()
    rows = _rows_of_the_registry()
    Store(tmp_path).store(key, {"claims": rows["claims"]}, catalogue.SUFFIX)  # an entry from before derivations
    assert catalogue.builtin_listed(tmp_path) == rows


def test_the_derivations_are_listed_with_their_family():
    derivations = _rows_of_the_registry()["derivations"]
    assert {"lsa-gd", "kinetics"} <= {d["family"] for d in derivations}
    assert "prop1-query" in {d["name"] for d in derivations}


def test_the_digest_changes_with_any_source_file_and_with_nothing_else(tmp_path):
    roots = []
    for i, src in enumerate(catalogue.package_roots()):
        roots.append(tmp_path / str(i))
        shutil.copytree(src, roots[-1], ignore=shutil.ignore_patterns("__pycache__"))
    before = catalogue.package_digest(roots)
    (roots[0] / "README.txt").write_text("not a source file")
    (roots[0] / "__pycache__").mkdir(exist_ok=True)
    (roots[0] / "__pycache__" / "stale.py").write_text("x = 1")
    assert catalogue.package_digest(roots) == before
    module = next(iter(sorted(roots[-1].rglob("*.py"))))
    module.write_text(module.read_text() + "\n# an edit\n")
    assert catalogue.package_digest(roots) != before
