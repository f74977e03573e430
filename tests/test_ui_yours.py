"""The "your chunks" column (chunkviz/ui/yours.py): a chunk file uploaded beside the document is
placed, audited and drawn as one more column of the Compare view (AppTest)."""

from __future__ import annotations

import json

from test_app import (
    DEFAULT_COLUMNS,
    DEFAULT_SAMPLE,
    assert_view_matches,
    chunk_views,
    engine,
    errors,
    new_app,
    run,
    sample_text,
)

from chunkviz.formats.export import chunk_records, serialize
from chunkviz.text.tokenizers import get_tokenizer


def upload_chunks(at, name: str, data: bytes):  # noqa: ANN001, ANN201 - an AppTest
    at.file_uploader(key="yours").set_value((name, data, "application/json"))
    return run(at)


def captions(at) -> list[str]:  # noqa: ANN001 - an AppTest
    return [c.value for c in at.caption]


def test_without_a_file_the_page_has_the_strategies_columns_only() -> None:
    at = new_app()
    assert len(chunk_views(at)) == len(DEFAULT_COLUMNS)
    assert not any(c.startswith("Your chunks") for c in captions(at))


def test_chunkvizs_own_export_is_drawn_as_one_more_column_with_no_problem() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    chunks = engine(text, "recursive", chunk_size=64, overlap=8)
    data = serialize(chunk_records(chunks, get_tokenizer("cl100k_base"), text), "jsonl").encode("utf-8")
    at = upload_chunks(new_app(), "mine.jsonl", data)
    assert not errors(at)
    views = chunk_views(at)
    assert len(views) == len(DEFAULT_COLUMNS) + 1
    assert_view_matches(views[len(DEFAULT_COLUMNS)], text, chunks, len(DEFAULT_COLUMNS))
    assert f"Your chunks · {len(chunks):,} chunks from mine.jsonl (chunkviz" in " ".join(captions(at))
    assert "no problems found" in " ".join(captions(at))
    # the strategies' columns are unchanged
    for column, strategy in enumerate(DEFAULT_COLUMNS):
        assert_view_matches(views[column], text, engine(text, strategy), column)


def test_a_langchain_export_with_a_wrong_offset_is_flagged_misplaced() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    first, second = text.index("The network began"), text.index("Station teams make")
    records = [
        {"page_content": text[first : first + 60], "metadata": {"source": DEFAULT_SAMPLE, "start_index": first}},
        {"page_content": text[second : second + 60], "metadata": {"source": DEFAULT_SAMPLE, "start_index": first + 1}},
    ]
    data = "\n".join(json.dumps(r) for r in records).encode("utf-8")
    at = upload_chunks(new_app(), "langchain.jsonl", data)
    assert not errors(at)
    shown = " ".join(captions(at))
    assert "2 chunks from langchain.jsonl (langchain" in shown and "misplaced" in shown
    view = chunk_views(at)[len(DEFAULT_COLUMNS)]
    # drawn where the file says (where the pipeline that trusts start_index puts it), and flagged
    assert [(s, e) for _, s, e in view.chunks] == [(first, first + 60), (first + 1, first + 61)]
    assert "misplaced" in str(view.chunk_attrs[1]) and "misplaced" not in str(view.chunk_attrs[0])


def test_a_malformed_file_says_which_line_and_the_page_keeps_its_columns() -> None:
    at = upload_chunks(new_app(), "broken.jsonl", b'{"page_content": "a", "metadata": {}}\n{not json\n')
    assert any(e.startswith("Your chunks: broken.jsonl, line 2") for e in errors(at)), errors(at)
    assert len(chunk_views(at)) == len(DEFAULT_COLUMNS)


def test_the_uploaded_file_never_reaches_the_url() -> None:
    text = sample_text(DEFAULT_SAMPLE)
    data = json.dumps([text[:40]]).encode("utf-8")
    at = upload_chunks(new_app(), "texts.json", data)
    written = {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert "texts.json" not in json.dumps(written) and written["n"] == str(len(DEFAULT_COLUMNS))
