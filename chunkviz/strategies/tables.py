"""Tables kept whole or cut into row groups, never mid-row (seed 000 §13.5.3).

Pipe tables are found by :func:`chunkviz.structure.document_elements` (Markdown, and the pipe
tables that HTML and DOCX conversion produce). Each table is one atomic chunk, even when it is
over ``max_tokens`` (then it is flagged, not split); with ``rows_per_chunk`` > 0 it is cut into
groups of that many rows instead, fewer when a group would exceed ``max_tokens``. A group after
the first repeats the header and delimiter rows as ``added_text`` (exactly as they are in the
source), so ``added_text + text`` reads as a table; the first group has the real header in its
span. The text around the tables is chunked with the recursive splitter (``markdown`` preset,
``chunk_size = max_tokens``).

Row and line boundaries are those of ``document_elements`` (``str.splitlines``). A table's last
chunk also takes the whitespace after the table up to the next line with text, as the recursive
splitter does with the whitespace after a piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunkviz.errors import InvalidParamError
from chunkviz.spancount import SpanCounter, shared_counter
from chunkviz.strategies.base import param, register
from chunkviz.strategies.recursive import PRESETS, RecursiveSplitter
from chunkviz.structure import document_elements
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk, Reason

#: line breaks of ``str.splitlines`` (what ``document_elements`` uses for lines)
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_LINE_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_WHOLE_TABLE_NOTE = (
    "tables are never split: this table is kept whole although it is over max_tokens "
    "(set rows_per_chunk to cut it into row groups with the header repeated)"
)


@dataclass(frozen=True)
class TablesParams:
    max_tokens: int = param(500, "maximum tokens per chunk (text chunks and row groups; whole tables are only flagged)", minimum=1, maximum=100_000)
    rows_per_chunk: int = param(
        0, "rows per table chunk; 0 keeps every table whole, N > 0 cuts tables into groups of up to N rows", minimum=0, maximum=100_000
    )
    repeat_header: bool = param(True, "row groups after the first repeat the header and delimiter rows as added text")
    text_overlap: int = param(0, "tokens of overlap between the recursive chunks of the text around tables", minimum=0, maximum=100_000)

    def __post_init__(self) -> None:
        if self.text_overlap >= self.max_tokens:
            raise InvalidParamError(
                "tables", "text_overlap", f"must be smaller than max_tokens ({self.max_tokens}), got {self.text_overlap}"
            )


@dataclass(frozen=True)
class TableRows:
    """One pipe table: header line, delimiter line and data rows as (start, end) spans.

    Row spans include their line break (the last row's may not have one); ``end`` is where
    the table's chunks end: after the whitespace that follows the table, up to the next line
    that has text (or the end of the document).
    """

    start: int
    content_end: int
    end: int
    rows_start: int  # first character after the delimiter line (= start of the first data row)
    rows: tuple[tuple[int, int], ...]


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end-with-line-break) of every line of ``text[start:end]`` plus its break."""
    spans = []
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        spans.append((pos, pos + len(line)))
        pos += len(line)
    return spans


def _after_trailing_whitespace(text: str, pos: int) -> int:
    """Just after the last line break of the whitespace run at ``pos`` (the start of the next
    line with text), or the end of the document when only whitespace follows."""
    j = pos
    n = len(text)
    while j < n and text[j].isspace():
        j += 1
    if j == n:
        return n
    k = j
    while k > pos and text[k - 1] not in _LINE_BREAKS:
        k -= 1
    return k


def find_tables(text: str) -> list[TableRows]:
    """Every pipe table of ``text`` with its row spans, in document order."""
    tables = []
    for element in document_elements(text):
        if element.kind != "table":
            continue
        end = _after_trailing_whitespace(text, element.end)
        # the line break that ends the last row belongs to the last row
        lines = _line_spans(text, element.start, end)
        content_lines = [(s, e) for s, e in lines if s < element.end]
        rows_start = content_lines[1][1] if len(content_lines) > 1 else content_lines[0][1]
        rows = content_lines[2:]
        tables.append(TableRows(element.start, element.end, end, rows_start, tuple(rows)))
    return tables


def _region_reason(text: str, end: int) -> str:
    """Why a text region ends at ``end`` (just before a table): a blank line or a line break."""
    if end >= len(text):
        return str(Reason.END_OF_DOCUMENT)
    k = end
    while k > 0 and text[k - 1].isspace():
        k -= 1
    breaks = len(_LINE_BREAK.findall(text, k, end))
    return str(Reason.PARAGRAPH) if breaks >= 2 else str(Reason.LINE)


class _TableChunker:
    def __init__(self, text: str, params: TablesParams, tokenizer: Tokenizer, counter: SpanCounter):
        self.text = text
        self.params = params
        self.tokenizer = tokenizer
        self.counter = counter

    def whole(self, number: int, table: TableRows) -> list[tuple[int, int, str, str, dict]]:
        tokens = self.counter.count(table.start, table.end)
        metadata: dict[str, object] = {
            "kind": "table",
            "table": number,
            "rows": [1, len(table.rows)] if table.rows else [],
            "table_rows": len(table.rows),
            "whole_table": True,
        }
        if tokens > self.params.max_tokens:
            metadata["over_limit"] = True
            metadata["indivisible"] = True
            metadata["note"] = _WHOLE_TABLE_NOTE
        return [(table.start, table.end, str(Reason.TABLE_END), "", metadata)]

    def groups(self, number: int, table: TableRows) -> list[tuple[int, int, str, str, dict]]:
        """Row groups of at most ``rows_per_chunk`` rows, fewer where max_tokens requires."""
        text = self.text
        rows = table.rows
        if not rows:
            return self.whole(number, table)
        header = text[table.start : table.rows_start]
        added = header if self.params.repeat_header else ""
        limit = self.params.max_tokens
        per = self.params.rows_per_chunk
        m = len(rows)

        def end_of(last_row: int) -> int:  # last_row is exclusive
            return table.end if last_row == m else rows[last_row][0]

        def tokens(first_row: int, last_row: int) -> int:
            start = table.start if first_row == 0 else rows[first_row][0]
            end = end_of(last_row)
            if first_row == 0 or not added:
                return self.counter.count(start, end)
            return self.tokenizer.count(added + text[start:end])

        out: list[tuple[int, int, str, str, dict]] = []
        i = 0
        while i < m:
            high = min(per, m - i)
            if tokens(i, i + high) > limit:
                # the largest k in [1, high) that fits (row counts only grow the token count)
                low, top = 1, high - 1
                best = 1
                while low <= top:
                    mid = (low + top) // 2
                    if tokens(i, i + mid) <= limit:
                        best, low = mid, mid + 1
                    else:
                        top = mid - 1
                k = best
            else:
                k = high
            count = tokens(i, i + k)
            start = table.start if i == 0 else rows[i][0]
            end = end_of(i + k)
            metadata: dict[str, object] = {
                "kind": "table",
                "table": number,
                "rows": [i + 1, i + k],
                "table_rows": m,
                "header_repeated": bool(i and added),
            }
            if k < high:
                metadata["fewer_rows"] = True  # rows_per_chunk rows would exceed max_tokens
            if count > limit:
                metadata["over_limit"] = True
                metadata["indivisible"] = True  # one row (with the header) is never cut
            reason = str(Reason.TABLE_END) if i + k == m else str(Reason.ROW_GROUP)
            out.append((start, end, reason, added if i else "", metadata))
            i += k
        for k, item in enumerate(out):
            item[4]["group"] = k + 1
            item[4]["groups"] = len(out)
        return out


@register(
    "tables",
    "Pipe tables kept whole (or cut into row groups that repeat the header), never mid-row; the text around them split recursively.",
    TablesParams,
)
def tables(text: str, params: TablesParams, tokenizer: Tokenizer) -> list[Chunk]:
    counter = shared_counter(text, tokenizer)
    found = find_tables(text)
    table_chunker = _TableChunker(text, params, tokenizer, counter)
    splitter: RecursiveSplitter | None = None
    pieces: list[tuple[int, int, str, str, dict]] = []

    def text_region(start: int, end: int) -> None:
        nonlocal splitter
        if not text[start:end].strip():
            return  # only whitespace: nothing to chunk
        if splitter is None:
            splitter = RecursiveSplitter(text, tokenizer, params.max_tokens, params.text_overlap, list(PRESETS["markdown"]), counter=counter)
        spans = splitter.split_span(start, end)
        for k, (s, e, over) in enumerate(spans):
            if k == len(spans) - 1:
                reason = _region_reason(text, e)
            else:
                reason = splitter.cut_reason.get(e, str(Reason.CHARACTER))
            metadata: dict[str, object] = {"kind": "text"}
            if e in splitter.cut_separator and k < len(spans) - 1:
                metadata["separator"] = splitter.cut_separator[e]
            if over:
                metadata["over_limit"] = True
                metadata["indivisible"] = True
            pieces.append((s, e, reason, "", metadata))

    pos = 0
    for number, table in enumerate(found):
        text_region(pos, table.start)
        if params.rows_per_chunk > 0:
            pieces.extend(table_chunker.groups(number, table))
        else:
            pieces.extend(table_chunker.whole(number, table))
        pos = table.end
    text_region(pos, len(text))

    chunks = []
    for index, (start, end, reason, added, metadata) in enumerate(pieces):
        if end >= len(text):
            reason = str(Reason.END_OF_DOCUMENT)
        chunks.append(Chunk.from_span(text, index, start, end, reason, added_text=added, metadata=metadata))
    return chunks
