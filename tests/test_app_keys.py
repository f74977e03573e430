"""The keys of the app's cached calls (chunkviz.ui.keys): small frozen dataclasses that Streamlit
hashes the same way every time, and a document digest computed once per Document."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from streamlit.runtime.caching.cache_type import CacheType
from streamlit.runtime.caching.hashing import update_hash

from chunkviz.document import model
from chunkviz.document.model import Document
from chunkviz.ui.keys import HASH_FUNCS, Chunking, ColumnSettings, Enrichment, RunKey, document_digest

PARAMS: dict[str, Any] = {"separators": ["\n\n", " "], "chunk_size": 120, "overlap": 0.5, "keep": True, "x": None}


def streamlit_hash(*args: Any) -> str:
    """What a cached call's arguments hash to (Streamlit's own hasher, with the app's hash_funcs)."""
    hasher = hashlib.new("md5")
    update_hash(args, hasher, CacheType.DATA, hash_funcs=HASH_FUNCS)
    return hasher.hexdigest()


def run_key(params: dict[str, Any] = PARAMS, **settings: Any) -> RunKey:
    return RunKey(Chunking.of("recursive", params, "cl100k_base"), ColumnSettings("minilm", 0.25, **settings))


def test_parameters_come_back_as_a_json_round_trip_gave_them() -> None:
    chunking = Chunking.of("recursive", PARAMS, "cl100k_base")
    assert [name for name, _ in chunking.params] == sorted(PARAMS)
    assert chunking.param_values() == json.loads(json.dumps(PARAMS))
    assert Chunking.of("recursive", dict(reversed(PARAMS.items())), "cl100k_base") == chunking


def test_keys_are_hashable_and_hash_by_value() -> None:
    assert hash(run_key()) == hash(run_key()) and run_key() == run_key()
    assert streamlit_hash(run_key()) == streamlit_hash(run_key())
    assert streamlit_hash(run_key()) != streamlit_hash(run_key({**PARAMS, "chunk_size": 121}))
    assert streamlit_hash(run_key()) != streamlit_hash(run_key(column_tokenizer="chars"))
    with_endpoint = run_key(endpoint=(("base_url", "http://127.0.0.1:1/v1"), ("model", "m")))
    assert streamlit_hash(with_endpoint) != streamlit_hash(run_key())
    # the keys hash by repr (HASH_FUNCS): values equal in Python but of another type are other keys
    for other in ({**PARAMS, "overlap": "0.5"}, {**PARAMS, "keep": 1}, {**PARAMS, "separators": ["\n\n ", ""]}):
        assert streamlit_hash(run_key(other)) != streamlit_hash(run_key()), other
    assert streamlit_hash(RunKey(run_key().chunking, run_key().settings, Enrichment(metadata=True))) != streamlit_hash(
        run_key()
    )


def test_enrichment_gives_the_options_the_engine_takes() -> None:
    assert Enrichment(metadata=False, contextual=True).options() == {"metadata": False, "contextual": True}
    full = Enrichment(True, False, "handbook.md", "Handbook", None)
    assert full.options() == {
        "metadata": True,
        "contextual": False,
        "source": "handbook.md",
        "title": "Handbook",
        "date": None,
    }
    assert full.prefix() == {"source": "handbook.md", "title": "Handbook", "date": None}
    assert Enrichment(metadata=False, contextual=True).prefix() is None


def test_a_document_is_hashed_by_its_digest_once_per_object(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    real = model.content_digest
    monkeypatch.setattr(model, "content_digest", lambda document: made.append(1) or real(document))
    text = "Some text.\n\nAnother paragraph, only in this test.\n"
    first, same = Document(text, "a.md", format="markdown"), Document(text, "a.md", format="markdown")
    assert streamlit_hash(first, run_key()) == streamlit_hash(same, run_key())
    assert len(made) == 2  # one digest per Document object
    for _ in range(5):
        streamlit_hash(first, run_key())
    assert len(made) == 2, "a Document's digest is computed once"
    others = [Document(text + "!", "a.md", format="markdown"), Document(text, "b.md", format="markdown")]
    assert len({document_digest(d) for d in [first, *others, Document(text, "a.md", format="text")]}) == 4
