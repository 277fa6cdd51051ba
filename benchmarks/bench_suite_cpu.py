"""CPU time of every built-in claim, checked cold in one process, sorted, against a recorded baseline.

Run: ``python benchmarks/bench_suite_cpu.py [--save FILE] [--baseline FILE] [--claims NAME ...] [--families NAME ...]``.
Every built-in claim is checked in this process (``icl_verify.check``, seed 0, the default budget,
one BLAS thread, caches emptied first) in the registry's order, so claims that share a cached
simulation (a family's measured claims) charge it to the first of them; the family totals are
therefore the fair comparison, and are printed too. CPU time (user + system of this process and of
the child processes it waited for, ``os.times``: the memorization sweep runs in two local worker
processes) is the figure that means something on a shared machine; wall time is not printed.

``--save`` writes the per-claim CPU and verdicts as JSON; ``--baseline`` reads such a file (e.g.
one saved at an earlier commit) and prints it beside this run, with the ratio, and whether every
verdict is the same.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path

from icl_verify import check
from icl_verify.core.caches import clear_caches
from icl_verify.numerics.shared.threads import blas_threads
from icl_verify.running import registry


def _cpu() -> float:
    """User + system seconds of this process and of its reaped children (the sweeps' worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(names: list[str] | None, families: list[str] | None = None) -> dict[str, dict]:
    """Per claim: its family, its verdict and the CPU seconds its check took in this process."""
    clear_caches()
    rows: dict[str, dict] = {}
    with blas_threads(1):
        for fam in registry.families():
            if families and fam.name not in families:
                continue
            for claim in fam.claims:
                if names and claim.name not in names:
                    continue
                t0 = _cpu()
                result = check(claim)
                cpu = _cpu() - t0
                rows[claim.name] = {"family": fam.name, "verdict": result.verdict.value, "cpu": round(cpu, 3)}
                print(f"{cpu:8.2f} s  {result.verdict.value:10} {claim.name}", flush=True)
    return rows


def table(now: dict[str, dict], before: dict[str, dict] | None) -> bool:
    """Print per-claim and per-family CPU, sorted, beside the baseline; True when a verdict changed."""
    changed = False
    print("\n| claim | CPU before (s) | CPU now (s) | now/before | verdict |")
    print("|---|---|---|---|---|")
    for name, row in sorted(now.items(), key=lambda kv: -kv[1]["cpu"]):
        old = (before or {}).get(name)
        same = old is None or old["verdict"] == row["verdict"]
        changed |= not same
        ratio = f"{row['cpu'] / old['cpu']:.2f}" if old and old["cpu"] > 0.05 else "–"
        verdict = row["verdict"] if same else f"**{old['verdict']} → {row['verdict']}**"
        print(f"| `{name}` | {old['cpu'] if old else '–'} | {row['cpu']} | {ratio} | {verdict} |")
    families: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for name, row in now.items():
        families[row["family"]][1] += row["cpu"]
        if before and name in before:
            families[row["family"]][0] += before[name]["cpu"]
    print("\n| family | CPU before (s) | CPU now (s) | now/before |")
    print("|---|---|---|---|")
    for fam, (old, new) in sorted(families.items(), key=lambda kv: -kv[1][1]):
        ratio = f"{new / old:.2f}" if old > 0.05 else "–"
        print(f"| {fam} | {old:.1f} | {new:.1f} | {ratio} |")
    total_old = sum(r["cpu"] for r in (before or {}).values() if r.get("family") in families)
    total_new = sum(r["cpu"] for r in now.values())
    print(f"\ntotal CPU: before {total_old:.1f} s, now {total_new:.1f} s; verdicts {'CHANGED' if changed else 'same'}")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", type=Path, help="write this run's per-claim CPU and verdicts here (JSON)")
    parser.add_argument("--baseline", type=Path, help="a file written by --save to print beside this run")
    parser.add_argument("--claims", nargs="*", help="only these claims")
    parser.add_argument("--families", nargs="*", help="only the claims of these families")
    args = parser.parse_args()
    now = measure(args.claims, args.families)
    if args.save:
        args.save.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    before = json.loads(args.baseline.read_text()) if args.baseline else None
    return int(table(now, before))


if __name__ == "__main__":
    raise SystemExit(main())
