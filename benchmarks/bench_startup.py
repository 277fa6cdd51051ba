"""Time a user's first contact: ``icl-verify --version`` against ``python -c pass``, and the README's
two-statement example file checked cold and from the cache against pytest running the equivalent
hand-written Hypothesis test of the same two statements, with the same number of examples.

Run: ``python benchmarks/bench_startup.py [--repeat R]`` from the repository's root. Every command
runs as a user runs it (a fresh interpreter, so imports count), R times; the table shows the best
wall time and the CPU time (user + system of the command and its workers) of that run, and the
ratios side by side. Targets (issue 27, idle 2-core machine): ``--version`` ≤ 0.3 s wall; the
example cold ≤ 1.5 × the pytest run; from the cache ≤ 0.5 s. On a machine other jobs share, wall
times stretch with the load; the CPU times and their ratios are the figures to compare.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [str(Path(sys.executable).parent / "icl-verify")]  # the console script, as a user runs it

HAND_WRITTEN = '''
"""The README's two statements as a researcher would test them by hand: pytest + Hypothesis, NumPy arrays."""
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from icl_verify.blocks import gd_step, lsa_prediction, theta_gd

VALUES = st.floats(-3, 3, allow_nan=False)


@st.composite
def task(draw, nonzero_w0=False):
    nx, ny, n = (draw(st.integers(1, 4)) for _ in range(3))
    X, Y = draw(arrays(float, (nx, n), elements=VALUES)), draw(arrays(float, (ny, n), elements=VALUES))
    W0 = draw(arrays(float, (ny, nx), elements=VALUES).filter(lambda w: not nonzero_w0 or np.any(w != 0)))
    x_q, eta = draw(arrays(float, (nx, 1), elements=VALUES)), draw(st.floats(1e-3, 3))
    return X, Y, W0, x_q, eta, n


@settings(max_examples=100, deadline=None, derandomize=True)
@given(task())
def test_lsa_prediction_is_one_gd_step(t):
    X, Y, W0, x_q, eta, n = t
    np.testing.assert_allclose(
        lsa_prediction(theta_gd(W0, eta, n), X, Y, x_q, W0), gd_step(W0, X, Y, eta) @ x_q, atol=1e-9
    )


@settings(max_examples=100, deadline=None, derandomize=True)
@given(task(nonzero_w0=True))
def test_query_among_the_keys_is_gd_corrected(t):
    X, Y, W0, x_q, eta, n = t
    lhs = lsa_prediction(theta_gd(W0, eta, n), X, Y, x_q, W0, include_query=True)
    corrected = gd_step(W0, X, Y, eta) @ x_q - 2 * eta / n * W0 @ x_q @ x_q.T @ x_q
    np.testing.assert_allclose(lhs, corrected, atol=1e-9)
'''


def readme_example() -> str:
    """The README's claim file: its first ``python`` block that declares statements."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    return next(b for b in blocks if "iv.statement(" in b)


def timed(cmd: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Best wall time over ``repeat`` runs of ``cmd``, and the CPU time (with its children's) of that run."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
        best = min(best, (wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per command (the best is kept)")
    args = parser.parse_args()
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "claims.py").write_text(readme_example())
        (folder / "test_hand_written.py").write_text(HAND_WRITTEN)
        env = {**os.environ, "ICL_VERIFY_CACHE_DIR": str(folder / "cache")}
        rows.append(("python -c pass", *timed([sys.executable, "-c", "pass"], env, args.repeat)))
        rows.append(("icl-verify --version", *timed([*CLI, "--version"], env, args.repeat)))
        cold = [*CLI, "check", str(folder / "claims.py")]
        rows.append(("README example, cold (--no-cache)", *timed([*cold, "--no-cache"], env, args.repeat)))
        timed(cold, env, 1)  # fill the cache
        rows.append(("README example, from the cache", *timed(cold, env, args.repeat)))
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        rows.append(("pytest + Hypothesis, hand-written", *timed([*pytest, str(folder)], env, args.repeat)))
    by = {name: (wall, cpu) for name, wall, cpu in rows}
    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d')}; load average {os.getloadavg()[0]:.1f}")
    print("| command | wall (s) | CPU (s) | ratio (wall) | ratio (CPU) | against |")
    print("|---|---|---|---|---|---|")
    against = {
        "icl-verify --version": "python -c pass",
        "README example, cold (--no-cache)": "pytest + Hypothesis, hand-written",
        "README example, from the cache": "pytest + Hypothesis, hand-written",
    }
    for name, wall, cpu in rows:
        base = against.get(name)
        ratios = f"{wall / by[base][0]:.2f} | {cpu / by[base][1]:.2f} | {base}" if base else "– | – | –"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {ratios} |")
    return 0


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, and the number of cores."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    names = re.findall(r"^model name\s*:\s*(.*)$", info, flags=re.M)
    return f"{names[0] if names else 'unknown'} × {len(names)}"


if __name__ == "__main__":
    raise SystemExit(main())
