"""The README's console output is what the command prints: its claim file (the README's Python block that
defines the two claims) checked by ``icl-verify check``, compared line for line with the console block."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from icl_verify.cli.main import main

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_console_output_is_what_check_prints(tmp_path, monkeypatch):
    text = README.read_text(encoding="utf-8")
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "lsa-prediction-is-one-gd-step" in b]
    (console,) = [b for b in re.findall(r"```console\n(.*?)```", text, re.S) if "that_file.py" in b]
    command, shown = console.split("\n", 1)
    assert command == "$ icl-verify check that_file.py"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "that_file.py").write_text(code, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "that_file.py", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == shown.splitlines()
