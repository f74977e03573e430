"""Where a batch keeps its work, so that a killed run resumes and never leaves a half-written file.

For ``--out DIR`` the output is ``DIR/chunks.<ext>`` and the work ``DIR/.chunkviz-batch/<run>/``;
for ``--out FILE`` the work is ``.<FILE name>.chunkviz-batch/<run>/`` next to it. ``<run>`` is the
start of the run key (the hash of the column's configuration, the output format and the chunkviz
version), so runs of another configuration never mix with it. In the work folder:

* ``parts/xx/<key>.jsonl``: one document's output lines, written to a temporary file and renamed
  (a part exists whole or not at all); ``<key>`` hashes the document's source and content.
* ``manifest.jsonl``: one line per finished document (source, content hash, part, status,
  chunks, error), appended after its part is in place. The manifest is what a rerun trusts:
  a document whose line says ``done`` for the same source and content, and whose part exists,
  is not chunked again. A line cut short by a kill is ignored.

The output file is assembled from the parts in the order of the sorted inputs, into a
temporary file renamed over the output, so it is byte-identical however often the run was
interrupted. ``<state>/output.json`` then records which file that is (device, inode, size,
modification time): a later run that finds exactly that file among its inputs (an output inside
an input folder) leaves it out as its own, while any other file there is an input the output
may never replace.

A run holds ``<state>/lock`` (an exclusive ``flock``) from before it reads its manifest until the
output is in place: a second run to the same output, whatever its inputs or configuration, is
refused at once (:class:`OutputLocked`), naming the process that holds it. The lock ends with
the process that held it, however it ended.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.files import write_bytes_atomic
from chunkviz.core.jsonl import json_line
from chunkviz.formats.external.formats import batch_formats, get_format

STATE_DIR = ".chunkviz-batch"
MANIFEST = "manifest.jsonl"
PARTS = "parts"
LOCK = "lock"
WRITTEN = "output.json"


@dataclass(frozen=True)
class Layout:
    """The output file and the work folder of one run."""

    output: Path
    state_root: Path
    work: Path

    @property
    def manifest(self) -> Path:
        return self.work / MANIFEST

    @property
    def parts(self) -> Path:
        return self.work / PARTS

    @property
    def lock(self) -> Path:
        """One lock per output (shared by every configuration's work folder)."""
        return self.state_root / LOCK

    @property
    def written(self) -> Path:
        """Which file the last run wrote as the output (see the module docstring)."""
        return self.state_root / WRITTEN


def output_format(fmt: str | None, out: str) -> str:
    """``fmt`` when given, else ``parquet`` for an output named ``*.parquet``, else ``jsonl``."""
    if fmt is not None:
        if fmt not in batch_formats():  # the output formats' registry
            raise ValueError(f"unknown batch format {fmt!r}; choose one of: {', '.join(batch_formats())}")
        return fmt
    return "parquet" if out.lower().endswith(".parquet") else "jsonl"


def is_directory_target(out: str) -> bool:
    """An ``--out`` that names a folder: an existing one, one ending in a separator, or a name
    without an extension that is not an existing file."""
    if out.endswith(("/", os.sep)) or os.path.isdir(out):
        return True
    return not Path(out).suffix and not os.path.lexists(out)


def make_layout(out: str, fmt: str, run_key: str) -> Layout:
    """Where the output and the work of run ``run_key`` go (nothing is created here)."""
    if is_directory_target(out):
        folder = Path(out)
        output = folder / f"chunks{get_format(fmt).extension}"
        state_root = folder / STATE_DIR
    else:
        output = Path(out)
        state_root = output.parent / f".{output.name}{STATE_DIR}"
    return Layout(output, state_root, state_root / run_key[:16])


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def part_key(source: str, content_sha256: str) -> str:
    """The name of a document's part: its source and content (the run key is the folder)."""
    return hashlib.sha256(f"{source}\0{content_sha256}".encode("utf-8", "surrogateescape")).hexdigest()[:32]


def part_path(parts: Path, key: str) -> Path:
    """Parts spread over 256 sub-folders, so millions of documents do not fill one folder."""
    return parts / key[:2] / f"{key}.jsonl"


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` at ``path``, or nothing: a temporary file in the same folder (made if missing),
    renamed over it (:func:`chunkviz.core.files.write_bytes_atomic`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, data)


def _identity(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def record_output(layout: Layout) -> None:
    """Note which file is the output just written (see :func:`is_earlier_output`)."""
    identity = _identity(layout.output)
    if identity is not None:
        write_atomic(layout.written, json.dumps({"output": identity}).encode("utf-8"))


def is_earlier_output(layout: Layout) -> bool:
    """Whether the file at the output path is the very file a batch wrote there last (same
    device, inode, size and modification time): then it is no input, even inside an input folder."""
    current = _identity(layout.output)
    try:
        recorded = json.loads(layout.written.read_text(encoding="utf-8")).get("output")
    except (OSError, ValueError, AttributeError):
        return False
    return current is not None and recorded == current


class OutputLocked(ChunkvizError, RuntimeError):
    """Another batch run is writing the same output."""


class OutputLock:
    """The exclusive lock of one output for one run (``with OutputLock(layout): ...``)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._handle: IO[str] | None = None

    def __enter__(self) -> "OutputLock":
        path = self.layout.lock
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")
        try:
            _lock_exclusive(handle)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise OutputLocked(
                f"another chunkviz batch (process {holder}) is writing {self.layout.output}; wait until it "
                "ends, or give this run another --out"
            ) from None
        except BaseException:
            handle.close()
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            try:
                handle.seek(0)
                handle.truncate()
            finally:
                handle.close()  # closing releases the lock


def _lock_exclusive(handle: IO[str]) -> None:
    """An exclusive lock that is never waited for: BlockingIOError when another holds it."""
    if sys.platform == "win32":  # pragma: no cover - the lock of the first byte
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


@dataclass(frozen=True)
class ManifestEntry:
    """One finished document."""

    source: str
    content_sha256: str | None
    status: str  # "done" or "failed"
    part: str | None = None
    chunks: int = 0
    bytes: int = 0
    error: str | None = None


class Manifest:
    """The append-only record of finished documents of one run (see the module docstring)."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self.header = header

    def entries(self) -> Iterator[ManifestEntry]:
        """The complete entry lines so far (a line cut short by a kill is skipped)."""
        if not self.path.exists():
            return
        with self.path.open("r", encoding="utf-8", errors="surrogateescape") as handle:
            for line in handle:
                if not line.endswith("\n"):
                    continue
                try:
                    data = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(data, dict) and "status" in data and "source" in data:
                    yield ManifestEntry(**{k: data[k] for k in ManifestEntry.__dataclass_fields__ if k in data})

    def done_parts(self, parts: Path) -> dict[str, int]:
        """Part keys of documents done earlier whose part is still there, with their chunk counts."""
        done: dict[str, int] = {}
        for entry in self.entries():
            if entry.status == "done" and entry.part and part_path(parts, entry.part).exists():
                done[entry.part] = entry.chunks
        return done

    def append(self, entry: ManifestEntry) -> None:
        """One line, written in one call and flushed (the part it names is already in place)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        line = json_line(asdict(entry), sort_keys=True)
        if new:
            line = json_line({"manifest": self.header}, sort_keys=True) + line
        with self.path.open("a", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(line)
            handle.flush()


__all__ = [
    "Layout",
    "Manifest",
    "ManifestEntry",
    "OutputLock",
    "OutputLocked",
    "content_hash",
    "is_directory_target",
    "is_earlier_output",
    "make_layout",
    "output_format",
    "part_key",
    "part_path",
    "record_output",
    "write_atomic",
]
