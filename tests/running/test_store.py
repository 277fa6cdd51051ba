"""The cache's file system misbehaving (issue 43, item 7): a full disk, a folder, FIFO or link in an entry's place,
a FIFO as a recorded dependency, a dangling link as the folder, temporary files a killed writer left."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.running import depends, registry, runner, store
from icl_verify.running.verdict_cache import VerdictCache

EXPECTED = {"user-square-of-sum": "VERIFIED", "user-wrong-square": "REFUTED"}  # the claims of the user_file fixture


@contextlib.contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the block takes longer than ``seconds``."""

    def late(signum, frame):
        raise TimeoutError(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _verdicts(path: Path, cache: VerdictCache) -> dict[str, str]:
    checked = runner.check_claims(registry.load_file(path), files=[str(path)], jobs=1, cache=cache)
    return {r.claim.name: r.verdict.value for r in checked.results}


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.name != "costs.json" and "." not in p.stem)


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write into a cache folder fails as on a full file system."""

    def no_space(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(store, "atomic_write", no_space)


def test_a_full_disk_warns_once_and_the_run_keeps_its_results(user_file, tmp_path, monkeypatch, capsys):
    cache = VerdictCache(tmp_path / "cache")
    _full_disk(monkeypatch)
    assert _verdicts(user_file, cache) == EXPECTED
    assert _verdicts(user_file, cache) == EXPECTED  # checked again: nothing was kept
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "No space left on device" in warnings[0] and str(tmp_path / "cache") in warnings[0]
    assert _entries(tmp_path / "cache") == []


def test_check_on_a_full_disk_prints_its_report_and_exits_0(user_file, tmp_path, monkeypatch):
    _full_disk(monkeypatch)
    result = CliRunner().invoke(main, ["check", str(user_file), "--cache-dir", str(tmp_path / "c"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "2 claims: 1 refuted, 1 verified — all as expected" in result.stdout
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("warning: cannot write to the cache folder")


def test_a_folder_in_an_entry_s_place_is_skipped_and_left(user_file, tmp_path):
    cache = VerdictCache(tmp_path / "cache")
    _verdicts(user_file, cache)
    entries = _entries(tmp_path / "cache")
    for entry in entries:
        entry.unlink()
        (entry / "inside").mkdir(parents=True)
    assert _verdicts(user_file, cache) == EXPECTED
    assert all(entry.is_dir() for entry in entries) and cache.unwritable is None  # the other writes went on


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_fifo_or_link_in_an_entry_s_place_is_not_read(user_file, tmp_path, kind):
    cache = VerdictCache(tmp_path / "cache")
    _verdicts(user_file, cache)
    entries = _entries(tmp_path / "cache")
    for entry in entries:
        kept = entry.read_bytes()
        entry.unlink()
        if kind == "fifo":
            os.mkfifo(entry)
        else:
            (tmp_path / entry.name).write_bytes(kept)  # a valid entry, reached only through the link
            entry.symlink_to(tmp_path / entry.name)
    with _within(20):
        checked = runner.check_claims(registry.load_file(user_file), files=[str(user_file)], jobs=1, cache=cache)
    assert checked.cached == frozenset()
    assert {r.claim.name: r.verdict.value for r in checked.results} == EXPECTED


def test_a_fifo_as_a_recorded_dependency_is_not_read(tmp_path):
    fifo = tmp_path / "helper.py"
    os.mkfifo(fifo)
    with _within(5):
        assert depends.file_hash(fifo) is None
        assert not depends.Depends({str(fifo): "0" * 64}, {}).still_holds()


def test_a_dangling_link_as_the_folder_is_refused_in_one_line(tmp_path):
    link = tmp_path / "cache"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(store.UnsafeCache, match=r"symbolic link to .*gone.*, which does not exist"):
        VerdictCache(link)
    result = CliRunner().invoke(main, ["check", "user-square-of-sum", "--cache-dir", str(link)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "which does not exist" in result.stderr
    assert "File exists" not in result.stderr and not (tmp_path / "gone").exists()


def test_temporary_files_a_killed_writer_left_are_removed_by_age(tmp_path):
    store.Store(tmp_path)
    old, recent = tmp_path / f"{'a' * 64}.jsonx1y2.tmp", tmp_path / f"{'b' * 64}.jsonz3.tmp"
    old_folder, mine = tmp_path / "kept.tmp", tmp_path / "notes.txt"
    for path in (old, recent, mine):
        path.write_text("{")
    old_folder.mkdir()
    long_ago = time.time() - store.STALE_SECONDS - 60
    for path in (old, old_folder, mine):
        os.utime(path, (long_ago, long_ago))
    store.Store(tmp_path)
    assert not old.exists()
    assert recent.exists() and old_folder.is_dir() and mine.exists()  # a live write's, a folder, not a temporary


def test_serving_verdicts_from_the_cache_reads_each_distribution_s_version_once(user_file, tmp_path, monkeypatch):
    """Reading a distribution's version parses its metadata (≈ 10 ms): read again for every entry, it made serving
    10 000 verdicts from the cache slower than checking them afresh (issue 43, item 10)."""
    cache = VerdictCache(tmp_path / "cache")
    _verdicts(user_file, cache)
    read: list[str] = []
    real = depends.version
    monkeypatch.setattr(depends, "version", lambda name: read.append(name) or real(name))
    checked = runner.check_claims(registry.load_file(user_file), files=[str(user_file)], jobs=1, cache=cache)
    assert checked.cached == set(EXPECTED)  # both entries served, each recording the same distributions
    assert read and len(read) == len(set(read))
    entry = depends.Depends({}, {"numpy": real("numpy")})
    read.clear()
    assert entry.still_holds() and entry.still_holds()
    assert read == ["numpy", "numpy"]  # outside a lookup of the cache: read anew every time
