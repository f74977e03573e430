"""Shared test helpers: the span-contract checker, shared-data paths, adversarial text.

``assert_valid_chunking`` is the one place that states what every flat chunking must satisfy;
strategy, property and real-document tests all go through it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Sequence

import pytest
from hypothesis import strategies as st

from chunkviz.tokenizers import Tokenizer, get_tokenizer
from chunkviz.types import Chunk, Reason

# ----------------------------------------------------------------------------- shared data


def shared_dir() -> Path:
    """The shared data folder: ``$CHUNKVIZ_SHARED`` if set, else ``<repo>/../shared``."""
    env = os.environ.get("CHUNKVIZ_SHARED")
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parent.parent.parent / "shared"


SHARED = shared_dir()
REALDOCS = SHARED / "realdocs"
SEEDS = SHARED / "seeds"

#: provenance/notes files in the realdocs folder that are not documents to chunk
REALDOCS_NOT_DOCUMENTS = {"SOURCES.md", "README.md"}


def realdoc_paths() -> list[Path]:
    """The real documents (empty when the shared folder is absent)."""
    if not REALDOCS.is_dir():
        return []
    return sorted(
        p for p in REALDOCS.iterdir() if p.is_file() and not p.name.startswith(".") and p.name not in REALDOCS_NOT_DOCUMENTS
    )


def read_realdoc(path: Path) -> str:
    """A real document's exact text (``newline=""`` keeps CRLF line ends as they are)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


@pytest.fixture(scope="session")
def realdocs_dir() -> Path:
    if not REALDOCS.is_dir():
        pytest.skip(f"shared realdocs folder not found at {REALDOCS} (set CHUNKVIZ_SHARED to the shared folder)")
    return REALDOCS


# ----------------------------------------------------------------------------- the contract

REASONS = {str(r) for r in Reason}


def _tokenizer(tokenizer: str | Tokenizer | None) -> Tokenizer | None:
    if tokenizer is None:
        return None
    return get_tokenizer(tokenizer)


def assert_valid_chunking(
    text: str,
    chunks: Sequence[Chunk],
    *,
    limit: int | None = None,
    tokenizer: str | Tokenizer | None = None,
    overlap_tokens: int | None = None,
    limit_of: Any = None,
    strictly_advancing: bool = False,
    allow_added_text: bool = False,
) -> None:
    """Check the span contract of a chunking of ``text``.

    - every chunk is a Chunk with ``0 <= start < end <= len(text)`` and ``text == doc[start:end]``;
    - its reason is a known boundary reason; ``end_of_document`` only on a chunk ending at the end;
    - indexes are ``0..n-1``; chunks are ordered by ``(start, end)`` with non-decreasing starts
      and ends (strictly increasing ends when ``strictly_advancing``);
    - the union of the spans covers every non-whitespace character of ``text``;
    - with ``limit`` (and ``tokenizer``): no chunk has more than ``limit`` tokens (counted on its
      text alone; ``limit_of(chunk)`` overrides the measure, e.g. ``len``) unless its metadata
      says ``indivisible``;
    - with ``overlap_tokens`` (and ``tokenizer``): the text shared by two consecutive chunks has
      at most that many tokens;
    - no chunk carries ``added_text`` unless ``allow_added_text`` (flat span strategies add none).
    Empty or whitespace-only text must give no chunks.

    Multi-level chunkings (some chunk has ``level > 0`` or a ``parent``) are checked level by
    level: order, limit and overlap hold within each level; the outermost level covers the text
    (a deeper level may cover only the parts that have finer structure); levels come in
    increasing order; a parent is an earlier chunk one level up whose span contains its child's.
    """
    tok = _tokenizer(tokenizer)
    if (limit is not None and limit_of is None) or overlap_tokens is not None:
        assert tok is not None, "a tokenizer is needed to check token limits"
    chunks = list(chunks)
    if not text.strip():
        assert chunks == [], f"whitespace-only text gave chunks: {chunks!r}"
        return
    assert chunks, "non-blank text gave no chunks"
    n = len(text)
    for k, c in enumerate(chunks):
        assert isinstance(c, Chunk), f"chunk {k} is {type(c).__name__}, not Chunk"
        assert c.index == k, f"chunk {k} has index {c.index}"
        assert 0 <= c.start < c.end <= n, f"chunk {k} has span [{c.start}, {c.end}) in a text of length {n}"
        assert c.text == text[c.start : c.end], (
            f"chunk {k}: text {c.text!r} != doc[{c.start}:{c.end}] {text[c.start:c.end]!r}"
        )
        assert c.reason in REASONS, f"chunk {k} has unknown reason {c.reason!r}"
        if c.reason == Reason.END_OF_DOCUMENT:
            assert c.end == n, f"chunk {k} says end_of_document but ends at {c.end} of {n}"
        assert allow_added_text or c.added_text == "", f"chunk {k} of a flat span strategy has added text {c.added_text!r}"
    multilevel = any(c.level != 0 or c.parent is not None for c in chunks)
    if multilevel:
        levels = [c.level for c in chunks]
        assert levels == sorted(levels), f"levels are not in increasing order: {levels}"
        for k, c in enumerate(chunks):
            if c.parent is None:
                assert c.level == levels[0], f"chunk {k} at level {c.level} has no parent"
                continue
            assert 0 <= c.parent < k, f"chunk {k} has parent {c.parent}, not an earlier chunk"
            parent = chunks[c.parent]
            assert parent.level == c.level - 1, f"chunk {k} (level {c.level}) has a parent at level {parent.level}"
            assert parent.start <= c.start and c.end <= parent.end, (
                f"chunk {k} [{c.start}, {c.end}) is not inside its parent {c.parent} [{parent.start}, {parent.end})"
            )
        groups = [[c for c in chunks if c.level == lvl] for lvl in sorted(set(levels))]
    else:
        groups = [chunks]
    for depth, group in enumerate(groups):
        _check_one_level(text, group, tok, limit, limit_of, overlap_tokens, strictly_advancing, coverage=depth == 0)


def _check_one_level(
    text: str,
    chunks: list[Chunk],
    tok: Tokenizer | None,
    limit: int | None,
    limit_of: Any,
    overlap_tokens: int | None,
    strictly_advancing: bool,
    coverage: bool = True,
) -> None:
    for k in range(1, len(chunks)):
        prev, cur = chunks[k - 1], chunks[k]
        where = f"chunks {prev.index} and {cur.index}"
        assert (prev.start, prev.end) <= (cur.start, cur.end), f"{where} are out of order"
        assert prev.start <= cur.start, f"{where}: the second starts at {cur.start} before the first ({prev.start})"
        assert prev.end <= cur.end, f"{where}: the second ends at {cur.end} before the first ({prev.end})"
        if strictly_advancing:
            assert prev.end < cur.end, f"chunk {cur.index} [{cur.start}, {cur.end}) adds nothing after chunk {prev.index}"
    # coverage: every non-whitespace character lies in some chunk
    covered_to = 0
    for c in chunks if coverage else []:
        if c.start > covered_to:
            gap = text[covered_to : c.start]
            assert not gap.strip(), f"text[{covered_to}:{c.start}] = {gap!r} is in no chunk (level {c.level})"
        covered_to = max(covered_to, c.end)
    tail = text[covered_to:]
    assert not coverage or not tail.strip(), f"text[{covered_to}:] = {tail!r} is in no chunk"
    if limit is not None:
        measure = limit_of or tok.count  # type: ignore[union-attr]
        for c in chunks:
            size = measure(c) if limit_of else measure(c.text)
            if c.metadata.get("indivisible"):
                continue
            assert size <= limit, f"chunk {c.index} {c.text!r} has {size} > {limit} tokens and is not flagged indivisible"
    if overlap_tokens is not None:
        for k in range(1, len(chunks)):
            prev, cur = chunks[k - 1], chunks[k]
            if cur.start < prev.end:
                shared = text[cur.start : min(prev.end, cur.end)]
                got = tok.count(shared)  # type: ignore[union-attr]
                assert got <= overlap_tokens, (
                    f"chunks {prev.index} and {cur.index} share {shared!r} = {got} tokens > overlap {overlap_tokens}"
                )


@pytest.fixture
def valid_chunking():
    """The contract checker as a fixture (for tests that prefer fixtures to imports)."""
    return assert_valid_chunking


def spans(chunks: Iterable[Chunk]) -> list[tuple[int, int, str]]:
    """(start, end, reason) of every chunk, for exact expected-output comparisons."""
    return [(c.start, c.end, str(c.reason)) for c in chunks]


def texts(chunks: Iterable[Chunk]) -> list[str]:
    return [c.text for c in chunks]


# ----------------------------------------------------------------------------- adversarial text

#: Pieces that break naive chunkers: multi-code-point emoji (ZWJ families, skin tones, flags,
#: keycaps), combining marks, CJK without spaces, CRLF and other line breaks, tabs, NBSP,
#: ideographic space, digits, punctuation, apostrophes and contractions, long words.
ADVERSARIAL_PIECES = [
    "😀",
    "👨\u200d👩\u200d👧\u200d👦",
    "👍🏽",
    "🏳️\u200d🌈",
    "🇯🇵",
    "1\ufe0f\u20e3",
    "e\u0301",
    "\u0301",
    "a\u0308\u0323",
    "日本語のテキスト",
    "中文没有空格也能分词吗",
    "한국어",
    "\r\n",
    "\r\n\r\n",
    "\n",
    "\n\n",
    "\r",
    "\t",
    "\u00a0",
    "\u2028",
    "\u2029",
    "\u3000",
    "\u200b",
    "  ",
    " ",
    "0123456789",
    "3.14159",
    ".",
    ",",
    "!?",
    "...",
    "—",
    "(x)",
    "'",
    "’",
    "'s",
    "don't",
    "Dr.",
    "hello",
    "world",
    " the",
    "Über",
    "naïve",
    "supercalifragilisticexpialidocious" * 3,
    "# Heading\n",
    "\ndef f():\n    return 1\n",
    "\nclass A:\n",
    "<sub>",
]


def adversarial_text(max_pieces: int = 40) -> st.SearchStrategy[str]:
    """Random text mixing adversarial pieces, words, whitespace runs and arbitrary characters."""
    piece = st.one_of(
        st.sampled_from(ADVERSARIAL_PIECES),
        st.sampled_from(ADVERSARIAL_PIECES),
        st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=6),
        st.text(alphabet="ab \n\r\t.", min_size=1, max_size=8),
        st.text(alphabet=st.sampled_from(" \t\n\r\u00a0\u2028"), min_size=1, max_size=5),
    )
    return st.lists(piece, max_size=max_pieces).map("".join)


def prose_text(max_words: int = 80) -> st.SearchStrategy[str]:
    """Sentence-like text: words, sentence ends, line breaks and blank-line paragraphs."""
    word = st.sampled_from(
        ["the", "cat", "sat", "on", "a", "mat", "Dr.", "Smith", "said", "no", "3.5", "it's", "naïve", "日本語", "😀", "👍🏽"]
    )
    sep = st.sampled_from([" ", " ", " ", ". ", "! ", "? ", ".\n", "\n\n", ".\r\n\r\n", ",  ", "\t"])
    return st.lists(st.tuples(word, sep), max_size=max_words).map(lambda pairs: "".join(w + s for w, s in pairs))


def any_text() -> st.SearchStrategy[str]:
    """Adversarial, prose-like or fully arbitrary text (including empty)."""
    return st.one_of(adversarial_text(), prose_text(), st.text(max_size=60))
