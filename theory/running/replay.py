"""A whole run of ``icl-verify check`` printed again from the cache, without loading the claims.

Serving every verdict from the verdict cache (:mod:`icl_verify.running.verdict_cache`) still means
finding the claims: a user's file is executed, which loads SymPy and the library — about a second for
two statements. So when every claim of a run is in the cache as the run ends (none ERROR, none of
unknown origin, no derivation ERROR), ``check`` also keeps what the same command prints with every
verdict from the cache, and its exit status (:func:`keep`).

The entry's key (:func:`run_key`) is what was asked: the targets (a file by its absolute path and its
contents), the options that change the report, every source file of the installed package
(:func:`icl_verify.running.catalogue.package_digest`), Python and the machine. The entry holds what
the run was seen to depend on (:class:`~icl_verify.running.depends.Depends`): every file and
distribution each claim's check depended on, and those the command itself loaded — the user's file,
its helpers wherever they are, the derivations' modules. The same command again prints the entry and
exits with its status while every one of those is unchanged (:func:`served`); else it runs, and
each claim is served or checked as before. This module loads no SymPy, SciPy or family.

What this does not track is what the verdict cache does not track either — a data file read at run
time, an environment variable — and ``--no-cache`` checks afresh. Entries are authenticated like a
verdict (:class:`~icl_verify.running.store.Store`).
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from icl_verify.running.catalogue import package_digest, package_roots
from icl_verify.running.depends import Depends
from icl_verify.running.sources import read_source
from icl_verify.running.store import Store, keyed

SUFFIX = ".run"
STATUSES = (0, 1)
"""The exit statuses kept: every claim and derivation as expected, or not (never a usage error or Ctrl-C)."""


def run_key(targets: Sequence[str], options: Mapping[str, Any]) -> str | None:
    """The key of the run of ``targets`` (claim and derivation names, paths of ``.py`` files) with ``options``
    (JSON-ready: those that change what is printed); None when a file cannot be read (the run reports it)."""
    asked: list[list[str]] = []
    for target in targets:
        if not target.endswith(".py"):
            asked.append(["name", target])
            continue
        try:
            path = Path(target).resolve()
            asked.append(["file", str(path), hashlib.sha256(read_source(path)).hexdigest()])
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            return None
    inputs = {"run": asked, "options": dict(options), "package": package_digest(package_roots())}
    return keyed(inputs | {"python": platform.python_version(), "machine": platform.machine()})


def served(store: Store, key: str) -> tuple[str, int] | None:
    """What the run of ``key`` printed and its exit status, while all it was seen to depend on is unchanged;
    else None (none kept, or it does not validate)."""
    body = store.load(key, SUFFIX)
    if body is None:
        return None
    try:
        printed, status, depends = body["printed"], body["status"], Depends.from_dict(body["depends"])
    except (KeyError, TypeError, AttributeError):
        return None
    if not isinstance(printed, str) or status not in STATUSES or type(status) is not int:
        return None
    return (printed, status) if depends.still_holds() else None


def keep(store: Store, key: str, printed: str, status: int, depends: Depends) -> None:
    """Keep the run of ``key``: what it prints from the cache, its exit status and what it depends on."""
    if status not in STATUSES:
        raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
    store.store(
        key, {"printed": printed, "status": status, "depends": depends.to_dict()}, SUFFIX
    )  # or not: a full disk
