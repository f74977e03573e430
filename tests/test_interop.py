"""LangChain Document and LlamaIndex TextNode exports: exact spans, ids, relationships, real loaders."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from support.paths import read_realdoc, realdoc_paths
from support.texts import SETTINGS, examples, markdown_docs

from chunkviz.api import chunk
from chunkviz.document.enrich import enrich
from chunkviz.document.model import Document
from chunkviz.formats.interop import (
    interop_records,
    interop_text,
    langchain_documents,
    llamaindex_nodes,
)

TEXT = "# Guide\n\nIntro line.\n\n## Setup\n\nInstall it now.\n"


def guide() -> Document:
    return Document(TEXT, name="docs/guide.md", format="markdown")


def test_langchain_documents_exact() -> None:
    chunks = chunk(guide(), "headings", max_tokens=50)
    records = langchain_documents(guide(), chunks)
    assert [(r["id"], r["page_content"]) for r in records] == [
        ("docs/guide.md#0", "# Guide\n\nIntro line.\n\n"),
        ("docs/guide.md#1", "## Setup\n\nInstall it now.\n"),
    ]
    meta = records[1]["metadata"]
    assert {
        k: meta[k] for k in ("source", "start_index", "end_index", "heading_path", "parent_id", "chunk_index", "level")
    } == {
        "source": "docs/guide.md",
        "start_index": 22,
        "end_index": 48,
        "heading_path": ["Guide", "Setup"],
        "parent_id": None,
        "chunk_index": 1,
        "level": 0,
    }
    assert records[0]["type"] == "Document" and "added_text" not in meta


def test_llamaindex_nodes_exact_relationships() -> None:
    chunks = chunk(guide(), "headings", max_tokens=50)
    first, second = llamaindex_nodes(guide(), chunks, doc_id="guide")
    assert (second["id_"], second["text"], second["start_char_idx"], second["end_char_idx"]) == (
        "guide#1",
        "## Setup\n\nInstall it now.\n",
        22,
        48,
    )
    assert {k: v["node_id"] for k, v in first["relationships"].items()} == {"1": "guide", "3": "guide#1"}
    assert {k: v["node_id"] for k, v in second["relationships"].items()} == {"1": "guide", "2": "guide#0"}
    assert first["relationships"]["1"]["node_type"] == "4"  # the source is a document


def test_parent_child_ids_and_relationships() -> None:
    document = Document("Alpha beta gamma delta. " * 40)
    chunks = chunk(document, "parent_child", parent_size=60, child_size=20, child_overlap=0)
    parents = [c for c in chunks if c.parent is None]
    children = [c for c in chunks if c.parent is not None]
    assert parents and children
    docs = {r["id"]: r for r in langchain_documents(document, chunks, source="a.txt")}
    for c in children:
        assert docs[f"a.txt#{c.index}"]["metadata"]["parent_id"] == f"a.txt#{c.parent}"
    nodes = {n["id_"]: n for n in llamaindex_nodes(document, chunks, source="a.txt")}
    for p in parents:
        listed = [r["node_id"] for r in nodes[f"a.txt#{p.index}"]["relationships"]["5"]]
        assert listed == [f"a.txt#{c.index}" for c in children if c.parent == p.index]
    for c in children:
        assert nodes[f"a.txt#{c.index}"]["relationships"]["4"]["node_id"] == f"a.txt#{c.parent}"


def test_added_text_goes_to_metadata_never_into_the_text() -> None:
    chunks = enrich(guide(), chunk(guide(), "headings", max_tokens=50), source="docs/guide.md", date="2024")
    record = langchain_documents(guide(), chunks)[1]
    assert record["page_content"] == TEXT[22:48]
    assert record["metadata"]["added_text"] == "Document: Guide\nSection: Guide > Setup\nDate: 2024\n\n"
    node = llamaindex_nodes(guide(), chunks)[1]
    assert node["text"] == TEXT[22:48] and node["metadata"]["added_text"].startswith("Document: Guide")


def test_interop_text_formats() -> None:
    chunks = chunk(guide(), "headings", max_tokens=50)
    lines = interop_text(guide(), chunks, "langchain").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["docs/guide.md#0", "docs/guide.md#1"]
    assert [n["id_"] for n in json.loads(interop_text(guide(), chunks, "llamaindex"))] == [
        "docs/guide.md#0",
        "docs/guide.md#1",
    ]
    with pytest.raises(ValueError, match="choose one of: langchain, llamaindex"):
        interop_records(guide(), chunks, "haystack")


@settings(**{**SETTINGS, "max_examples": examples(30)})
@given(doc=markdown_docs())
def test_spans_and_heading_paths_hold_for_any_markdown(doc) -> None:
    document = Document(doc.text, name="d.md", format="markdown")
    chunks = chunk(document, "recursive", chunk_size=20, overlap=4)
    for record, node, c in zip(langchain_documents(document, chunks), llamaindex_nodes(document, chunks), chunks):
        start, end = record["metadata"]["start_index"], record["metadata"]["end_index"]
        assert record["page_content"] == doc.text[start:end] == node["text"]
        assert (node["start_char_idx"], node["end_char_idx"]) == (start, end) == (c.start, c.end)
        assert node["metadata"]["heading_path"] == record["metadata"]["heading_path"]


def test_langchain_loads_them() -> None:
    documents = pytest.importorskip("langchain_core.documents", reason="langchain-core not installed (extra 'interop')")
    paths = realdoc_paths()[:3] or []
    texts = [read_realdoc(p) for p in paths] or [TEXT]
    for text in texts:
        chunks = chunk(text, "recursive", chunk_size=200)
        for record, c in zip(langchain_documents(Document(text), chunks, source="x"), chunks):
            loaded = documents.Document(**json.loads(json.dumps(record)))
            assert loaded.page_content == text[loaded.metadata["start_index"] : loaded.metadata["end_index"]] == c.text
            assert loaded.id == f"x#{c.index}"


def test_llamaindex_loads_them() -> None:
    schema = pytest.importorskip("llama_index.core.schema", reason="llama-index-core not installed (extra 'interop')")
    text = "Alpha beta gamma delta. " * 40
    chunks = chunk(text, "parent_child", parent_size=60, child_size=20, child_overlap=0)
    for node_dict, c in zip(llamaindex_nodes(Document(text), chunks, doc_id="doc"), chunks):
        node = schema.TextNode.from_dict(json.loads(json.dumps(node_dict)))
        assert node.text == text[node.start_char_idx : node.end_char_idx] == c.text
        assert node.node_id == f"doc#{c.index}"
        assert node.source_node is not None and node.source_node.node_id == "doc"
        if c.parent is not None:
            assert node.parent_node is not None and node.parent_node.node_id == f"doc#{c.parent}"
        else:
            assert [r.node_id for r in node.child_nodes or []] == [
                f"doc#{k.index}" for k in chunks if k.parent == c.index
            ]
        assert json.loads(node.to_json())["relationships"] == node_dict["relationships"]
