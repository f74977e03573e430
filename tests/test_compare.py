"""The comparison views: runs on the Document (its format), flags, chunk table, outline, query params."""

from __future__ import annotations

import json

import pytest

from chunkviz.core.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS, Flag
from chunkviz.diagnostics import compare
from chunkviz.diagnostics.compare import (
    SHOWN_FLAGS,
    ColumnConfig,
    SharedLinkError,
    chunk_flags,
    chunk_table,
    config_from_query,
    config_to_query,
    flag_counts,
    flag_summary,
    language_from_query,
    model_from_query,
    outline_html,
    run_strategy,
    stats_row,
)
from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document import Document
from chunkviz.strategies.guarded import guarded_run
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL

RST = "Title\n=====\n\nIntro text here.\n\nPart one\n--------\n\nBody of part one.\n"
TABLE = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n\nAfter the table.\n"


def test_run_strategy_passes_the_document_with_its_format(monkeypatch) -> None:
    seen = []

    def spy(document, prepared, tokenizer, **kwargs):
        seen.append(document)
        return guarded_run(document, prepared, tokenizer, **kwargs)

    monkeypatch.setattr(compare, "guarded_run", spy)
    document = Document(RST, name="guide.rst", format="rst")
    run = run_strategy(document, "paragraphs", {}, "words")
    assert seen == [document] and seen[0].format == "rst"
    assert run.diagnostics is not None and run.diagnostics.summary.chunks == len(run.chunks)


def test_outline_comes_from_the_structure_sections() -> None:
    document = Document(RST, format="rst")
    html = outline_html(document)
    titles = [s.heading.title for s in document.structure.sections]
    assert titles == ["Title", "Part one"]
    assert all(t in html for t in titles)
    assert outline_html(Document("no headings here", format="text")) == ""


def test_chunk_table_shows_reason_and_boundary_labels() -> None:
    run = run_strategy(
        "One two three. Four five six.\n\nSeven eight.", "fixed_chars", {"chunk_size": 12, "overlap": 0}, "words"
    )
    rows = chunk_table(run)
    assert [r["reason"] for r in rows] == [REASON_LABELS[c.reason] for c in run.chunks]
    assert [r["boundary"] for r in rows] == [BOUNDARY_LABELS[c.boundary] for c in run.chunks]
    assert any(FLAG_LABELS[Flag.MID_WORD] in r["flags"] for r in rows)


def test_split_table_flag_comes_from_the_document_structure() -> None:
    document = Document(TABLE, format="markdown")
    cut = TABLE.index("| 3 |")
    run = run_strategy(document, "fixed_chars", {"chunk_size": cut, "overlap": 0}, "words")
    flags = chunk_flags(run)
    assert Flag.SPLIT_TABLE in flags[0]
    assert flag_counts(run)[Flag.SPLIT_TABLE] >= 1
    assert stats_row("1", run)[FLAG_LABELS[Flag.SPLIT_TABLE]] >= 1
    assert set(flag_counts(run)) == set(SHOWN_FLAGS)


def test_config_round_trips_through_query_params() -> None:
    columns = [ColumnConfig("recursive", {"chunk_size": 200, "separators": ["\n", " "]}), ColumnConfig("paragraphs")]
    doc, tokenizer, parsed = config_from_query(config_to_query("a.md", "words", columns))
    assert (doc, tokenizer, parsed) == ("a.md", "words", columns)
    assert config_from_query({"n": "1", "s0": "no_such_strategy"})[2] == []


def test_a_shared_link_carries_the_documents_language_within_bounds() -> None:
    """Issue 37: a language the user gave travels with the link; detected (None) writes nothing.
    Read back like the other values: normalized, or refused in one line naming ``lang``."""
    query = config_to_query("a.md", "words", [ColumnConfig("sentences")], language="ja")
    assert query["lang"] == "ja" and language_from_query(query) == "ja"
    assert "lang" not in config_to_query("a.md", "words", [ColumnConfig("sentences")])
    assert language_from_query({}) is None and language_from_query({"lang": "auto"}) is None
    assert language_from_query({"lang": "de-DE"}) == "de"
    for value, problem in [
        ("x" * 17, "lang is 17 characters long; a language code is at most 16"),
        ("klingon", "lang: language 'klingon' is not a language code: give an ISO 639-1 code"),
        ("<b>", "lang: language '<b>' is not a language code"),
    ]:
        with pytest.raises(SharedLinkError) as refused:
            language_from_query({"lang": value})
        assert str(refused.value).startswith(problem), refused.value


def test_a_shared_link_is_read_within_bounds() -> None:
    """Issue 36 item 7: a link is anyone's. Its JSON has the side files' depth and digit bounds, each
    value a length bound, the column count a few digits; values come back as the strategy reads them."""
    column = {"n": "1", "s0": "recursive_langchain"}
    for query, problem in [
        ({**column, "p0": "[" * 33 + "]" * 33}, "p0: JSON nested more than 32 levels deep (at character 33)"),
        ({**column, "p0": '{"chunk_size":' + "9" * 31 + "}"}, "p0: a whole number of 31 digits (999999999999…)"),
        ({**column, "p0": "x" * 8_001}, "p0 is 8,001 characters long; a value is at most 8,000"),
        ({"doc": "x" * 8_001}, "doc is 8,001 characters long; a value is at most 8,000"),
        ({**column, "p0": '{"chunk_size": NaN}'}, "p0: recursive_langchain: parameter 'chunk_size' must be"),
        ({"n": "9" * 7}, "n='9999999' is not a number of columns (1 to 4)"),
        ({"n": "-1"}, "n='-1' is not a number of columns (1 to 4)"),
    ]:
        with pytest.raises(SharedLinkError) as refused:
            config_from_query(query)
        assert str(refused.value).startswith(problem), refused.value
    typed = {"count_special_tokens": "false", "chunk_size": "1e3", "separators": ["\n", ""]}
    read = config_from_query({**column, "p0": json.dumps(typed)})[2]
    assert read == [
        ColumnConfig(
            "recursive_langchain", {"count_special_tokens": False, "chunk_size": 1000, "separators": ["\n", ""]}
        )
    ]
    assert config_from_query({"n": " 9 ", "s0": "paragraphs"})[2] == [ColumnConfig("paragraphs", {})]


# --------------------------------------------------------------------------- flags, models, units

SENTENCES = "The cat sat on the mat for the whole day. " * 20  # 200 words, a sentence every 10


def test_flag_summary_names_only_the_flags_present() -> None:
    off = HygieneRules.off()  # the toy texts repeat themselves and are short: the hygiene flags have their own tests
    clean = run_strategy(
        "One two three. Four five six.", "fixed_chars", {"chunk_size": 15, "overlap": 0}, "words", hygiene=off
    )
    assert flag_summary(clean) == "2 chunks · no flags"
    run = run_strategy(
        SENTENCES,
        "fixed_tokens",
        {"chunk_size": 190, "overlap": 0},
        "words",
        embedding_model="all-MiniLM-L12-v2",
        hygiene=off,
    )
    assert [len(c.text.split()) for c in run.chunks] == [190, 10]
    assert flag_summary(run) == "2 chunks · 1 over model limit (128) · 1 tiny (< 48 words)"
    one = run_strategy(
        "Short.", "fixed_chars", {"chunk_size": 100, "overlap": 0}, "words", tiny_fraction=None, hygiene=off
    )
    assert flag_summary(one) == "1 chunk · no flags"


def test_flag_summary_counts_cuts_in_plural() -> None:
    run = run_strategy(
        "One two three. Four five six.",
        "fixed_chars",
        {"chunk_size": 10, "overlap": 0},
        "words",
        hygiene=HygieneRules.off(),
    )
    assert [c.text for c in run.chunks] == ["One two th", "ree. Four ", "five six."]
    assert flag_summary(run) == "3 chunks · 2 mid-sentence cuts · 1 mid-word cut"


def test_run_strategy_takes_the_embedding_model_and_tiny_fraction_by_name() -> None:
    default = run_strategy(SENTENCES, "fixed_tokens", {"chunk_size": 190, "overlap": 0}, "words")
    assert (
        default.diagnostics.embedding_model == DEFAULT_EMBEDDING_MODEL
        and default.diagnostics.embedding_max_tokens == 256
    )
    off = run_strategy(SENTENCES, "fixed_tokens", {"chunk_size": 190, "overlap": 0}, "words", tiny_fraction=None)
    assert not off.diagnostics.tiny.on and flag_counts(off)[Flag.TINY] == 0


def test_a_column_can_count_its_sizes_in_characters() -> None:
    text = "alpha beta gamma delta. " * 20
    run = run_strategy(text, "recursive", {"chunk_size": 100, "overlap": 0}, "words", column_tokenizer="chars")
    assert max(len(c.text) for c in run.chunks) <= 100  # sizes in characters
    assert (run.tokenizer, run.chunk_tokenizer, run.size_tokenizer) == ("words", "chars", "chars")
    assert run.diagnostics.tokenizer == "words"  # token counts stay comparable with other columns
    assert run.diagnostics.tiny.describe() == "tiny (< 25 % of the 100-character target)"
    same = run_strategy(text, "recursive", {"chunk_size": 100, "overlap": 0}, "words", column_tokenizer="words")
    assert same.chunk_tokenizer is None and same.size_tokenizer == "words"


def test_query_round_trips_column_units_and_leaves_out_uploaded_names() -> None:
    columns = [ColumnConfig("recursive", {"chunk_size": 300}, "chars"), ColumnConfig("paragraphs")]
    query = config_to_query("a.md", "words", columns, embedding_model="text-embedding-3-small")
    assert query["t0"] == "chars" and "t1" not in query and query["model"] == "text-embedding-3-small"
    assert config_from_query(query) == ("a.md", "words", columns)
    assert model_from_query(query) == "text-embedding-3-small"
    assert model_from_query({}) == model_from_query({"model": "nope"}) == DEFAULT_EMBEDDING_MODEL
    uploaded = config_to_query("secret-report.pdf", "words", columns, shareable=False)
    assert "doc" not in uploaded and "secret-report.pdf" not in str(uploaded)
    assert config_from_query(uploaded)[0] is None
    assert "model" not in config_to_query("a.md", "words", columns, embedding_model=DEFAULT_EMBEDDING_MODEL)
    assert config_from_query({**query, "t0": "no-such-tokenizer"})[2][0].tokenizer is None


def test_the_app_path_refuses_a_run_of_too_many_chunks_before_chunking() -> None:
    import pytest

    from chunkviz.core.errors import ChunkvizError
    from chunkviz.core.limits import MAX_CHUNKS
    from chunkviz.diagnostics.compare import run_strategy

    text = "x" * (MAX_CHUNKS * 2)
    with pytest.raises(
        ChunkvizError,
        match=r"chunk_size=1 would cut this document \(200,000 chars\) into at least 200,000 chunks; .*Raise chunk_size to at least 2",
    ):
        run_strategy(text, "fixed_chars", {"chunk_size": 1, "overlap": 0}, "cl100k_base")
    assert len(run_strategy(text, "fixed_chars", {"chunk_size": 2, "overlap": 0}, "cl100k_base").chunks) == MAX_CHUNKS


def test_the_comparison_row_gives_the_chunking_cpu_time() -> None:
    from chunkviz.diagnostics.compare import run_strategy, stats_row

    run = run_strategy("One sentence. Another one.\n\nA paragraph. " * 200, "recursive", {}, "cl100k_base")
    assert run.cpu_seconds is not None and run.cpu_seconds >= 0
    assert stats_row("c", run)["chunking CPU ms"] == round(1000 * run.cpu_seconds, 1)
