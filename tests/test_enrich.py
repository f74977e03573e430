"""Chunk enrichment (seed 000 §13.7.1, guide step 5): exact prefixes and metadata, then a
property over the multi-level strategies (spans and structure are never touched)."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_multilevel
from support.texts import SETTINGS, multilevel_text, parent_child_params

from chunkviz import Chunk, Reason, chunk, enrich
from chunkviz.text.tokenizers import EMBEDDING_MODEL_MAX_TOKENS, get_tokenizer

TWELVE = "one two three four five six seven eight nine ten eleven twelve"


GUIDE = (
    "# Guide\n\nIntro text.\n\n"  # [0, 22)
    "## Authentication\n\n"  # [22, 41)
    "### OAuth 2.0\n\nUse tokens.\n"  # [41, 68)
)


def _flat(text: str, cuts: list[int]) -> list[Chunk]:
    return [Chunk.from_span(text, k, a, b, Reason.UNIT_END) for k, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))]


def test_enrich_exact_prefix_and_metadata() -> None:
    assert len(GUIDE) == 68
    chunks = _flat(GUIDE, [0, 22, 41, 68])
    got = enrich(GUIDE, chunks, source="docs/guide.md", date="2024-05-01", tokenizer="words")
    assert [c.added_text for c in got] == [
        "Document: Guide\nSection: Guide\nDate: 2024-05-01\n\n",
        "Document: Guide\nSection: Guide > Authentication\nDate: 2024-05-01\n\n",
        "Document: Guide\nSection: Guide > Authentication > OAuth 2.0\nDate: 2024-05-01\n\n",
    ]
    # words: "# Guide Intro text." = 4, prefix "Document: Guide Section: Guide Date: 2024-05-01" = 6;
    # "## Authentication" = 2, its prefix (with "Guide > Authentication") 8; "### OAuth 2.0 Use
    # tokens." = 5, its prefix 11
    base = {"source": "docs/guide.md", "title": "Guide", "date": "2024-05-01", "enriched_over_limit": False}
    assert [dict(c.metadata) for c in got] == [
        {
            **base,
            "section": "Guide",
            "heading_path": ["Guide"],
            "position": 0,
            "token_count": 4,
            "enriched_token_count": 10,
        },
        {
            **base,
            "section": "Guide > Authentication",
            "heading_path": ["Guide", "Authentication"],
            "position": 1,
            "token_count": 2,
            "enriched_token_count": 10,
        },
        {
            **base,
            "section": "Guide > Authentication > OAuth 2.0",
            "heading_path": ["Guide", "Authentication", "OAuth 2.0"],
            "position": 2,
            "token_count": 5,
            "enriched_token_count": 16,
        },
    ]
    # spans, indexes, reasons untouched; the inputs are not modified
    assert [(c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in got] == [
        (c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in chunks
    ]
    assert all(c.added_text == "" and dict(c.metadata) == {} for c in chunks)


def test_enrich_section_is_taken_at_the_first_non_space_character() -> None:
    # the chunk [20, 41) starts in the blank line before "## Authentication": its section is that one
    chunks = _flat(GUIDE, [0, 20, 41, 68])
    got = enrich(GUIDE, chunks, include=("section",), tokenizer="words")
    assert [c.added_text for c in got] == [
        "Section: Guide\n\n",
        "Section: Guide > Authentication\n\n",
        "Section: Guide > Authentication > OAuth 2.0\n\n",
    ]


def test_enrich_title_fallback_include_and_existing_added_text() -> None:
    text = "Plain text without headings.\n\nSecond paragraph."
    chunks = [
        Chunk.from_span(text, 0, 0, 30, Reason.UNIT_END, added_text="Context: a note.\n"),
        Chunk.from_span(text, 1, 30, len(text), Reason.END_OF_DOCUMENT),
    ]
    got = enrich(text, chunks, source="corpus/notes.txt", tokenizer="words")
    # no level-1 heading: the title is the source's file name; no section, no date
    assert [c.added_text for c in got] == ["Document: notes.txt\n\nContext: a note.\n", "Document: notes.txt\n\n"]
    assert got[0].metadata["section"] == "" and got[0].metadata["heading_path"] == []
    assert got[0].metadata["enriched_token_count"] == 2 + 3 + 4
    # nothing to prepend: no source, no title, no headings
    bare = enrich(text, chunks, tokenizer="words")
    assert [c.added_text for c in bare] == ["Context: a note.\n", ""]
    assert "title" not in bare[1].metadata and bare[1].metadata["source"] == ""
    # an explicit title wins; include filters and keeps the fixed order
    titled = enrich(
        GUIDE, _flat(GUIDE, [0, 68]), title="Manual", date="2020", include=("date", "title"), tokenizer="words"
    )
    assert titled[0].added_text == "Document: Manual\nDate: 2020\n\n"
    with pytest.raises(ValueError, match="'author'"):
        enrich(text, chunks, include=("title", "author"))


def test_enrich_positions_are_per_level() -> None:
    got = enrich(
        TWELVE,
        chunk(TWELVE, "parent_child", tokenizer="words", parent_size=5, child_size=3, child_overlap=1),
        tokenizer="words",
    )
    assert [(c.level, c.metadata["position"], c.parent) for c in got] == [
        (0, 0, None),
        (0, 1, None),
        (0, 2, None),
        (1, 0, 0),
        (1, 1, 0),
        (1, 2, 1),
        (1, 3, 1),
        (1, 4, 2),
    ]
    assert all(c.metadata["token_count"] == len(c.text.split()) for c in got)


def test_enrich_flags_chunks_pushed_over_the_embedding_limit() -> None:
    # 250 "word" wordpieces + [CLS]/[SEP] = 252 <= 256: the chunk fits all-MiniLM-L6-v2 alone; the
    # prefix "Document: Guide\nSection: Guide\n\n" adds 6 wordpieces (document : guide section :
    # guide) -> 258 > 256
    minilm = get_tokenizer("minilm")
    text = "# Guide\n\n" + "word " * 250
    body = Chunk.from_span(text, 0, 9, len(text), Reason.END_OF_DOCUMENT)
    assert minilm.count(body.text) + 2 == 252 <= EMBEDDING_MODEL_MAX_TOKENS
    (got,) = enrich(text, [body])
    assert got.added_text == "Document: Guide\nSection: Guide\n\n"
    assert minilm.count(got.added_text + got.text) + 2 == 258
    assert got.metadata["enriched_over_limit"] is True
    (short,) = enrich(text, [body], include=())
    assert short.added_text == "" and short.metadata["enriched_over_limit"] is False
    assert got.metadata["token_count"] == get_tokenizer("cl100k_base").count(body.text)
    assert got.metadata["enriched_token_count"] == get_tokenizer("cl100k_base").count(got.added_text + body.text)


@settings(max_examples=60, **SETTINGS)
@given(text=multilevel_text(), name=st.sampled_from(["parent_child", "small_to_big"]), data=st.data())
def test_enrich_keeps_spans_and_structure(text: str, name: str, data: st.DataObject) -> None:
    params = (
        data.draw(parent_child_params()) if name == "parent_child" else {"max_parent_tokens": 30, "max_child_tokens": 8}
    )
    chunks = chunk(text, name, tokenizer="words", **params)
    got = enrich(text, chunks, source="doc.md", date="2024", tokenizer="words")
    assert_valid_multilevel(text, [dataclasses.replace(c, added_text="") for c in got])
    assert [(c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in got] == [
        (c.index, c.start, c.end, c.text, c.reason, c.level, c.parent) for c in chunks
    ]
    for c in got:
        assert c.added_text.endswith("\n\n") and c.added_text.startswith("Document: ")
        assert re.search(r"^Date: 2024$", c.added_text, re.MULTILINE)
        section = c.metadata["section"]
        assert (f"Section: {section}\n" in c.added_text) == bool(section)
        assert c.metadata["enriched_token_count"] == len((c.added_text + c.text).split())
