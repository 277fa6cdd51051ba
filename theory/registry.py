"""Where claims come from: the built-in result families and users' claim files.

A family is a module of claims; every module-level :class:`~theory.claims.Claim` in it is
collected in definition order. Built-in families are listed in :data:`BUILTIN_FAMILIES`;
a user's file is loaded with the same rule, so built-in claims are just examples of the API.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from theory.claims import Claim
from theory.derivation import Derivation

BUILTIN_FAMILIES: tuple[str, ...] = (
    "theory.lsa_gd",
    "theory.dual",
    "theory.kinetics",
    "theory.optimal_lsa",
    "theory.raw",
    "theory.raw_programs",
    "theory.learners",
    "theory.scaling",
)


def claims_in(module: ModuleType) -> list[Claim]:
    """Every module-level ``Claim`` of ``module``, in definition order, without duplicates."""
    seen: dict[str, Claim] = {}
    for value in vars(module).values():
        if isinstance(value, Claim) and value.name not in seen:
            seen[value.name] = value
    return list(seen.values())


def derivations_in(module: ModuleType) -> list[Derivation]:
    """Every module-level ``Derivation`` of ``module``, in definition order."""
    return [v for v in vars(module).values() if isinstance(v, Derivation)]


def builtin_claims() -> list[Claim]:
    """All built-in claims, family by family."""
    return [c for name in BUILTIN_FAMILIES for c in claims_in(importlib.import_module(name))]


def load_file(path: str | Path) -> list[Claim]:
    """Import a user's Python file and return its claims; ``ValueError`` if it has none or cannot load."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"claims file {str(path)!r} does not exist")
    module_name = f"icl_verify_user_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"claims file {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ValueError(f"claims file {str(path)!r} failed to import: {type(exc).__name__}: {exc}") from exc
    found = claims_in(module)
    if not found:
        raise ValueError(f"claims file {str(path)!r} defines no Claim objects at module level")
    return found


def select(claims: Iterable[Claim], names: Iterable[str]) -> list[Claim]:
    """The claims with the given names, in the order given; ``ValueError`` naming any unknown one."""
    by_name = {c.name: c for c in claims}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"unknown claim(s): {', '.join(unknown)} (see `icl-verify list`)")
    return [by_name[n] for n in names]
