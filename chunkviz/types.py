"""Core value types: a chunk is an exact span of the document text."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Mapping


class Reason(StrEnum):
    """Why a chunk ends where it ends (the boundary after its last character)."""

    END_OF_DOCUMENT = "end_of_document"
    PARAGRAPH = "paragraph"
    LINE = "line"
    WORD = "word"
    CHARACTER = "character"
    SENTENCE = "sentence"
    SENTENCE_END = "sentence_end"
    HEADING = "heading"
    CLASS = "class"
    FUNCTION = "function"
    SEPARATOR = "separator"
    TOKEN_CAP = "token_cap"
    CHAR_CAP = "char_cap"
    SEMANTIC_BREAKPOINT = "semantic_breakpoint"
    MAX_TOKENS = "max_tokens"
    TABLE_END = "table_end"
    ROW_GROUP = "row_group"
    AST_NODE = "ast_node"
    PARENT_END = "parent_end"


@dataclass(frozen=True)
class Chunk:
    """One chunk: ``text == document[start:end]`` always.

    ``reason`` says why the chunk ends at ``end``; ``added_text`` holds text a strategy
    adds that is not part of the source (empty for pure span strategies); ``parent`` and
    ``level`` describe multi-level chunkings (``None``/0 for flat ones).
    """

    index: int
    start: int
    end: int
    text: str
    reason: str
    parent: int | None = None
    level: int = 0
    added_text: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

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
        reason: str,
        *,
        parent: int | None = None,
        level: int = 0,
        added_text: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> "Chunk":
        """Build a chunk whose text is taken from ``document[start:end]``."""
        if not 0 <= start <= end <= len(document):
            raise ValueError(f"span [{start}, {end}) is outside the document (length {len(document)})")
        return cls(
            index=index,
            start=start,
            end=end,
            text=document[start:end],
            reason=str(reason),
            parent=parent,
            level=level,
            added_text=added_text,
            metadata=dict(metadata or {}),
        )

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    def to_record(self, token_count: int | None = None) -> dict[str, Any]:
        """The chunk as a plain JSON-ready dict (the CLI / export record)."""
        record: dict[str, Any] = {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "reason": self.reason,
            "parent": self.parent,
            "level": self.level,
            "added_text": self.added_text,
        }
        if token_count is not None:
            record["token_count"] = token_count
        record["metadata"] = dict(self.metadata)
        return record
