"""Where claims come from: the built-in result families and users' claim files.

A family is a module of :mod:`icl_verify.families`, discovered by :func:`families` (no list to
maintain: adding a module adds a family). Every module-level :class:`~icl_verify.core.claims.Claim`
and :class:`~icl_verify.core.derivation.Derivation` in it is collected in definition order and
labelled with the module's ``FAMILY`` name; its ``FIGURES`` go into its document. A user's file is
loaded with the same rule (:func:`load_family`), so built-in claims are just examples of the API.

Loading a user's file: it is imported with its own folder first on ``sys.path`` (so helper modules
beside it import; ``sys.path`` is restored afterwards); any failure while importing it — an
exception, ``SystemExit``, a ``KeyboardInterrupt`` the file raises, a call of ``os._exit`` — is a
one-line ``ValueError``; Ctrl-C while it is imported is a ``KeyboardInterrupt``. Names are unique
within a run: two claims (or two derivations) with one name, in one file or across the files and
families of a run, are a ``ValueError`` naming both sources (``file:line`` or the family), so a
user's claim never silently replaces another or a built-in (:func:`unique`).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import pkgutil
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from icl_verify.core import display, ledger
from icl_verify.core.claims import USER_FAMILY, Claim
from icl_verify.core.derivation import Derivation
from icl_verify.core.figure import Figure
from icl_verify.errors import InvalidArgument
from icl_verify.running import sources

FAMILIES_PACKAGE = "icl_verify.families"
_LOADED: dict[Path, tuple[Path, ...]] = {}
_FAMILIES: dict[Path, Family] = {}


@dataclass(frozen=True)
class Family:
    """A result family: its module, name and title, and what it declares."""

    module: ModuleType
    name: str
    title: str
    claims: list[Claim]
    derivations: list[Derivation]
    figures: list[Figure]
    path: Path | None = None  # a user's file; None for a built-in family
    locations: tuple[str, ...] = field(default=(), compare=False)  # ``file:line`` of each claim, then derivation

    def origin(self, item: Claim | Derivation) -> str:
        """Where ``item`` comes from: ``file:line`` for a user's file, ``family NAME`` for a built-in one."""
        if self.path is None:
            return f"family {self.name}"
        items = [*self.claims, *self.derivations]
        return next(loc for other, loc in zip(items, self.locations) if other is item)

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)

    @property
    def intro(self) -> str:
        """The module docstring after its first paragraph (the title)."""
        paragraphs = (self.module.__doc__ or "").strip().split("\n\n")
        return "\n\n".join(paragraphs[1:]).strip()


def _name(module: ModuleType) -> str:
    return getattr(module, "FAMILY", module.__name__.rsplit(".", 1)[-1])


def _labelled(items: list, family: str) -> list:
    return [item if item.family != USER_FAMILY else dataclasses.replace(item, family=family) for item in items]


def _module_level(module: ModuleType, kind: type) -> dict[str, Any]:
    """The distinct module-level objects of ``kind`` by their first variable (one bound twice counts once)."""
    found: dict[str, Any] = {}
    for var, value in vars(module).items():
        if isinstance(value, kind) and not any(value is f for f in found.values()):
            found[var] = value
    return found


def claims_in(module: ModuleType) -> list[Claim]:
    """Every module-level ``Claim`` of ``module``, in definition order, labelled with its family."""
    return _labelled(list(_module_level(module, Claim).values()), getattr(module, "FAMILY", USER_FAMILY))


def derivations_in(module: ModuleType) -> list[Derivation]:
    """Every module-level ``Derivation`` of ``module``, in definition order, labelled with its family."""
    return _labelled(list(_module_level(module, Derivation).values()), getattr(module, "FAMILY", USER_FAMILY))


def family_of(module: ModuleType, path: Path | None = None) -> Family:
    """The :class:`Family` a module declares; its title is the docstring's first paragraph.

    ``path`` is the user's file it was loaded from (its stem names the family unless the file sets
    ``FAMILY``); the family's claims and derivations must have distinct names (:func:`unique`).
    """
    doc = (module.__doc__ or (path.stem if path else module.__name__)).strip()
    title = " ".join(doc.split("\n\n")[0].split()).removeprefix("Claims:").strip().rstrip(".")
    title = title[:1].upper() + title[1:]
    figures = list(getattr(module, "FIGURES", ()))
    name = getattr(module, "FAMILY", path.stem) if path else _name(module)
    locations: tuple[str, ...] = ()
    if path is not None:
        lines = _assignment_lines(path)
        variables = [*_module_level(module, Claim), *_module_level(module, Derivation)]
        locations = tuple(f"{path}:{lines[v]}" if v in lines else str(path) for v in variables)
    fam = Family(module, name, title, claims_in(module), derivations_in(module), figures, path, locations)
    unique([fam])
    return fam


def _assignment_lines(path: Path) -> dict[str, int]:
    """The line of the last module-level assignment to each variable name in the file at ``path``."""
    lines: dict[str, int] = {}
    for node in ast.parse(sources.read_source(path), str(path)).body:  # decoded as Python does: BOM, coding line
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Name):
                lines[target.id] = node.lineno
    return lines


def _items(fams: Iterable[Family]) -> Iterator[tuple[str, str, str]]:
    """(kind, name, origin) of every claim and derivation of ``fams``."""
    for fam in fams:
        for c in fam.claims:
            yield "claim", c.name, fam.origin(c)
        for d in fam.derivations:
            yield "derivation", d.name, fam.origin(d)


def unique(fams: Iterable[Family]) -> None:
    """``ValueError`` naming both sources if two claims, or two derivations, of ``fams`` share a name."""
    seen: dict[tuple[str, str], str] = {}
    for kind, name, origin in _items(fams):
        if (kind, name) in seen:
            raise InvalidArgument(f"two {kind}s named {name!r}: {seen[kind, name]} and {origin} (names must be unique)")
        seen[kind, name] = origin


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


def load_family(path: str | Path) -> Family:
    """Import a user's Python file as a :class:`Family`; ``ValueError`` if it cannot load or declares nothing."""
    path = Path(path)
    readable(path)
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    module_name = f"icl_verify_user_{path.stem}_{digest}"  # two files with one stem do not collide
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise InvalidArgument(f"claims file {str(path)!r} is not a Python file")
    sources.compile_users_modules_from_source()  # the file and its helpers run as they read now, not as cached
    sources.IMPORTED.clear()  # hashes of an earlier load in this process describe modules this load may not re-import
    if type(spec.loader) is importlib.machinery.SourceFileLoader:
        spec.loader = sources.SourceOnlyLoader(module_name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    saved_path = list(sys.path)
    sys.path.insert(0, str(path.resolve().parent))
    before = frozenset(sys.modules)
    try:
        with _guarded_import() as interrupted:
            spec.loader.exec_module(module)
    except BaseException as exc:  # a file's failure is the user's input error; Ctrl-C is the user's Ctrl-C
        del sys.modules[module_name]
        if isinstance(exc, KeyboardInterrupt) and interrupted:
            raise
        raise InvalidArgument(f"claims file {str(path)!r} failed to import: {_failure(exc)}") from None
    finally:
        sys.path[:] = saved_path
    _LOADED[path.resolve()] = tuple(sorted(_source_files(set(sys.modules) - before - {module_name})))
    fam = family_of(module, path)
    if not fam.claims and not fam.derivations:
        raise InvalidArgument(f"claims file {str(path)!r} defines no Claim or Derivation objects at module level")
    _FAMILIES[path.resolve()] = fam
    return fam


class ExitedAtImport(BaseException):
    """``os._exit`` called by a user's file while it is imported (:func:`_guarded_import`)."""


@contextlib.contextmanager
def _guarded_import() -> Iterator[list[int]]:
    """While a user's file is imported in this process: ``os._exit`` raises :class:`ExitedAtImport` instead of
    ending it with no report (in a process the file forked it still ends that process), and a real Ctrl-C is told
    from a ``KeyboardInterrupt`` the file raises: the list yielded holds the signal when one came."""
    me, real_exit = os.getpid(), os._exit
    came: list[int] = []

    def _exit(status: int) -> NoReturn:
        if os.getpid() != me:
            real_exit(status)
        raise ExitedAtImport(status)

    def on_sigint(signum: int, frame: object) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    modules = (os, sys.modules[os.name])  # posix._exit is os._exit
    watch = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    saved = signal.signal(signal.SIGINT, on_sigint) if watch else None
    for module in modules:
        module.__dict__["_exit"] = _exit
    try:
        yield came
    finally:
        for module in modules:
            module.__dict__["_exit"] = real_exit
        if watch:
            signal.signal(signal.SIGINT, saved)


def _failure(exc: BaseException) -> str:
    """What ended a file's import, in words."""
    if isinstance(exc, ExitedAtImport):
        return f"it called os._exit({exc.args[0]})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def readable(path: Path) -> None:
    """``ValueError`` naming the claims file at ``path`` when it cannot be read as one: missing, a symlink loop, not
    a regular file (a FIFO, a device: reading could hang or never end), too large
    (:func:`icl_verify.running.sources.read_source`)."""
    try:
        sources.read_source(path)
    except FileNotFoundError:
        raise InvalidArgument(f"claims file {str(path)!r} does not exist") from None
    except sources.NotRegularFile as exc:
        raise InvalidArgument(f"claims file {str(path)!r} cannot be loaded: {exc}") from None
    except OSError as exc:
        raise InvalidArgument(f"claims file {str(path)!r} cannot be read: {exc.strerror or exc}") from None


def loaded(path: str | Path) -> Family:
    """The family of the user's file at ``path`` as last loaded in this process (so its claims and figures share
    that module's caches), else loaded now (:func:`load_family`)."""
    fam = _FAMILIES.get(Path(path).resolve())
    return fam if fam is not None else load_family(path)


def _source_files(names: Iterable[str]) -> Iterator[Path]:
    """The source files of the loaded modules ``names`` that are not a library's (helpers, wherever they are)."""
    for name in names:
        where = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(where, str) and (path := sources.user_source_file(where)) is not None:
            yield path


def loaded_by(path: str | Path) -> tuple[Path, ...]:
    """The source files of the modules first loaded while the user's file at ``path`` was imported (in this
    process; none if it was not): its helpers wherever they are, however they were imported."""
    return _LOADED.get(Path(path).resolve(), ())


def load_files(paths: Iterable[str | Path]) -> list[Family]:
    """The user's files as families (a file given twice loads once); ``ValueError`` on any clash of names."""
    by_file: dict[Path, Path] = {}
    for p in paths:
        readable(Path(p))
        by_file.setdefault(Path(p).resolve(), Path(p))  # the first spelling of each file
    fams = [load_family(path) for path in by_file.values()]
    unique(fams)
    return fams


def load_file(path: str | Path) -> list[Claim]:
    """Import a user's Python file and return its claims (see :func:`load_family`)."""
    return load_family(path).claims


def select(claims: Iterable[Claim], names: Iterable[str]) -> list[Claim]:
    """The claims with the given names, in the order given; ``ValueError`` naming any unknown one."""
    by_name = {c.name: c for c in claims}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise InvalidArgument(f"unknown claim(s): {', '.join(unknown)} (see `icl-verify list`)")
    return [by_name[n] for n in names]


def validate_ledger(claims: Iterable[Claim]) -> None:
    """:func:`icl_verify.core.ledger.validate`, the built-in claims known (loaded only when a claim builds on a
    name outside ``claims``), so a user's file checked alone may build on them."""
    claims = list(claims)
    names = {c.name for c in claims}
    outside = any(name not in names for c in claims for name in c.builds_on)
    ledger.validate(claims, known=[c.name for c in builtin_claims()] if outside else ())
