"""Loading a user's claim file: its folder on sys.path, failures and duplicate names as usage errors (exit 2)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.families import lsa_gd
from icl_verify.running import registry


def _claim(var: str, name: str, value: str = "1") -> str:
    """A module-level claim ``var`` named ``name`` whose symbolic residual is ``value`` − 1."""
    return f'{var} = iv.Claim(name="{name}", source="test", statement="1 = 1", checks=(iv.Symbolic(lambda: sp.Integer({value}) - 1),))\n'


HEADER = "import sympy as sp\nimport icl_verify as iv\n"


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def _assert_usage_error(result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output  # one line
    for needle in needles:
        assert needle in result.output, result.output


def test_a_helper_module_beside_the_file_imports_and_sys_path_is_restored(tmp_path):
    (tmp_path / "my_helpers_i16.py").write_text("RESIDUAL = 0\n")
    path = tmp_path / "uses_helper.py"
    path.write_text(HEADER + "from my_helpers_i16 import RESIDUAL\n" + _claim("c", "helper-claim", "RESIDUAL + 1"))
    before = list(sys.path)
    fam = registry.load_family(path)
    assert sys.path == before
    assert [c.name for c in fam.claims] == ["helper-claim"]
    result = _invoke("check", str(path))
    assert result.exit_code == 0, result.output
    assert "helper-claim" in result.output and "PROVED" in result.output


@pytest.mark.parametrize(
    "statement, kind", [("raise SystemExit(3)", "SystemExit"), ("raise KeyboardInterrupt", "KeyboardInterrupt")]
)
def test_system_exit_or_keyboard_interrupt_while_importing_is_a_usage_error(tmp_path, statement, kind):
    path = tmp_path / "exits.py"
    path.write_text(HEADER + _claim("c", "never-seen") + statement + "\n")
    before = list(sys.path)
    _assert_usage_error(_invoke("check", str(path)), "failed to import", kind, "exits.py")
    assert sys.path == before
    _assert_usage_error(_invoke("docs", str(path), "--out", str(tmp_path / "out")), "failed to import", kind)
    assert not (tmp_path / "out").exists()


def test_any_other_import_failure_is_a_usage_error(tmp_path):
    path = tmp_path / "bad_import.py"
    path.write_text("import no_such_module_for_icl_verify\n")
    _assert_usage_error(_invoke("check", str(path)), "failed to import", "ModuleNotFoundError", "no_such_module")


def test_two_claims_with_one_name_in_a_file_name_both_lines(tmp_path):
    path = tmp_path / "twice.py"
    path.write_text(HEADER + _claim("first", "same-name") + "\n" + _claim("second", "same-name", "2"))
    # HEADER is two lines: the first claim is assigned on line 3, the second on line 5
    _assert_usage_error(_invoke("check", str(path)), "'same-name'", f"{path}:3", f"{path}:5")


def test_one_claim_bound_to_two_names_is_not_a_duplicate(tmp_path):
    path = tmp_path / "alias.py"
    path.write_text(HEADER + _claim("first", "aliased") + "second = first\n")
    assert [c.name for c in registry.load_family(path).claims] == ["aliased"]


def test_two_files_with_one_claim_name_name_both_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = tmp_path / "a" / "claims.py", tmp_path / "b" / "claims.py"
    one.write_text(HEADER + _claim("c", "shared-name"))
    two.write_text(HEADER + "\n" + _claim("c", "shared-name"))
    _assert_usage_error(_invoke("check", str(one), str(two)), "'shared-name'", f"{one}:3", f"{two}:4")


def test_the_same_file_given_twice_loads_once(tmp_path):
    path = tmp_path / "once.py"
    path.write_text(HEADER + _claim("c", "only-once"))
    result = _invoke("check", str(path), str(path))
    assert result.exit_code == 0, result.output
    assert "1 claim: 1 proved" in result.output


def test_two_derivations_with_one_name_are_a_usage_error(tmp_path):
    path = tmp_path / "derivations.py"
    body = textwrap.dedent(
        """
        x = sp.Symbol("x")
        d1 = iv.Derivation("dup", "t", "s", start=2 * x, steps=[iv.Step(x + x, "sum")])
        d2 = iv.Derivation("dup", "t", "s", start=3 * x, steps=[iv.Step(x + 2 * x, "sum")])
        """
    )
    path.write_text(HEADER + body)
    _assert_usage_error(_invoke("check", str(path)), "two derivations named 'dup'", f"{path}:5", f"{path}:6")


def test_a_user_claim_named_like_a_builtin_never_replaces_it(tmp_path):
    path = tmp_path / "impostor.py"
    path.write_text(HEADER + _claim("c", "prop1-lsa-equals-gd-step", "2"))  # a false claim under a built-in name
    result = _invoke("check", str(path), "prop1-lsa-equals-gd-step")
    _assert_usage_error(result, "'prop1-lsa-equals-gd-step'", f"family {lsa_gd.FAMILY}", f"{path}:3")


def test_two_files_that_would_write_one_document_are_a_usage_error(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = tmp_path / "a" / "notes.py", tmp_path / "b" / "notes.py"
    one.write_text(HEADER + _claim("c", "first-notes"))
    two.write_text(HEADER + _claim("c", "second-notes"))
    out = tmp_path / "out"
    _assert_usage_error(_invoke("docs", str(one), str(two), "--out", str(out)), "would both write", "'notes'")
    assert not out.exists()


COMMAND = [sys.executable, "-c", "from icl_verify.cli.main import main; main(prog_name='icl-verify')"]


@pytest.mark.parametrize("status", [0, 3])
def test_os_exit_while_importing_is_a_usage_error_not_a_silent_exit(tmp_path, status):
    path = tmp_path / "underscore_exits.py"
    path.write_text(HEADER + _claim("c", "never-seen") + f"import os\nos._exit({status})\n")
    done = subprocess.run([*COMMAND, "check", str(path), "--no-cache"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines() == [
        f"icl-verify check: error: claims file {str(path)!r} failed to import: it called os._exit({status})"
    ]


def test_a_process_the_file_forks_while_importing_still_ends_with_os_exit(tmp_path):
    marker = tmp_path / "child-ran-on"
    path = tmp_path / "forks.py"
    path.write_text(
        HEADER
        + _claim("c", "forks-at-import")
        + f"import os\nif os.fork() == 0:\n    os._exit(0)\nelse:\n    os.wait()\nopen({str(marker)!r}, 'a').write('x')\n"
    )
    assert registry.load_file(path)[0].name == "forks-at-import"
    assert marker.read_text() == "x"  # the child ended at its os._exit: it did not go on importing


@pytest.mark.parametrize("statement", ["raise GeneratorExit", "class Odd(BaseException): pass\nraise Odd('odd')"])
def test_any_base_exception_while_importing_is_a_usage_error(tmp_path, statement):
    path = tmp_path / "odd.py"
    path.write_text(HEADER + _claim("c", "never-seen") + statement + "\n")
    _assert_usage_error(_invoke("check", str(path)), "failed to import", statement.split("(")[0].split()[-1])


def test_ctrl_c_while_the_file_imports_exits_130(tmp_path):
    path = tmp_path / "slow_import.py"
    path.write_text("import sys, time\nprint('importing', file=sys.stderr, flush=True)\ntime.sleep(60)\n")
    start = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); " + COMMAND[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", start, "check", str(path), "--no-cache"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr.readline() == "importing\n"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and out == ""
    assert err.strip().splitlines() == ["icl-verify: error: interrupted"]


def _not_regular(tmp_path, kind: str):
    path = tmp_path / f"{kind}.py"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.symlink_to(path)  # a loop
    return path


@pytest.mark.parametrize(
    ("kind", "reason"),
    [("fifo", "is not a regular file"), ("device", "is not a regular file"), ("loop", "Too many levels")],
)
def test_a_target_that_is_not_a_regular_file_is_a_usage_error_at_once(tmp_path, kind, reason):
    path = _not_regular(tmp_path, kind)
    for cache in (["--no-cache"], ["--cache-dir", str(tmp_path / "cache")]):
        done = subprocess.run([*COMMAND, "check", str(path), *cache], capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert len(done.stderr.splitlines()) == 1 and reason in done.stderr and str(path) in done.stderr


@pytest.mark.parametrize(
    "head", [b"\xef\xbb\xbf", b"# -*- coding: latin-1 -*-\n"], ids=["utf-8-bom", "latin-1-coding-line"]
)
def test_a_file_python_decodes_loads_as_python_decodes_it(tmp_path, head):
    path = tmp_path / "encoded.py"
    text = HEADER + _claim("c", "encoded") + "NOTE = 'café'\n"
    path.write_bytes(head + text.encode("latin-1" if b"latin" in head else "utf-8"))
    fam = registry.load_family(path)
    assert [c.name for c in fam.claims] == ["encoded"] and fam.module.NOTE == "café"
    line = 3 + head.count(b"\n")  # the claim's line, a coding line counted
    assert fam.locations == (f"{path}:{line}",)
