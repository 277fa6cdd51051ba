"""Tests for ``icl-verify raw`` (icl_verify.cli.raw)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from icl_verify.cli.raw import build
from icl_verify.cli.raw import command as raw_command


def test_raw_command_reports_agreement_with_closed_form():
    result = CliRunner().invoke(raw_command, ["theorem2", "--dimension", "3", "--json", "--seed", "4"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["layers"] == 10 and record["n"] == 1 and record["seed"] == 4
    assert record["relative_error"] < 1e-5
    assert abs(record["prediction"] - record["closed_form"]) <= 1e-5 * abs(record["closed_form"])


def test_raw_command_error_shrinks_with_scale():
    errs = []
    for scale in ("100", "1000"):
        out = CliRunner().invoke(
            raw_command, ["ridge", "--dimension", "2", "--examples", "2", "--scale", scale, "--json"]
        )
        errs.append(json.loads(out.output)["relative_error"])
    assert errs[1] < errs[0] / 50  # 1/N²: a factor ≈ 100 per decade


def test_theorem1_closed_form_is_the_stated_update():
    task = build("theorem1", 3, 5, 0.1, 0.5, np.random.default_rng(0))
    rng = np.random.default_rng(0)
    X, y, xq, w = rng.normal(size=(1, 3)), rng.normal(size=1), rng.normal(size=3), rng.normal(size=3)
    w_new = w - 0.2 * (X[0] * (w @ X[0]) - y[0] * X[0] + 0.5 * w)
    assert task["closed_form"] == pytest.approx(w_new @ xq, rel=1e-14)


def test_bad_arguments_exit_2():
    runner = CliRunner()
    assert runner.invoke(raw_command, ["theorem3"]).exit_code == 2
    assert runner.invoke(raw_command, ["ridge", "--dimension", "0"]).exit_code == 2
    assert runner.invoke(raw_command, ["ridge", "--lam", "0"]).exit_code == 2


def test_registered_on_the_main_cli():
    from icl_verify.cli.main import main

    result = CliRunner().invoke(main, ["raw", "sgd", "--dimension", "2", "--examples", "3"])
    assert result.exit_code == 0, result.output
    assert "relative error" in result.output


@pytest.mark.parametrize("args", [["theorem1", "--scale", "1"], ["sgd", "-d", "4", "-n", "8", "--alpha", "2"]])
def test_a_transformer_that_does_not_reproduce_the_closed_form_exits_1_saying_so(args):
    result = CliRunner().invoke(raw_command, args)
    assert result.exit_code == 1, result.output
    assert "[FAIL] reproduces the closed form (relative error ≤ 0.001)" in result.stdout
    assert "did not reproduce the closed form" in result.stderr and "--alpha" in result.stderr
    as_json = CliRunner().invoke(raw_command, [*args, "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["relative_error"] > 1e-3


def test_a_transformer_that_reproduces_the_closed_form_says_ok_and_exits_0():
    result = CliRunner().invoke(raw_command, ["sgd"])
    assert result.exit_code == 0 and "[ok] reproduces the closed form" in result.stdout
