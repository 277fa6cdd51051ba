"""The command line loads no family to print its help or version: families are found by the registry
when a command needs claims, never imported by a command module."""

from __future__ import annotations

import json
import subprocess
import sys

import click

from icl_verify.cli.main import main

PROBE = """
import contextlib, io, json, sys
from icl_verify.cli.main import main

def families_loaded():
    return sorted(m for m in sys.modules if m == "icl_verify.families" or m.startswith("icl_verify.families."))

runs = []
for args in json.loads(sys.argv[1]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(args)
        except SystemExit as exc:
            status = exc.code
    runs.append({"args": args, "status": status, "output": out.getvalue(), "families": families_loaded()})
print(json.dumps(runs))
"""


def _help_invocations() -> list[list[str]]:
    """``--help`` and ``--version``, then ``--help`` of every command and of every subcommand of a group."""
    invocations = [["--help"], ["--version"]]
    for name, command in sorted(main.commands.items()):
        invocations.append([name, "--help"])
        if isinstance(command, click.Group):
            invocations += [[name, sub, "--help"] for sub in sorted(command.commands)]
    return invocations


def _probe(invocations: list[list[str]]) -> list[dict]:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(invocations)], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_help_and_version_load_no_family():
    invocations = _help_invocations()
    assert ["train", "single", "--help"] in invocations and ["scaling", "--help"] in invocations
    # ``list`` last: it loads every family, so the probe is seen to detect them
    runs = _probe([*invocations, ["list"]])
    *helps, listing = runs
    for run in helps:
        assert run["status"] == 0, run
        expected = "version" if run["args"] == ["--version"] else "Usage:"
        assert expected in run["output"], run
        assert run["families"] == [], f"icl-verify {' '.join(run['args'])} loaded {run['families']}"
    assert listing["status"] == 0 and "icl_verify.families.optimal_lsa" in listing["families"]
