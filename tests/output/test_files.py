"""Atomic writes (icl_verify.output.files) give a new file the mode ``open`` would (0666 less the umask)
and keep a replaced file's mode — never the 0600 of the temporary file they are staged in."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from icl_verify.output.files import write_file, write_files


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Set the process's umask for the test, then restore it."""
    previous = os.umask(0o022)
    yield os.umask
    os.umask(previous)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664), (0o000, 0o666)])
def test_a_new_file_has_0666_less_the_umask(umask, tmp_path, mask, mode):
    umask(mask)
    write_files({tmp_path / "a.md": b"a", tmp_path / "sub" / "b.svg": b"<svg/>"})
    assert _mode(tmp_path / "a.md") == mode and _mode(tmp_path / "sub" / "b.svg") == mode
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.md", "b.svg", "sub"]  # no temporary file left


def test_a_replaced_file_keeps_its_mode(umask, tmp_path):
    umask(0o022)
    path = tmp_path / "doc.tex"
    path.write_bytes(b"old")
    path.chmod(0o640)
    write_file(path, b"new")
    assert path.read_bytes() == b"new" and _mode(path) == 0o640
