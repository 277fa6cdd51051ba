"""``icl-verify kinetics``: the simulate-and-compare command."""

from __future__ import annotations

import json
import math

from click.testing import CliRunner

from icl_verify.cli.main import main


def test_kinetics_prints_the_trajectory_and_the_ode(tmp_path):
    png = tmp_path / "kin.png"
    args = [
        "kinetics",
        "--dimension",
        "8",
        "--pairs",
        "inf",
        "--context-length",
        "32",
        "--steps",
        "60",
        "--hidden",
        "16",
        "--plot",
        str(png),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "w ode" in result.output and "t_ICL" in result.output
    assert png.stat().st_size > 10_000


def test_kinetics_json_series_start_at_the_initial_condition():
    args = [
        "kinetics",
        "--dimension",
        "8",
        "--pairs",
        "16",
        "--context-length",
        "4",
        "--steps",
        "20",
        "--hidden",
        "8",
        "--beta0",
        "0.3",
        "--json",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    s = data["series"]
    assert data["seed"] == 0 and data["config"]["k"] == 16
    assert s["beta"][0] == s["beta_ode"][0] == 0.3 and s["w"][0] == s["w_ode"][0] == 0.0
    assert math.isclose(s["t"][-1], 0.5 * 20)


def test_kinetics_bad_k_is_a_usage_error():
    for k in ("7", "many"):
        result = CliRunner().invoke(main, ["kinetics", "--pairs", k])
        assert result.exit_code == 2 and "k must be an even integer" in result.output


def test_kinetics_conventions_are_options_recorded_in_the_json():
    base = [
        "kinetics",
        "--dimension",
        "8",
        "--pairs",
        "16",
        "--context-length",
        "6",
        "--steps",
        "20",
        "--hidden",
        "8",
        "--lr",
        "0.05",
        "--json",
    ]
    flow = json.loads(CliRunner().invoke(main, base).output)
    authors = CliRunner().invoke(
        main, [*base, "--clock", "iterations", "--context", "with_query", "--c1-labels", "positive"]
    )
    assert authors.exit_code == 0, authors.output
    out = json.loads(authors.output)
    assert (out["config"]["clock"], out["config"]["context"], out["config"]["constants_labels"]) == (
        "iterations", "with_query", "positive",
    )  # fmt: skip
    assert flow["config"]["clock"] == "lr_steps" and flow["config"]["context"] == "pairs"
    assert out["series"]["t"][-1] == 20 and flow["series"]["t"][-1] == 20 * 0.05


def test_kinetics_unknown_convention_is_a_usage_error():
    result = CliRunner().invoke(main, ["kinetics", "--clock", "epochs"])
    assert result.exit_code == 2 and "--clock" in result.output
