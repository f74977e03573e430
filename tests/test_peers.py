"""The peer splitters as columns: their own code, placed as their users place it, audited.

Each peer's tests skip cleanly when its package is absent. The semantic peers load the offline
embedding model and are marked slow. Exact small cases pin each flag; the real documents show
LangChain's misplaced copies and none in ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import REALDOCS, read_realdoc, realdoc_paths
from support.texts import SETTINGS

import chunkviz
from chunkviz.core.errors import ChunkvizError
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import as_document
from chunkviz.document.read import BINARY_FORMATS, format_for_name, read_path
from chunkviz.strategies.base import get_strategy
from chunkviz.strategies.peers import (
    PEER_NAMES,
    PEERS,
    PeerExplanation,
    catalogue,
    chunk_peer_flags,
    cpu_seconds,
    is_peer,
    peer_info,
    peer_notes,
    run_peer,
)
from chunkviz.strategies.peers.audit import PeerChunk, PeerOutput, audit, audit_spans
from chunkviz.strategies.peers.flags import (
    MISPLACEMENT_KEY,
    PEER_FLAG_COLOURS,
    PEER_FLAG_LABELS,
    PEER_TEXT_KEY,
    TRUE_SPAN_KEY,
    PeerFlag,
)
from chunkviz.strategies.peers.runners import RUNNERS, token_windows
from chunkviz.text.tokenizers import get_tokenizer

SAMPLE_DOCS = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
SEMANTIC_PEERS = {"langchain_semantic", "chonkie_semantic"}


def embed_cheaply_if_semantic(name: str, request: pytest.FixtureRequest) -> None:
    """What a peer column draws does not depend on the vectors: the peers' semantic chunkers embed
    every sentence window themselves (Chonkie: 20-40 s for 5-16 kB with the real model on this
    machine under load), so these tests give them the stand-in embedder, on every document;
    :func:`test_semantic_peers_with_the_real_model` runs them with the real one."""
    if name in SEMANTIC_PEERS:
        request.getfixturevalue("stand_in_peer_embeddings")


FORMATS = {".md": "markdown", ".py": "python", ".rst": "rst"}


def installed(name: str) -> bool:
    return not catalogue.missing_modules(peer_info(name))


def needs(name: str) -> Any:
    marks = [pytest.mark.skipif(not installed(name), reason=f"{name}: {peer_info(name).distribution} is not installed")]
    if name in SEMANTIC_PEERS:
        marks.append(pytest.mark.slow)
    return pytest.param(name, marks=marks, id=name)


ALL_PEERS = [needs(p.name) for p in PEERS]
FAST_PEERS = [needs(p.name) for p in PEERS if p.name not in SEMANTIC_PEERS]


def document_of(path: Path) -> Any:
    if format_for_name(path.name) in BINARY_FORMATS:  # a deck or a workbook: its reader's text
        return read_path(path)
    return as_document(read_realdoc(path), FORMATS.get(path.suffix, "text"))


def sample_paths() -> list[Path]:
    return sorted(p for p in SAMPLE_DOCS.iterdir() if p.is_file())


def check_drawn(text: str, chunks: tuple[Chunk, ...] | list[Chunk]) -> None:
    """What a peer column draws: exact spans with the document's boundary, known reasons, the
    peer's own text in metadata exactly when it differs, and flags from the audit's vocabulary."""
    n = len(text)
    for k, c in enumerate(chunks):
        assert c.index == k
        assert 0 <= c.start < c.end <= n, (k, c.start, c.end, n)
        assert c.text == text[c.start : c.end]
        assert c.reason in set(Reason)
        assert c.reason != Reason.END_OF_DOCUMENT or c.end == n
        flags = chunk_peer_flags(c)
        assert all(isinstance(f, PeerFlag) for f in flags)
        peer_text = c.metadata.get(PEER_TEXT_KEY, c.text)
        assert (PEER_TEXT_KEY in c.metadata) == (peer_text != c.text)
        if not flags or flags == (PeerFlag.OVER_PEER_LIMIT,) or flags == (PeerFlag.AMBIGUOUS_PLACEMENT,):
            assert peer_text == c.text, f"chunk {k} is unflagged but the peer's text differs from its span"
        if PeerFlag.OVER_PEER_LIMIT in flags:
            assert c.metadata[str(Meta.OVER_SIZE_LIMIT)] is True


# ----------------------------------------------------------------------------- registry and notes


def test_registered_peers_are_the_installed_ones() -> None:
    names = {s["name"] for s in chunkviz.strategies()}
    for info in PEERS:
        assert (info.name in names) == installed(info.name), info.name
    assert all(is_peer(p.name) for p in PEERS) and not is_peer("recursive")


def test_peer_notes_name_the_missing_peers_and_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalogue, "_findable", lambda module: True)
    assert peer_notes() == []
    monkeypatch.setattr(catalogue, "_findable", lambda module: module not in {"chonkie", "semchunk"})
    (line,) = peer_notes()
    assert line == (
        "not listed (their packages are not installed): semchunk, chonkie_recursive, chonkie_token, chonkie_semantic"
        " — pip install 'chunkviz[peers]'"
    )
    monkeypatch.setattr(catalogue, "_findable", lambda module: module != "sentence_transformers")
    assert peer_notes() == [
        "not listed (their packages are not installed): langchain_semantic, chonkie_semantic — pip install 'chunkviz[semantic]'"
    ]


def test_every_flag_has_a_label_and_a_colour() -> None:
    assert set(PEER_FLAG_LABELS) == set(PeerFlag) == set(PEER_FLAG_COLOURS)
    assert all(c.startswith("#") and len(c) == 7 for c in PEER_FLAG_COLOURS.values())


# ----------------------------------------------------------------------------- the audit on exact cases


def test_audit_flags_an_earlier_copy_against_an_exact_reference() -> None:
    source = "Intro text.\n\nSame para.\n\nSame para."
    output = PeerOutput(
        (PeerChunk("Intro text.\n\nSame para.", 0), PeerChunk("Same para.", 13)),
        None,
        True,
        True,
        ((0, 23), (25, 35)),
        Reason.SIZE_LIMIT,
        0.0,
        "LangChain's start_index",
    )
    first, second = audit(source, output)
    assert (first.start, first.end, first.flags) == (0, 23, ())
    assert (second.start, second.end, second.flags) == (13, 23, (PeerFlag.MISPLACED,))
    assert second.true_span == (25, 35) and second.misplacement == "earlier_copy"
    assert (
        second.note
        == "LangChain's start_index says 13 (an earlier copy of its text); the splitter's own sequence puts it at 25"
    )


def test_audit_without_reference_flags_ambiguous_search_placements_only() -> None:
    """ "ok" after "x ok" may overlap it (at 2) or follow it (at 5): a search cannot tell. The
    first "ok" of "A. ok ok" is certain: placing it at the second copy would drop the first."""
    overlapping = PeerOutput((PeerChunk("x ok", 0), PeerChunk("ok", 5)), None, True, True, None, Reason.SIZE_LIMIT, 0.0)
    assert [a.flags for a in audit("x ok ok", overlapping)] == [(), (PeerFlag.AMBIGUOUS_PLACEMENT,)]
    offsets = PeerOutput(overlapping.chunks, None, True, False, None, Reason.SIZE_LIMIT, 0.0)  # the peer's own offsets
    assert [a.flags for a in audit("x ok ok", offsets)] == [(), ()]
    gap = PeerOutput(
        (PeerChunk("A.", 0), PeerChunk("ok", 8), PeerChunk("ok", 8)), None, False, True, None, Reason.UNIT_END, 0.0
    )
    flags = [(a.start, a.flags) for a in audit("A.\n\nok\n\nok", gap)]
    assert flags == [(0, ()), (8, (PeerFlag.MISPLACED,)), (8, ())]


def test_audit_not_found_whitespace_and_foreign_text() -> None:
    source = "alpha beta\n\n  gamma delta\nepsilon"
    output = PeerOutput(
        (
            PeerChunk("alpha beta", 0),
            PeerChunk("gamma delta", -1),
            PeerChunk("gamma delta  \nepsilon", -1),
            PeerChunk("zeta", 3),
        ),
        None,
        False,
        True,
        None,
        Reason.UNIT_END,
        0.0,
    )
    _, b, c, d = audit(source, output)
    assert (b.start, b.end, b.flags, b.misplacement) == (14, 25, (PeerFlag.MISPLACED,), "not_found")
    assert (c.start, c.end, c.flags) == (14, 33, (PeerFlag.WHITESPACE_CHANGED,))
    assert d.flags == (PeerFlag.TEXT_NOT_IN_SOURCE,) and (d.start, d.end) == (3, 7)


def test_audit_of_the_limit() -> None:
    output = PeerOutput(
        (PeerChunk("abc", 0, size=3), PeerChunk("defgh", 3, size=5)), 4, False, False, None, Reason.SIZE_LIMIT, 0.0
    )
    assert [a.flags for a in audit("abcdefgh", output)] == [(), (PeerFlag.OVER_PEER_LIMIT,)]


def test_token_windows_are_exact_spans() -> None:
    tok = get_tokenizer("words")
    assert token_windows(tok, "a b c d e", 3, 1) == ((0, 6), (4, 9))


# ----------------------------------------------------------------------------- each peer on exact cases


@pytest.mark.skipif(not installed("langchain_recursive"), reason="langchain-text-splitters is not installed")
def test_langchain_start_index_misplaces_a_repeated_paragraph() -> None:
    text = "Intro text.\n\nSame para.\n\nSame para."
    run = run_peer(text, "langchain_recursive", {"chunk_size": 24, "chunk_overlap": 10}, "chars")
    assert [(c.start, c.end, c.metadata["peer_flags"]) for c in run.chunks] == [(0, 23, []), (13, 23, ["misplaced"])]
    assert (
        run.chunks[1].metadata[TRUE_SPAN_KEY] == [25, 35] and run.chunks[1].metadata[MISPLACEMENT_KEY] == "earlier_copy"
    )
    ours = chunkviz.chunk(text, "recursive_langchain", tokenizer="chars", chunk_size=24, overlap=10)
    assert [(c.start, c.end) for c in ours] == [(0, 23), (25, 35)]
    assert audit_spans(text, ours).counts == {}


@pytest.mark.skipif(not installed("langchain_recursive"), reason="langchain-text-splitters is not installed")
def test_langchain_over_its_limit_is_flagged() -> None:
    run = run_peer(
        "ab abcdefgh ab", "langchain_recursive", {"chunk_size": 4, "chunk_overlap": 0, "separators": [" "]}, "chars"
    )
    assert [(c.text, c.metadata["peer_flags"]) for c in run.chunks] == [
        ("ab", []),
        (" abcdefgh", ["over_peer_limit"]),
        ("ab", []),
    ]
    assert run.audit.counts == {"over_peer_limit": 1}


@pytest.mark.skipif(not installed("langchain_markdown_headers"), reason="langchain-text-splitters is not installed")
def test_markdown_headers_rewrite_whitespace_and_drop_headings() -> None:
    text = "# Title\n\nline one\n\n  line two\n\n## Sub\n\nlast\n"
    run = run_peer(as_document(text, "markdown"), "langchain_markdown_headers")
    assert [(c.start, c.end, c.metadata["peer_flags"]) for c in run.chunks] == [
        (9, 29, ["whitespace_changed"]),
        (39, 43, []),
    ]
    assert (
        run.chunks[0].metadata[PEER_TEXT_KEY] == "line one  \nline two"
    )  # lines stripped, joined with two spaces and a line feed
    assert run.chunks[0].metadata["peer_start"] == -1


@pytest.mark.skipif(not installed("langchain_token"), reason="langchain-text-splitters is not installed")
def test_token_splitters_on_multibyte_text() -> None:
    """tiktoken splits an emoji across tokens: LangChain decodes windows to U+FFFD (not the
    document's text, start_index -1) where Chonkie, with the same windows, counts decoded lengths."""
    text = "héllo 😀😀 wörld " * 3
    run = run_peer(text, "langchain_token", {"chunk_size": 5, "chunk_overlap": 2})
    foreign = [c for c in run.chunks if PeerFlag.TEXT_NOT_IN_SOURCE in chunk_peer_flags(c)]
    assert foreign and all("\ufffd" in c.metadata[PEER_TEXT_KEY] for c in foreign)
    windows = token_windows(get_tokenizer("cl100k_base"), text, 5, 2)
    assert len(run.chunks) == len(windows)
    for c, window in zip(run.chunks, windows):
        if PeerFlag.MISPLACED in chunk_peer_flags(c) and c.metadata["peer_start"] == -1:
            assert (c.start, c.end) == window  # drawn where the window is


@pytest.mark.skipif(not installed("semchunk"), reason="semchunk is not installed")
def test_semchunk_offsets_are_exact() -> None:
    text = "Intro para.\n\nYes.\nYes.\nYes.\n\nThe end is near.\n\nYes.\n"
    run = run_peer(text, "semchunk", {"chunk_size": 5, "overlap": 2})
    assert [(c.start, c.end) for c in run.chunks] == [
        (0, 11),
        (6, 17),
        (13, 22),
        (18, 27),
        (23, 36),
        (29, 39),
        (37, 45),
        (40, 52),
    ]
    assert run.audit.counts == {}


@pytest.mark.slow
@pytest.mark.skipif(not installed("langchain_semantic"), reason="langchain-experimental is not installed")
def test_langchain_semantic_rejoins_sentences_and_its_running_sum_drifts(semantic_cache_dir: Any) -> None:
    """SemanticChunker joins sentences with one space and its start_index is a running sum of
    chunk lengths: the first chunk's whitespace is rewritten, the next ones are placed short."""
    text = "Cats purr.  Dogs bark.\n\nRain falls. Snow melts.\n\nTaxes rise.  Prices grow."
    run = run_peer(text, "langchain_semantic", {"breakpoint_threshold_amount": 50.0})
    assert [(c.start, c.end, c.metadata["peer_flags"], c.metadata.get(MISPLACEMENT_KEY)) for c in run.chunks] == [
        (0, 33, ["whitespace_changed"], None),
        (33, 44, ["misplaced"], "other_text"),
        (44, 68, ["misplaced", "whitespace_changed"], "other_text"),
    ]
    assert [c.metadata[PEER_TEXT_KEY] for c in run.chunks] == [
        "Cats purr. Dogs bark. Rain falls.",
        "Snow melts.",
        "Taxes rise. Prices grow.",
    ]
    assert [c.metadata[TRUE_SPAN_KEY] for c in run.chunks] == [[0, 35], [36, 47], [49, 74]]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [n for n in ("langchain_semantic", "chonkie_semantic") if installed(n)]
    or [pytest.param("none", marks=pytest.mark.skip(reason="no semantic peer installed"))],
)
def test_a_semantic_peer_rerun_with_other_parameters_embeds_nothing_again(
    name: str, semantic_cache_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app re-runs a column on every parameter change: the peers' sentence vectors come from
    chunkviz's embedding cache the second time, as ours do (and give the same chunks)."""
    from sentence_transformers import SentenceTransformer

    from chunkviz.semantic import embedcache

    text = "Cats purr. Cats nap all day.\n\nRain falls. Snow melts in spring.\n\nTaxes rise. Prices grow fast."
    threshold = {"langchain_semantic": "breakpoint_threshold_amount", "chonkie_semantic": "threshold"}[name]
    first = chunkviz.chunk(text, name)
    embedcache.clear_memory()  # the disk cache alone answers, as in a new process

    def no_encoding(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("embedded again")

    monkeypatch.setattr(SentenceTransformer, "encode", no_encoding)
    assert chunkviz.chunk(text, name) == first
    other = {"langchain_semantic": 60.0, "chonkie_semantic": 0.5}[name]
    assert chunkviz.chunk(text, name, **{threshold: other})  # another threshold: same sentences, no model call


# ----------------------------------------------------------------------------- every peer, every document


@pytest.mark.parametrize("name", ALL_PEERS)
@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name)
def test_peer_on_sample_docs(name: str, path: Path, semantic_cache_dir: Any, request: pytest.FixtureRequest) -> None:
    embed_cheaply_if_semantic(name, request)
    document = document_of(path)
    chunks = chunkviz.chunk(document, name)
    check_drawn(document.text, chunks)
    assert all(c.boundary == document.structure.boundary_at(c.end) for c in chunks)
    run = run_peer(document, name)
    assert run.chunks == tuple(chunks) and run.cpu_seconds >= 0 and run.audit.chunks == len(chunks)


@pytest.mark.slow
@pytest.mark.parametrize("name", [p for p in ALL_PEERS if p.values[0] in SEMANTIC_PEERS])
@pytest.mark.parametrize("sample", ["topic_shifts.txt", "magazine_ar.txt"])
def test_semantic_peers_with_the_real_model(name: str, sample: str, semantic_cache_dir: Any) -> None:
    """The semantic peers with the offline MiniLM they use in the app: exact spans, and their
    cuts fall between sentences (the topic document's shifts are visible to any real model)."""
    from chunkviz.strategies.peers import RUNS

    RUNS.clear()  # a stand-in's run of the same document is not this one
    document = document_of(SAMPLE_DOCS / sample)
    run = run_peer(document, name)
    check_drawn(document.text, run.chunks)
    assert len(run.chunks) > 1, "a real model finds at least one breakpoint in a document of several topics"


REALDOC_PATHS = realdoc_paths()


@pytest.mark.skipif(not REALDOC_PATHS, reason=f"shared realdocs not found at {REALDOCS} (set CHUNKVIZ_SHARED)")
@pytest.mark.parametrize("name", ALL_PEERS)
@pytest.mark.parametrize("path", REALDOC_PATHS, ids=lambda p: p.name)
def test_peer_on_real_documents(name: str, path: Path, semantic_cache_dir: Any, request: pytest.FixtureRequest) -> None:
    embed_cheaply_if_semantic(name, request)
    document = document_of(path)
    run = run_peer(document, name)
    check_drawn(document.text, run.chunks)


def _realdocs_or_skip() -> list[Path]:
    if not REALDOC_PATHS:
        pytest.skip(f"shared realdocs not found at {REALDOCS} (set CHUNKVIZ_SHARED)")
    return REALDOC_PATHS


@pytest.mark.skipif(not installed("langchain_recursive"), reason="langchain-text-splitters is not installed")
@pytest.mark.parametrize(("tokenizer", "size", "overlap"), [("chars", 200, 50), ("cl100k_base", 16, 4)])
def test_audit_finds_langchain_misplaced_copies_on_real_documents_and_none_in_ours(
    tokenizer: str, size: int, overlap: int
) -> None:
    earlier = 0
    for path in _realdocs_or_skip():
        document = document_of(path)
        run = run_peer(document, "langchain_recursive", {"chunk_size": size, "chunk_overlap": overlap}, tokenizer)
        earlier += run.audit.misplacements.get("earlier_copy", 0)
        ours = chunkviz.chunk(document, "recursive_langchain", tokenizer=tokenizer, chunk_size=size, overlap=overlap)
        assert audit_spans(document, ours).counts == {}, path.name
        # where LangChain's start_index is wrong, our port of the same algorithm has the right span
        for theirs, mine in zip(run.chunks, ours):
            if PeerFlag.MISPLACED in chunk_peer_flags(theirs):
                # (a chunk LangChain could not place at all is drawn at its true span)
                assert theirs.metadata.get(TRUE_SPAN_KEY, [theirs.start, theirs.end]) == [mine.start, mine.end]
        recursive = chunkviz.chunk(
            document, "recursive", tokenizer=tokenizer, chunk_size=size, overlap=min(overlap, size - 1)
        )
        assert audit_spans(document, recursive).counts == {}, path.name
    assert earlier > 0, "LangChain's start_index should pick an earlier copy somewhere in the real documents"


# ----------------------------------------------------------------------------- properties


@pytest.mark.skipif(not installed("langchain_recursive"), reason="langchain-text-splitters is not installed")
@settings(max_examples=60, **SETTINGS)
@given(
    text=st.lists(st.sampled_from(["ok", "ok.", "no", "\n", "\n\n", " ", "yes ok"]), min_size=1, max_size=40).map(
        "".join
    ),
    size=st.integers(2, 12),
    data=st.data(),
)
def test_langchain_audit_agrees_with_the_exact_port(text: str, size: int, data: st.DataObject) -> None:
    """A LangChain chunk is unflagged exactly when its start_index is where our exact port puts it."""
    overlap = data.draw(st.integers(0, size))
    run = run_peer(
        text,
        "langchain_recursive",
        {"chunk_size": size, "chunk_overlap": overlap, "separators": ["\n\n", "\n", " ", ""]},
        "chars",
    )
    ours = (
        chunkviz.chunk(text, "recursive_langchain", tokenizer="chars", chunk_size=size, overlap=overlap)
        if text.strip()
        else []
    )
    check_drawn(text, run.chunks)
    assert len(run.chunks) == len(ours)
    for theirs, mine in zip(run.chunks, ours):
        right = theirs.metadata["peer_start"] == mine.start
        assert (PeerFlag.MISPLACED not in chunk_peer_flags(theirs)) == right
        assert theirs.text == mine.text or not right


@pytest.mark.skipif(not installed("langchain_token"), reason="langchain-text-splitters is not installed")
@settings(max_examples=40, **SETTINGS)
@given(text=st.text(st.sampled_from("ab .\n😀é語"), min_size=1, max_size=60), size=st.integers(2, 6), data=st.data())
def test_langchain_token_audit_agrees_with_the_token_windows(text: str, size: int, data: st.DataObject) -> None:
    """A TokenTextSplitter chunk is unflagged exactly when its text is its window's text and its
    start_index is the window's start."""
    overlap = data.draw(st.integers(0, size - 1))
    run = run_peer(text, "langchain_token", {"chunk_size": size, "chunk_overlap": overlap})
    windows = token_windows(get_tokenizer("cl100k_base"), text, size, overlap)
    check_drawn(text, run.chunks)
    assert len(run.chunks) == len(windows)
    for c, (a, b) in zip(run.chunks, windows):
        peer_text = c.metadata.get(PEER_TEXT_KEY, c.text)
        exact = peer_text == text[a:b] and c.metadata["peer_start"] == a
        assert (chunk_peer_flags(c) == ()) == exact, (c, (a, b))


ODD = st.sampled_from(["a", "b c", ". ", "\n", "\r\n", "\n\n", "# H\n", "😀", "e\u0301", "\ud800", "語", "\t", "  "])


@pytest.mark.parametrize("name", FAST_PEERS)
def test_peer_columns_on_odd_text_are_spans_or_a_clear_error(name: str) -> None:
    @settings(max_examples=15, **SETTINGS)
    @given(text=st.lists(ODD, max_size=40).map("".join))
    def prop(text: str) -> None:
        try:
            chunks = (
                chunkviz.chunk(text, name, chunk_size=4)
                if "chunk_size" in DEFAULTS[name]
                else chunkviz.chunk(text, name)
            )
        except ChunkvizError as exc:
            assert str(exc).split(":")[0].endswith("failed on this document") or "must be" in str(exc), str(exc)
            return
        if not text.strip():
            assert chunks == []
            return
        check_drawn(text, chunks)

    prop()


DEFAULTS = {s["name"]: {p["name"] for p in s["params"]} for s in chunkviz.strategies()}


@pytest.mark.skipif(not installed("semchunk"), reason="semchunk is not installed")
@settings(max_examples=40, **SETTINGS)
@given(text=st.text(st.sampled_from("ab .\n😀é"), max_size=80), size=st.integers(4, 10))
def test_semchunk_offsets_never_flagged_as_misplaced(text: str, size: int) -> None:
    if not text.strip():
        return
    run = run_peer(text, "semchunk", {"chunk_size": size})
    check_drawn(text, run.chunks)
    assert all(PeerFlag.MISPLACED not in chunk_peer_flags(c) for c in run.chunks)


@pytest.mark.skipif(not installed("semchunk"), reason="semchunk is not installed")
def test_a_peer_failure_is_a_clear_error() -> None:
    """semchunk recurses without end when one character is over chunk_size (an emoji is two
    cl100k tokens): the column reports the peer's failure instead of a traceback."""
    with pytest.raises(ChunkvizError, match=r"^semchunk failed on this document: RecursionError"):
        run_peer("😀.b", "semchunk", {"chunk_size": 1})


# ----------------------------------------------------------------------------- CPU time and the explanation


@pytest.mark.skipif(not installed("langchain_recursive"), reason="langchain-text-splitters is not installed")
def test_one_peer_call_per_document_and_params(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = RUNNERS["langchain_recursive"]
    monkeypatch.setitem(RUNNERS, "langchain_recursive", lambda *a: calls.append(1) or real(*a))
    text = "A unique text for the cache test.\n\nWith two paragraphs."
    strategy = get_strategy("langchain_recursive")
    document = as_document(text)
    params = strategy.make_params({"chunk_size": 7, "chunk_overlap": 2})
    chunks = strategy.function(document, params, get_tokenizer("cl100k_base"))
    explanation = strategy.explain(document, params, get_tokenizer("cl100k_base"))
    assert len(calls) == 1
    assert isinstance(explanation, PeerExplanation) and explanation.figures(chunks) == []
    summary = explanation.summary()
    assert (
        summary.startswith("LangChain RecursiveCharacterTextSplitter ")
        and " · CPU " in summary
        and summary.endswith(" · audit: 1 misplaced chunk")
    )
    data = explanation.to_dict()
    assert data["peer"] == "langchain_recursive" and data["chunks"] == len(chunks) and data["cpu_seconds"] >= 0
    assert (
        cpu_seconds(document, "langchain_recursive", {"chunk_size": 7, "chunk_overlap": 2}) == data["cpu_seconds"]
        and len(calls) == 1
    )
    assert cpu_seconds(document, "recursive", {"chunk_size": 7, "overlap": 2}) >= 0


def test_overlap_over_the_size_names_the_default() -> None:
    if not installed("chonkie_token"):
        pytest.skip("chonkie is not installed")
    with pytest.raises(
        ChunkvizError,
        match=r"chunk_overlap' must be smaller than chunk_size \(8\), got 16 \(the default chunk_overlap is 16",
    ):
        chunkviz.chunk("some text", "chonkie_token", chunk_size=8)


def test_peer_names_match_the_runners() -> None:
    assert set(RUNNERS) == PEER_NAMES


@pytest.mark.skipif(not installed("langchain_recursive"), reason="langchain-text-splitters is not installed")
def test_the_audit_shows_in_the_diagnostics_the_app_draws() -> None:
    from chunkviz.core.vocabulary import Flag
    from chunkviz.diagnostics.compare import chunk_flags, flag_summary, run_strategy, stats_row

    text = "Intro text.\n\nSame para.\n\nSame para."
    run = run_strategy(text, "langchain_recursive", {"chunk_size": 24, "chunk_overlap": 10}, "chars")
    assert chunk_flags(run)[1] == (Flag.MISPLACED, Flag.LOW_INFORMATION)  # "Same para.": two content words
    assert "1 misplaced chunk" in flag_summary(run)
    assert stats_row("peer", run)["placed at the wrong occurrence"] == 1
    ours = run_strategy(text, "recursive_langchain", {"chunk_size": 24, "overlap": 10}, "chars")
    assert "placed at the wrong occurrence" not in stats_row("ours", ours) and "misplaced" not in flag_summary(ours)


# ----------------------------------------------------------------------------- byte-offset splitters


@pytest.mark.parametrize("name", [needs("memchunk"), needs("chonkie_fast")])
def test_a_byte_offset_splitter_is_flagged_where_it_cuts_inside_a_character(name: str) -> None:
    # 語 is three UTF-8 bytes: a 10-byte size with no delimiter cuts 3 characters and a third
    text = "語" * 12
    run = run_peer(text, name, {"size": 10})
    check_drawn(text, run.chunks)
    assert [c.metadata.get(PEER_TEXT_KEY, c.text) for c in run.chunks] == [
        "語語語\ufffd",
        "\ufffd\ufffd語語\ufffd",  # the split character's other two bytes, 語語, the next one's first byte
        "\ufffd語語語",
        "語語",  # bytes 30-36: whole characters again
    ]
    assert [chunk_peer_flags(c) for c in run.chunks] == [(PeerFlag.TEXT_NOT_IN_SOURCE,)] * 3 + [()]
    ascii_run = run_peer("One line.\nTwo lines.\nThree.\n", name, {"size": 12})
    assert ascii_run.audit.counts == {}  # on ASCII every byte offset is a character offset
    assert [c.text for c in ascii_run.chunks] == ["One line.\n", "Two lines.\n", "Three.\n"]
