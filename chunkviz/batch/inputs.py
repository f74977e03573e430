"""Which files a batch reads: files, folders (recursively) and glob patterns, in a fixed order."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from chunkviz.errors import ChunkvizError

_GLOB_CHARS = ("*", "?", "[")


class BatchInputError(ChunkvizError, ValueError):
    """An input that names no file (a missing path, a pattern that matches nothing)."""


def expand_inputs(inputs: Sequence[str], exclude: Iterable[str | Path] = ()) -> list[str]:
    """The files ``inputs`` name, sorted by path and without repeats (a file named twice, say
    relative and absolute, counts once, as first named).

    A file is taken as given; a folder gives every file below it (hidden files and folders, whose
    names start with ``.``, are left out); anything else is a glob pattern (``**`` crosses
    folders). Paths are normalized (``./a//b`` -> ``a/b``) but stay relative when given relative,
    so the ``source`` recorded for each document is the path the user knows. Files under
    ``exclude`` (the batch's own output) are left out. A path or pattern naming no file raises
    :class:`BatchInputError`."""
    excluded = [os.path.abspath(p) for p in exclude]
    found: dict[str, str] = {}  # absolute path -> the path as first named
    for item in inputs:
        matches = list(_expand_one(item))
        if not matches:
            what = "matches no file" if any(ch in item for ch in _GLOB_CHARS) else "does not exist"
            raise BatchInputError(f"input {item!r} {what}")
        for match in matches:
            found.setdefault(os.path.abspath(match), os.path.normpath(match))
    kept = [path for absolute, path in found.items() if not _under_any(absolute, excluded)]
    return sorted(kept, key=_sort_key)


def _expand_one(item: str) -> Iterable[str]:
    if os.path.isfile(item):
        yield item
    elif os.path.isdir(item):
        yield from _walk(item)
    elif any(ch in item for ch in _GLOB_CHARS):
        for match in sorted(glob.glob(item, recursive=True)):
            if os.path.isfile(match):
                yield match
            elif os.path.isdir(match):
                yield from _walk(match)


def _walk(folder: str) -> Iterable[str]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield os.path.join(root, name)


def _under_any(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _sort_key(path: str) -> tuple[str, ...]:
    """Sort by path components, so ``a/b`` comes before ``a-c`` whatever the separator's rank."""
    return tuple(Path(path).parts)


__all__ = ["BatchInputError", "expand_inputs"]
