"""Real documents from the shared folder: every strategy keeps the span contract on them.

The documents (Markdown with tables and code, CRLF prose, Python, a contract, a transcript,
reStructuredText) live in ``../shared/realdocs`` (or ``$CHUNKVIZ_SHARED/realdocs``); the tests
skip cleanly when that folder is absent. Files are read with ``newline=""`` so CRLF is kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.chunking import assert_valid_chunking
from support.paths import REALDOCS, read_realdoc, realdoc_paths
from support.semantic import embedding_strategies

import chunkviz
from chunkviz import chunk
from chunkviz.strategies.peers import is_peer
from chunkviz.text.tokenizers import get_tokenizer

DOCS = realdoc_paths()
DOC_IDS = [p.name for p in DOCS]
#: the span strategies whose size limits and flatness this file checks; any other registered
#: strategy (semantic, structural, multi-level ...) gets the generic contract with its defaults
KNOWN = {"fixed_tokens", "fixed_chars", "recursive", "sentences", "paragraphs"}
#: strategies that embed the document with a sentence-embedding model (they declare a ``model``
#: parameter and call no language model): they embed with the cheap stand-in (``fake_model``: the
#: MiniLM tokenizer and limit, hashed words for vectors) on the whole document, so the span contract
#: is checked on all of it; :func:`test_model_strategies_with_the_real_model` runs the real model once.
MODEL_STRATEGIES = embedding_strategies()
#: every registered strategy but the peers: their chunks are another library's, placed as its users
#: place them and audited (test_peers runs them on these documents, flags and all)
STRATEGY_NAMES = [s["name"] for s in chunkviz.strategies() if not is_peer(s["name"])]
#: the real document the real embedding model reads (17 kB of CRLF transcript)
REAL_MODEL_DOC = "mercury_redstone4_air_to_ground.txt"


def model_params(name: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """``{"model": <stand-in>}`` for a model strategy, else nothing."""
    return {"model": request.getfixturevalue("fake_model")} if name in MODEL_STRATEGIES else {}


pytestmark = pytest.mark.skipif(not DOCS, reason=f"shared realdocs not found at {REALDOCS} (set CHUNKVIZ_SHARED)")


def _preset(path: Path) -> str:
    return {".md": "markdown", ".py": "python"}.get(path.suffix, "default")


def stress_params(name: str, path: Path) -> dict[str, Any]:
    """Small sizes, so that every document is cut in many places."""
    return {
        "fixed_tokens": {"chunk_size": 128, "overlap": 32},
        "fixed_chars": {"chunk_size": 500, "overlap": 100},
        "sentences": {"max_tokens": 64, "overlap_sentences": 2},
        "paragraphs": {"min_tokens": 32, "max_tokens": 128},
        "recursive": {"chunk_size": 128, "overlap": 32, "separators": _preset(path)},
    }.get(name, {})


def limit_check(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """assert_valid_chunking keyword arguments for a strategy's size limit and overlap."""
    defaults = {p["name"]: p["default"] for s in chunkviz.strategies() if s["name"] == name for p in s["params"]}
    values = {**defaults, **params}
    if name == "fixed_tokens":
        # the window the strategy guarantees; the real counts and their flags: test_properties
        return {
            "limit": values["chunk_size"],
            "limit_of": lambda c: c.metadata["token_end"] - c.metadata["token_start"],
        }
    if name == "fixed_chars":
        return {"limit": values["chunk_size"], "limit_of": lambda c: len(c.text)}
    if name == "recursive":
        return {"limit": values["chunk_size"], "overlap_tokens": values["overlap"]}
    if name == "sentences":
        return {"limit": values["max_tokens"]}
    if name == "paragraphs":
        return {"limit": values["max_tokens"], "overlap_tokens": 0}
    return {}


@pytest.fixture(autouse=True)
def _private_caches(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Strategies with a disk cache (semantic) write into a temporary folder, not ~/.cache."""
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "chunkviz-cache"))


@pytest.fixture(scope="module", params=DOCS, ids=DOC_IDS)
def doc(request: pytest.FixtureRequest) -> tuple[Path, str]:
    return request.param, read_realdoc(request.param)


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_default_params(doc: tuple[Path, str], name: str, request: pytest.FixtureRequest) -> None:
    path, text = doc
    chunks = chunk(text, name, **model_params(name, request))
    assert_valid_chunking(
        text, chunks, tokenizer="cl100k_base", allow_added_text=name not in KNOWN, **limit_check(name, {})
    )


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_small_sizes(doc: tuple[Path, str], name: str, request: pytest.FixtureRequest) -> None:
    path, text = doc
    params = stress_params(name, path)
    chunks = chunk(text, name, **params, **model_params(name, request))
    assert_valid_chunking(
        text,
        chunks,
        tokenizer="cl100k_base",
        strictly_advancing=name in KNOWN and name != "fixed_tokens",
        allow_added_text=name not in KNOWN,
        **limit_check(name, params),
    )
    if len(text) > 5_000 and name in KNOWN:
        assert len(chunks) > 3


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODEL_STRATEGIES))
def test_model_strategies_with_the_real_model(name: str) -> None:
    """The real embedding model on a real document, default parameters."""
    path = next((p for p in DOCS if p.name == REAL_MODEL_DOC), None)
    if path is None:
        pytest.skip(f"{REAL_MODEL_DOC} is not in the shared folder")
    text = read_realdoc(path)
    chunks = chunk(text, name)
    assert_valid_chunking(text, chunks, tokenizer="cl100k_base", allow_added_text=True)
    assert len(chunks) > 3


def test_model_strategies_are_found_by_their_declaration() -> None:
    assert {"semantic", "cluster"} <= MODEL_STRATEGIES and "llm" not in MODEL_STRATEGIES
    assert not any(is_peer(name) for name in MODEL_STRATEGIES)


@pytest.mark.parametrize("tokenizer", ["words", "minilm"])
@pytest.mark.parametrize("name", ["recursive", "paragraphs", "sentences", "fixed_tokens"])
def test_other_tokenizers(doc: tuple[Path, str], name: str, tokenizer: str) -> None:
    path, text = doc
    params = stress_params(name, path)
    chunks = chunk(text, name, tokenizer=tokenizer, **params)
    assert_valid_chunking(text, chunks, tokenizer=tokenizer, **limit_check(name, params))


def test_crlf_documents_keep_their_line_ends() -> None:
    crlf = [p for p in DOCS if p.name in ("alice29.txt", "mercury_redstone4_air_to_ground.txt")]
    if not crlf:
        pytest.skip("the CRLF documents are not in the shared folder")
    for path in crlf:
        text = read_realdoc(path)
        assert "\r\n" in text
        chunks = chunk(text, "recursive", chunk_size=200, overlap=20)
        assert_valid_chunking(text, chunks, tokenizer="cl100k_base", limit=200, overlap_tokens=20)
        # paragraph breaks are found in CRLF text: most cuts are at blank lines or line ends
        boundaries = [c.boundary for c in chunks[:-1]]
        assert boundaries.count("paragraph") + boundaries.count("line") > len(boundaries) // 2


def test_long_document_token_offsets_are_exact() -> None:
    """alice29 (152 KB): token windows map to exact offsets (whichever encoding path runs)."""
    path = REALDOCS / "alice29.txt"
    if not path.exists():
        pytest.skip("alice29.txt is not in the shared folder")
    text = read_realdoc(path)
    tok = get_tokenizer("cl100k_base")
    tokens = tok.encoding.encode_ordinary(text)
    _, offsets = tok.encoding.decode_with_offsets(tokens)
    offsets.append(len(text))
    assert tok.boundaries(text).positions.tolist() == offsets
    chunks = chunk(text, "fixed_tokens", chunk_size=512, overlap=50)
    n = len(tokens)
    for c in chunks:
        first, stop = c.metadata["token_start"], c.metadata["token_end"]
        assert c.start == (0 if first == 0 else offsets[first])
        assert c.end == (len(text) if stop == n else offsets[stop])
