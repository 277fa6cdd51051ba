"""Benchmark what the pytest plugin costs a test run that has no claim: ``pytest`` on one trivial test,
with the plugin (as installed: entry point ``pytest11``) against ``-p no:icl_verify``, interleaved.

Run: ``python benchmarks/bench_plugin.py [--rounds 9]``. Each round runs both commands once, in a fresh
process each, in alternating order; the table gives the best and median wall times, their ratio and
difference. The plugin imports only pytest when it loads (the claim core, SymPy and Hypothesis come
with the first claim collected), so the difference should be well under 0.1 s.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRIVIAL_TEST = "def test_nothing():\n    assert 1 + 1 == 2\n"
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "test_trivial.py"]
RUNS = {"with the plugin": PYTEST, "-p no:icl_verify": [*PYTEST, "-p", "no:icl_verify"]}


def _wall(command: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - t0


def measure(rounds: int) -> dict[str, list[float]]:
    """Wall seconds of each command per round, the order alternating so a drift of the machine's load hits both."""
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        (cwd / "test_trivial.py").write_text(TRIVIAL_TEST)
        for command in RUNS.values():  # warm the file system caches once
            _wall(command, cwd)
        for k in range(rounds):
            for name in list(RUNS) if k % 2 == 0 else list(RUNS)[::-1]:
                times[name].append(_wall(RUNS[name], cwd))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    times = measure(args.rounds)
    print(f"pytest on one trivial test, {args.rounds} interleaved rounds; Python {platform.python_version()}")
    print("| run | best (s) | median (s) |")
    print("|---|---|---|")
    for name, ts in times.items():
        print(f"| {name} | {min(ts):.3f} | {statistics.median(ts):.3f} |")
    with_plugin, without = times["with the plugin"], times["-p no:icl_verify"]
    print(
        f"\nratio (median) {statistics.median(with_plugin) / statistics.median(without):.3f}, "
        f"added (median) {statistics.median(with_plugin) - statistics.median(without):+.3f} s, "
        f"added (best) {min(with_plugin) - min(without):+.3f} s"
    )


if __name__ == "__main__":
    main()
