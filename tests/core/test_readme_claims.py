"""The README's bound, expectation and every-K examples run as written and reach their verdicts."""

from __future__ import annotations

import re
from pathlib import Path

import icl_verify as iv

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_bound_expectation_and_induction_examples_reach_their_verdicts():
    section = re.search(r"## Write your own claim(.*?)\n## ", README.read_text(), re.S).group(1)
    snippet = re.findall(r"```python\n(.*?)```", section, re.S)[1]
    claims = re.findall(r"^(\w+) = iv\.statement\(.*?$\n(.*?)^\)$", snippet, re.S | re.M)
    assert [name for name, _ in claims] == ["frobenius", "fourth_moment", "relaxation"]
    assert all(len(body.strip().splitlines()) <= 10 for _, body in claims)
    namespace: dict = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    verdicts = {name: iv.check(namespace[name], max_examples=30).verdict for name, _ in claims}
    assert verdicts == {
        "frobenius": iv.Verdict.VERIFIED,
        "fourth_moment": iv.Verdict.PROVED,
        "relaxation": iv.Verdict.PROVED,
    }
