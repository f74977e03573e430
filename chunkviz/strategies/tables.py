"""Tables kept whole or cut into row groups, never mid-row (seed 000 §13.5.3).

Tables and their rows are the document structure's (Markdown pipe tables parsed by
markdown-it-py, and the pipe tables that the HTML and DOCX readers produce). Each table is one
atomic chunk, even when it is over ``max_tokens`` (then it is flagged, not split); with
``rows_per_chunk`` > 0 it is cut into groups of that many rows instead, fewer when a group would
exceed ``max_tokens``. A group after the first repeats the header and delimiter rows as
``added_text`` (exactly as they are in the source), so ``added_text + text`` reads as a table;
the first group has the real header in its span. The text around the tables is chunked by the
recursive splitter (``markdown`` preset, ``chunk_size = max_tokens``, ``text_overlap``).

A table's last chunk also takes the whitespace after the table up to the next line with text,
as the recursive splitter does with the whitespace after a piece.

Reasons: ``unit_end`` where a table (or the text before a table) ends, ``size_limit`` between
row groups and between the recursive chunks of the text, ``end_of_document`` at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from chunkviz.core.errors import InvalidParamError
from chunkviz.core.limits import refuse_as_counted
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.blocks import Block
from chunkviz.document.model import Document, as_document
from chunkviz.document.structure import LINE_BREAK_CHARS
from chunkviz.splitting import PRESETS, Piece, to_chunks
from chunkviz.splitting.units import unit_splitter
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import SpanCounter, shared_counter
from chunkviz.text.tokenizers import Tokenizer

_WHOLE_TABLE_NOTE = (
    "tables are never split: this table is kept whole although it is over max_tokens "
    "(set rows_per_chunk to cut it into row groups with the header repeated)"
)


@dataclass(frozen=True)
class TablesParams:
    max_tokens: int = param(
        128,
        "maximum tokens per chunk (text chunks and row groups; whole tables are only flagged)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    rows_per_chunk: int = param(
        0,
        "rows per table chunk; 0 keeps every table whole, N > 0 cuts tables into groups of up to N rows",
        minimum=0,
        maximum=100_000,
    )
    repeat_header: bool = param(True, "row groups after the first repeat the header and delimiter rows as added text")
    text_overlap: int = param(
        0,
        "tokens of overlap between the recursive chunks of the text around tables",
        minimum=0,
        maximum=100_000,
        overlap_unit="tokens",
    )

    def __post_init__(self) -> None:
        if self.text_overlap >= self.max_tokens:
            raise InvalidParamError(
                "tables",
                "text_overlap",
                f"must be smaller than max_tokens ({self.max_tokens}), got {self.text_overlap}",
            )


@dataclass(frozen=True)
class TableRows:
    """One table's chunkable span: ``[start, end)`` where ``end`` is after the whitespace that
    follows the table (up to the next line with text, or the end of the document);
    ``rows_start`` is where the data rows start (after the header and delimiter lines) and
    ``rows`` are the data rows, each with its line break."""

    start: int
    end: int
    rows_start: int
    rows: tuple[tuple[int, int], ...]


def _after_trailing_whitespace(text: str, pos: int) -> int:
    """Just after the last line break of the whitespace run at ``pos`` (the start of the next
    line with text), or the end of the document when only whitespace follows."""
    j = pos
    while j < len(text) and text[j].isspace():
        j += 1
    if j == len(text):
        return j
    while j > pos and text[j - 1] not in LINE_BREAK_CHARS:
        j -= 1
    return j


def _after_line_break(text: str, pos: int) -> int:
    """``pos`` (the end of a line) moved past the line break there, if any."""
    if text.startswith("\r\n", pos):
        return pos + 2
    return pos + 1 if pos < len(text) and text[pos] in LINE_BREAK_CHARS else pos


def table_rows(text: str, table: Block) -> TableRows:
    """The chunkable rows of one table block of the document structure."""
    end = _after_trailing_whitespace(text, table.end)
    lines = [(start, min(_after_line_break(text, stop), end)) for start, stop in table.rows]
    rows = tuple(lines[2:])
    rows_start = rows[0][0] if rows else (lines[-1][1] if lines else end)
    return TableRows(table.start, end, rows_start, rows)


def find_tables(document: Document | str) -> list[TableRows]:
    """Every table of the document with its row spans, in document order."""
    document = as_document(document)
    return [table_rows(document.text, table) for table in document.structure.tables]


def _table_metadata(number: int, table: TableRows, **extra: Any) -> dict[str, Any]:
    return {Meta.KIND: "table", "table": number, "table_rows": len(table.rows), **extra}


class _TableChunker:
    def __init__(self, text: str, params: TablesParams, tokenizer: Tokenizer, counter: SpanCounter):
        self.text = text
        self.params = params
        self.tokenizer = tokenizer
        self.counter = counter

    def whole(self, number: int, table: TableRows) -> list[Piece]:
        metadata = _table_metadata(number, table, rows=[1, len(table.rows)] if table.rows else [], whole_table=True)
        over = self.counter.count(table.start, table.end) > self.params.max_tokens
        if over:
            metadata[Meta.NOTE] = _WHOLE_TABLE_NOTE
        return [Piece(table.start, table.end, Reason.UNIT_END, over_limit=over, metadata=metadata)]

    def _tokens(self, table: TableRows, added: str, first_row: int, last_row: int) -> int:
        """Tokens of rows ``[first_row, last_row)`` as embedded: with the repeated header."""
        start = table.start if first_row == 0 else table.rows[first_row][0]
        end = table.end if last_row == len(table.rows) else table.rows[last_row][0]
        if first_row == 0 or not added:
            return self.counter.count(start, end)
        return self.tokenizer.count(added + self.text[start:end])

    def _group_size(self, table: TableRows, added: str, i: int) -> int:
        """Rows in the group starting at row ``i``: ``rows_per_chunk``, fewer where max_tokens
        requires, at least one. This stays a search of its own rather than a PackPolicy: a
        group's size counts the repeated header (added text, not part of the span), and groups
        are also capped at a number of units, neither of which the packer's span counts express."""
        high = min(self.params.rows_per_chunk, len(table.rows) - i)
        if self._tokens(table, added, i, i + high) <= self.params.max_tokens:
            return high
        best, low, top = 1, 1, high - 1  # row counts only grow the token count: binary search
        while low <= top:
            mid = (low + top) // 2
            if self._tokens(table, added, i, i + mid) <= self.params.max_tokens:
                best, low = mid, mid + 1
            else:
                top = mid - 1
        return best

    def groups(self, number: int, table: TableRows) -> list[Piece]:
        """Row groups of at most ``rows_per_chunk`` rows, fewer where max_tokens requires."""
        m = len(table.rows)
        if not m:
            return self.whole(number, table)
        added = self.text[table.start : table.rows_start] if self.params.repeat_header else ""
        pieces: list[Piece] = []
        i = 0
        while i < m:
            k = self._group_size(table, added, i)
            metadata = _table_metadata(number, table, rows=[i + 1, i + k], header_repeated=bool(i and added))
            if k < min(self.params.rows_per_chunk, m - i):
                metadata["fewer_rows"] = True  # rows_per_chunk rows would exceed max_tokens
            over = (
                self._tokens(table, added, i, i + k) > self.params.max_tokens
            )  # one row (with the header) is never cut
            start = table.start if i == 0 else table.rows[i][0]
            reason = Reason.UNIT_END if i + k == m else Reason.SIZE_LIMIT
            end = table.end if i + k == m else table.rows[i + k][0]
            pieces.append(Piece(start, end, reason, over_limit=over, added_text=added if i else "", metadata=metadata))
            i += k
        return [
            replace(p, metadata={**p.metadata, "group": g + 1, "groups": len(pieces)}) for g, p in enumerate(pieces)
        ]


@register(
    "tables",
    "Pipe tables kept whole (or cut into row groups that repeat the header), never mid-row; the text around them split recursively.",
    TablesParams,
)
def tables(document: Document, params: TablesParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    counter = shared_counter(text, tokenizer)
    table_chunker = _TableChunker(text, params, tokenizer, counter)
    splitter = unit_splitter(text, counter, params.max_tokens, PRESETS["markdown"], overlap=params.text_overlap)
    pieces: list[Piece] = []

    def text_region(start: int, end: int) -> None:
        if text[start:end].strip():  # only whitespace: nothing to chunk
            pieces.extend(
                p.with_metadata(**{str(Meta.KIND): "text"}) for p in splitter.split_span(start, end, Reason.UNIT_END)
            )

    found = find_tables(document)
    # each table is one chunk, or one per rows_per_chunk rows at least: refused before any is cut
    least = [_fewest_chunks(table, params.rows_per_chunk) for table in found]
    later = sum(least)
    what = f"this document's {len(found):,} table{'s' if len(found) != 1 else ''}" + (
        " and their rows" if params.rows_per_chunk else ""
    )
    refuse_as_counted("tables", later, what, _hint(params))
    pos = 0
    for number, table in enumerate(found):
        text_region(pos, table.start)
        pieces.extend(
            table_chunker.groups(number, table) if params.rows_per_chunk > 0 else table_chunker.whole(number, table)
        )
        later -= least[number]
        refuse_as_counted("tables", len(pieces) + later, "its tables and the text around them", _hint(params))
        pos = table.end
    text_region(pos, len(text))
    refuse_as_counted("tables", len(pieces), "its tables and the text around them", _hint(params))
    return to_chunks(document, pieces)


def _fewest_chunks(table: TableRows, rows_per_chunk: int) -> int:
    """The fewest chunks a table can make: one whole, or one per ``rows_per_chunk`` rows."""
    if rows_per_chunk <= 0 or not table.rows:
        return 1
    return -(-len(table.rows) // rows_per_chunk)


def _hint(params: TablesParams) -> str:
    raise_rows = (
        f"raise rows_per_chunk (now {params.rows_per_chunk:,}) or set it to 0 to keep tables whole, "
        if params.rows_per_chunk
        else ""
    )
    return f"Raise max_tokens (now {params.max_tokens:,}), {raise_rows}or chunk a smaller document"


__all__ = ["TableRows", "TablesParams", "find_tables", "table_rows", "tables"]
