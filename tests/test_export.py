"""Chunk records and serializations: reason and boundary in every record, counts from chunkviz.text.counts."""

from __future__ import annotations

import csv
import io
import json

import chunkviz
from chunkviz.formats.export import RECORD_FIELDS, chunk_records, cli_command, serialize
from chunkviz.text.counts import TokenCounter, chunk_token_counts
from chunkviz.text.tokenizers import get_tokenizer

TEXT = "One sentence here. Another one there.\n\nA second paragraph with more words in it.\n"


def test_records_have_reason_boundary_and_the_shared_token_count() -> None:
    words = get_tokenizer("words")
    chunks = chunkviz.chunk(TEXT, "fixed_chars", chunk_size=25, overlap=5)
    records = chunk_records(chunks, words, TEXT)
    assert [r["token_count"] for r in records] == [c.tokens for c in chunk_token_counts(TEXT, chunks, words)]
    assert [r["token_count"] for r in chunk_records(chunks, words)] == [r["token_count"] for r in records]
    assert all({"reason", "boundary"} <= set(r) for r in records)
    assert [r["boundary"] for r in records] == [str(c.boundary) for c in chunks]


def test_csv_has_every_record_field() -> None:
    chunks = chunkviz.chunk(TEXT, "paragraphs")
    records = chunk_records(chunks, get_tokenizer("words"), TEXT)
    rows = list(csv.DictReader(io.StringIO(serialize(records, "csv"))))
    assert tuple(rows[0]) == RECORD_FIELDS and "boundary" in RECORD_FIELDS
    assert [json.loads(line)["boundary"] for line in serialize(records, "jsonl").splitlines()] == [
        r["boundary"] for r in records
    ]


def test_counter_counts_added_text_and_embedding_tokens() -> None:
    chunk = chunkviz.chunk(TEXT, "paragraphs")[0]
    enriched = chunkviz.enrich(TEXT, [chunk], tokenizer="words", source="doc.md")[0]
    counter = TokenCounter(TEXT, get_tokenizer("words"), get_tokenizer("chars"))
    counts = counter.of(enriched)
    assert counts.tokens == len(chunk.text.split())
    assert counts.added_tokens == len((enriched.added_text + enriched.text).split())
    assert counts.embedding_tokens == len(enriched.added_text + enriched.text) + get_tokenizer("chars").special_tokens


def test_cli_command_quotes_lists() -> None:
    line = cli_command("my doc.md", "recursive", {"separators": ["\n\n", " "]}, "words")
    assert line.startswith("chunkviz chunk 'my doc.md' -s recursive -p 'separators=")
