"""recursive_langchain: LangChain's RecursiveCharacterTextSplitter, placed exactly.

The chunk texts must equal what the real ``langchain_text_splitters`` returns with the same
length function (our tokenizer's count of each piece, plus its special tokens when asked), on
the sample documents, the shared real documents and generated texts; every chunk is an exact
span; the cost stays linear on hostile text (measured in work, never in time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking, texts
from support.paths import read_realdoc, realdoc_paths
from support.texts import SETTINGS, adversarial_text, any_text, examples, long_pieces, prose_text

from chunkviz import InvalidParamError, chunk
from chunkviz.core.types import Chunk
from chunkviz.document.read import read_path
from chunkviz.splitting import PRESETS
from chunkviz.splitting.langchain import LangChainSplitError, LangChainSplitter
from chunkviz.strategies.recursive_langchain import LANGCHAIN_LENGTH, length_function
from chunkviz.text.tokenizers import get_tokenizer

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
STUDY_SEPARATORS = ["\n\n", "\n", ".", "?", "!", " ", ""]


def langchain_texts(
    text: str, size: int, overlap: int, separators: list[str], keep: str, length: Callable[[str], int]
) -> list[str]:
    """What the real RecursiveCharacterTextSplitter returns (skips when it is not installed)."""
    splitters = pytest.importorskip("langchain_text_splitters")
    splitter = splitters.RecursiveCharacterTextSplitter(
        chunk_size=size,
        chunk_overlap=overlap,
        separators=separators,
        keep_separator=True if keep == "start" else keep,
        length_function=length,
    )
    return splitter.split_text(text)


def ours(text: Any, tokenizer: str, params: dict[str, Any]) -> list[Chunk]:
    return chunk(text, "recursive_langchain", tokenizer=tokenizer, **params)


def assert_matches_langchain(text: str, chunks: list[Chunk], tokenizer: str, params: dict[str, Any]) -> None:
    """Same strings as LangChain, each an exact span, the contract kept, honest size flags."""
    separators = params.get("separators", PRESETS["default"])
    separators = PRESETS[separators] if isinstance(separators, str) else separators
    length = length_function(get_tokenizer(tokenizer), params.get("count_special_tokens", False))
    expected = langchain_texts(
        text, params["chunk_size"], params["overlap"], separators, params.get("keep_separator", "start"), length
    )
    if not text.strip():
        assert chunks == []
        return
    assert texts(chunks) == expected
    assert_valid_chunking(text, chunks)
    size = params["chunk_size"]
    for c in chunks:
        assert c.text == text[c.start : c.end]
        if c.metadata.get("indivisible"):  # a split LangChain cannot split further, returned as it is
            assert c.metadata[LANGCHAIN_LENGTH] == length(c.text) > size
        else:
            assert c.metadata[LANGCHAIN_LENGTH] <= size


# ----------------------------------------------------------------------------- hand-checked cases


def test_merges_words_up_to_the_size_and_strips() -> None:
    text = "one two three four five"
    # chars: splits one| two| three| four| five (3, 4, 6, 5, 5); 3+4 = 7, +6 > 10 -> "one two";
    # " three" alone (6+5 > 10) -> stripped "three"; " four five" = 10 -> "four five"
    chunks = ours(text, "chars", {"chunk_size": 10, "overlap": 0})
    assert [(c.start, c.end, c.text) for c in chunks] == [(0, 7, "one two"), (8, 13, "three"), (14, 23, "four five")]
    assert [str(c.reason) for c in chunks] == ["size_limit", "size_limit", "end_of_document"]
    assert [c.metadata.get("separator") for c in chunks] == [" ", " ", None]
    assert [c.metadata[LANGCHAIN_LENGTH] for c in chunks] == [7, 6, 10]
    assert_matches_langchain(text, chunks, "chars", {"chunk_size": 10, "overlap": 0})


def test_overlap_keeps_whole_trailing_splits() -> None:
    text = "a bb ccc dd e"
    # splits a| bb| ccc| dd| e (1, 3, 4, 3, 2), size 8, overlap 4: "a bb ccc" (8); pop a, bb
    # (total 4 <= 4) -> " ccc dd" (7); pop ccc (3) -> " dd e"
    chunks = ours(text, "chars", {"chunk_size": 8, "overlap": 4})
    assert [(c.start, c.end, c.text) for c in chunks] == [(0, 8, "a bb ccc"), (5, 11, "ccc dd"), (9, 13, "dd e")]
    assert [c.boundary for c in chunks] == ["word", "word", "document_end"]
    assert_matches_langchain(text, chunks, "chars", {"chunk_size": 8, "overlap": 4})


def test_keep_separator_end_and_an_indivisible_piece() -> None:
    text = "ab\nabcdefghijk lm"
    # "\n" (kept at the end): "ab\n" (3) and "abcdefghijk lm" (14 >= 5, split at " ": no
    # separator is left after " ", so "abcdefghijk " is returned as it is, unstripped)
    params = {"chunk_size": 5, "overlap": 0, "separators": ["\n", " "], "keep_separator": "end"}
    chunks = ours(text, "chars", params)
    assert [(c.start, c.end, c.text) for c in chunks] == [(0, 2, "ab"), (3, 15, "abcdefghijk "), (15, 17, "lm")]
    assert [c.metadata.get("separator") for c in chunks] == ["\n", " ", None]
    assert chunks[1].metadata["indivisible"] and chunks[1].metadata["over_size_limit"]
    assert not chunks[0].metadata.get("indivisible")
    assert_matches_langchain(text, chunks, "chars", params)


def test_a_chunk_whose_text_counts_over_the_size_is_kept_and_flagged() -> None:
    """Issue 36 item 12: LangChain measures " Agreement" (one cl100k token) with its space and then
    strips it; "Agreement" at the start of a chunk is two tokens, so the second chunk counts 3 with
    chunk_size=2 while LangChain's own measure says 2. The same chunks as LangChain, and the flag."""
    from chunkviz.diagnostics import diagnose

    text = "Hello there Agreement now"
    params = {"chunk_size": 2, "overlap": 0}
    chunks = ours(text, "cl100k_base", params)
    assert [(c.text, c.metadata[LANGCHAIN_LENGTH]) for c in chunks] == [("Hello there", 2), ("Agreement now", 2)]
    assert not chunks[0].metadata.get("over_size_limit")
    assert chunks[1].metadata["over_size_limit"] and not chunks[1].metadata.get("indivisible")
    assert chunks[1].metadata["note"] == (
        "3 tokens, over chunk_size 2: LangChain measures each split alone and sums them (2), "
        "and a split counts differently once stripped or joined"
    )
    assert [c.over_size_limit for c in diagnose(text, chunks, strategy="recursive_langchain").chunks] == [False, True]
    assert_matches_langchain(text, chunks, "cl100k_base", params)


@pytest.mark.parametrize("path", realdoc_paths()[:3] or [None], ids=lambda p: getattr(p, "name", "none"))
def test_every_chunk_over_the_size_in_tokens_is_flagged(path: Path | None) -> None:
    """On real text (chunks one token over chunk_size went unflagged): a chunk is flagged
    over the size exactly when its text counts more tokens than chunk_size."""
    if path is None:
        pytest.skip("shared realdocs not found")
    text = read_realdoc(path)
    tok = get_tokenizer("cl100k_base")
    for size in (16, 64):
        chunks = ours(text, "cl100k_base", {"chunk_size": size, "overlap": 4})
        assert [bool(c.metadata.get("over_size_limit")) for c in chunks] == [tok.count(c.text) > size for c in chunks]


def test_the_last_chunk_before_trailing_whitespace_ends_the_text() -> None:
    text = "Hello world.\n\n  \n"
    (only,) = ours(text, "words", {"chunk_size": 10, "overlap": 0})
    assert (only.start, only.end, str(only.reason)) == (0, 12, "unit_end")
    assert "whitespace" in only.metadata["note"]


def test_special_tokens_count_for_every_piece_and_join() -> None:
    text = "alpha beta gamma"
    # minilm: one wordpiece per word + [CLS]/[SEP] = 3 per split, and LangChain measures the
    # join separator "" as 2: "alpha beta" = 3 + 2 + 3 = 8 <= 8, + " gamma" > 8
    params = {"chunk_size": 8, "overlap": 0, "count_special_tokens": True}
    chunks = ours(text, "minilm", params)
    assert texts(chunks) == ["alpha beta", "gamma"]
    assert [c.metadata[LANGCHAIN_LENGTH] for c in chunks] == [8, 3]
    assert_matches_langchain(text, chunks, "minilm", params)


def test_a_split_that_measures_zero_stays_as_overlap_even_without_overlap() -> None:
    """LangChain's merge drops the previous chunk's splits only while their summed length is above
    the overlap (0): a split that measures 0 (here the escape character, no MiniLM wordpiece) is
    kept and starts the next chunk too. chunkviz places exactly what LangChain returns."""
    text = "00\x1b😀"
    params = {"chunk_size": 2, "overlap": 0}
    chunks = ours(text, "minilm", params)
    assert [(c.start, c.end) for c in chunks] == [(0, 3), (2, 4)]
    assert texts(chunks) == ["00\x1b", "\x1b😀"]
    assert_matches_langchain(text, chunks, "minilm", params)


def test_invalid_params_are_explained() -> None:
    with pytest.raises(InvalidParamError, match="at most chunk_size"):
        ours("text", "words", {"chunk_size": 4, "overlap": 5})
    with pytest.raises(InvalidParamError, match="keep_separator"):
        ours("text", "words", {"chunk_size": 4, "overlap": 0, "keep_separator": "both"})
    with pytest.raises(LangChainSplitError, match="chunk_overlap"):
        LangChainSplitter("text", [" "], 4, 5, len)


# ----------------------------------------------------------------------------- against LangChain

SETTINGS_GRID = [
    ("cl100k_base", {"chunk_size": 128, "overlap": 16}),
    ("cl100k_base", {"chunk_size": 250, "overlap": 125, "separators": STUDY_SEPARATORS}),
    ("minilm", {"chunk_size": 200, "overlap": 0, "separators": STUDY_SEPARATORS, "count_special_tokens": True}),
    ("words", {"chunk_size": 40, "overlap": 10, "separators": "markdown", "keep_separator": "end"}),
    ("chars", {"chunk_size": 60, "overlap": 59, "separators": "python"}),
]
SAMPLE_PATHS = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("tokenizer,params", SETTINGS_GRID)
@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=lambda p: p.name)
def test_sample_documents_match_langchain(path: Path, tokenizer: str, params: dict[str, Any]) -> None:
    document = read_path(path)
    assert_matches_langchain(document.text, ours(document, tokenizer, params), tokenizer, params)


@pytest.mark.parametrize("tokenizer,params", SETTINGS_GRID[:3])
@pytest.mark.parametrize("path", realdoc_paths() or [None], ids=lambda p: p.name if p else "absent")
def test_real_documents_match_langchain(path: Path | None, tokenizer: str, params: dict[str, Any]) -> None:
    if path is None:
        pytest.skip("the shared realdocs folder is absent")
    text = read_realdoc(path)
    assert_matches_langchain(text, ours(text, tokenizer, params), tokenizer, params)


SEPARATOR_POOL = ["\n\n", "\n", " ", "", ".", "?", "!", ". ", "\r\n", "\t", "😀", "ab", "\n## ", "aa"]


@st.composite
def langchain_params(draw: st.DrawFn) -> dict[str, Any]:
    size = draw(st.one_of(st.integers(1, 8), st.integers(1, 80)))
    separators = draw(
        st.one_of(st.sampled_from(sorted(PRESETS)), st.lists(st.sampled_from(SEPARATOR_POOL), min_size=1, max_size=6))
    )
    return {
        "chunk_size": size,
        "overlap": draw(st.integers(0, size)),
        "separators": separators,
        "keep_separator": draw(st.sampled_from(["start", "end"])),
        "count_special_tokens": draw(st.booleans()),
    }


def generated_text() -> st.SearchStrategy[str]:
    mixed = st.lists(st.one_of(long_pieces(6), prose_text(10), adversarial_text(5)), max_size=6).map("".join)
    return st.one_of(prose_text(120), adversarial_text(40), any_text(), mixed)


@settings(max_examples=examples(150), **SETTINGS)
@given(
    text=generated_text(),
    params=langchain_params(),
    tokenizer=st.sampled_from(["cl100k_base", "words", "chars", "minilm"]),
)
def test_generated_texts_match_langchain(text: str, params: dict[str, Any], tokenizer: str) -> None:
    assert_matches_langchain(text, ours(text, tokenizer, params), tokenizer, params)


# ----------------------------------------------------------------------------- cost on hostile text


class Measured:
    """A length function that counts the characters it is given (the splitter's work)."""

    def __init__(self) -> None:
        self.calls = 0
        self.chars = 0

    def __call__(self, piece: str) -> int:
        self.calls += 1
        self.chars += len(piece)
        return len(piece.split())


HOSTILE = {
    "40,000 newlines": "\n" * 40_000,
    "one 20,000-character line": "x" * 20_000,
    "20,000 one-letter words": "a " * 20_000,
    "40,000 lines of one word": "word\n" * 40_000,
    "a long line between blank runs": "\n" * 10_000 + "y" * 20_000 + " " * 10_000 + "z",
}


@pytest.mark.parametrize("overlap", [0, 3])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_costs_linear_work(name: str, overlap: int) -> None:
    text = HOSTILE[name]
    length = Measured()
    separators = PRESETS["default"]
    splitter = LangChainSplitter(text, separators, 4, overlap, length)
    chunks = splitter.split()
    # every split is measured once per level it reaches (and once per distinct string)
    assert length.chars <= len(separators) * len(text) + 1
    assert length.calls <= len(separators) * len(text) + 1
    covered_to = 0
    for c in chunks:  # in order, and every non-whitespace character is in a chunk
        assert c.start < c.end and not text[covered_to : c.start].strip()
        covered_to = max(covered_to, c.end)
    assert not text[covered_to:].strip()


def test_hostile_text_matches_langchain_where_langchain_is_fast() -> None:
    for text in ("\n" * 4_000, "x" * 2_000, "a " * 2_000, "\n" * 1_000 + "y" * 2_000 + " " * 1_000 + "z"):
        params = {"chunk_size": 4, "overlap": 2}
        assert_matches_langchain(text, ours(text, "words", params), "words", params)
