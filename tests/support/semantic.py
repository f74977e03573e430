"""Semantic chunking helpers (tests/test_semantic_*.py, test_strategy_semantic.py, test_explain.py):
the topic-shift document, a cheap deterministic stand-in embedder and the check of a semantic
chunking. The embedding model itself is loaded (once per worker) only by the tests that use it."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator

import numpy as np
import pytest

import chunkviz.semantic.embeddings as embeddings
from chunkviz.core.vocabulary import Meta
from chunkviz.semantic import DEFAULT_MODEL, EmbeddingModel, semantic_chunking
from chunkviz.text.tokenizers import get_tokenizer
from support.chunking import assert_valid_chunking

SPECIALS = 2  # [CLS] and [SEP] of the MiniLM tokenizer
MINILM_LIMIT = 256


def embedding_strategies() -> set[str]:
    """chunkviz's strategies that embed the document with a sentence-embedding model, by what they
    declare: a ``model`` parameter, and no language model called (``llm`` has neither; the peers'
    semantic chunkers load their model themselves and take no ``model``). Tests give them the stand-in
    (``fake_model``) where the vectors do not matter."""
    import chunkviz

    return {
        s["name"]
        for s in chunkviz.strategies()
        if not s["calls_model"] and any(p["name"] == "model" for p in s["params"])
    }


@pytest.fixture(scope="module")
def semantic_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    """Point the semantic disk cache at a temporary folder for a whole module (never ~/.cache);
    modules use it with ``pytestmark = pytest.mark.usefixtures("semantic_cache_dir")``."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.mktemp("semantic-cache")))
        yield


def minilm_tokens(text: str) -> int:
    """What the embedding model reads: its wordpieces plus [CLS] and [SEP]."""
    return get_tokenizer("minilm").count(text) + SPECIALS


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
def topic(semantic_cache_dir):
    """The topic document with default settings (embeds once per session; later calls hit the
    memory cache)."""
    return semantic_chunking(TOPIC_TEXT)


FAKE_MODEL = "chunkviz-tests/hashed-bag-of-words"


class HashedBagOfWords(EmbeddingModel):
    """A cheap deterministic stand-in: words hashed into 256 buckets, unit-normalized."""

    def encode(self, texts, progress=None, batch=512, batch_size=64, *, role="passage"):  # noqa: ANN001, ANN201
        out = np.zeros((len(texts), 256), dtype=np.float32)
        out[:, 255] = 0.05  # never a zero vector
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, zlib.crc32(word.encode()) % 255] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> str:
    """A model name that loads the stand-in embedder (sizes still use the MiniLM tokenizer)."""
    fake = HashedBagOfWords(FAKE_MODEL, None, get_tokenizer("minilm"), MINILM_LIMIT)
    real = embeddings.load_model
    monkeypatch.setattr(embeddings, "load_model", lambda name=DEFAULT_MODEL: fake if name == FAKE_MODEL else real(name))
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
        assert not c.metadata.get(Meta.OVER_SIZE_LIMIT) and not c.metadata.get(Meta.INDIVISIBLE)
        assert c.metadata["model_tokens"] == size
    n = len(result.analysis.sentences)
    boundaries = {c.metadata["sentences"][1] - 1 for c in chunks} - {n - 1}
    assert list(result.size_splits) == sorted(set(result.size_splits))
    assert set(result.size_splits) <= boundaries, "a reported size split is a real cut"
    if min_tokens == 0:
        assert boundaries == set(result.threshold.breakpoints) | set(result.size_splits)


def hashed_chonkie_embeddings() -> object:
    """The stand-in as Chonkie's embeddings (Chonkie's own wrapper takes only a real
    ``SentenceTransformer``); token counts are the MiniLM tokenizer's, as with the real model."""
    from chonkie.embeddings import BaseEmbeddings
    from tokenizers import Tokenizer as HFTokenizer

    from chunkviz.text.tokenizers import minilm_tokenizer_file

    bag = HashedBagOfWords(FAKE_MODEL, None, get_tokenizer("minilm"), MINILM_LIMIT)

    class HashedChonkieEmbeddings(BaseEmbeddings):
        def embed(self, text: str) -> np.ndarray:
            return bag.encode([text])[0]

        def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
            return list(bag.encode(list(texts)))

        @property
        def dimension(self) -> int:
            return 256

        def get_tokenizer(self) -> HFTokenizer:
            return HFTokenizer.from_file(str(minilm_tokenizer_file()))

    return HashedChonkieEmbeddings()


@pytest.fixture
def stand_in_peer_embeddings(fake_model: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The peers' semantic chunkers (LangChain's, Chonkie's) embed with the stand-in, for tests of
    what a peer column draws, where the vectors do not matter (the real model's runs:
    ``test_semantic_peers_with_the_real_model``). Peer runs are cached in memory without the
    model in their key, so the cache is emptied before and after."""
    from chunkviz.strategies.peers import RUNS, adapters, runners

    monkeypatch.setattr(runners, "langchain_embeddings", lambda: adapters.langchain_embeddings(fake_model))
    monkeypatch.setattr(runners, "chonkie_embeddings", hashed_chonkie_embeddings)
    RUNS.clear()
    yield fake_model
    RUNS.clear()
