"""Where claims come from: the built-in result families and users' claim files.

A family is a module of :mod:`icl_verify.families`, discovered by :func:`families` (no list to
maintain: adding a module adds a family). Every module-level :class:`~icl_verify.engine.claims.Claim`
and :class:`~icl_verify.engine.derivation.Derivation` in it is collected in definition order and
labelled with the module's ``FAMILY`` name; its ``FIGURES`` go into its document. A user's file is
loaded with the same rule, so built-in claims are just examples of the API.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from icl_verify.engine.claims import USER_FAMILY, Claim
from icl_verify.engine.derivation import Derivation
from icl_verify.engine.figure import Figure

FAMILIES_PACKAGE = "icl_verify.families"


@dataclass(frozen=True)
class Family:
    """A result family: its module, name and title, and what it declares."""

    module: ModuleType
    name: str
    title: str
    claims: list[Claim]
    derivations: list[Derivation]
    figures: list[Figure]

    @property
    def intro(self) -> str:
        """The module docstring after its first paragraph (the title)."""
        paragraphs = (self.module.__doc__ or "").strip().split("\n\n")
        return "\n\n".join(paragraphs[1:]).strip()


def _name(module: ModuleType) -> str:
    return getattr(module, "FAMILY", module.__name__.rsplit(".", 1)[-1])


def _labelled(items: list, family: str) -> list:
    return [item if item.family != USER_FAMILY else dataclasses.replace(item, family=family) for item in items]


def claims_in(module: ModuleType) -> list[Claim]:
    """Every module-level ``Claim`` of ``module``, in definition order, labelled with its family."""
    seen: dict[str, Claim] = {}
    for value in vars(module).values():
        if isinstance(value, Claim) and value.name not in seen:
            seen[value.name] = value
    return _labelled(list(seen.values()), getattr(module, "FAMILY", USER_FAMILY))


def derivations_in(module: ModuleType) -> list[Derivation]:
    """Every module-level ``Derivation`` of ``module``, in definition order, labelled with its family."""
    found = [v for v in vars(module).values() if isinstance(v, Derivation)]
    return _labelled(found, getattr(module, "FAMILY", USER_FAMILY))


def family_of(module: ModuleType) -> Family:
    """The :class:`Family` a module declares; its title is the docstring's first paragraph."""
    doc = (module.__doc__ or module.__name__).strip()
    title = " ".join(doc.split("\n\n")[0].split()).removeprefix("Claims:").strip().rstrip(".")
    title = title[:1].upper() + title[1:]
    figures = list(getattr(module, "FIGURES", ()))
    return Family(module, _name(module), title, claims_in(module), derivations_in(module), figures)


def family_modules() -> list[ModuleType]:
    """The modules of :mod:`icl_verify.families`, in alphabetical order of module name."""
    package = importlib.import_module(FAMILIES_PACKAGE)
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_"))
    return [importlib.import_module(f"{FAMILIES_PACKAGE}.{name}") for name in names]


def families() -> list[Family]:
    """Every built-in result family, discovered."""
    return [family_of(module) for module in family_modules()]


def builtin_claims() -> list[Claim]:
    """All built-in claims, family by family."""
    return [c for fam in families() for c in fam.claims]


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
