"""Families and commands are discovered: a new family is a family module, a numerics module and
its tests, and `icl-verify list`, `check` and `docs` pick it up with nothing else edited."""

from __future__ import annotations

import sys
import textwrap

import click
import pytest
from click.testing import CliRunner

import icl_verify.families
import icl_verify.numerics
from icl_verify.cli.main import main
from icl_verify.output import docs
from icl_verify.running import registry

TOY_NUMERICS = '''
"""The toy family's simulation: the sum of squares, by NumPy."""
import numpy as np


def sum_of_squares(x: np.ndarray) -> float:
    return float(np.sum(np.asarray(x) ** 2))
'''

TOY_FAMILY = '''
"""Claims: a toy family (the sum of squares), added by dropping in one module.

It exists only in the tests.
"""
import sympy as sp
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify.maths.strategies import dims, matrices
from icl_verify.numerics import toy

FAMILY = "toy"
PAPER = "a textbook"


@st.composite
def vectors(draw):
    n = draw(dims(1, 4))
    return {"n": n, "x": draw(matrices(1, n))[0]}


SUM_OF_SQUARES = iv.Claim(
    name="toy-sum-of-squares",
    source=f"{PAPER}, §1",
    statement=r"\\sum_i x_i^2 = x^\\top x",
    checks=(iv.Numeric(vectors(), lambda c: (toy.sum_of_squares(c["x"]), c["x"] @ c["x"])),),
)

x, y = sp.symbols("x y")
SQUARE = iv.Derivation(
    name="toy-square", title="The square of a sum", source=f"{PAPER}, §2",
    start=(x + y) ** 2, steps=[iv.Step(x**2 + 2 * x * y + y**2, "expand")],
)
'''


@pytest.fixture
def toy_family(tmp_path, monkeypatch):
    """A toy family in a folder of its own, on the search paths of icl_verify.families and .numerics."""
    (tmp_path / "families").mkdir()
    (tmp_path / "numerics").mkdir()
    (tmp_path / "families" / "toy.py").write_text(textwrap.dedent(TOY_FAMILY))
    (tmp_path / "numerics" / "toy.py").write_text(textwrap.dedent(TOY_NUMERICS))
    monkeypatch.setattr(icl_verify.families, "__path__", [*icl_verify.families.__path__, str(tmp_path / "families")])
    monkeypatch.setattr(icl_verify.numerics, "__path__", [*icl_verify.numerics.__path__, str(tmp_path / "numerics")])
    yield
    for name in ("icl_verify.families.toy", "icl_verify.numerics.toy"):
        sys.modules.pop(name, None)


def test_a_dropped_in_family_is_listed_and_checked(toy_family):
    fam = next(f for f in registry.families() if f.name == "toy")
    assert fam.title == "A toy family (the sum of squares), added by dropping in one module"
    assert [c.family for c in fam.claims] == ["toy"]
    listed = CliRunner().invoke(main, ["list"])
    assert listed.exit_code == 0 and "toy-sum-of-squares" in listed.output and " toy " in listed.output
    checked = CliRunner().invoke(main, ["check", "toy-sum-of-squares"])
    assert checked.exit_code == 0, checked.output
    assert "VERIFIED" in checked.output


def test_a_dropped_in_family_gets_its_document(toy_family):
    """The documents `icl-verify docs` writes for the discovered families (figures of the others not drawn)."""
    fams = registry.families()
    toy = next(f for f in fams if f.name == "toy")
    results = {c.name: c.check() for c in toy.claims}
    claims = {c.name: c for f in fams for c in f.claims}
    text, figures = docs.family_document(toy, results, claims, seed=0, max_examples=100)
    assert text.startswith("# A toy family") and figures == {}
    assert "### `toy-sum-of-squares`" in text and "The square of a sum" in text and "**proved**" in text
    assert "(toy.md)" in docs.index_document([toy], results, seed=0, max_examples=100)


def test_every_command_module_is_a_command():
    ctx = click.Context(main)
    names = main.list_commands(ctx)  # from the group's table, which tests/cli/test_imports.py holds to the modules
    assert set(names) == {"check", "docs", "kinetics", "list", "raw", "scaling", "train"}
    assert all(main.get_command(ctx, name).name == name for name in names)
