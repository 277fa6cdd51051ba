"""A whole run of ``check`` kept in the cache is printed again as the same command prints it with every verdict
from the cache — without executing the user's file — and only while nothing it was seen to depend on changed
(:mod:`icl_verify.running.replay`). That it loads neither SymPy nor the library is checked in a fresh
interpreter in tests/cli/test_imports.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.output import report
from icl_verify.running import depends, replay
from icl_verify.running.store import Store
from tests.conftest import USER_CLAIMS

COUNT_RUNS = """
from pathlib import Path as _Path
with _Path(__file__).with_suffix(".runs").open("a") as _f:
    _f.write("x")
"""
"""Appended to a claims file: each time the file is executed it adds one character to ``<file>.runs``."""


def _executions(path: Path) -> int:
    runs = path.with_suffix(".runs")
    return len(runs.read_text()) if runs.exists() else 0


def _cli(path: Path, cache: Path, *args: str):
    budget = ["--max-examples", "20"]  # a small budget: what is kept does not depend on it (another is another run)
    return CliRunner().invoke(main, ["check", str(path), "--cache-dir", str(cache), "--jobs", "1", *budget, *args])


def _kept(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"*{replay.SUFFIX}.json"))


@pytest.fixture
def counted(user_file: Path) -> Path:
    user_file.write_text(USER_CLAIMS + COUNT_RUNS)
    return user_file


def test_a_second_run_prints_what_the_cache_serves_without_executing_the_file(counted, tmp_path):
    cache = tmp_path / "cache"
    cold = _cli(counted, cache)
    executed = _executions(counted)
    served = _cli(counted, cache)
    assert cold.exit_code == served.exit_code == 0, cold.output
    assert _executions(counted) == executed  # not executed: printed from the kept run
    assert report.CACHED_MARK not in cold.output and "2 of 2 results (cached)" in served.output
    for entry in _kept(cache):
        entry.unlink()
    per_claim = _cli(counted, cache)  # every verdict from the verdict cache, the file executed
    assert _executions(counted) > executed
    assert per_claim.output == served.output and per_claim.exit_code == served.exit_code


def _edit_file(path: Path, monkeypatch) -> None:
    path.write_text(path.read_text() + "\n# edited\n")


def _edit_helper(path: Path, monkeypatch) -> None:
    (path.parent / "helper_beside.py").write_text("X = 2\n")


def _new_numpy(path: Path, monkeypatch) -> None:
    real = depends.version
    monkeypatch.setattr(depends, "version", lambda name: "99.0" if name == "numpy" else real(name))


@pytest.mark.parametrize("change", [_edit_file, _edit_helper, _new_numpy])
def test_a_change_to_what_the_run_depends_on_runs_it_again(counted, tmp_path, monkeypatch, change):
    (counted.parent / "helper_beside.py").write_text("X = 1\n")
    counted.write_text("import helper_beside  # noqa: F401\n" + counted.read_text())
    cache = tmp_path / "cache"
    first = _cli(counted, cache)
    assert first.exit_code == 0, first.output
    assert _cli(counted, cache).exit_code == 0
    executed = _executions(counted)
    change(counted, monkeypatch)
    again = _cli(counted, cache)
    assert _executions(counted) == executed + 1 and again.exit_code == 0
    assert "user-wrong-square" in again.output


def test_the_exit_status_is_kept_with_the_report(tmp_path):
    wrong = tmp_path / "wrong.py"
    right = 'c["a"] ** 2 + 2 * c["a"] * c["b"] + c["b"] ** 2)'
    wrong.write_text(USER_CLAIMS.replace('c["a"] ** 2 + c["b"] ** 2)', right) + COUNT_RUNS)  # holds, expected not to
    cache = tmp_path / "cache"
    first = _cli(wrong, cache)
    executed = _executions(wrong)
    second = _cli(wrong, cache)
    assert first.exit_code == second.exit_code == 1 and _executions(wrong) == executed
    assert "1 NOT as expected" in second.output


def test_a_run_with_an_error_is_never_kept(tmp_path):
    crashing = tmp_path / "crashing.py"
    crashing.write_text(USER_CLAIMS.replace('c["a"] ** 2 + c["b"] ** 2)', "1 / 0)") + COUNT_RUNS)
    cache = tmp_path / "cache"
    first = _cli(crashing, cache)
    assert first.exit_code == 1 and "ERROR" in first.output
    assert _kept(cache) == []
    executed = _executions(crashing)
    assert _cli(crashing, cache).exit_code == 1 and _executions(crashing) == executed + 1


@pytest.mark.parametrize("other", [["--json"], ["--summary"], ["--seed", "1"], ["--max-examples", "50"]])
def test_another_report_or_seed_is_another_run(counted, tmp_path, other):
    cache = tmp_path / "cache"
    plain = _cli(counted, cache)
    executed = _executions(counted)
    first, second = _cli(counted, cache, *other), _cli(counted, cache, *other)
    assert _executions(counted) == executed + 1  # the first executed the file, the second was kept
    assert first.exit_code == second.exit_code == 0 and second.output != plain.output
    if other == ["--json"]:
        assert [c["cached"] for c in json.loads(second.output)["claims"]] == [True, True]


def test_a_tampered_run_is_ignored(counted, tmp_path):
    cache = tmp_path / "cache"
    _cli(counted, cache)
    [entry] = _kept(cache)
    stored = json.loads(entry.read_text())
    stored["body"]["printed"] = "all proved\n"
    entry.write_text(json.dumps(stored))
    executed = _executions(counted)
    again = _cli(counted, cache)
    assert _executions(counted) == executed + 1 and "all proved" not in again.output
    assert again.exit_code == 0 and "2 of 2 results (cached) from the verdict cache" in again.output


def test_no_cache_neither_reads_nor_keeps_a_run(counted, tmp_path):
    cache = tmp_path / "cache"
    _cli(counted, cache)
    executed = _executions(counted)
    fresh = _cli(counted, cache, "--no-cache")
    assert _executions(counted) == executed + 1 and report.CACHED_MARK not in fresh.output
    other = tmp_path / "unused"
    _cli(counted, other, "--no-cache")
    assert not other.exists()


def test_only_a_well_formed_run_is_served_and_only_statuses_0_and_1_are_kept(tmp_path):
    store = Store(tmp_path / "cache")
    nothing = depends.Depends({}, {})
    with pytest.raises(ValueError, match="status must be one of"):
        replay.keep(store, "k", "text\n", 2, nothing)
    replay.keep(store, "k", "text\n", 1, nothing)
    assert replay.served(store, "k") == ("text\n", 1)
    for body in [{"printed": 5, "status": 0}, {"printed": "t", "status": "0"}, {"printed": "t", "status": True}]:
        store.store("bad", body | {"depends": nothing.to_dict()}, replay.SUFFIX)
        assert replay.served(store, "bad") is None
    gone = tmp_path / "gone.py"
    gone.write_text("X = 1\n")
    replay.keep(store, "stale", "text\n", 0, depends.Depends.record([gone], []))
    gone.unlink()
    assert replay.served(store, "stale") is None


def test_a_run_key_names_every_target_and_option(tmp_path, monkeypatch):
    claims = tmp_path / "claims.py"
    claims.write_text("X = 1\n")
    options = {"json": False, "seed": 0}
    base = replay.run_key([str(claims)], options)
    monkeypatch.chdir(tmp_path)
    assert replay.run_key(["claims.py"], options) == base  # a file by its absolute path
    assert replay.run_key(["a-claim"], options) != replay.run_key(["another-claim"], options)
    assert replay.run_key([str(claims)], {"json": True, "seed": 0}) != base
    claims.write_text("X = 2\n")
    assert replay.run_key([str(claims)], options) != base
    assert replay.run_key([str(tmp_path / "missing.py")], options) is None


def test_merged_dependencies_disagreeing_on_a_file_can_never_hold():
    a = depends.Depends({"f": "1"}, {"numpy": "2.0"})
    b = depends.Depends({"g": "2"}, {"numpy": "2.0"})
    assert depends.Depends.merged([a, b]) == depends.Depends({"f": "1", "g": "2"}, {"numpy": "2.0"})
    assert depends.Depends.merged([a, depends.Depends({"f": "other"}, {})]) is None
    assert depends.Depends.merged([a, depends.Depends({}, {"numpy": "1.0"})]) is None
