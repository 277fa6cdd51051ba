"""Time `icl-verify check` of many trivial claims without the cache, into an empty cache, and from the cache.

Run: ``python benchmarks/bench_cache_many_claims.py [--claims N] [--jobs J]`` (default 10 000 claims, 2 workers).
It writes a file of N claims ``0 = 0`` (one symbolic check each) in a temporary folder and runs, each in a fresh
interpreter as a user runs it, with an empty verdict cache of its own:

1. ``--no-cache`` — every claim checked, nothing read or written;
2. cold — every claim checked and stored in the (empty) cache;
3. warm — the same command again with the kept whole run removed, so every verdict is read from the cache entry by
   entry (what a run with one claim edited does for all the others).

It prints the wall time and the CPU time (user + system, the command's and its workers') of each. Target (issue
43): warm ≤ ``--no-cache``; a cache must never make a run slower than checking afresh.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = [sys.executable, "-c", "from icl_verify.cli.main import main; main(prog_name='icl-verify')"]


def claims_file(folder: Path, n: int) -> Path:
    """A file of ``n`` trivial claims."""
    lines = ["import icl_verify as iv", "", "", "def zero():", "    return 0", "", ""]
    lines += [f'C{k} = iv.Claim("trivial-{k}", "bench", "0 = 0", (iv.Symbolic(zero),))' for k in range(n)]
    path = folder / "many.py"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, children included) of one run; it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([*COMMAND, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        folder = Path(tmp)
        path = claims_file(folder, opts.claims)
        env = {**os.environ, "ICL_VERIFY_CACHE_DIR": str(folder / "cache")}
        args = ["check", str(path), "--summary", "--jobs", str(opts.jobs)]
        rows = [("--no-cache", timed([*args, "--no-cache"], env)), ("cold, into the cache", timed(args, env))]
        for kept in (folder / "cache").glob("*.run.json"):  # the whole run kept: served without reading entries
            kept.unlink()
        rows.append(("warm, every verdict from the cache", timed(args, env)))
    print(f"{opts.claims} trivial claims, --jobs {opts.jobs}; load average {os.getloadavg()[0]:.1f}")
    for label, (wall, cpu) in rows:
        print(f"  {label:<36} {wall:8.1f} s wall {cpu:8.1f} s CPU")
    verdict = "ok" if rows[2][1][1] <= rows[0][1][1] else "FAIL"
    print(f"  [{verdict}] warm CPU ≤ --no-cache CPU")


if __name__ == "__main__":
    main()
