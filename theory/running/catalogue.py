"""The built-in claims and derivations as ``icl-verify list`` shows them, kept in the cache until the package changes.

Listing them means importing every family, since the families define them, and that loads SymPy and
SciPy: seconds. The list is kept in the user's cache folder (:class:`~icl_verify.running.store.Store`,
authenticated like a verdict), keyed by the digest of every source file of the installed package, so an
edit of any of them — a new claim, a renamed one — lists afresh. Reading it loads neither SymPy nor SciPy
nor any family.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import icl_verify
from icl_verify.errors import InvalidArgument
from icl_verify.running.store import Store

SUFFIX = ".claims"
FIELDS = {"name": str, "family": str, "source": str, "holds": bool}
"""Each listed claim's and derivation's fields and their types."""
SECTIONS = ("claims", "derivations")


def package_roots() -> list[Path]:
    """The folders of the installed ``icl_verify`` package and of ``icl_verify.numerics`` (apart in a checkout)."""
    spec = importlib.util.find_spec("icl_verify.numerics")
    numerics = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return [Path(icl_verify.__file__).parent, *numerics]


def package_digest(roots: list[Path]) -> str:
    """SHA-256 over every ``.py`` file under ``roots``: its root's index, its path in the root and its contents."""
    digest = hashlib.sha256()
    for index, root in enumerate(roots):
        for path in sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts):
            digest.update(json.dumps([index, path.relative_to(root).as_posix()]).encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _valid_rows(rows: object) -> bool:
    return isinstance(rows, list) and all(
        isinstance(row, dict) and row.keys() == FIELDS.keys() and all(type(row[k]) is t for k, t in FIELDS.items())
        for row in rows
    )


def _valid(body: dict[str, Any] | None) -> dict[str, list[dict[str, Any]]] | None:
    body = body or {}
    return body if body.keys() == set(SECTIONS) and all(_valid_rows(body[s]) for s in SECTIONS) else None


def _row(item: Any, family: str) -> dict[str, Any]:
    return {"name": item.name, "family": family, "source": item.source, "holds": item.holds}


def builtin_listed(folder: str | Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """``{"claims": [...], "derivations": [...]}``: name, family, source and whether it holds, of every built-in
    claim and derivation in the registry's order: from the cache in ``folder`` (default: the verdict cache's) while
    the package is unchanged, else from the families (then stored). A folder that cannot be used safely is passed
    over: the list is the same either way."""
    try:
        store: Store | None = Store(folder)
    except InvalidArgument:
        store = None
    key = package_digest(package_roots())
    cached = _valid(store.load(key, SUFFIX)) if store else None
    if cached is not None:
        return cached
    from icl_verify.running import registry  # imports every family: the claims are defined there

    rows = {
        "claims": [_row(c, c.family) for c in registry.builtin_claims()],
        "derivations": [_row(d, fam.name) for fam in registry.families() for d in fam.derivations],
    }
    if store:
        with contextlib.suppress(OSError):  # a full disk: listed again next time
            store.store(key, rows, SUFFIX)
    return rows
