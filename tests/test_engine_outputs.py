"""The engine's outputs, frozen: digests of every chunk (span, reason, boundary, metadata) of
``recursive`` and ``fixed_tokens`` on a generated Markdown document and the real documents,
recorded before the engine's speed work of issue 20 (bench_engine.py --one-core). A speed-up
must leave every digest as it is; a change of behaviour on purpose records new ones (say why).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import REALDOCS, read_realdoc

import chunkviz
from chunkviz.types import Chunk

BENCH = Path(__file__).resolve().parent.parent / "bench"
#: ``make_document(30_000, seed=7)`` of bench/bench_engine.py: Markdown-ish prose with headings,
#: lists, long paragraphs, accents, numbers and curly quotes (deterministic for a seed).
DOCUMENT_SEED = 7
DOCUMENT_WORDS = 30_000

#: (strategy, params, tokenizer, digest) on the generated document
GENERATED: list[tuple[str, dict[str, Any], str, str]] = [
    ("recursive", {"chunk_size": 64, "overlap": 0}, "cl100k_base", "e936606c47dbc293"),
    ("recursive", {"chunk_size": 64, "overlap": 0}, "minilm", "632f52f8e597637d"),
    ("recursive", {"chunk_size": 64, "overlap": 16}, "cl100k_base", "aec3a3714131b0ed"),
    ("recursive", {"chunk_size": 64, "overlap": 16}, "minilm", "92969f7b01bb37c4"),
    ("recursive", {"chunk_size": 512, "overlap": 0}, "cl100k_base", "d3a3216f1806db04"),
    ("recursive", {"chunk_size": 512, "overlap": 50}, "cl100k_base", "1186f747db6cdb57"),
    ("recursive", {"chunk_size": 100, "overlap": 10, "separators": "markdown"}, "cl100k_base", "08a7a0b90183b353"),
    ("recursive", {"chunk_size": 100, "overlap": 10, "separators": "markdown"}, "minilm", "4996933867b8ac92"),
    ("fixed_tokens", {"chunk_size": 64, "overlap": 0}, "cl100k_base", "5cd5013357644e99"),
    ("fixed_tokens", {"chunk_size": 64, "overlap": 0}, "minilm", "8b7727fa97aeb05c"),
    ("fixed_tokens", {"chunk_size": 512, "overlap": 50}, "cl100k_base", "7cf88d1d78e2967b"),
]
#: (real document, strategy, params, digest) with cl100k_base
REAL: list[tuple[str, str, dict[str, Any], str]] = [
    ("alice29.txt", "recursive", {"chunk_size": 128, "overlap": 16}, "d5d7f57cbe673ff1"),
    ("alice29.txt", "recursive", {"chunk_size": 512, "overlap": 0}, "996e9ce9512f85ae"),
    ("alice29.txt", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "5d33da6a18a16134"),
    ("common_paper_mutual_nda_v1.md", "recursive", {"chunk_size": 128, "overlap": 16}, "5c7fa608a94f587d"),
    ("common_paper_mutual_nda_v1.md", "recursive", {"chunk_size": 512, "overlap": 0}, "8e4eb252e7c70246"),
    ("common_paper_mutual_nda_v1.md", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "d7fa31c5d8134b78"),
    ("common_paper_mutual_nda_v1_coverpage.md", "recursive", {"chunk_size": 128, "overlap": 16}, "f50e358b636e0f1b"),
    ("common_paper_mutual_nda_v1_coverpage.md", "recursive", {"chunk_size": 512, "overlap": 0}, "acee2ae7298977cf"),
    ("common_paper_mutual_nda_v1_coverpage.md", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "dac76cd47195d23a"),
    ("mercury_redstone4_air_to_ground.txt", "recursive", {"chunk_size": 128, "overlap": 16}, "6ad4402910f1c0de"),
    ("mercury_redstone4_air_to_ground.txt", "recursive", {"chunk_size": 512, "overlap": 0}, "32413f0b71d25be8"),
    ("mercury_redstone4_air_to_ground.txt", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "d43cc0dd70bbcb06"),
    ("pep-0008.rst", "recursive", {"chunk_size": 128, "overlap": 16}, "a9be7201ceb60a54"),
    ("pep-0008.rst", "recursive", {"chunk_size": 512, "overlap": 0}, "ea9e99a02523f88e"),
    ("pep-0008.rst", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "908029bf0643dae7"),
    ("pep_zero_writer.py", "recursive", {"chunk_size": 128, "overlap": 16}, "2af0a5f8f97a6e6a"),
    ("pep_zero_writer.py", "recursive", {"chunk_size": 512, "overlap": 0}, "20f1f87b0ae405c7"),
    ("pep_zero_writer.py", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "8207154e125c04c9"),
    ("ripgrep_README.md", "recursive", {"chunk_size": 128, "overlap": 16}, "42a325b131835655"),
    ("ripgrep_README.md", "recursive", {"chunk_size": 512, "overlap": 0}, "81923ce148443dcd"),
    ("ripgrep_README.md", "fixed_tokens", {"chunk_size": 128, "overlap": 16}, "d28e34ccdbccea5a"),
]


def digest(chunks: list[Chunk]) -> str:
    """The first 16 hex digits of SHA-256 over every chunk's fields, in order."""
    h = hashlib.sha256()
    for c in chunks:
        metadata = sorted((str(k), repr(v)) for k, v in c.metadata.items())
        fields = [c.start, c.end, str(c.reason), str(c.boundary), c.parent, c.level, c.added_text, metadata]
        h.update(json.dumps(fields).encode())
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def generated_document() -> str:
    sys.path.insert(0, str(BENCH))
    try:
        from bench_engine import make_document
    finally:
        sys.path.remove(str(BENCH))
    return make_document(DOCUMENT_WORDS, DOCUMENT_SEED)[0]


@pytest.mark.parametrize(("strategy", "params", "tokenizer", "expected"), GENERATED)
def test_engine_output_on_a_generated_document_is_unchanged(
    generated_document: str, strategy: str, params: dict[str, Any], tokenizer: str, expected: str
) -> None:
    assert digest(chunkviz.chunk(generated_document, strategy, tokenizer=tokenizer, **params)) == expected


@pytest.mark.parametrize(("name", "strategy", "params", "expected"), REAL)
def test_engine_output_on_a_real_document_is_unchanged(
    name: str, strategy: str, params: dict[str, Any], expected: str
) -> None:
    path = REALDOCS / name
    if not path.is_file():
        pytest.skip(f"real document {path} not found (set CHUNKVIZ_SHARED to the shared folder)")
    assert digest(chunkviz.chunk(read_realdoc(path), strategy, **params)) == expected
