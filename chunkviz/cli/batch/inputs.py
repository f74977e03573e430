"""Which files a batch reads: files, folders (recursively) and glob patterns, in a fixed order.

Globs are matched here, not by :mod:`glob`: ``glob.glob('**')`` follows links to folders, so one
``ln -s . loop`` makes it read the same files again at every depth (and two such links grow
without end). A pattern is matched while walking its fixed leading folder once, with
``os.walk(followlinks=False)``, exactly as a folder input is walked: a link to a folder is never
entered (name the folder itself to read it), a link to a file is read. Every file counts once, by
its real path (:func:`os.path.realpath`), whichever way it was named.

The batch's output must never be one of its inputs: :func:`check_output` refuses an ``--out``
that is, or would replace, an input file (or the configuration), or that a glob input would
read on a later run.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.files import check_output as check_target
from chunkviz.core.files import same_file

_GLOB_CHARS = ("*", "?", "[")


class BatchInputError(ChunkvizError, ValueError):
    """An input that names no file (a missing path, a pattern that matches nothing), or an output
    that would replace an input."""


def is_pattern(item: str) -> bool:
    """Whether an input is a glob pattern (not an existing file or folder of that name)."""
    return any(ch in item for ch in _GLOB_CHARS) and not os.path.lexists(item)


def expand_inputs(inputs: Sequence[str], exclude: Iterable[str | Path] = ()) -> list[str]:
    """The files ``inputs`` name, sorted by path and without repeats (a file named twice, say
    relative and absolute, or through a link, counts once, as first named).

    A file is taken as given; a folder gives every file below it (hidden files and folders, whose
    names start with ``.``, are left out; links to folders are not followed); anything else is a
    glob pattern (``**`` crosses folders, never through a link to a folder). Only regular files
    (or links to one) are read: a pipe or a device would block the run. Paths are normalized
    (``./a//b`` -> ``a/b``) but stay relative when given relative, so the ``source`` recorded for
    each document is the path the user knows. Files under ``exclude`` (the batch's own work
    folder) are left out. A path or pattern naming no file raises :class:`BatchInputError`."""
    excluded = [os.path.realpath(p) for p in exclude]
    found: dict[str, str] = {}  # real path -> the path as first named
    for item in inputs:
        matches = list(_expand_one(item))
        if not matches:
            raise BatchInputError(f"input {item!r} {_why_nothing(item)}")
        for match in matches:
            found.setdefault(os.path.realpath(match), os.path.normpath(match))
    kept = [path for real, path in found.items() if not _under_any(real, excluded)]
    return sorted(kept, key=_sort_key)


def _why_nothing(item: str) -> str:
    if os.path.isdir(item):
        return "is a folder with no matching files (files and folders whose names start with '.' are left out)"
    if os.path.lexists(item):
        return "is not a regular file or folder (a broken link, a pipe or a device); give a file or a folder"
    if any(ch in item for ch in _GLOB_CHARS):
        return "matches no file"
    return "does not exist"


def _expand_one(item: str) -> Iterable[str]:
    if os.path.isfile(item):
        yield item
    elif os.path.isdir(item):
        yield from _walk(item)
    elif is_pattern(item):
        yield from glob_files(item)


def _walk(folder: str) -> Iterator[str]:
    for root, dirs, files in os.walk(folder):  # followlinks=False: a link to a folder is not entered
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = os.path.join(root, name)
            if not name.startswith(".") and os.path.isfile(path):
                yield path


# --------------------------------------------------------------------------- globs


def _split_pattern(pattern: str) -> tuple[str, list[str]]:
    """(the fixed leading folder, the pattern's remaining components)."""
    parts = pattern.split(os.sep)
    for i, part in enumerate(parts):
        if any(ch in part for ch in _GLOB_CHARS):
            base = os.sep.join(parts[:i])
            if not base:
                base = os.sep if pattern.startswith(os.sep) else "."
            return base, [p for p in parts[i:] if p]
    return pattern, []


@lru_cache(maxsize=256)
def _component_regex(component: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(component))


def _component_matches(component: str, name: str) -> bool:
    if name.startswith(".") and not component.startswith("."):
        return False  # like glob: * and ? do not match a leading dot
    return _component_regex(component).match(name) is not None


def match_components(pattern: Sequence[str], names: Sequence[str]) -> bool:
    """Whether path components ``names`` match pattern components (``**``: any number of
    folders, none hidden). Linear in ``len(pattern) * len(names)`` (no backtracking)."""
    # reachable[j]: pattern[:i] matches names[:j]
    reachable = [True] + [False] * len(names)
    for component in pattern:
        if component == "**":
            nxt = [False] * (len(names) + 1)
            for j in range(len(names) + 1):
                nxt[j] = reachable[j] or (j > 0 and nxt[j - 1] and not names[j - 1].startswith("."))
        else:
            nxt = [False] + [reachable[j] and _component_matches(component, names[j]) for j in range(len(names))]
        reachable = nxt
    return reachable[len(names)]


def glob_files(pattern: str) -> Iterator[str]:
    """The regular files ``pattern`` matches, and those below the folders it matches (see the
    module docstring: one walk, links to folders not followed)."""
    base, rest = _split_pattern(pattern)
    if not os.path.isdir(base):
        return
    recursive = "**" in rest
    depth_limit = len(rest)
    enters_hidden = any(c.startswith(".") for c in rest)
    prefix = "" if base == "." else base
    matched_dirs: set[str] = set()
    for root, dirs, files in os.walk(base):
        relative = os.path.relpath(root, base)
        names = [] if relative == "." else relative.split(os.sep)
        inside_match = root in matched_dirs
        dirs.sort()
        keep = []
        for d in dirs:
            child = names + [d]
            if inside_match:
                if not d.startswith("."):
                    keep.append(d)
                    matched_dirs.add(os.path.join(root, d))
                continue
            if d.startswith(".") and not enters_hidden:
                continue
            if match_components(rest, child):
                matched_dirs.add(os.path.join(root, d))
                keep.append(d)
            elif recursive or len(child) < depth_limit:
                keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            path = os.path.join(root, name)
            if inside_match:
                ok = not name.startswith(".")
            else:
                ok = match_components(rest, names + [name])
            if ok and os.path.isfile(path):
                relative = os.path.relpath(path, base)
                yield os.path.join(prefix, relative) if prefix else relative


def pattern_would_read(pattern: str, path: str | Path) -> bool:
    """Whether ``pattern`` matches ``path`` (an output that may not exist yet), or a folder above it."""
    base, rest = _split_pattern(pattern)
    try:
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(base))
    except ValueError:  # another drive (Windows)
        return False
    if relative.startswith(os.pardir):
        return False
    names = relative.split(os.sep)
    return any(match_components(rest, names[:k]) for k in range(1, len(names) + 1))


# --------------------------------------------------------------------------- the output


def check_output(
    inputs: Sequence[str],
    sources: Sequence[str],
    output: Path,
    *,
    earlier_output: bool = False,
    protected: Iterable[tuple[str, str | Path]] = (),
) -> list[str]:
    """``sources`` without a file that is the output itself of an earlier run (``earlier_output``:
    the file at ``output`` is the one a batch wrote there); refuse (:class:`BatchInputError`,
    naming both paths) an output that is an input file, would replace one, or sits where a glob
    input would read it. ``protected``: other files the run reads, as (what, path) pairs (the
    configuration), which the output may not be either. An output that is a folder, a device, a
    FIFO or a socket is refused too (:func:`chunkviz.core.files.check_output`)."""
    out = str(output)
    check_target(output, "--out", creates_folders=True)
    for what, path in protected:
        if same_file(path, output):
            raise BatchInputError(f"--out {out} is the {what} {path}; write the output somewhere else")
    named = [item for item in inputs if os.path.isfile(item)]
    for item in named:
        if same_file(item, output):
            raise BatchInputError(
                f"--out {out} is the input file {item}: the output would replace it; write the output somewhere else"
            )
    for item in inputs:
        if is_pattern(item) and pattern_would_read(item, output):
            raise BatchInputError(
                f"--out {out} is where the input pattern {item!r} reads documents: a later run would read the "
                "output as a document; write the output outside what the pattern matches"
            )
    try:
        out_stat = os.stat(output)
    except OSError:  # no output yet: no input can be it
        return list(sources)
    kept = []
    for source in sources:
        if _is_stat(source, out_stat):
            if not earlier_output:
                raise BatchInputError(
                    f"--out {out} is the input file {source}: the output would replace it; "
                    "write the output somewhere else"
                )
            continue  # the output of an earlier run to the same place: not a document
        kept.append(source)
    return kept


def _is_stat(path: str, wanted: os.stat_result) -> bool:
    """Whether ``path`` is the file ``wanted`` describes (one stat per source, not two)."""
    try:
        return os.path.samestat(os.stat(path), wanted)
    except OSError:
        return False


def _under_any(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _sort_key(path: str) -> tuple[str, ...]:
    """Sort by path components, so ``a/b`` comes before ``a-c`` whatever the separator's rank."""
    return tuple(Path(path).parts)


__all__ = ["BatchInputError", "check_output", "expand_inputs", "glob_files", "match_components", "pattern_would_read"]
