"""Our tokenizers and offline embedding model in the shapes the peers accept (chunkviz/strategies/peers/adapters.py).

``PieceCodec`` cases are worked out by hand on the ``words`` tokenizer (a token is a word and the
whitespace after it). The LangChain embeddings run on the cheap stand-in embedder
(``fake_model``); Chonkie's wrapper needs a real sentence-transformers object, so it gets the
offline MiniLM (loaded once per worker). Vectors are cached per text: a second call encodes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
import tiktoken
from support.semantic import HashedBagOfWords

import chunkviz.semantic.embeddings as embeddings
from chunkviz.strategies.peers.adapters import (
    PieceCodec,
    chonkie_embeddings,
    chonkie_tokenizer,
    langchain_embeddings,
    native_tiktoken,
)
from chunkviz.text.tokenizers import get_tokenizer

pytestmark = pytest.mark.usefixtures("semantic_cache_dir")


def test_piece_codec_gives_ids_in_order_of_first_appearance() -> None:
    codec = PieceCodec(get_tokenizer("words"))
    assert codec.pieces("to be or not to be") == ["to ", "be ", "or ", "not ", "to ", "be"]
    assert codec.encode("to be or not to be") == [0, 1, 2, 3, 0, 4]  # "be" at the end has no space
    assert codec.vocabulary == ["to ", "be ", "or ", "not ", "be"]
    assert codec.encode("not to") == [3, 5]  # ids persist; "to" without its space is new
    assert codec.decode([3, 0, 1, 4]) == "not to be be"


@pytest.mark.parametrize("name", ["words", "chars", "cl100k_base", "minilm"])
@pytest.mark.parametrize("text", ["", "a", "two  spaces\r\nand CRLF  ", "naïve 日本語 😀👍🏽 e\u0301"])
def test_piece_codec_is_lossless(name: str, text: str) -> None:
    codec = PieceCodec(get_tokenizer(name))
    ids = codec.encode(text)
    assert codec.decode(ids) == text
    assert "".join(codec.pieces(text)) == text
    assert len(ids) == get_tokenizer(name).boundaries(text).n_tokens


@pytest.mark.xfail(
    strict=True,
    reason="found while writing this file: the words and minilm boundaries start at the first token, so the "
    "whitespace before it is in no piece (the class docstring says the pieces concatenate to the text)",
)
@pytest.mark.parametrize("name", ["words", "minilm"])
def test_piece_codec_keeps_leading_whitespace(name: str) -> None:
    codec = PieceCodec(get_tokenizer(name))
    assert codec.decode(codec.encode("  indented")) == "  indented"


def test_native_tiktoken_only_for_tiktoken_tokenizers() -> None:
    encoding = native_tiktoken(get_tokenizer("cl100k_base"))
    assert isinstance(encoding, tiktoken.Encoding) and encoding.name == "cl100k_base"
    assert native_tiktoken(get_tokenizer("words")) is None
    assert native_tiktoken(get_tokenizer("minilm")) is None


def test_chonkie_gets_the_tiktoken_encoding_itself() -> None:
    assert chonkie_tokenizer(get_tokenizer("cl100k_base")) is native_tiktoken(get_tokenizer("cl100k_base"))


def test_chonkie_gets_a_tokenizer_over_our_pieces() -> None:
    pytest.importorskip("chonkie")
    words = chonkie_tokenizer(get_tokenizer("words"))
    assert repr(words) == "ChunkvizTokenizer(words)"
    assert words.tokenize("one two  three") == ["one ", "two  ", "three"]
    assert words.encode("one two one") == [0, 1, 2]  # "one" at the end has no space: a new piece
    assert words.decode([1, 0]) == "two one "
    assert words.count_tokens("one two  three") == 3


def test_langchain_embeddings_are_the_models_vectors_cached_per_text(
    fake_model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain_core")
    model = embeddings.load_model(fake_model)
    assert isinstance(model, HashedBagOfWords)
    encoded: list[list[str]] = []
    real_encode = model.encode
    monkeypatch.setattr(model, "encode", lambda texts, *a, **k: encoded.append(list(texts)) or real_encode(texts))
    lc = langchain_embeddings(fake_model)
    vectors = lc.embed_documents(["alpha beta", "gamma", "alpha beta"])
    expected = real_encode(["alpha beta", "gamma"])
    assert np.allclose(vectors, [expected[0], expected[1], expected[0]])
    assert encoded == [["alpha beta", "gamma"]], "each distinct text encoded once"
    assert np.allclose(lc.embed_query("gamma"), expected[1])
    assert lc.embed_documents([]) == []
    assert encoded == [["alpha beta", "gamma"]], "the query came from the cache"


@pytest.mark.slow
def test_chonkie_embeddings_wrap_the_loaded_offline_model(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("chonkie")
    model = embeddings.load_model(embeddings.DEFAULT_MODEL)
    chonkie = chonkie_embeddings()
    assert chonkie.model is model.model, "Chonkie is given the loaded model, never a name to load"
    texts = ["The river rose at dawn.", "Tax returns are due in April."]
    first = np.asarray(chonkie.embed_batch(texts))
    assert first.shape == (2, 384)
    direct = np.asarray(super(type(chonkie), chonkie).embed_batch(texts))
    assert np.allclose(first, direct, atol=1e-5), "Chonkie's own vectors, not ours"
    calls: list[int] = []
    parent = type(chonkie).__mro__[1]  # Chonkie's SentenceTransformerEmbeddings
    monkeypatch.setattr(parent, "embed_batch", lambda self, batch: calls.append(len(batch)) or direct)
    again = np.asarray(chonkie.embed_batch(texts))
    assert calls == [] and np.allclose(again, first), "a second batch of the same texts embeds nothing"
