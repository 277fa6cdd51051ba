"""The tests hold on any CPU: no bitwise float assertion across threads, processes, workers or executors.

A threaded BLAS may split and reorder its sums, and two processes may round differently (SIMD loops and
BLAS kernels can depend on memory alignment), so results computed on different thread counts, in
different processes or by different BLAS calls agree within rounding, not bit for bit (CONTRIBUTING.md,
"Tests hold on any CPU"). This scan reads every test module: in a test whose name or body mentions
threads, processes, workers, jobs, executors, BLAS, Dask or clusters, a bitwise comparison of arrays
(``np.array_equal``, ``assert_array_equal``, ``assert_equal``, ``array_equiv``, ``tobytes``; not under
``not``) or an ``==`` between two results (reports, losses, weights, summaries, values — neither side a
literal) is an offence, unless the test is marked ``@pytest.mark.bitwise("why equality holds by
construction")``: the same call on the same inputs in the same process.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CROSS = re.compile(r"thread|process|worker|jobs|executor|dask|cluster|blas", re.IGNORECASE)
RESULTS = re.compile(r"result|report|json|loss|weight|summary|\bc1\b|params|value|output|table", re.IGNORECASE)
BITWISE_CALLS = {"array_equal", "assert_array_equal", "assert_equal", "array_equiv", "tobytes"}


def _literal(node: ast.expr) -> bool:
    """A constant, a display of constants, or ``len(...)``: nothing a CPU can round."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_literal(e) for e in node.elts)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _called(node: ast.Call) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")


def _bitwise_reason(fn: ast.FunctionDef) -> str | None:
    """The reason given by ``@pytest.mark.bitwise("...")``, or None."""
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and _called(dec) == "bitwise" and dec.args:
            arg = dec.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.strip():
                return arg.value
    return None


def bitwise_comparisons(fn: ast.FunctionDef) -> list[int]:
    """Lines of ``fn`` comparing results bit for bit (see the module docstring)."""
    negated = {n.operand for n in ast.walk(fn) if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)}
    lines = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and _called(node) in BITWISE_CALLS and node not in negated:
            lines.append(node.lineno)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            sides = (node.left, node.comparators[0])
            if not any(_literal(s) for s in sides) and all(RESULTS.search(ast.unparse(s)) for s in sides):
                lines.append(node.lineno)
    return sorted(set(lines))


def offences(path: Path, root: Path = TESTS.parent) -> list[str]:
    """``path:line test`` for each unmarked bitwise comparison in a test about threads or processes."""
    text = path.read_text(encoding="utf-8")
    found = []
    tests = [f for f in ast.walk(ast.parse(text)) if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
    for fn in tests:
        if _bitwise_reason(fn) is None and CROSS.search(ast.get_source_segment(text, fn) or ""):
            found += [f"{path.relative_to(root)}:{line} {fn.name}" for line in bitwise_comparisons(fn)]
    return found


def test_no_bitwise_float_assertion_across_threads_or_processes():
    found = [o for path in sorted(TESTS.rglob("test_*.py")) for o in offences(path)]
    assert not found, (
        "compare within a rounding bound, or mark @pytest.mark.bitwise('why equal by construction'):\n  "
        + "\n  ".join(found)
    )


SAMPLE = """
import numpy as np, pytest

def test_two_threads_give_the_one_thread_weights():
    with blas_threads(2):
        two = step()
    np.testing.assert_array_equal(two, one)

def test_workers_give_the_same_results():
    assert _results(local) == _results(inline)

def test_workers_give_the_same_count():
    assert len(local_results) == 3 and not np.array_equal(before_threads, after)

@pytest.mark.bitwise("the same call twice in this process")
def test_rerun_in_one_process_gives_the_same_results():
    assert _results(again) == _results(first)

def test_no_concurrency_here():
    np.testing.assert_array_equal(a, b)
"""


def test_the_scan_finds_bitwise_comparisons_across_threads_and_workers_only(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    names = [f.split(" ")[1] for f in offences(sample, tmp_path)]
    assert names == ["test_two_threads_give_the_one_thread_weights", "test_workers_give_the_same_results"]
