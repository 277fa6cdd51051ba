"""The command line starts without the library: ``--help``, ``--version``, a bare ``icl-verify`` and a
mistyped command import no command module (the group's table names them), and a command's help or
usage error imports neither SymPy nor SciPy nor any family — what the command runs is imported when
it runs. Families are found by the registry when a command needs claims, never imported by a command
module; ``list`` imports them only when its cached list is missing or the package changed
(:mod:`icl_verify.running.catalogue`). Checked in a fresh interpreter by the modules loaded, not by a timing."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import click

import icl_verify.cli as cli_package
from icl_verify.cli import check, docs, kinetics, scaling
from icl_verify.cli.main import COMMANDS
from tests.conftest import USER_CLAIMS

PROBE = """
import contextlib, io, json, sys
from icl_verify.cli.main import main

before = set(sys.modules)
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        main(json.loads(sys.argv[1]))
    except SystemExit as exc:
        status = exc.code
roots = ("sympy", "scipy", "numpy", "matplotlib", "icl_verify")
loaded = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in roots)
print(json.dumps({"status": status, "output": out.getvalue(), "error": err.getvalue(), "loaded": loaded}))
"""


def _probe(invocations: list[list[str]]) -> list[dict]:
    """Each invocation in a fresh interpreter (after importing the group): its status, output and the
    modules of the library and of SymPy, SciPy, NumPy and matplotlib it loaded."""
    runs = []
    for args in invocations:
        run = subprocess.run(
            [sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, run.stderr
        runs.append({"args": args, **json.loads(run.stdout)})
    return runs


def _loaded(run: dict, prefix: str) -> list[str]:
    return [m for m in run["loaded"] if m == prefix or m.startswith(prefix + ".")]


def test_the_command_table_is_every_command_module_with_its_summary():
    names = {info.name for info in pkgutil.iter_modules(cli_package.__path__)} - {"main"}
    assert set(COMMANDS) == {name for name in names if not name.startswith("_")}
    for name, summary in COMMANDS.items():
        command = importlib.import_module(f"icl_verify.cli.{name}").command
        assert command.name == name
        assert command.help.split("\n\n")[0] == summary, name


def test_the_vocabularies_parsed_without_the_library_are_the_library_s():
    from icl_verify.experiments.scaling import PRESETS
    from icl_verify.numerics.kinetics import models, ode
    from icl_verify.output import docs as output_docs
    from icl_verify.running import store

    assert (kinetics.CONTEXTS, kinetics.CLOCKS, kinetics.CONSTANTS_LABELS) == (
        models.CONTEXTS,
        models.CLOCKS,
        models.CONSTANTS_LABELS,
    )
    assert kinetics.BETA_CAP == ode.BETA_CAP
    assert kinetics.C2_CONVENTIONS == models.C2_CONVENTIONS
    assert tuple(sorted(PRESETS)) == scaling.PRESET_NAMES
    assert docs.DEFAULT_OUT == output_docs.DEFAULT_OUT and docs.USER_OUT == output_docs.USER_OUT
    assert docs.FORMATS == output_docs.FORMATS
    cache_help = next(p for p in check.command.params if p.name == "cache_dir").help
    assert f"${store.ENV_VAR}" in cache_help


def test_version_help_and_a_mistyped_command_import_no_command_and_nothing_heavy():
    runs = _probe([["--version"], ["--help"], [], ["nosuch"], ["check", "--help"]])
    *light, check_help = runs
    for run in light:
        assert run["loaded"] == [], run  # no command module, nothing of the library, no NumPy
    assert [run["status"] for run in light] == [0, 0, 0, 2]
    assert "version" in light[0]["output"] and "Commands:" in light[1]["output"]
    assert light[2]["output"] == light[1]["output"]  # a bare icl-verify prints the help, status 0
    assert light[3]["error"].count("\n") == 1 and "No such command 'nosuch'" in light[3]["error"]
    assert check_help["status"] == 0 and "--summary" in check_help["output"]


def _help_and_usage_errors() -> list[list[str]]:
    """``--help`` of every command and subcommand, then a usage error of each (a value out of range)."""
    invocations = []
    for name in sorted(COMMANDS):
        invocations.append([name, "--help"])
        command = importlib.import_module(f"icl_verify.cli.{name}").command
        if isinstance(command, click.Group):
            invocations += [[name, sub, "--help"] for sub in sorted(command.commands)]
    return invocations + [
        ["check", "--max-examples", "0"],
        ["check", "--jobs", str(10**30)],
        ["docs", "--seed", "-1"],
        ["kinetics", "--steps", "0"],
        ["kinetics", "--max-memory", "1e9"],
        ["raw", "nosuch"],
        ["scaling", "--jobs", str(10**30)],
        ["scaling", "--preset", "nosuch"],
        ["train", "single", "--steps", "0"],
        ["train", "deep", "--layers", "0"],
        ["list", "--nosuch"],
    ]


HEAVY = ("sympy", "scipy", "icl_verify.families")


def test_help_and_usage_errors_of_every_command_load_no_sympy_scipy_or_family():
    invocations = _help_and_usage_errors()
    assert ["train", "single", "--help"] in invocations and ["scaling", "--help"] in invocations
    # ``list`` last, twice: the first loads every family (they define the claims), so the probe is seen to
    # detect them; the second reads the list the first kept in the cache (this test's own folder)
    *runs, listing, listed_again = _probe([*invocations, ["list"], ["list"]])
    for run in runs:
        expected = 0 if "--help" in run["args"] else 2
        assert run["status"] == expected, run
        assert ("Usage:" in run["output"]) if expected == 0 else (run["error"].count("\n") == 1), run
        heavy = [m for prefix in HEAVY for m in _loaded(run, prefix)]
        assert heavy == [], f"icl-verify {' '.join(run['args'])} loaded {heavy}"
    assert listing["status"] == 0 and "icl_verify.families.optimal_lsa" in listing["loaded"]
    assert all(_loaded(listing, prefix) for prefix in HEAVY)
    assert listed_again["status"] == 0 and listed_again["output"] == listing["output"]
    assert [m for prefix in HEAVY for m in _loaded(listed_again, prefix)] == []


def test_a_run_kept_whole_is_printed_again_loading_no_sympy_scipy_nor_claim(tmp_path):
    claims = tmp_path / "claims.py"
    claims.write_text(USER_CLAIMS)
    for args in (["check", str(claims), "--jobs", "1"], ["check", "newton-residual-squares", "--jobs", "1"]):
        checked, again = _probe([args, args])  # the cache: this test's own folder
        assert checked["status"] == again["status"] == 0
        assert _loaded(checked, "sympy") and _loaded(checked, "icl_verify.core")  # seen when they load
        light = [m for prefix in (*HEAVY, "numpy", "icl_verify.core") for m in _loaded(again, prefix)]
        assert light == [], f"icl-verify {' '.join(args)} from the cache loaded {light}"
        assert "from the verdict cache" in again["output"]
