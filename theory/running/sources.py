"""The source files a module depends on, read from its imports without running it.

:func:`dependencies` starts from a file (a built-in family's module, or a user's claim file) and
follows its imports transitively, statically: every ``import`` and ``from … import`` statement
anywhere in the file (inside functions too) is read from its :mod:`ast`, and a name is followed when it resolves
to a source file of ``icl_verify`` (found by the import system's finders without importing it, or the ``finder``
given) or, for a user's file, to a module in the file's own folder (a helper beside it) or to a
module already loaded from a file that is not a library's (a helper in another folder, which the
file put on ``sys.path`` before importing it: the file is loaded before its dependencies are read).
Other libraries are not followed: their versions are part of a cache key instead.

What an import runs is followed too: the ``__init__.py`` of every package above a module, and a
package's lazy exports — a string constant naming an ``icl_verify`` module (``"icl_verify.core.claims"``
in ``icl_verify/__init__.py``, imported on first attribute access) — of a package imported by name
(``import icl_verify as iv``), not of one that is only the parent of the module imported.

So that a check runs what its key was read from, a user's file and its helpers are imported from their
sources, never from a cached ``.pyc`` (:class:`SourceOnlyLoader`, :func:`compile_users_modules_from_source`).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import stat
import sys
import sysconfig
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader
from pathlib import Path
from types import CodeType, ModuleType

from icl_verify.errors import InvalidArgument

PACKAGE = "icl_verify"

Finder = Callable[[str], Path | None]
"""Where the module of a dotted name lives (a ``.py`` file), or None when it is not a module found."""


_LIBRARY_DIRS = tuple(
    Path(p).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib") if (p := sysconfig.get_paths().get(key))
)


def is_library_file(path: Path) -> bool:
    """Whether ``path`` belongs to Python's standard library or an installed distribution (whose version, not
    whose files, a cache entry records); an editable install's sources (this package's included) are not."""
    return any(path.is_relative_to(d) for d in _LIBRARY_DIRS)


MAX_SOURCE_BYTES = 64 * 2**20
"""The largest source file read (a claim's file, a helper, a recorded dependency): past it, it is refused."""


class NotRegularFile(OSError):
    """A source to read that is not a regular file (a FIFO, a device, a folder) or is larger than
    :data:`MAX_SOURCE_BYTES`: reading it could hang or never end."""


def read_source(path: Path, *, limit: int = MAX_SOURCE_BYTES, follow: bool = True) -> bytes:
    """The bytes of the regular file at ``path`` (a symlink to one is followed, unless ``follow`` is false);
    :class:`NotRegularFile` for anything else or a file over ``limit`` bytes, an ``OSError`` when it cannot be
    opened (a symlink not followed: ``ELOOP``). It is opened without blocking, so a FIFO is refused, never waited
    on."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(f"{path} is not a regular file")
        if info.st_size > limit:
            raise NotRegularFile(f"{path} is larger than {limit // 2**20} MiB")
        return f.read(limit + 1)


@cache
def user_source_file(where: str) -> Path | None:
    """The resolved path of a module's ``__file__`` ``where`` when it is a ``.py`` source not of a library
    (:func:`is_library_file`), else None; resolved once per name in a process (a worker asks for every module
    loaded since it started, at every check)."""
    if not where.endswith(".py"):
        return None
    path = Path(where).resolve()
    return None if is_library_file(path) else path


class SourceOnlyLoader(SourceFileLoader):
    """A module's loader that compiles it from its source on every import, never from a cached ``.pyc``.

    Python trusts a ``.pyc`` whose recorded source mtime (whole seconds) and size match the source's: a helper
    edited within the second of its last import and keeping its size (``VALUE = 1`` → ``VALUE = 2``) would run as
    it was, while the verdict cache, whose key is read from the source, checks it again as changed — and would
    keep the old verdict under the new key. The code comes from :meth:`source_to_code` alone: no bytecode is
    read or written.
    """

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        data = self.get_data(path)
        IMPORTED[Path(path).resolve()] = hashlib.sha256(data).hexdigest()
        return self.source_to_code(data, path)


IMPORTED: dict[Path, str] = {}
"""The SHA-256 of each user's source file as this process last imported it (:class:`SourceOnlyLoader`): the key
and the recorded dependencies of a claim hash what ran, not what the file holds by the time they are computed (a
file edited while it was being imported would otherwise file the old code's verdict under the new content)."""


def content_hash(path: Path) -> str:
    """The SHA-256 of the file as this process imported it (:data:`IMPORTED`), else as it reads now."""
    imported = IMPORTED.get(path.resolve())
    return imported if imported is not None else hashlib.sha256(read_source(path)).hexdigest()


class _UserSourceFinder(MetaPathFinder):
    """Finds what :class:`~importlib.machinery.PathFinder` finds (its spec is returned, so the module is looked up
    once), but loads a user's module — a source file of neither a library (:func:`is_library_file`) nor
    ``icl_verify`` — with :class:`SourceOnlyLoader`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == PACKAGE or fullname.startswith(PACKAGE + "."):
            return None  # the package's own finders (an editable install's) keep their place
        spec = PathFinder.find_spec(fullname, path, target)
        origin = spec.origin if spec is not None and type(spec.loader) is SourceFileLoader else None
        if spec is not None and origin is not None and not is_library_file(Path(origin).resolve()):
            spec.loader = SourceOnlyLoader(fullname, origin)
        return spec


def compile_users_modules_from_source() -> None:
    """From now on in this process (and the workers it forks), import a user's modules from their sources
    (:class:`SourceOnlyLoader`): the finder goes just before :class:`~importlib.machinery.PathFinder` on
    ``sys.meta_path``, after any other hook (pytest's assertion rewriting keeps its place). Idempotent."""
    if any(isinstance(f, _UserSourceFinder) for f in sys.meta_path):
        return
    where = next((i for i, f in enumerate(sys.meta_path) if f is PathFinder), len(sys.meta_path))
    sys.meta_path.insert(where, _UserSourceFinder())


def installed_file(name: str) -> Path | None:
    """The source file of the installed ``icl_verify`` module ``name``, or None (not a module of it)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    spec = _spec(name)
    origin = spec.origin if spec is not None else None
    return Path(origin) if origin is not None and origin.endswith(".py") else None


def _spec(name: str) -> ModuleSpec | None:
    """The module spec of ``name``, found without importing it or any parent not yet imported
    (:func:`importlib.util.find_spec` imports the parents, and an ``icl_verify`` module imports SymPy or SciPy):
    the import system's meta-path finders are asked with the parent package's search locations, found the same way.
    None when there is no such module (a parent is a module, not a package: the name is an attribute)."""
    parent = name.rpartition(".")[0]
    if not parent or parent in sys.modules:
        try:
            return importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
    parent_spec = _spec(parent)
    locations = parent_spec.submodule_search_locations if parent_spec is not None else None
    if locations is None:
        return None
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, list(locations)) if find is not None else None
        if spec is not None:
            return spec
    return None


def _imports(path: Path, package: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(module, names)`` of every import in the file; ``package``: the file's package (for relative imports)."""
    return _imports_in(read_source(path), package)


@cache
def _imports_in(source: bytes, package: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """:func:`_imports` of a file's contents (kept by contents: an edited file is read again); none when it does
    not parse (a helper imported only inside a function that never runs: its source is still hashed)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    return tuple(_each_import(tree, package))


def _statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body`` and of the blocks nested in it (functions, classes, ``if``, ``try``, …)."""
    for node in body:
        yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _statements(getattr(node, block, ()))


def _each_import(tree: ast.Module, package: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, *([base] if base else [])])
            yield base, tuple(alias.name for alias in node.names)


def _lazy_exports(path: Path) -> frozenset[str]:
    """String constants of the file that name an ``icl_verify`` module (imported by name at run time)."""
    return _lazy_exports_in(read_source(path))


@cache
def _lazy_exports_in(source: bytes) -> frozenset[str]:
    return frozenset(
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(PACKAGE + ".")
    )


def _parents(name: str) -> Iterator[str]:
    parts = name.split(".")
    for k in range(1, len(parts)):
        yield ".".join(parts[:k])


def _locate(module: str, folder: Path | None, finder: Finder) -> Path | None:
    """The file of ``module``: in ``folder`` (a user's file's) if there, else found by ``finder``, else (for a
    user's file) the file it was loaded from if it is not a library's."""
    if not module:
        return None
    if folder is not None:
        top = folder.joinpath(*module.split("."))
        for candidate in (top.with_suffix(".py"), top / "__init__.py"):
            if candidate.is_file():
                return candidate.resolve()
    found = finder(module)
    if found is None and folder is not None:
        found = _loaded_file(module)
    return found.resolve() if found is not None else None


def _loaded_file(module: str) -> Path | None:
    """The source file the loaded module ``module`` came from, unless it is a library's (or not loaded)."""
    where = getattr(sys.modules.get(module), "__file__", None)
    path = user_source_file(where) if isinstance(where, str) else None
    return path if path is not None and path.is_file() else None


def dependencies(path: str | Path, *, name: str = "", finder: Finder = installed_file) -> list[Path]:
    """The file at ``path`` and every source file it imports, transitively (see the module), sorted.

    ``name`` is the module's dotted name for a module of the package (for its relative imports);
    empty for a user's file, whose folder is searched first for the modules it imports.
    """
    path = Path(path).resolve()
    folder = None if name else path.parent
    located: dict[str, Path | None] = {}

    def locate(module: str) -> Path | None:
        if module not in located:
            located[module] = _locate(module, folder, finder)
        return located[module]

    seen: dict[Path, bool] = {}  # file → whether its lazy exports were followed
    todo: list[tuple[Path, str, bool]] = [(path, name, True)]
    todo += [(f, parent, False) for parent in _parents(name) if (f := locate(parent)) is not None]
    while todo:
        file, module, by_name = todo.pop()
        if file in seen and (seen[file] or not by_name):
            continue
        seen[file] = seen.get(file, False) or by_name
        package = module if file.name == "__init__.py" else module.rpartition(".")[0]
        for imported, names in _imports(file, package):
            targets = [(imported, True)] + [(f"{imported}.{n}", True) for n in names if n != "*"]
            targets += [(parent, False) for parent in _parents(imported)]
            for target, explicit in targets:
                found = locate(target)
                if found is not None:
                    todo.append((found, target, explicit))
        if by_name and file.name == "__init__.py":
            todo.extend((f, m, True) for m in _lazy_exports(file) if (f := locate(m)) is not None)
    return sorted(seen)


def files_of(where: str, finder: Finder = installed_file) -> list[Path]:
    """:func:`dependencies` of a user's file (``where`` a path ending in ``.py``) or of the ``icl_verify`` module
    named ``where``; ``ValueError`` when it is neither."""
    if where.endswith(".py"):
        return dependencies(where, finder=finder)
    path = finder(where)
    if path is None:
        raise InvalidArgument(f"where must name a module of icl_verify or a .py file, got {where!r}")
    return dependencies(path, name=where, finder=finder)


def digest(paths: Iterable[Path]) -> str:
    """SHA-256 of the files' paths and contents (paths as given, sorted)."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p).encode() + b"\0")
        h.update(bytes.fromhex(content_hash(p)))
    return h.hexdigest()
