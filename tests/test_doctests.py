"""The docstring examples of every module of icl_verify run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import icl_verify

MODULES = sorted(
    info.name
    for package in (icl_verify, importlib.import_module("icl_verify.numerics"))
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")
)


def test_every_layer_is_found():
    layers = {"core", "maths", "running", "blocks", "families", "output", "cli", "numerics"}
    assert {name.split(".")[1] for name in MODULES} >= layers


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs=dict(vars(module))):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {name}"
