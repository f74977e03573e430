"""The files chunkviz reads and writes: one home for the guards of both.

**Reading.** A document, a chunk file, a question file or a configuration is a regular file.
:func:`open_regular` looks before it opens (``stat``): a FIFO, a socket, a device or a folder is
refused at once (:class:`NotRegularFileError`, or :class:`IsADirectoryError` for a folder)
instead of blocking for ever on a pipe without a writer or reading a device without end. It
then opens with ``O_NONBLOCK`` and checks the open file again, so a file swapped for a FIFO
between the look and the open is refused too. Standard input is ``-``, which the commands that
take it read themselves.

**Writing.** Every command that writes a file checks its output with :func:`check_output` (or
:func:`check_outputs`) while it checks its arguments, before any work: an output that is one of
the command's inputs (by ``os.path.samefile``: a symbolic link or a hard link to it counts), a
folder, a device, a FIFO or a socket, or a path whose folder does not exist is refused with one
line (:class:`OutputPathError`, exit 2). The file is then written by :func:`write_text_atomic`
(or :func:`replacing`): into a new temporary file beside the target, renamed over it once
complete. A failure (a full disk, an encoding error, Ctrl-C) removes the temporary file and
leaves the old file as it was; an OS error is :class:`OutputError` ("cannot write X: No space
left on device", exit 1). A symbolic link is followed: what it points at is replaced, the link
stays. A new file gets the mode an ordinary ``open()`` gives (``0o666`` less the umask, applied
by the system); a file written over keeps its mode.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TypeGuard

from chunkviz.core.errors import ChunkvizError

#: (what, path) pairs: the inputs of a command an output may not be, e.g. ("the document", "a.md").
#: A path of None or ``-`` (standard input) is no file and is skipped.
Inputs = Iterable[tuple[str, str | Path | None]]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``"a regular file"``, ``"a FIFO (named pipe)"``, ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")


# --------------------------------------------------------------------------- reading


class NotRegularFileError(OSError):
    """An input that is a FIFO, a socket or a device. ``problem`` is the message without the
    path (``is a FIFO (named pipe), not a regular file; ...``), for callers that name the file
    their own way."""

    def __init__(self, path: str | Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind
        self.problem = f"is {kind}, not a regular file; give the file itself (a pipe or a device is not read)"

    def __str__(self) -> str:
        return f"{self.filename} {self.problem}"


def _refuse_unless_regular(path: str | Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(path, file_kind(mode))


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file (a link to one counts).

    Raises :class:`NotRegularFileError` for a FIFO, a socket or a device and
    :class:`IsADirectoryError` for a folder, without waiting on any of them; other OS errors
    (a missing file, permissions) pass through for the caller to phrase. The file's size is
    ``os.fstat(handle.fileno()).st_size``."""
    _refuse_unless_regular(path, os.stat(path).st_mode)
    nonblocking = getattr(os, "O_NONBLOCK", 0)  # a FIFO put here since the stat opens at once
    flags = os.O_RDONLY | nonblocking | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        _refuse_unless_regular(path, os.fstat(fd).st_mode)
        if nonblocking:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def regular_file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as an input (``"is a FIFO (named pipe), not a regular file; ..."``),
    or None when it is a regular file or cannot be looked at (opening it will say why)."""
    try:
        _refuse_unless_regular(path, os.stat(path).st_mode)
    except NotRegularFileError as exc:
        return exc.problem
    except IsADirectoryError:
        return "is a folder, not a file"
    except OSError:
        return None
    return None


# --------------------------------------------------------------------------- writing


class OutputPathError(ChunkvizError, ValueError):
    """An output the command must not write: one of its inputs, a folder, a device, a FIFO or a
    socket, or a path in a folder that does not exist (exit 2: the command line is wrong)."""


class OutputError(ChunkvizError, OSError):
    """An output that could not be written (a full disk, an I/O error): exit 1. The old file, if
    any, is as it was."""


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether ``a`` and ``b`` are one file (links and hard links included); False when either is missing."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _named(path: str | Path | None) -> TypeGuard[str | Path]:
    """Whether ``path`` names a file (not None, not ``-`` for a standard stream)."""
    return path is not None and str(path) not in ("", "-")


def check_output(path: str | Path, flag: str, inputs: Inputs = (), *, creates_folders: bool = False) -> None:
    """Refuse, before any work, an output the command must not write (:class:`OutputPathError`):
    one of ``inputs`` (by identity: a link or a hard link to an input is that input), a folder, a
    device, a FIFO or a socket, a folder that does not exist (unless the command
    ``creates_folders``), or a place that cannot be written. ``flag`` names the option in the
    message (``--json``). A path of ``-`` is standard output: nothing to check."""
    if not _named(path):
        return
    for what, source in inputs:
        if _named(source) and same_file(path, source):
            raise OutputPathError(f"{flag} {path} is {what} ({source}): write the output to another file")
    _check_target(path, creates_folders=creates_folders)


def check_outputs(outputs: Sequence[tuple[str, str | Path | None]], inputs: Inputs = ()) -> None:
    """:func:`check_output` for each (flag, path) of ``outputs`` (None: not asked for), and no two of them
    the same file (the second would replace the first)."""
    inputs = list(inputs)
    seen: dict[str, str] = {}
    for flag, path in outputs:
        if not _named(path):
            continue
        check_output(path, flag, inputs)
        real = os.path.realpath(path)
        if real in seen:
            raise OutputPathError(f"{flag} {path} is the file {seen[real]} also writes; give each output its own file")
        seen[real] = flag


def _check_target(path: str | Path, *, creates_folders: bool = False) -> os.stat_result | None:
    """The target's own stat (a link followed), None when it does not exist yet; refuse what may not be written."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a loop of links, a file used as a folder ...
        raise OutputPathError(f"cannot write {path}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputPathError(f"cannot write {path}: it is a folder; give the path of a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputPathError(f"cannot write {path}: it is {file_kind(st.st_mode)}, not a regular file; give a file")
    folder = os.path.dirname(os.path.realpath(path))
    if creates_folders and not os.path.lexists(folder):
        return st
    if not os.path.isdir(folder):
        raise OutputPathError(f"cannot write {path}: no such folder {folder}; create it first or give another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(
            f"cannot write {path}: the folder {folder} is not writable (the file is written beside it and renamed)"
        )
    if st is not None and not os.access(path, os.W_OK):
        raise OutputPathError(f"cannot write {path}: the file is read-only")
    return st


def _new_temporary(folder: str, name: str) -> tuple[int, str]:
    """A new file in ``folder``, created with ``0o666`` as ``open()`` does (the system applies the
    umask and any default ACL), not ``mkstemp``'s ``0o600``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", folder)  # pragma: no cover


def _keep_mode(fd: int, old: os.stat_result) -> None:
    """The replaced file's permissions (and owner, where allowed) on the new one."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(old.st_mode))
    if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:  # only root may give a file away: it stays ours
            pass


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary file beside ``path`` to write in the ``with`` block; on leaving it, renamed over
    ``path`` (what a link points at), or on any exception removed with ``path`` untouched.

    ``path`` is checked again as :func:`check_output` checks it (without inputs); an OS error,
    while writing or renaming, is :class:`OutputError` naming ``path``."""
    old = _check_target(path)
    real = os.path.realpath(path)
    folder, name = os.path.split(real)
    temporary = None
    try:
        fd, temporary = _new_temporary(folder, name)
        try:
            if old is not None:
                _keep_mode(fd, old)
        finally:
            os.close(fd)
        yield Path(temporary)
        os.replace(temporary, real)
        temporary = None
    except ChunkvizError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:  # pragma: no cover - already gone
                pass


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """``data`` at ``path``, whole or not at all (see :func:`replacing`); returns ``Path(path)``."""
    with replacing(path) as temporary, open(temporary, "wb") as out:
        out.write(data)
    return Path(path)


def write_text_atomic(path: str | Path, text: str) -> Path:
    """``text`` as UTF-8 at ``path``, whole or not at all; newlines are written as they are. Text
    that cannot be encoded (a lone surrogate) raises :class:`UnicodeEncodeError` before any file
    is touched."""
    return write_bytes_atomic(path, text.encode("utf-8"))


__all__ = [
    "NotRegularFileError",
    "OutputError",
    "OutputPathError",
    "check_output",
    "check_outputs",
    "file_kind",
    "open_regular",
    "regular_file_problem",
    "replacing",
    "same_file",
    "write_bytes_atomic",
    "write_text_atomic",
]
