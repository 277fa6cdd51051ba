"""Exit statuses by exception type: bad input is one line and status 2; anything else is a bug, shown
with its traceback, a one-line request to report it, and status 1."""

from __future__ import annotations

import traceback

import pytest
from click.testing import CliRunner

from icl_verify.cli import main as cli_main
from icl_verify.errors import InvalidArgument
from icl_verify.running import registry

REPORT_LINE = "icl-verify: internal error: {} — please report it with the traceback above"


def _list_raising(monkeypatch: pytest.MonkeyPatch, exc: BaseException):
    """Run ``icl-verify list`` with the registry function it calls raising ``exc``."""

    def builtin_claims():
        raise exc

    monkeypatch.setattr(registry, "builtin_claims", builtin_claims)
    return CliRunner().invoke(cli_main.main, ["list"], prog_name="icl-verify")


def test_invalid_argument_is_one_line_and_status_2(monkeypatch):
    result = _list_raising(monkeypatch, InvalidArgument("seed must be a non-negative integer, got -1"))
    assert result.exit_code == 2
    assert result.stderr == "icl-verify list: error: seed must be a non-negative integer, got -1\n"
    assert result.stdout == ""


@pytest.mark.parametrize(
    "exc, summary",
    [
        (
            ValueError("operands could not be broadcast together"),
            "ValueError: operands could not be broadcast together",
        ),
        (ZeroDivisionError("float division by zero"), "ZeroDivisionError: float division by zero"),
        (KeyError("N"), "KeyError: 'N'"),
        (RuntimeError("two\n   lines"), "RuntimeError: two lines"),
        (RuntimeError(), "RuntimeError"),
    ],
)
def test_other_exception_is_a_bug_with_traceback_and_status_1(monkeypatch, exc, summary):
    result = _list_raising(monkeypatch, exc)
    assert result.exit_code == 1
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert "in builtin_claims" in result.stderr  # the traceback reaches the function that raised
    exception_lines = "".join(traceback.format_exception_only(exc))  # the traceback's end, then the request
    assert result.stderr.endswith(exception_lines + REPORT_LINE.format(summary) + "\n")
    assert result.stdout == ""


def test_a_plain_value_error_is_not_taken_for_bad_input(monkeypatch):
    result = _list_raising(monkeypatch, ValueError("bad shape"))
    assert result.exit_code == 1
    assert "error: bad shape" not in result.stderr
