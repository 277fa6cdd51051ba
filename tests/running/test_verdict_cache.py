"""The verdict cache: reused only while nothing a verdict depends on changed; safe to share and to corrupt."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify import Claim, Evidence, Symbolic
from icl_verify.cli.main import main
from icl_verify.output import report
from icl_verify.running import depends, registry, runner, sources, store, verdict_cache
from icl_verify.running.verdict_cache import Outcome, VerdictCache, entry_key

VERIFIED_ROW = (Evidence("numeric", "verified", "100 random cases pass", 0.0),)  # the evidence of a VERIFIED outcome
KEY_INPUTS = {"sources": "p" * 64, "seed": 0, "max_examples": 100}
ROOT = Path(__file__).resolve().parents[2]


def _entries(folder: Path) -> list[Path]:
    """The verdict entries in the cache's ``folder``."""
    return sorted(p for p in folder.glob("*.json") if p.name != "costs.json" and "." not in p.stem)


def _check(path, cache, **kwargs):
    return runner.check_claims(registry.load_file(path), files=[str(path)], jobs=1, cache=cache, **kwargs)


def test_a_second_run_reads_every_result_from_the_cache_unchanged(user_file, tmp_path):
    cache = VerdictCache(tmp_path / "cache")
    cold = _check(user_file, cache)
    warm = _check(user_file, cache)
    assert cold.cached == frozenset() and warm.cached == {"user-square-of-sum", "user-wrong-square"}
    assert [r.evidence for r in warm.results] == [r.evidence for r in cold.results]  # counterexample included
    assert warm.results[1].counterexample is not None
    assert report.table(warm.results) == report.table(cold.results)
    marked = report.table(warm.results, cached=warm.cached)
    assert marked.count(report.CACHED_MARK) == 3  # two rows and the closing line


@pytest.mark.parametrize(("change", "value"), [("seed", 1), ("max_examples", 50)])
def test_another_seed_or_budget_checks_again(user_file, tmp_path, change, value):
    cache = VerdictCache(tmp_path / "cache")
    _check(user_file, cache)
    assert _check(user_file, cache, **{change: value}).cached == frozenset()


def test_editing_the_claim_file_or_a_helper_it_imports_checks_again(user_file, tmp_path):
    (user_file.parent / "helper.py").write_text("X = 1\n")
    user_file.write_text(user_file.read_text() + "\n\ndef _uses_helper():\n    import helper\n")
    cache = VerdictCache(tmp_path / "cache")
    _check(user_file, cache)
    user_file.write_text(user_file.read_text() + "\n# edited\n")
    assert _check(user_file, cache).cached == frozenset()
    (user_file.parent / "helper.py").write_text("X = 2\n")  # imported inside a function
    assert _check(user_file, cache).cached == frozenset()
    (user_file.parent / "unrelated.py").write_text("Y = 1\n")  # beside it, never imported
    assert len(_check(user_file, cache).cached) == 2


def test_key_depends_on_every_input(monkeypatch):
    base = entry_key("c", **KEY_INPUTS)
    assert entry_key("c", **KEY_INPUTS) == base
    changed = [
        entry_key("d", **KEY_INPUTS),
        entry_key("c", **{**KEY_INPUTS, "sources": "q" * 64}),
        entry_key("c", **{**KEY_INPUTS, "seed": 1}),
        entry_key("c", **{**KEY_INPUTS, "max_examples": 99}),
    ]
    for library in verdict_cache.LIBRARIES:
        real = verdict_cache.version
        monkeypatch.setattr(
            verdict_cache, "version", lambda name, lib=library, real=real: "0.0" if name == lib else real(name)
        )
        changed.append(entry_key("c", **KEY_INPUTS))
        monkeypatch.undo()
    assert len({base, *changed}) == 1 + len(changed)


# ---------------------------------------------------------------------------------------------
# Keys follow the imports: built in a copy of the package's sources, its modules found there


def _copy_finder(copy: Path) -> sources.Finder:
    """Where the module ``name`` of ``icl_verify`` is in ``copy`` (the package laid out as installed)."""

    def find(name: str) -> Path | None:
        if name.split(".")[0] != "icl_verify":
            return None
        base = copy.joinpath(*name.split("."))
        return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)

    return find


@pytest.fixture
def package_copy(tmp_path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "theory", tmp_path / "icl_verify", ignore=ignore)
    shutil.copytree(ROOT / "numerics", tmp_path / "icl_verify" / "numerics", ignore=ignore)
    return tmp_path


BUILTIN = registry.builtin_claims()
FAMILY_OF = {c.name: c.family for c in BUILTIN}


def _builtin_keys(copy: Path) -> dict[str, str]:
    return runner.claim_keys(BUILTIN, {}, 0, 100, finder=_copy_finder(copy))


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


def test_editing_a_family_module_changes_the_keys_of_that_family_only(package_copy):
    before = _builtin_keys(package_copy)
    assert len(before) == len(BUILTIN) and len(set(before.values())) == len(BUILTIN)
    _edit(package_copy / "icl_verify" / "families" / "kinetics.py")
    after = _builtin_keys(package_copy)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {name for name, family in FAMILY_OF.items() if family == "kinetics"}
    assert changed  # the family has claims


def test_editing_a_numerics_module_changes_the_keys_of_the_families_importing_it(package_copy):
    before = _builtin_keys(package_copy)
    _edit(package_copy / "icl_verify" / "numerics" / "kinetics" / "ode.py")
    after = _builtin_keys(package_copy)
    changed = {FAMILY_OF[name] for name in before if before[name] != after[name]}
    assert changed == {"kinetics", "scaling"}  # the two family modules that import it
    _edit(package_copy / "icl_verify" / "numerics" / "kinetics" / "bimodality.py")
    again = _builtin_keys(package_copy)
    assert {FAMILY_OF[name] for name in after if after[name] != again[name]} == {"scaling"}  # its only importer


def test_editing_the_claims_module_changes_every_key(package_copy):
    before = _builtin_keys(package_copy)
    _edit(package_copy / "icl_verify" / "core" / "claims.py")
    after = _builtin_keys(package_copy)
    assert all(before[name] != after[name] for name in before)


def test_the_dependencies_of_a_family_are_its_imports_followed_transitively():
    fam = next(f for f in registry.families() if f.name == "kinetics")
    files = sources.files_of(fam.module.__name__)
    theory = ROOT / "theory"
    assert theory / "families" / "kinetics.py" in files
    assert theory / "core" / "claims.py" in files  # imported by the family
    assert theory / "maths" / "symbolic.py" in files  # imported by icl_verify.core.claims
    assert ROOT / "numerics" / "kinetics" / "ode.py" in files
    assert theory / "families" / "lsa_gd.py" not in files and theory / "cli" / "check.py" not in files


def test_a_user_files_dependencies_include_its_helpers_and_the_package_modules_they_import(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "tools.py").write_text("from . import deep\n")
    (tmp_path / "pkg" / "deep.py").write_text("def f():\n    from icl_verify.maths import tolerance\n")
    (tmp_path / "main.py").write_text("import numpy\nfrom pkg.tools import something\n")
    (tmp_path / "unused.py").write_text("")
    files = sources.dependencies(tmp_path / "main.py")
    local = {p.relative_to(tmp_path).as_posix() for p in files if tmp_path in p.parents}
    assert local == {"main.py", "pkg/__init__.py", "pkg/tools.py", "pkg/deep.py"}
    assert ROOT / "theory" / "maths" / "tolerance.py" in files
    assert all(tmp_path in p.parents or ROOT in p.parents for p in files)  # no other library's files


def test_where_must_be_a_module_of_the_package_or_a_file():
    with pytest.raises(ValueError, match=r"where must name a module of icl_verify or a \.py file, got 'numpy'"):
        sources.files_of("numpy")


@pytest.mark.parametrize("garbage", [b"", b'{"format": 2, "body": {', b"not JSON at all", b'{"body": {}, "mac": 1}'])
def test_a_corrupt_entry_is_ignored_and_rebuilt(user_file, tmp_path, garbage):
    cache = VerdictCache(tmp_path / "cache")
    cold = _check(user_file, cache)
    entries = _entries(tmp_path / "cache")
    assert len(entries) == 2
    entries[0].write_bytes(garbage)
    again = _check(user_file, cache)
    assert len(again.cached) == 1
    assert [r.verdict for r in again.results] == [r.verdict for r in cold.results]
    assert len(_check(user_file, cache).cached) == 2  # the entry was rewritten


def test_a_measured_rows_measurement_is_stored_and_read_back(tmp_path):
    """The measurement of a measured row survives the cache; a row whose measurement is not an object does not."""
    measured = {"estimand": "ratio", "estimate": 1.0, "interval": [0.9, 1.1], "level": 0.95, "test": "equivalence"}
    row = Evidence("measured", "verified", "inside the band", 0.0, measurement=measured)
    outcome = Outcome(verdict_cache.Verdict.VERIFIED, (row,), 0, 100, 1.0, depends.Depends({}, {}))
    assert Outcome.from_dict(json.loads(json.dumps(outcome.to_dict()))).evidence[0].measurement == measured
    broken = outcome.to_dict()
    broken["evidence"][0]["measurement"] = "0.95"
    with pytest.raises(TypeError, match="measurement"):
        Outcome.from_dict(broken)


def test_an_entry_stored_under_another_key_is_not_used(tmp_path):
    cache = VerdictCache(tmp_path)
    outcome = Outcome(verdict_cache.Verdict.VERIFIED, VERIFIED_ROW, 0, 100, 1.0, depends.Depends({}, {}))
    cache.put("a" * 64, outcome)
    assert cache.get("a" * 64) == outcome
    (tmp_path / ("a" * 64 + ".json")).rename(tmp_path / ("b" * 64 + ".json"))
    assert cache.get("b" * 64) is None


def test_concurrent_writers_leave_a_complete_entry_and_no_temporary_file(tmp_path):
    cache = VerdictCache(tmp_path)
    nothing = depends.Depends({}, {})
    outcomes = [Outcome(verdict_cache.Verdict.VERIFIED, VERIFIED_ROW, 0, 100, float(k), nothing) for k in range(8)]
    threads = [threading.Thread(target=lambda o=o: [cache.put("k" * 64, o) for _ in range(20)]) for o in outcomes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.get("k" * 64) in outcomes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k" * 64 + ".json", store.SECRET]


def test_costs_are_recorded_and_a_corrupt_record_is_ignored(tmp_path):
    cache = VerdictCache(tmp_path)
    assert cache.costs() == {}
    cache.record_costs({"a": 2.0})
    cache.record_costs({"b": 3.0})
    assert cache.costs() == {"a": 2.0, "b": 3.0}
    (tmp_path / "costs.json").write_text("{trunc")
    assert cache.costs() == {}


def test_default_folder_is_the_environment_variable_else_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path / "mine"))
    assert VerdictCache().folder == tmp_path / "mine"
    monkeypatch.delenv(store.ENV_VAR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert VerdictCache().folder == tmp_path / "xdg" / "icl-verify" / "verdicts"


def test_a_file_as_cache_folder_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match="cache_dir must be a directory"):
        VerdictCache(tmp_path / "f")


# ---------------------------------------------------------------------------------------------
# The command line


def _cli(*args):
    return CliRunner().invoke(main, ["check", *args, "--jobs", "1"])


def test_cli_marks_cached_results_and_no_cache_checks_afresh(user_file, tmp_path):
    folder = str(tmp_path / "cache")
    cold = _cli(str(user_file), "--cache-dir", folder)
    assert cold.exit_code == 0, cold.output
    assert report.CACHED_MARK not in cold.output
    warm = _cli(str(user_file), "--cache-dir", folder)
    assert warm.exit_code == 0 and "2 of 2 results (cached) from the verdict cache" in warm.output
    fresh = _cli(str(user_file), "--cache-dir", folder, "--no-cache")
    assert fresh.exit_code == 0 and report.CACHED_MARK not in fresh.output
    as_json = json.loads(_cli(str(user_file), "--cache-dir", folder, "--json").output)
    assert [c["cached"] for c in as_json["claims"]] == [True, True]


def test_cli_cache_folder_from_the_environment_and_no_cache_writes_nothing(user_file, tmp_path, monkeypatch):
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path / "env-cache"))
    assert _cli(str(user_file), "--no-cache").exit_code == 0
    assert not (tmp_path / "env-cache").exists()
    assert _cli(str(user_file)).exit_code == 0
    assert len(_entries(tmp_path / "env-cache")) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--executor", "dask", "--scheduler", "tcp://nohost"], "--scheduler 'tcp://nohost': expected tcp://HOST:PORT"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler is only used with --executor dask"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_cli_bad_runner_options_exit_2_with_one_line(user_file, args, message):
    result = CliRunner().invoke(main, ["check", str(user_file), *args])
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


def test_cli_cache_dir_that_is_a_file_exits_2(user_file, tmp_path):
    (tmp_path / "f").write_text("")
    result = _cli(str(user_file), "--cache-dir", str(tmp_path / "f"))
    assert result.exit_code == 2 and "--cache-dir" in result.output and "is a file, not a folder" in result.output


def test_docs_takes_the_same_runner_options_and_refuses_bad_ones_before_checking(tmp_path):
    result = CliRunner().invoke(main, ["docs", "--check", "--out", str(tmp_path), "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2 and "--scheduler is only used with --executor dask" in result.output
    assert "Traceback" not in result.output


def test_a_claim_of_unknown_origin_is_never_cached(tmp_path):
    [builtin] = registry.select(registry.builtin_claims(), ["newton-residual-squares"])
    impostor = dataclasses.replace(builtin, checks=(Symbolic(lambda: 0),))  # a built-in's name, another check
    made_here = Claim("made-here", "s", "s", checks=(Symbolic(lambda: 0),))
    assert list(runner.claim_keys([builtin], {}, 0, 100)) == ["newton-residual-squares"]
    assert runner.claim_keys([impostor, made_here], {}, 0, 100) == {}
    cache = VerdictCache(tmp_path / "cache")
    for _ in range(2):
        checked = runner.check_claims([impostor, made_here], jobs=1, cache=cache)
        assert checked.cached == frozenset() and [r.verdict.value for r in checked.results] == ["PROVED", "PROVED"]
    assert _entries(tmp_path / "cache") == []


def test_a_helper_that_does_not_parse_is_hashed_not_followed(tmp_path):
    (tmp_path / "broken.py").write_text("def (:\n")
    (tmp_path / "main.py").write_text("def later():\n    import broken\n")
    files = sources.dependencies(tmp_path / "main.py")
    assert [p.name for p in files] == ["broken.py", "main.py"]


# ---------------------------------------------------------------------------------------------
# What a check loaded, wherever it is: recorded in the entry, and checked before it is served

FAR_HELPER_CLAIMS = """
import importlib, sys
from pathlib import Path
from icl_verify import Claim, Evidence, Symbolic

FAR = Path(__file__).resolve().parent.parent / "elsewhere"
sys.path.insert(0, str(FAR))
import far_helper  # imported when the file loads, from another folder


def loaded_while_checking():
    sys.path.insert(0, str(FAR))
    try:
        return importlib.import_module("late_helper").VALUE - 1  # imported only while the check runs
    finally:
        sys.path.remove(str(FAR))


FAR_CLAIM = Claim("far-helper-is-one", "s", "s", (Symbolic(lambda: far_helper.VALUE - 1),))
LATE_CLAIM = Claim("late-helper-is-one", "s", "s", (Symbolic(loaded_while_checking),))
"""


@pytest.fixture
def far_helpers(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    for name in ("far_helper", "late_helper"):
        (tmp_path / "elsewhere" / f"{name}.py").write_text("VALUE = 1\n")
        monkeypatch.delitem(sys.modules, name, raising=False)
    (tmp_path / "claims").mkdir()
    path = tmp_path / "claims" / "far.py"
    path.write_text(FAR_HELPER_CLAIMS)
    return path


def _verdicts(checked) -> dict[str, str]:
    return {r.claim.name: r.verdict.value for r in checked.results}


def edit_within_the_second(path: Path, text: str) -> None:
    """Rewrite ``path`` keeping its size, its mtime in the same whole second, as an edit within the second of its
    last import does: a ``.pyc`` written then still matches it (Python compares the mtime in whole seconds and
    the size)."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    second, fraction = divmod(before.st_mtime_ns, 10**9)
    os.utime(path, ns=(before.st_atime_ns, second * 10**9 + (fraction + 1) % 10**9))


@pytest.mark.parametrize("helper", ["far_helper", "late_helper"])
def test_a_helper_in_another_folder_edited_checks_again(far_helpers, tmp_path, helper, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # imports write .pyc files, as on a user's machine
    cache = VerdictCache(tmp_path / "cache")
    assert _verdicts(_check(far_helpers, cache)) == {"far-helper-is-one": "PROVED", "late-helper-is-one": "PROVED"}
    assert len(_check(far_helpers, cache).cached) == 2  # nothing changed: reused
    edit_within_the_second(tmp_path / "elsewhere" / f"{helper}.py", "VALUE = 2\n")  # now 2 − 1 ≠ 0
    for name in ("far_helper", "late_helper"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    again = _check(far_helpers, cache)
    claim = "far-helper-is-one" if helper == "far_helper" else "late-helper-is-one"
    assert claim not in again.cached and _verdicts(again)[claim] == "REFUTED"


def test_the_claims_file_edited_within_the_second_is_checked_as_it_reads_now(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "same_size.py"
    path.write_text('from icl_verify import Claim, Symbolic\nC = Claim("c", "s", "s", (Symbolic(lambda: 1 - 1),))\n')
    cache = VerdictCache(tmp_path / "cache")
    assert _verdicts(_check(path, cache)) == {"c": "PROVED"}
    edit_within_the_second(path, path.read_text().replace("1 - 1", "2 - 1"))
    again = _check(path, cache)
    assert again.cached == frozenset() and _verdicts(again) == {"c": "REFUTED"}


def test_a_dependency_whose_version_changed_checks_again(user_file, tmp_path, monkeypatch):
    cache = VerdictCache(tmp_path / "cache")
    _check(user_file, cache)
    entry = json.loads(_entries(tmp_path / "cache")[0].read_text())
    recorded = entry["body"]["depends"]["distributions"]
    assert "platformdirs" in recorded and "numpy" in recorded  # every distribution imported, not only the key's
    assert len(_check(user_file, cache).cached) == 2
    real = depends.version
    monkeypatch.setattr(depends, "version", lambda name: "99.0" if name == "platformdirs" else real(name))
    assert _check(user_file, cache).cached == frozenset()


def test_a_process_records_the_version_it_loaded_and_checks_against_the_version_now(monkeypatch):
    """An upgrade on disk after a process imported a distribution changes nothing the process runs: what it records
    stays the version it loaded, while a cache entry is still checked against the version installed now."""
    real = depends.version
    loaded = depends.Depends.record([], ["numpy"])
    assert loaded.distributions == {"numpy": real("numpy")}
    monkeypatch.setattr(depends, "version", lambda name: "99.0" if name == "numpy" else real(name))
    assert depends.Depends.record([], ["numpy"]) == loaded
    assert not loaded.still_holds()


# ---------------------------------------------------------------------------------------------
# Nothing in the folder runs, and nothing forged is served


class _Planted:
    """Unpickling this would write ``marker``: the cache must never unpickle anything."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "code ran"))


def test_planted_pickles_and_forged_entries_never_run_nor_change_a_verdict(user_file, tmp_path):
    import hashlib
    import hmac
    import pickle

    folder = tmp_path / "cache"
    cache = VerdictCache(folder)
    claims = registry.load_file(user_file)
    keys = runner.claim_keys(claims, {c.name: str(user_file) for c in claims}, 0, 100)
    marker = tmp_path / "marker"
    for key in keys.values():  # where the old cache looked, and the names an attacker would try
        for name in (f"{key}.pickle", f"{key}.figure.pickle"):
            (folder / name).write_bytes(pickle.dumps(_Planted(marker)))
    cold = _check(user_file, cache)
    assert not marker.exists() and _verdicts(cold) == {"user-square-of-sum": "VERIFIED", "user-wrong-square": "REFUTED"}

    # A forged entry: the refuted claim's verdict flipped, with the MAC left as it was, or recomputed
    # with another secret (another user's, or a cache copied from elsewhere).
    path = folder / f"{keys['user-wrong-square']}.json"
    entry = json.loads(path.read_text())
    entry["body"]["verdict"] = "VERIFIED"
    entry["body"]["evidence"] = []
    path.write_text(json.dumps(entry))
    assert _verdicts(_check(user_file, cache))["user-wrong-square"] == "REFUTED"
    entry = json.loads(path.read_text())  # rewritten by that check
    entry["body"]["verdict"] = "VERIFIED"
    message = json.dumps({"key": keys["user-wrong-square"], "kind": "", "body": entry["body"]}, sort_keys=True)
    entry["mac"] = hmac.new(b"another secret" * 3, message.encode(), hashlib.sha256).hexdigest()
    path.write_text(json.dumps(entry))
    again = _check(user_file, cache)
    assert "user-wrong-square" not in again.cached and _verdicts(again)["user-wrong-square"] == "REFUTED"
    assert not marker.exists()


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_cache_folder_others_may_write_is_refused(tmp_path, mode):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(store.UnsafeCache, match="writable by other users"):
        VerdictCache(folder)


def test_a_secret_others_may_read_is_refused(tmp_path):
    VerdictCache(tmp_path / "cache")
    (tmp_path / "cache" / store.SECRET).chmod(0o644)
    with pytest.raises(store.UnsafeCache, match="not a private file"):
        VerdictCache(tmp_path / "cache")


def test_a_new_cache_folder_and_its_secret_are_private(tmp_path):
    VerdictCache(tmp_path / "a" / "cache")
    assert (tmp_path / "a" / "cache").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "a" / "cache" / store.SECRET).stat().st_mode & 0o777 == 0o600


def test_cli_checks_without_a_cache_after_one_warning_line_when_others_may_write_it(user_file, tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    result = CliRunner().invoke(main, ["check", str(user_file), "--jobs", "1", "--cache-dir", str(folder)])
    assert result.exit_code == 0 and "Traceback" not in result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: the cache folder {str(folder)!r} is writable by other users; checking without a cache"
    ]
    assert list(folder.iterdir()) == []


def test_caches_opened_at_once_on_a_new_folder_share_one_complete_secret(tmp_path):
    opened: list[VerdictCache] = []
    threads = [threading.Thread(target=lambda: opened.append(VerdictCache(tmp_path / "new"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secret = (tmp_path / "new" / store.SECRET).read_bytes()
    assert len(opened) == 8 and len(secret) == 32
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == [store.SECRET]  # no temporary file left
    outcome = Outcome(verdict_cache.Verdict.VERIFIED, VERIFIED_ROW, 0, 100, 1.0, depends.Depends({}, {}))
    opened[0].put("s" * 64, outcome)
    assert all(cache.get("s" * 64) == outcome for cache in opened)  # every one reads what another wrote


def test_a_dependency_replaced_by_a_fifo_no_longer_holds_and_is_never_waited_on(tmp_path):
    helper = tmp_path / "helper.py"
    helper.write_text("X = 1\n")
    recorded = depends.Depends.record([helper], [])
    assert recorded.still_holds()
    helper.unlink()
    os.mkfifo(helper)  # no writer: reading it would block forever
    assert not recorded.still_holds()


def test_a_file_edited_after_it_was_imported_keeps_no_verdict_under_its_new_content(tmp_path):
    # The window of the issue (an edit while check imports the file) made deterministic: the file is edited
    # between its import and the computing of its key; the verdict of what ran must not be filed under the edit.
    path = tmp_path / "edited.py"
    claim = 'import icl_verify as iv\nC = iv.Claim("edited", "s", "s", (iv.Symbolic(lambda: {}),))\n'
    path.write_text(claim.format(0))  # what is imported: PROVED
    cache = VerdictCache(tmp_path / "cache")
    imported = registry.load_file(path)
    path.write_text(claim.format(1))  # what the file holds from now on: REFUTED
    assert runner.check_claims(imported, files=[str(path)], jobs=1, cache=cache).results[0].verdict.value == "PROVED"
    again = runner.check_claims(registry.load_file(path), files=[str(path)], jobs=1, cache=cache)
    assert again.cached == frozenset() and again.results[0].verdict.value == "REFUTED"
