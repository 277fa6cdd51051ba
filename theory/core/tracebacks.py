"""Where in the user's code: the file and line a claim was made at, and the traceback of a crashing check.

A crash is reported the way pytest reports one, but only with the frames a user can act on: those of the
user's files (and of the built-in families, blocks and numerics), not icl-verify's engine nor the installed
libraries it calls through (Hypothesis, SymPy, the standard library). The frames kept are the last
:data:`MAX_FRAMES`; when a crash has none of them (it happened inside a library the engine called), the last
:data:`FALLBACK_FRAMES` frames are shown instead, so a traceback is never empty.
"""

from __future__ import annotations

import sys
import sysconfig
import traceback
from functools import cache
from pathlib import Path
from types import FrameType

MAX_FRAMES = 8
"""The most frames of a crash shown: the last ones, nearest to where it was raised."""
FALLBACK_FRAMES = 3
"""The frames shown when none is in the user's code."""

_PACKAGE = Path(__file__).resolve().parents[1]
_ENGINE = tuple(_PACKAGE / part for part in ("core", "maths", "running", "output", "cli"))
"""icl-verify's own machinery: its frames are never the user's (families, blocks and numerics are code to read)."""
_ENGINE_FILES = (_PACKAGE / "__init__.py", _PACKAGE / "pytest_plugin.py")


@cache
def _libraries() -> tuple[Path, ...]:
    """The folders of the standard library and of installed distributions."""
    paths = sysconfig.get_paths()
    return tuple({Path(paths[key]).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths})


@cache
def is_users(filename: str) -> bool:
    """Whether a frame in ``filename`` is code the user wrote or reads: not icl-verify's engine, not an installed
    library (the package's own families, blocks and numerics are the user's to read), not generated code."""
    if filename.startswith("<"):  # <string> (a dataclass's __init__), <frozen ...>
        return False
    path = Path(filename).resolve()
    if path in _ENGINE_FILES or any(path.is_relative_to(part) for part in _ENGINE):
        return False
    if path.is_relative_to(_PACKAGE):
        return True
    return not any(path.is_relative_to(lib) for lib in _libraries())


def user_traceback(exc: BaseException) -> str:
    """``exc`` as Python prints it, with only the last frames in the user's code (see the module)."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if is_users(f.filename)][-MAX_FRAMES:] or frames[-FALLBACK_FRAMES:]
    shown = traceback.StackSummary.from_list(mine)
    return "Traceback (most recent call last):\n" + "".join(
        shown.format() + traceback.format_exception_only(type(exc), exc)
    ).rstrip("\n")


def defined_at() -> str:
    """``file:line`` of the first frame of the calling stack in the user's code (where a claim is made), or ``""``."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if is_users(frame.f_code.co_filename):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return ""
