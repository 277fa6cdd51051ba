"""Check every built-in measured claim at many seeds and print how its verdict and interval spread.

Run: ``python benchmarks/seed_spread.py`` (seeds 0..31, every claim with a ``Measured`` check, each
checked through :func:`icl_verify.check` at the default budget). It is CPU-heavy (about 40 min on the
project's 2-core machine), so it can run in pieces::

    python benchmarks/seed_spread.py --seeds 0-15 --jsonl spread.jsonl
    python benchmarks/seed_spread.py --seeds 16-31 --jsonl spread.jsonl
    python benchmarks/seed_spread.py --summary spread.jsonl

``--jsonl`` appends one line per (claim, seed) and skips pairs already in the file; ``--summary``
only reads it. The table printed has, per claim, the verdict counts over the seeds, the min/max of
the measured interval's ends against the band predicted ± tolerance, and for a sequential check how
many runs its deciding look used (seeds per run count), and the spread ÷ half-width: half the range of the
point estimates over the seeds divided by the median half-width of the intervals. For an interval that covers
what varies between seeds it is ≈ 1 at 32 seeds (the range of 32 normal draws is ≈ 4.1 σ, a 95 % half-width
≈ 2 σ); far above 1 the interval misses a source of variance the seeds show — for a trained model, the
training run (docs/performance.md, "Error rates of measured verdicts"; the target is ≤ 1.5). A claim whose
verdict differs between seeds is marked ``FLIPS``; the last column lists the seeds at which a claim was not as expected
(its verdict, or a refutation whose control failed or was left undecided). The exit status is 1 when any claim flips
or is not as expected at some seed.

The held-out confirmation runs it at seeds never used in design, with bands and designs frozen::

    python benchmarks/seed_spread.py --seeds 1000-1031 --jsonl heldout.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from icl_verify import Kind, Measured, check
from icl_verify.core.claims import Claim
from icl_verify.running import registry


def measured_claims(names: list[str] | None = None) -> list[Claim]:
    """The built-in claims with a measured check, optionally only those named."""
    claims = [c for c in registry.builtin_claims() if Kind.MEASURED in c.kinds]
    return registry.select(claims, names) if names else claims


def seed_range(text: str) -> list[int]:
    """``"0-31"`` → 0..31, ``"8"`` → [8], ``"0,3,8"`` → [0, 3, 8]."""
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds.extend(range(int(low), int(high or low) + 1))
    return seeds


def record(claim: Claim, seed: int) -> dict:
    """Check ``claim`` at ``seed``; its verdict, time and the measured interval (exact, from the Estimate)."""
    estimates = []

    def spying(check: Any) -> Any:
        """The same check, its estimates recorded, if it is a measured one."""
        if not isinstance(check, Measured):
            return check

        def spy(s: int, **look: Any):
            estimates.append((check.measure(s, **look), look.get("runs")))
            return estimates[-1][0]

        return dataclasses.replace(check, measure=spy)

    spied = dataclasses.replace(claim, checks=tuple(spying(c) for c in claim.checks))
    result = check(spied, seed=seed)
    row = {"claim": claim.name, "seed": seed, "verdict": result.verdict.value, "seconds": round(result.seconds, 2)}
    row |= {
        "as_expected": result.as_expected,
        "controls": [e.status for e in result.evidence if e.kind == Kind.CONTROL],
    }
    decided = [e.measurement for e in result.evidence if e.measurement]
    if decided:  # the look that decided (a control may look again after it)
        interval = decided[0]["interval"]
        e, runs = next((e, runs) for e, runs in estimates if [e.low, e.high] == interval)
        row |= {"value": e.value, "low": e.low, "high": e.high, "predicted": e.predicted, "tolerance": e.tolerance}
        row |= {"test": str(e.test), "level": e.level}
        if runs is not None:
            row["runs"] = runs
    return row


def load(path: Path) -> list[dict]:
    """Rows already recorded in ``path`` (none if it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _band(row: dict) -> str:
    """The claim's band, or its one-sided bound."""
    p, t, test = row["predicted"], row["tolerance"], row.get("test", "equivalence")
    return f"[{p - t:.4g}, {p + t:.4g}]" if test == "equivalence" else f"{test} {p:.4g}"


def _spread_ratio(rows: list[dict]) -> str:
    """Half the range of the point estimates over the seeds ÷ the median interval half-width ("–" when the
    intervals have no width, e.g. a one-run read-out)."""
    values = [r["value"] for r in rows]
    half = float(np.median([(r["high"] - r["low"]) / 2 for r in rows]))
    return f"{(max(values) - min(values)) / 2 / half:.2g}" if half > 0 else "–"


def _seeds(seeds: list[int]) -> str:
    return ", ".join(map(str, seeds)) if seeds else "–"


def summary(rows: list[dict]) -> bool:
    """Print the per-claim table; True when some claim's verdict differs between seeds or is not as expected."""
    by_claim: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_claim[row["claim"]].append(row)
    flips = False
    print(
        "| claim | seeds | verdicts | low min–max | high min–max | band | spread ÷ half-width | runs used | s/seed"
        " | not as expected |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, group in by_claim.items():
        counts = Counter(r["verdict"] for r in group)
        flip = len(counts) > 1
        flips |= flip
        verdicts = ", ".join(f"{v} {n}" for v, n in counts.most_common()) + (" **FLIPS**" if flip else "")
        measured = [r for r in group if "low" in r]  # an ERROR row has no estimate
        if measured:
            lows, highs = [r["low"] for r in measured], [r["high"] for r in measured]
            ends = (
                f"{min(lows):.4g} – {max(lows):.4g} | {min(highs):.4g} – {max(highs):.4g} | {_band(measured[0])}"
                f" | {_spread_ratio(measured)}"
            )
        else:
            ends = "– | – | – | –"
        mean_s = sum(r["seconds"] for r in group) / len(group)
        runs = Counter(r["runs"] for r in group if "runs" in r)  # a sequential check's runs at its last look
        used = ", ".join(f"{n} runs × {c}" for n, c in sorted(runs.items())) or "–"
        unexpected = [r["seed"] for r in group if r.get("as_expected") is False]  # rows before it was recorded: None
        flips |= bool(unexpected)
        print(f"| `{name}` | {len(group)} | {verdicts} | {ends} | {used} | {mean_s:.1f} | {_seeds(unexpected)} |")
    return flips


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-31", help="seeds to check, e.g. 0-31 or 0,3,8")
    parser.add_argument("--claims", nargs="*", help="only these claims (default: every measured claim)")
    parser.add_argument("--jsonl", type=Path, help="append rows here and skip (claim, seed) pairs already in it")
    parser.add_argument("--summary", type=Path, help="only print the table of an existing --jsonl file")
    args = parser.parse_args()
    if args.summary:
        return int(summary(load(args.summary)))
    rows = load(args.jsonl) if args.jsonl else []
    done = {(r["claim"], r["seed"]) for r in rows}
    for seed in seed_range(args.seeds):  # seeds outer: claims sharing cached runs (memorization) reuse them
        for claim in measured_claims(args.claims):
            if (claim.name, seed) in done:
                continue
            row = record(claim, seed)
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.jsonl:
                with args.jsonl.open("a") as f:
                    f.write(json.dumps(row) + "\n")
    return int(summary(rows))


if __name__ == "__main__":
    raise SystemExit(main())
