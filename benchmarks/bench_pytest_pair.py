"""The default test run of this checkout and of a baseline commit, cold, at the same time, with their CPU ratio.

Run: ``python benchmarks/bench_pytest_pair.py BASELINE [--runs N]`` (BASELINE: a commit, e.g. ``HEAD~3``).

This machine's speed drifts by more than the changes worth measuring (a fixed pure-Python loop took from
3.1 to 5.8 s within 90 minutes on 2026-12-03), so two runs one after the other compare the machine's moods as
much as the code. Here both suites run at once, each on one pytest-xdist worker, so that both meet the same
machine; the figure that carries over is the ratio of their CPU times (user + system of pytest and of every
process it waited for). The wall times are printed too, but the suite that ends first leaves the other the
machine to itself.

The baseline is checked out in a temporary git worktree and installed editable, with its test extras, in a
fresh virtual environment there (≈ 1 min). Each suite runs as CI does: with ``.pyc`` files written (into a
prefix of its own, so both start without bytecode), an empty verdict-cache folder and a pytest cache folder
of its own (so every built-in claim is checked afresh), in the files' order. Nothing of the checkout is changed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def install_baseline(commit: str, where: Path) -> tuple[Path, Path]:
    """A worktree of ``commit`` under ``where`` and a venv with it installed editable; (checkout, python)."""
    tree, venv = where / "baseline", where / "venv"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), commit], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", f"{tree}[test]"], check=True)
    return tree, python


def start(checkout: Path, python: Path, scratch: Path) -> subprocess.Popen:
    """The checkout's default test run on one xdist worker, cold and CI-like (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"ICL_VERIFY_CACHE_DIR": str(scratch / "verdicts"), "PYTHONPYCACHEPREFIX": str(scratch / "pyc")}
    args = ["-m", "pytest", "-q", "-n", "1", "-p", "no:randomly", "-o", f"cache_dir={scratch / 'pytest-cache'}"]
    scratch.mkdir(parents=True)
    with open(scratch / "output.txt", "w") as out:
        return subprocess.Popen([str(python), *args], cwd=checkout, env=env, stdout=out, stderr=subprocess.STDOUT)


def summary(scratch: Path) -> str:
    """pytest's last line in the run's output."""
    lines = [line for line in (scratch / "output.txt").read_text().splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else "(no output)"


def pair(baseline: tuple[Path, Path], scratch: Path) -> dict[str, tuple[float, float, str]]:
    """Both suites started together; each one's (wall seconds, CPU seconds of it and its reaped descendants,
    pytest's summary), the wall time taken when that suite ends."""
    suites = {
        "baseline": (*baseline, scratch / "baseline"),
        "this checkout": (ROOT, Path(sys.executable), scratch / "this"),
    }
    t0 = time.perf_counter()
    procs = {label: start(*suite) for label, suite in suites.items()}
    running = {proc.pid: label for label, proc in procs.items()}
    ended: dict[str, tuple[float, float, str]] = {}
    while running:  # wait4 for each suite's own CPU: Popen.wait gives no resource usage
        pid, status, usage = os.wait4(-1, 0)
        if (label := running.pop(pid, None)) is not None:
            procs[label].returncode = os.waitstatus_to_exitcode(status)
            ended[label] = (time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, summary(suites[label][2]))
    return {label: ended[label] for label in suites}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", help="the commit to compare with (e.g. HEAD~3)")
    parser.add_argument("--runs", type=int, default=1, help="pairs to run, one after the other (default 1)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    known = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "-q", f"{args.baseline}^{{commit}}"], capture_output=True
    )
    if known.returncode != 0:
        parser.error(f"baseline must be a commit of {ROOT}, got {args.baseline!r}")
    import icl_verify

    if Path(icl_verify.__file__).resolve().parents[1] != ROOT:
        parser.error(f"this Python imports icl_verify from {icl_verify.__file__}, not from {ROOT} (install it -e)")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        try:
            baseline = install_baseline(args.baseline, where)
            print("| pair | suite | wall (s) | CPU (s) | pytest |")
            print("|---|---|---|---|---|")
            for k in range(1, args.runs + 1):
                runs = pair(baseline, where / f"pair-{k}")
                for label, (wall, cpu, last) in runs.items():
                    print(f"| {k} | {label} | {wall:.0f} | {cpu:.0f} | {last} |", flush=True)
                ratio = runs["this checkout"][1] / runs["baseline"][1]
                print(f"| {k} | CPU this / baseline | | {ratio:.3f} | |", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where / "baseline")])


if __name__ == "__main__":
    main()
