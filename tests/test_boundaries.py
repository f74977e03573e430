"""Where two strategies cut at the same offset, they report the same boundary.

``boundary`` says where a cut falls in the document's structure, so it must not depend on the
strategy that made the cut. Checked over every registered strategy on the sample documents and
the real documents (read by path; skipped when the shared folder is absent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.paths import realdoc_paths
from support.semantic import embedding_strategies

import chunkviz
from chunkviz.document.model import Document
from chunkviz.document.read import read_path

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
#: small sizes so that every strategy cuts often (names from each strategy's own parameters)
SMALL: dict[str, dict[str, Any]] = {
    "fixed_tokens": {"chunk_size": 60, "overlap": 10},
    "fixed_chars": {"chunk_size": 300, "overlap": 40},
    "recursive": {"chunk_size": 60, "overlap": 10},
    "sentences": {"max_tokens": 60},
    "paragraphs": {"min_tokens": 20, "max_tokens": 80},
    "headings": {"max_tokens": 80},
    "hierarchical": {"max_tokens": 80, "split_oversized": True},
    "tables": {"max_tokens": 80, "rows_per_chunk": 3},
    "code": {"max_tokens": 80},
    "parent_child": {"parent_size": 200, "child_size": 50, "child_overlap": 10},
    "small_to_big": {"max_parent_tokens": 120, "max_child_tokens": 40},
}
#: chunkviz's strategies that embed the document (a ``model`` parameter, no language model) embed with
#: the stand-in (``fake_model``), the peers' semantic chunkers too (``stand_in_peer_embeddings``): where
#: a cut falls in the structure does not depend on the vectors
MODEL_STRATEGIES = embedding_strategies()


def documents(include_realdocs: bool) -> list[Document]:
    paths = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")
    if include_realdocs:
        paths += realdoc_paths()
    return [read_path(p) for p in paths]


def _boundaries_by_offset(document: Document, names: list[str], model: str) -> dict[int, dict[str, str]]:
    seen: dict[int, dict[str, str]] = {}
    for name in names:
        params = {"model": model} if name in MODEL_STRATEGIES else SMALL.get(name, {})
        for c in chunkviz.chunk(document, name, **params):
            seen.setdefault(c.end, {})[name] = str(c.boundary)
    return seen


def _check(document: Document, names: list[str], model: str) -> int:
    structure = document.structure
    shared = 0
    for offset, by_strategy in _boundaries_by_offset(document, names, model).items():
        assert len(set(by_strategy.values())) == 1, f"{document.name} at {offset}: {by_strategy}"
        assert next(iter(by_strategy.values())) == structure.boundary_at(offset)
        shared += len(by_strategy) > 1
    return shared


@pytest.mark.parametrize("document", documents(include_realdocs=True), ids=lambda d: d.name)
def test_strategies_agree_on_the_boundary_at_every_shared_cut(
    document: Document, stand_in_peer_embeddings: str
) -> None:
    names = [s["name"] for s in chunkviz.strategies()]
    shared = _check(document, names, stand_in_peer_embeddings)
    assert shared > 0, "no two strategies cut at the same offset: the test checked nothing"
