"""Print pip constraints pinning every requirement of pyproject.toml to the lowest version it allows.

Usage: ``python .ci/lowest_versions.py [EXTRA ...] > lowest.txt``, then
``pip install -c lowest.txt -e ".[EXTRA]"``: the project's dependencies and those of each EXTRA named, each pinned
to its lower bound (``numpy>=1.24`` gives ``numpy==1.24``, which pip matches to 1.24.0; a pin ``mypy==2.4.1`` stays
itself). A requirement without a lower bound is an error: the lowest version it allows is not known.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)")
LOWER = re.compile(r"(?:>=|==)\s*([0-9][0-9A-Za-z.]*)")


def lowest(requirement: str) -> str:
    """``name==lower bound`` of one requirement (``name[extra]>=x, <y ; marker`` or ``name==x``); ValueError without."""
    spec = requirement.split(";")[0]
    match = REQUIREMENT.fullmatch(spec)
    bound = LOWER.search(match.group(3)) if match else None
    if match is None or bound is None:
        raise ValueError(f"requirement {requirement!r} has no lower bound (>= or ==)")
    return f"{match.group(1)}=={bound.group(1)}"


def main(extras: list[str]) -> None:
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        sys.exit(f"lowest_versions.py: unknown extra(s) {', '.join(unknown)}; pyproject has {', '.join(optional)}")
    requirements = [*project["dependencies"], *(r for e in extras for r in optional[e])]
    print("\n".join(dict.fromkeys(lowest(r) for r in requirements)))


if __name__ == "__main__":
    main(sys.argv[1:])
