"""Your own chunks (chunkviz/formats/external): the readers, the placement and audit, the round trip.

Exact small cases pin each flag and each reader (with the real LangChain and LlamaIndex
objects where those packages are installed); malformed files get ``FILE, line N``; a property
test exports chunkviz's chunkings in every format and audits them back.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, any_text, examples, multilevel_text, prose_text

import chunkviz
from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import as_document
from chunkviz.formats.export import chunk_records, to_jsonl
from chunkviz.formats.external import ChunkFileError, chunk_flags, load_chunks
from chunkviz.formats.external.records import MAX_DEPTH, parse_chunk_data, read_chunk_file, unescape_delimiter
from chunkviz.formats.interop import interop_text
from chunkviz.strategies.peers.audit import PeerChunk, PeerOutput, audit
from chunkviz.strategies.peers.flags import MISPLACEMENT_KEY, PEER_TEXT_KEY, PeerFlag
from chunkviz.text.tokenizers import get_tokenizer

DOC = "one two. one two three. four"
#: Field names of the chunk formats (for the reader's fuzz test).
KEYS = [
    "page_content",
    "metadata",
    "start_index",
    "text",
    "start",
    "end",
    "index",
    "start_char_idx",
    "lc",
    "kwargs",
    "level",
    "parent",
    "nodes",
    "__data__",
]


def lc_line(text: str, start: int | None) -> str:
    metadata: dict[str, Any] = {} if start is None else {"start_index": start}
    return json.dumps({"page_content": text, "metadata": metadata})


def lc(*pairs: tuple[str, int | None]) -> bytes:
    return "".join(lc_line(t, s) + "\n" for t, s in pairs).encode()


def summary(loaded: Any) -> list[tuple[int, int, list[str]]]:
    return [(c.start, c.end, [str(f) for f in chunk_flags(c)]) for c in loaded.chunks]


# ----------------------------------------------------------------------------- the audit, exact cases


def test_langchain_offsets_are_verified_and_misplacements_found() -> None:
    # LangChain's search from a too-late offset found nothing (-1) for the second chunk; a chunk
    # whose only copy is before its predecessor is out of order: ambiguous, not guessed
    data = lc(("one two.", 0), ("one two three.", -1), ("four", 24), ("one", 0))
    loaded = load_chunks(DOC, data, name="lc.jsonl")
    assert loaded.format == "langchain" and loaded.placement == "LangChain's start_index"
    assert summary(loaded) == [(0, 8, []), (9, 23, ["misplaced"]), (24, 28, []), (0, 3, ["ambiguous_placement"])]
    assert loaded.chunks[1].metadata[MISPLACEMENT_KEY] == "not_found"
    assert loaded.chunks[1].metadata["file_line"] == 2
    assert loaded.audit.counts == {"misplaced": 1, "ambiguous_placement": 1}
    # a start_index at the first copy for the second chunk: an earlier copy than its order allows
    again = load_chunks("a b a b", lc(("a b", 0), ("a b", 0)), name="lc.jsonl")
    assert summary(again) == [(0, 3, []), (0, 3, ["misplaced"])]
    assert again.chunks[1].metadata[MISPLACEMENT_KEY] == "earlier_copy"
    assert again.chunks[1].metadata["true_span"] == [4, 7]  # drawn where LangChain says, the true place noted
    assert [(c.start, c.end) for c in again.placed()] == [(0, 3), (4, 7)]  # --fix writes the true place


def test_text_not_in_source_whitespace_changed_and_limit() -> None:
    data = lc(("one  two.", 0), ("zebra", None), ("one two three.", 9))
    loaded = load_chunks(DOC, data, max_tokens=2, tokenizer="words", name="x.jsonl")
    flags = [c[2] for c in summary(loaded)]
    assert flags[0] == ["whitespace_changed"] and flags[1][0] == "text_not_in_source"
    assert "over_peer_limit" in flags[2] and loaded.chunks[0].metadata[PEER_TEXT_KEY] == "one  two."
    assert (loaded.chunks[0].start, loaded.chunks[0].end) == (0, 9)  # drawn at LangChain's start, its length
    assert loaded.chunks[0].metadata["true_span"] == [0, 8]  # the document's span of the same words
    placed = loaded.placed()
    assert [(c.index, c.start, c.end) for c in placed] == [(0, 0, 8), (1, 9, 23)]  # not in source: left out


def test_texts_without_offsets_are_located_in_order_and_repeats_are_ambiguous() -> None:
    loaded = load_chunks(DOC, json.dumps(["one two.", "one two three.", "four"]).encode(), name="t.json")
    assert summary(loaded) == [(0, 8, []), (9, 23, []), (24, 28, [])]
    repeated = load_chunks("ab ab ab", json.dumps(["ab", "ab", "ab"]).encode(), name="t.json")
    assert [f for *_, f in summary(repeated)] == [[], [], []]  # each the only copy where the sequence allows
    ambiguous = load_chunks("ab ab ab", json.dumps(["ab ab", "ab"]).encode(), name="t.json")
    assert summary(ambiguous)[1][2] == ["ambiguous_placement"]  # at 3 (an overlap) or at 6: not guessed
    assert [c.text for c in ambiguous.placed()] == ["ab ab"]


# ----------------------------------------------------------------------------- order is not identity

REPEATED = "alpha beta. gamma. alpha beta. delta."
IN_ORDER = [("alpha beta.", 0), ("gamma.", 12), ("alpha beta.", 19), ("delta.", 31)]


def test_chunks_listed_backwards_are_each_placed_at_their_own_span() -> None:
    """A reversed export: every chunk at its own span, the repeated text too (the list runs
    backwards: the copy before the previous chunk); nothing flagged, --fix keeps all four in
    document order. Before: all but the first "occurs more than once", one chunk kept."""
    spans = [(s, s + len(t)) for t, s in IN_ORDER]
    backwards = load_chunks(REPEATED, json.dumps([t for t, _ in IN_ORDER[::-1]]).encode(), name="t.json")
    assert summary(backwards) == [(s, e, []) for s, e in spans[::-1]]
    assert not backwards.in_document_order and backwards.to_dict()["in_document_order"] is False
    assert [(c.index, c.start, c.end) for c in backwards.placed()] == [(i, s, e) for i, (s, e) in enumerate(spans)]
    exported = load_chunks(REPEATED, lc(*IN_ORDER[::-1]), name="lc.jsonl")  # LangChain's start_index, reversed
    assert summary(exported) == [(s, e, []) for s, e in spans[::-1]]
    assert [(c.start, c.end) for c in exported.placed()] == spans
    assert load_chunks(REPEATED, lc(*IN_ORDER), name="lc.jsonl").in_document_order


def test_a_text_that_occurs_once_is_placed_there_in_any_order() -> None:
    """ "one two." comes after "four" in the list and is not next to it: its only copy is its
    place. "one", with two copies and no hint from the order, stays ambiguous."""
    loaded = load_chunks(DOC, json.dumps(["one two three.", "four", "one two."]).encode(), name="t.json")
    assert summary(loaded) == [(9, 23, []), (24, 28, []), (0, 8, [])]
    assert [(c.start, c.end) for c in loaded.placed()] == [(0, 8), (9, 23), (24, 28)]
    repeated = load_chunks(DOC, json.dumps(["one two three.", "four", "one"]).encode(), name="t.json")
    assert summary(repeated)[2] == (0, 3, ["ambiguous_placement"])


@settings(max_examples=examples(40), **SETTINGS)
@given(text=st.one_of(prose_text(), any_text()), shuffle=st.randoms(use_true_random=False))
def test_shuffled_chunks_with_unique_texts_are_placed_exactly(text: str, shuffle: random.Random) -> None:
    """A chunking's chunks in any order, as texts and as LangChain records: every chunk whose
    text occurs once in the document is at its span, unflagged."""
    doc = as_document(text)
    chunks = [c for c in chunkviz.chunk(doc, "recursive", tokenizer="words", chunk_size=6, overlap=2) if c.text]
    if not chunks:
        return
    shuffle.shuffle(chunks)
    for body in (json.dumps([c.text for c in chunks]).encode(), lc(*[(c.text, c.start) for c in chunks])):
        loaded = load_chunks(doc, body, name="c.json")
        for want, got in zip(chunks, loaded.chunks):
            assert got.text == doc.text[got.start : got.end]
            if doc.text.find(want.text, doc.text.find(want.text) + 1) < 0:
                assert (got.start, got.end, chunk_flags(got)) == (want.start, want.end, ()), want


class Scanned(str):
    """A document that counts the characters its searches look at."""

    looked: ClassVar[int] = 0

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:
        first, last, _ = slice(start, end).indices(len(self))
        found = str.find(self, sub, first, last)
        Scanned.looked += max((found + len(sub) if found >= 0 else last) - first, 0)
        return found

    def rfind(self, sub: str, start: Any = None, end: Any = None) -> int:
        first, last, _ = slice(start, end).indices(len(self))
        found = str.rfind(self, sub, first, last)
        Scanned.looked += max(last - (found if found >= 0 else first), 0)
        return found

    def startswith(self, prefix: Any, start: Any = None, end: Any = None) -> bool:
        Scanned.looked += len(prefix) if isinstance(prefix, str) else sum(map(len, prefix))
        return str.startswith(self, prefix, start, end)


def placing_work(case: str, paragraphs: int) -> int:
    """Characters the audit's searches look at to place 400-character chunks (overlapping by 40)
    of a document of ``paragraphs`` numbered paragraphs (~190 characters each)."""
    rng = random.Random(5)
    words = ["tide", "gull", "reef", "salt", "kelp", "wind", "sand", "crab", "foam", "dune"]
    text = "".join(f"Paragraph {i}: {' '.join(rng.choice(words) for _ in range(35))}.\n\n" for i in range(paragraphs))
    spans = [(s, min(s + 400, len(text))) for s in range(0, len(text), 360)]
    if case == "reversed":
        spans.reverse()
    elif case == "shuffled":
        rng.shuffle(spans)
    missing = case == "not in the document"
    chunks = tuple(PeerChunk(text[s:e].upper() if missing else text[s:e], None if missing else s) for s, e in spans)
    Scanned.looked = 0
    audit(Scanned(text), PeerOutput(chunks, None, True, True, None, Reason.UNIT_END, 0.0))
    return Scanned.looked


@pytest.mark.parametrize("case", ["in order", "reversed", "shuffled", "not in the document"])
def test_placing_chunks_is_linear_in_the_document(case: str) -> None:
    """Twice the document (and twice the chunks) looks at about twice the characters, not four
    times: before, each chunk's search scanned to the end of the document (42 s for 8 MB)."""
    small, large = placing_work(case, 800), placing_work(case, 1600)
    assert large < 3 * small, (small, large)


def test_delimited_text_file() -> None:
    loaded = load_chunks(DOC, b"one two.\n---\none two three.\n---\nfour", delimiter="\n---\n", name="c.txt")
    assert loaded.format == "texts"
    assert [(c.start, c.end, c.metadata["file_line"]) for c in loaded.chunks] == [(0, 8, 1), (9, 23, 3), (24, 28, 5)]
    assert unescape_delimiter(r"\n\n--\t\\n") == "\n\n--\t\\n"


def test_chunkviz_records_keep_levels_parents_and_reasons() -> None:
    doc = as_document("alpha beta gamma delta " * 20)
    chunks = chunkviz.chunk(doc, "parent_child", parent_size=40, child_size=10, child_overlap=2, tokenizer="words")
    data = to_jsonl(chunk_records(chunks, get_tokenizer("words"), doc.text)).encode()
    loaded = load_chunks(doc, data, name="ours.jsonl")
    assert loaded.placement == "chunkviz's spans" and loaded.audit.flagged == 0
    assert [(c.start, c.end, c.level, c.parent, c.reason) for c in loaded.chunks] == [
        (c.start, c.end, c.level, c.parent, c.reason) for c in chunks
    ]


def test_objects_and_empty_texts() -> None:
    records = [{"page_content": "one two.", "metadata": {"start_index": 0}}, {"page_content": "", "metadata": {}}]
    loaded = load_chunks(DOC, records)
    assert loaded.skipped == 1 and summary(loaded) == [(0, 8, [])]
    assert loaded.to_dict()["skipped_empty"] == 1


def test_a_corpus_export_keeps_the_documents_chunks() -> None:
    rows = [("one two.", 0, "docs/a.txt"), ("elsewhere", 0, "docs/b.txt"), ("four", 24, "docs/a.txt")]
    data = "".join(
        json.dumps({"page_content": t, "metadata": {"start_index": s, "source": src}}) + "\n" for t, s, src in rows
    ).encode()
    loaded = load_chunks(chunkviz.Document(DOC, name="a.txt"), data, name="corpus.jsonl")
    assert summary(loaded) == [(0, 8, []), (24, 28, [])] and loaded.other_documents == 1
    assert [c.metadata["file_line"] for c in loaded.chunks] == [1, 3]
    with pytest.raises(
        ChunkFileError, match=r"corpus.jsonl: holds chunks of 2 documents \(docs/a.txt, docs/b.txt\) and none is c.txt"
    ):
        load_chunks(chunkviz.Document(DOC, name="c.txt"), data, name="corpus.jsonl")


# ----------------------------------------------------------------------------- the real libraries' shapes


def test_real_langchain_documents_in_every_shape() -> None:
    documents = pytest.importorskip("langchain_core.documents")
    splitters = pytest.importorskip("langchain_text_splitters")
    text = "Intro line.\n\nSame words here.\n\nMiddle part.\n\nSame words here.\n\nEnd."
    docs = splitters.RecursiveCharacterTextSplitter(
        chunk_size=20, chunk_overlap=0, add_start_index=True
    ).create_documents([text])
    truth = [(d.metadata["start_index"], d.metadata["start_index"] + len(d.page_content)) for d in docs]
    shapes = {
        "users": "".join(json.dumps({"page_content": d.page_content, "metadata": d.metadata}) + "\n" for d in docs),
        "model_dump": "".join(json.dumps(d.model_dump()) + "\n" for d in docs),
        "to_json": json.dumps([d.to_json() for d in docs]),
    }
    for shape, body in shapes.items():
        loaded = load_chunks(text, body.encode(), name=f"{shape}.jsonl")
        assert loaded.format == "langchain", shape
        assert [(c.start, c.end) for c in loaded.chunks] == truth, shape
        assert loaded.audit.flagged == 0, (shape, loaded.to_dict()["flagged"])
    objects = load_chunks(text, docs)
    assert [(c.start, c.end) for c in objects.chunks] == truth
    assert isinstance(documents.Document(page_content="x"), documents.Document)


def test_real_llamaindex_nodes() -> None:
    core = pytest.importorskip("llama_index.core")
    from llama_index.core.node_parser import SentenceSplitter

    text = "First sentence here. Second one follows. " * 12
    nodes = SentenceSplitter(chunk_size=40, chunk_overlap=5).get_nodes_from_documents([core.Document(text=text)])
    truth = [(n.start_char_idx, n.end_char_idx) for n in nodes]
    as_list = json.dumps([n.to_dict() for n in nodes]).encode()
    as_jsonl = "".join(n.to_json() + "\n" for n in nodes).encode()
    for body in (as_list, as_jsonl):
        loaded = load_chunks(text, body, name="nodes.json")
        assert loaded.format == "llamaindex" and loaded.placement == "LlamaIndex's start_char_idx"
        assert [(c.start, c.end) for c in loaded.chunks] == truth
        assert not any(PeerFlag.MISPLACED in chunk_flags(c) for c in loaded.chunks)
    assert [(c.start, c.end) for c in load_chunks(text, nodes).chunks] == truth


# ----------------------------------------------------------------------------- malformed files


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"page_content": "a", "metadata": {}}\n{"page_content": "b",\n', "x.jsonl, line 2: not valid JSON"),
        (b'{"page_content": "a", "metadata": {"start_index": "7"}}\n', "x.jsonl, line 1: metadata.start_index must be"),
        (b'{"page_content": 3}\n', "x.jsonl, line 1: page_content must be a string"),
        (b'[\n"a",\n{"b": 1}\n]', "x.jsonl, line 3: a JSON object with b is not a chunk record"),
        (b'[\n{"page_content": "a"},\n"b"\n]', "x.jsonl, line 3: a JSON str is not a chunk record"),
        (b"{}\n", "x.jsonl, line 1: a JSON object with no keys is not a chunk record"),
        (b"just text\n", "x.jsonl, line 1: not JSON or JSONL; for a text file of chunks, name their separator"),
        (b"  \n", "x.jsonl: is empty"),
        (b"[]", "x.jsonl: holds no chunks"),
        (b'["", ""]', "x.jsonl: holds no chunks (every chunk is empty)"),
        (b'["a"] x', "x.jsonl, line 1: not valid JSON: text after the end of the list"),
        (b'"\xff"', "x.jsonl, line 1: not UTF-8"),
        (b'{"text": "a", "start": 0, "end": -2, "index": 0}', "x.jsonl, line 1: end must be 0 or more"),
        (
            b"\n\n" + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
            f"x.jsonl, line 3: JSON nested deeper than {MAX_DEPTH}",
        ),
    ],
)
def test_malformed_files_name_the_line(body: bytes, message: str) -> None:
    with pytest.raises(ChunkFileError) as caught:
        parse_chunk_data(body, "x.jsonl")
    assert str(caught.value).startswith(message), str(caught.value)


def test_deep_nesting_inside_strings_is_not_nesting_and_size_limit(tmp_path: Any) -> None:
    body = json.dumps(["[" * 500 + "{" * 500]).encode()
    assert parse_chunk_data(body, "x.json").records[0].text.startswith("[[[")
    big = tmp_path / "big.jsonl"
    big.write_bytes(b'"a"\n' * 100)
    with pytest.raises(ChunkFileError, match=r"big.jsonl: too large: 400 bytes .* as for documents"):
        read_chunk_file(big, max_bytes=399)
    with pytest.raises(ChunkFileError, match="file not found"):
        read_chunk_file(tmp_path / "missing.jsonl")


@settings(max_examples=examples(150), **SETTINGS)
@given(
    body=st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps(v).encode()),
    ),
    fmt=st.sampled_from(["auto", "langchain", "llamaindex", "chunkviz", "texts"]),
)
def test_any_bytes_read_or_refused_with_a_message(body: bytes, fmt: str) -> None:
    """Whatever the file holds: records, or a ChunkFileError naming the file (never another error)."""
    try:
        file = parse_chunk_data(body, "f.json", format=fmt)
    except ChunkFileError as exc:
        assert str(exc).startswith("f.json")
    else:
        assert any(r.text for r in file.records)
        loaded = load_chunks("some text", body, format=fmt, name="f.json")
        assert loaded.chunks and loaded.diagnostics("chars").summary.chunks == len(loaded.chunks)


def test_format_forced_and_delimiter_rules() -> None:
    with pytest.raises(ChunkFileError, match="line 1: no page_content"):
        parse_chunk_data(b'{"text": "a", "start_char_idx": 0}', "x.json", format="langchain")
    with pytest.raises(ChunkFileError, match="use it with --format texts"):
        parse_chunk_data(b"a|b", "x.txt", format="langchain", delimiter="|")
    assert [r.text for r in parse_chunk_data(b'["a", {"text": "b"}]', "x.json", format="texts").records] == ["a", "b"]


# ----------------------------------------------------------------------------- round trip (property)

#: Our strategies that call no model, at sizes small enough for short texts to get several chunks.
ROUND_TRIP = [
    ("recursive", {"chunk_size": 8, "overlap": 2}),
    ("recursive_langchain", {"chunk_size": 8, "overlap": 2}),
    ("fixed_chars", {"chunk_size": 7, "overlap": 2}),
    ("fixed_tokens", {"chunk_size": 4, "overlap": 1}),
    ("sentences", {"max_tokens": 8}),
    ("paragraphs", {"min_tokens": 2, "max_tokens": 8}),
    ("headings", {"max_tokens": 8}),
    ("hierarchical", {"max_tokens": 8}),
    ("tables", {"max_tokens": 8}),
    ("code", {"max_tokens": 8}),
    ("parent_child", {"parent_size": 16, "child_size": 4, "child_overlap": 1}),
    ("small_to_big", {"max_parent_tokens": 16, "max_child_tokens": 4}),
]


def exports(doc: Any, chunks: list[Any]) -> dict[str, bytes]:
    records = chunk_records(chunks, get_tokenizer("words"), doc.text)
    return {
        "chunkviz": to_jsonl(records).encode(),
        "chunkviz-json": json.dumps(records).encode(),
        "langchain": interop_text(doc, chunks, "langchain").encode(),
        "llamaindex": interop_text(doc, chunks, "llamaindex").encode(),
        "texts": json.dumps([c.text for c in chunks]).encode(),
    }


@settings(max_examples=examples(40), **SETTINGS)
@given(text=st.one_of(any_text(), prose_text(), multilevel_text()), which=st.sampled_from(ROUND_TRIP))
def test_round_trip_every_format(text: str, which: tuple[str, dict[str, Any]]) -> None:
    """Any text, any of our chunkings, exported in each format and audited back: the same spans
    and no flag. A list of texts has no offsets: there a chunk may be flagged ambiguous (its
    text occurs at several places its order allows), never placed elsewhere without a flag."""
    doc = as_document(text)
    strategy, params = which
    chunks = chunkviz.chunk(doc, strategy, tokenizer="words", **params)
    truth = [(c.start, c.end) for c in chunks if c.text]
    if not truth:
        return
    assert all(c.text for c in chunks)  # (an empty chunk would be skipped on the way back)
    flat = all(c.level == 0 for c in chunks)
    for fmt, body in exports(doc, chunks).items():
        if fmt == "texts" and not flat:  # a list of texts says nothing of levels
            continue
        loaded = load_chunks(doc, body, name=f"chunks.{fmt}")
        got = [(c.start, c.end) for c in loaded.chunks]
        flags = [chunk_flags(c) for c in loaded.chunks]
        for c in loaded.chunks:
            assert c.text == doc.text[c.start : c.end]
        if fmt == "texts":
            assert all(f in ((), (PeerFlag.AMBIGUOUS_PLACEMENT,)) for f in flags), (fmt, flags)
            assert [s for s, f in zip(got, flags) if not f] == [s for s, f in zip(truth, flags) if not f], fmt
        else:
            assert got == truth, fmt
            assert all(not f for f in flags), (fmt, loaded.to_dict()["flagged"])


def test_round_trip_texts_without_repeats_has_no_flags() -> None:
    doc = as_document("Alpha beta. Gamma delta.\n\nEpsilon zeta eta. Theta iota kappa.")
    chunks = chunkviz.chunk(doc, "sentences", tokenizer="words")
    loaded = load_chunks(doc, exports(doc, chunks)["texts"], name="t.json")
    assert [(c.start, c.end) for c in loaded.chunks] == [(c.start, c.end) for c in chunks]
    assert loaded.audit.flagged == 0
