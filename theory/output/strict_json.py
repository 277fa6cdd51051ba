"""Strict JSON for every ``--json``: no ``NaN`` / ``Infinity`` tokens (RFC 8259 §6 has none).

A non-finite float becomes ``null`` and the top-level object gains ``null_reasons``: for each
JSON Pointer (RFC 6901) whose value was non-finite, or of a list holding non-finite entries, the
reason in words (docs/json-report.md, "Numbers that are not finite").
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from icl_verify.errors import InvalidArgument

_WORDS = {"nan": "NaN (undefined)", "inf": "+infinity", "-inf": "−infinity"}


def _pointer(path: tuple[str, ...]) -> str:
    """RFC 6901 pointer of ``path`` (``~`` → ``~0``, ``/`` → ``~1``)."""
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in path)


def _kind(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _clean(value: Any, path: tuple[str, ...], reasons: dict[str, str]) -> Any:
    """``value`` with non-finite floats replaced by None, their reasons recorded under their pointers."""
    if isinstance(value, float) and not math.isfinite(value):
        reasons[_pointer(path)] = f"was {_WORDS[_kind(value)]}"
        return None
    if isinstance(value, Mapping):
        return {str(k): _clean(v, path + (str(k),), reasons) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        bad = [(i, _kind(v)) for i, v in enumerate(value) if isinstance(v, float) and not math.isfinite(v)]
        if bad and all(isinstance(v, (int, float)) for v in value):  # a series: one reason for the whole list
            kinds = " or ".join(_WORDS[k] for k in sorted({k for _, k in bad}))
            reasons[_pointer(path)] = (
                f"{len(bad)} of {len(value)} entries (the first at index {bad[0][0]}) were {kinds}"
            )
            return [None if isinstance(v, float) and not math.isfinite(v) else v for v in value]
        return [_clean(v, path + (str(i),), reasons) for i, v in enumerate(value)]
    return value


def sanitise(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` with every non-finite float as ``null`` and, if there were any, ``null_reasons``."""
    if "null_reasons" in document:
        raise InvalidArgument("document must not already have a 'null_reasons' key")
    reasons: dict[str, str] = {}
    clean = _clean(document, (), reasons)
    return {**clean, "null_reasons": reasons} if reasons else clean


def dumps(document: Mapping[str, Any] | list, **kwargs: Any) -> str:
    """``document`` as strict JSON text (``allow_nan=False`` after :func:`sanitise`); a top-level list must be
    finite already (it has nowhere to put reasons)."""
    clean = sanitise(document) if isinstance(document, Mapping) else document
    return json.dumps(clean, allow_nan=False, ensure_ascii=False, **kwargs)


def package_version() -> str:
    """The installed release of icl-verify, as every JSON output records it ("unknown" when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("icl-verify")
    except PackageNotFoundError:
        return "unknown"


def versioned(record: Mapping[str, Any], schema: int = 1) -> dict[str, Any]:
    """``record`` as a command's ``--json`` prints it: first its layout's ``schema`` version and the
    ``icl_verify_version`` that wrote it, as every JSON output of icl-verify has them."""
    return {"schema": schema, "icl_verify_version": package_version(), **record}
