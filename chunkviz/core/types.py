"""The chunk: an exact span of the document text, where its cut falls and why."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeVar

from chunkviz.core.vocabulary import Boundary, Reason

#: ``(start, end)`` character offsets into the one text at hand, end exclusive. (A span in one
#: document of a corpus, with the document's name, is
#: :class:`chunkviz.evaluation.metrics.DocumentSpan`.)
Span = tuple[int, int]
#: A progress callback: ``progress(done, total)`` after each step of a long job (embedding
#: batches, model calls).
Progress = Callable[[int, int], None]


_Frozen = TypeVar("_Frozen")


def frozen_instance(cls: type[_Frozen], **fields: Any) -> _Frozen:
    """An instance of the frozen dataclass ``cls`` with every field given (values already
    checked), set in one step: a frozen dataclass's ``__init__`` makes one
    ``object.__setattr__`` call per field, which thousands of chunks per document add up to."""
    instance = object.__new__(cls)
    instance.__dict__.update(fields)
    return instance


class PendingBoundary:
    """A chunk's boundary not read yet: the ``index``-th of ``batch.boundaries()`` (a batch
    reads every cut of one chunking in one pass, on the first chunk's first read)."""

    __slots__ = ("batch", "index")

    def __init__(self, batch: "BoundaryBatch", index: int) -> None:
        self.batch = batch
        self.index = index


class BoundaryBatch:
    """The boundaries of many cuts, computed by ``read()`` once, on first use (thread-safe), after
    which ``read`` and what it holds (the document) are let go."""

    def __init__(self, read: Callable[[], list[Boundary]]) -> None:
        self._read: Callable[[], list[Boundary]] | None = read
        self._boundaries: list[Boundary] | None = None
        self._lock = threading.Lock()

    def boundaries(self) -> list[Boundary]:
        with self._lock:
            if self._boundaries is None:
                assert self._read is not None  # set until the boundaries are read
                self._boundaries = self._read()
                self._read = None
            return self._boundaries


class _BoundaryField:
    """``Chunk.boundary``: a stored :class:`Boundary`, or a :class:`PendingBoundary` read from
    the document's structure on first access (and stored then). A chunking whose boundaries no
    one reads never pays for the structure's analysis of its cuts."""

    def __get__(self, chunk: "Chunk | None", owner: type | None = None) -> Any:
        if chunk is None:
            return Boundary.DOCUMENT_END  # the dataclass field's default
        value = chunk.__dict__["boundary"]
        if value.__class__ is PendingBoundary:
            value = chunk.__dict__["boundary"] = value.batch.boundaries()[value.index]
        return value

    def __set__(self, chunk: "Chunk", value: Any) -> None:  # dataclass __init__ only (the class is frozen)
        chunk.__dict__["boundary"] = value


@dataclass(frozen=True)
class Chunk:
    """One chunk: ``text == document[start:end]`` always.

    ``reason`` says why the strategy ended the chunk at ``end``; ``boundary`` says where that
    cut falls in the document's structure (section, paragraph, line, sentence, word, inside a
    word). ``added_text`` holds text a strategy adds that is not part of the source (empty for
    pure span strategies); ``parent`` and ``level`` describe multi-level chunkings (``None``/0
    for flat ones).
    """

    index: int
    start: int
    end: int
    text: str
    reason: Reason
    boundary: Boundary = _BoundaryField()  # type: ignore[assignment]  # a descriptor; its default is DOCUMENT_END
    parent: int | None = None
    level: int = 0
    added_text: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __getstate__(self) -> dict[str, Any]:
        """The chunk's fields with its boundary read (a pickled chunk carries no document)."""
        return {**self.__dict__, "boundary": self.boundary}

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"invalid chunk span [{self.start}, {self.end})")
        if len(self.text) != self.end - self.start:
            raise ValueError("chunk text length does not match its span")

    @classmethod
    def from_span(
        cls,
        document: str,
        index: int,
        start: int,
        end: int,
        reason: Reason | str,
        *,
        boundary: Boundary | str | PendingBoundary = Boundary.DOCUMENT_END,
        parent: int | None = None,
        level: int = 0,
        added_text: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> "Chunk":
        """Build a chunk whose text is taken from ``document[start:end]``."""
        if not 0 <= start <= end <= len(document):
            raise ValueError(f"span [{start}, {end}) is outside the document (length {len(document)})")
        # the span is checked above and the text is its slice: __post_init__'s checks cannot fail
        return frozen_instance(
            cls,
            index=index,
            start=start,
            end=end,
            text=document[start:end],
            reason=reason if reason.__class__ is Reason else Reason(reason),
            boundary=boundary if isinstance(boundary, (Boundary, PendingBoundary)) else Boundary(boundary),
            parent=parent,
            level=level,
            added_text=added_text,
            metadata=dict(metadata) if metadata else {},
        )

    @property
    def span(self) -> Span:
        return (self.start, self.end)

    def to_record(self, token_count: int | None = None) -> dict[str, Any]:
        """The chunk as a plain JSON-ready dict (the CLI / export record)."""
        record: dict[str, Any] = {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "reason": str(self.reason),
            "boundary": str(self.boundary),
            "parent": self.parent,
            "level": self.level,
            "added_text": self.added_text,
        }
        if token_count is not None:
            record["token_count"] = token_count
        record["metadata"] = dict(self.metadata)
        return record


def check_chunk_numbers(chunk: Chunk, where: str) -> None:
    """Refuse, with a ``TypeError`` that says what to pass, a chunk made elsewhere whose ``index``,
    ``parent`` or ``level`` is not a whole number (``parent``: or None). A chunkviz strategy's
    chunks always pass; a view checks chunks it is given with this before drawing them."""
    for name, value in (("index", chunk.index), ("parent", chunk.parent), ("level", chunk.level)):
        if (value is None and name == "parent") or (isinstance(value, int) and not isinstance(value, bool)):
            continue
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        raise TypeError(
            f"{where}: its {name} is {shown} (a {type(value).__name__}); a chunk's index is an int (its "
            "number in the chunking), its parent an int or None, its level an int (0 for a flat chunking): "
            "pass int(...) values"
        )


__all__ = ["Boundary", "Chunk", "Progress", "Reason", "Span", "check_chunk_numbers"]
