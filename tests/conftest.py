"""Shared test helpers: the span-contract checker, shared-data paths, adversarial text.

``assert_valid_chunking`` is the one place that states what every flat chunking must satisfy;
strategy, property and real-document tests all go through it.
"""

from __future__ import annotations

import io
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import pytest
from hypothesis import HealthCheck
from hypothesis import strategies as st
from llm_server import loopback_llm_env  # noqa: F401  (fixture)

from chunkviz.document.model import as_document
from chunkviz.tokenizers import Tokenizer, get_tokenizer
from chunkviz.types import Chunk, Reason

# ----------------------------------------------------------------------------- LLM endpoint


@pytest.fixture(scope="session", autouse=True)
def _llm_endpoint(loopback_llm_env: Any) -> None:
    """Every test session talks to a loopback chat-completions server, never a remote one: the
    generic tests that run every registered strategy run ``llm`` against it."""


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
        p
        for p in REALDOCS.iterdir()
        if p.is_file() and not p.name.startswith(".") and p.name not in REALDOCS_NOT_DOCUMENTS
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


# ----------------------------------------------------------------------------- hypothesis and fixtures

#: hypothesis settings of the property tests: no deadline (shared machines are noisy)
SETTINGS: dict[str, Any] = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
#: multiply every example count (e.g. CHUNKVIZ_HYPOTHESIS_SCALE=20 for a long hunt)
SCALE = float(os.environ.get("CHUNKVIZ_HYPOTHESIS_SCALE", "1"))


def examples(n: int) -> int:
    return max(1, int(n * SCALE))


def zip_bytes(files: dict[str, str]) -> bytes:
    """A ZIP archive holding ``files`` (name -> text), e.g. to fake an Office file."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


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
    format: str | None = None,
) -> None:
    """Check the span contract of a chunking of ``text``.

    - every chunk is a Chunk with ``0 <= start < end <= len(text)`` and ``text == doc[start:end]``;
    - its boundary is the document structure's boundary at its end (``format`` as given to chunk);
    - its reason is a known reason; ``end_of_document`` only on a chunk ending at the end;
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
    structure = as_document(text, format).structure
    for k, c in enumerate(chunks):
        assert isinstance(c, Chunk), f"chunk {k} is {type(c).__name__}, not Chunk"
        assert c.index == k, f"chunk {k} has index {c.index}"
        assert 0 <= c.start < c.end <= n, f"chunk {k} has span [{c.start}, {c.end}) in a text of length {n}"
        assert c.text == text[c.start : c.end], (
            f"chunk {k}: text {c.text!r} != doc[{c.start}:{c.end}] {text[c.start : c.end]!r}"
        )
        assert c.reason in REASONS, f"chunk {k} has unknown reason {c.reason!r}"
        assert c.boundary == structure.boundary_at(c.end), (
            f"chunk {k} says its cut at {c.end} is a {c.boundary!s} boundary; the document says {structure.boundary_at(c.end)!s}"
        )
        if c.reason == Reason.END_OF_DOCUMENT:
            assert c.end == n, f"chunk {k} says end_of_document but ends at {c.end} of {n}"
        assert allow_added_text or c.added_text == "", (
            f"chunk {k} of a flat span strategy has added text {c.added_text!r}"
        )
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
            assert prev.end < cur.end, (
                f"chunk {cur.index} [{cur.start}, {cur.end}) adds nothing after chunk {prev.index}"
            )
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
            assert size <= limit, (
                f"chunk {c.index} {c.text!r} has {size} > {limit} tokens and is not flagged indivisible"
            )
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


def cuts(chunks: Iterable[Chunk]) -> list[tuple[int, int, str]]:
    """(start, end, boundary) of every chunk: where each cut falls in the document's structure."""
    return [(c.start, c.end, str(c.boundary)) for c in chunks]


def boundaries(chunks: Iterable[Chunk]) -> list[str]:
    return [str(c.boundary) for c in chunks]


def reasons(chunks: Iterable[Chunk]) -> list[str]:
    return [str(c.reason) for c in chunks]


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
        [
            "the",
            "cat",
            "sat",
            "on",
            "a",
            "mat",
            "Dr.",
            "Smith",
            "said",
            "no",
            "3.5",
            "it's",
            "naïve",
            "日本語",
            "😀",
            "👍🏽",
        ]
    )
    sep = st.sampled_from([" ", " ", " ", ". ", "! ", "? ", ".\n", "\n\n", ".\r\n\r\n", ",  ", "\t"])
    return st.lists(st.tuples(word, sep), max_size=max_words).map(lambda pairs: "".join(w + s for w, s in pairs))


def any_text() -> st.SearchStrategy[str]:
    """Adversarial, prose-like or fully arbitrary text (including empty)."""
    return st.one_of(adversarial_text(), prose_text(), st.text(max_size=60))


# ----------------------------------------------------------------------------- sectioned documents
# Shared by the section strategies' tests (test_strategy_headings.py, test_strategy_hierarchical.py):
# sample Markdown / reStructuredText documents whose chunk texts are spelled out, the checkers of
# the section contract, and random Markdown-ish documents whose headings the generator knows.

GUIDE = "Guide"
AUTH = "Authentication"
OAUTH = "OAuth 2.0"

PRE = "Read this first.\n\n"
S_GUIDE = "# Guide\n\nWelcome to the guide.\n\n"
S_AUTH = "## Authentication\n\nUse an API key.\n\n"
S_OAUTH = "### OAuth 2.0\n\n```python\n# get a token (not a heading)\ntoken = fetch()\n```\n\n"
S_ERRORS = "## Errors ##\n\nRetry on 429.\n"
MD = PRE + S_GUIDE + S_AUTH + S_OAUTH + S_ERRORS


RST = "==========\nUser Guide\n==========\n\nIntro text.\n\n"
RST_INSTALL = "Install\n-------\n\nRun the installer::\n\n    # not a heading\n    ./install\n\n"
RST_OPTIONS = "Options\n~~~~~~~\n\nSome options.\n\n"
RST_USAGE = "Usage\n-----\n\nUse it.\n\n.. note:: Read the FAQ.\n"


def check_section_chunk(text: str, c: Chunk, k: int) -> None:
    """The span contract of one chunk of a section strategy (headings, hierarchical)."""
    assert isinstance(c, Chunk)
    assert c.index == k, f"chunk {k} has index {c.index}"
    assert 0 <= c.start < c.end <= len(text), (k, c.start, c.end, len(text))
    assert c.text == text[c.start : c.end]
    assert c.reason in REASONS, c.reason
    assert (c.reason == "end_of_document") == (c.end == len(text)), (k, c.reason, c.end, len(text))
    assert c.added_text == ""
    path = c.metadata["heading_path"]
    assert isinstance(path, list) and all(isinstance(t, str) for t in path)
    assert c.metadata["section"] == " > ".join(path)


def assert_tiles(text: str, parts: Sequence[Chunk], start: int, end: int, what: str) -> None:
    """``parts`` (in order) run contiguously from ``start`` to ``end``."""
    assert parts, f"{what}: no chunks"
    assert parts[0].start == start, f"{what}: starts at {parts[0].start}, not {start}"
    for a, b in zip(parts, parts[1:]):
        assert a.end == b.start, f"{what}: gap or overlap between [{a.start},{a.end}) and [{b.start},{b.end})"
    assert parts[-1].end == end, f"{what}: ends at {parts[-1].end}, not {end}"


def children_of(chunks: Sequence[Chunk]) -> dict[int, list[Chunk]]:
    kids: dict[int, list[Chunk]] = {}
    for c in chunks:
        if c.parent is not None:
            kids.setdefault(c.parent, []).append(c)
    return kids


def check_hierarchy(text: str, chunks: Sequence[Chunk]) -> None:
    """The multi-level rule of ``hierarchical`` (see its module docstring)."""
    if not text.strip():
        assert chunks == []
        return
    assert chunks
    for k, c in enumerate(chunks):
        check_section_chunk(text, c, k)
    # order: by level, then start; levels 0, 1, ... without holes; starts strictly increase in a level
    keys = [(c.level, c.start) for c in chunks]
    assert keys == sorted(keys) and len(set(keys)) == len(keys), "not ordered by (level, start)"
    levels = sorted({c.level for c in chunks})
    assert levels == list(range(len(levels)))
    for c in chunks:
        if c.level == 0:
            assert c.parent is None
        else:
            assert c.parent is not None and 0 <= c.parent < len(chunks)
            p = chunks[c.parent]
            assert p.level == c.level - 1, f"chunk {c.index} (level {c.level}) has parent of level {p.level}"
            assert p.start <= c.start and c.end <= p.end, f"chunk {c.index} lies outside its parent {p.index}"
            assert c.metadata["heading_path"][: len(p.metadata["heading_path"])] == p.metadata["heading_path"]
    # level 0 tiles the document
    top = [c for c in chunks if c.level == 0]
    assert_tiles(text, top, 0, len(text), "level 0")
    # children tile their parent exactly; no sibling overlaps
    kids = children_of(chunks)
    for parent_index, children in kids.items():
        p = chunks[parent_index]
        assert_tiles(text, children, p.start, p.end, f"children of chunk {parent_index}")
    # the leaves tile the document
    leaves = sorted((c for c in chunks if c.index not in kids), key=lambda c: c.start)
    assert_tiles(text, leaves, 0, len(text), "leaves")
    # within a level, chunks do not overlap
    for level in levels:
        row = [c for c in chunks if c.level == level]
        for a, b in zip(row, row[1:]):
            assert a.end <= b.start


HEADING_DOC_WORDS = [
    "alpha",
    "beta",
    "retry",
    "token",
    "naïve",
    "Über",
    "3.14",
    "C#",
    "x#y",
    "日本語のテキスト",
    "中文没有空格",
    "😀",
    "👍🏽",
    "👨\u200d👩\u200d👧",
    "e\u0301",
    "don't",
    "(x)",
    "—",
]


@dataclass(frozen=True)
class Head:
    start: int
    level: int
    title: str


@dataclass(frozen=True)
class HeadingDoc:
    text: str
    heads: tuple[Head, ...]


@st.composite
def markdown_docs(draw: st.DrawFn) -> HeadingDoc:
    """Headings of random levels (ATX, ATX with closing hashes, setext), paragraphs, fenced code
    holding ``#`` lines, blank-line runs; LF or CRLF; the generator records every heading."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    words = st.lists(st.sampled_from(HEADING_DOC_WORDS), min_size=1, max_size=8).map(" ".join)
    parts: list[str] = []
    heads: list[Head] = []
    pos = 0
    setext_h1_seen = False  # see test_setext_h1_after_setext_h2_is_level_1

    def add(s: str) -> None:
        nonlocal pos
        parts.append(s)
        pos += len(s)

    add(draw(st.sampled_from(["", nl, nl + nl, "  " + nl])))
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["heading", "heading", "heading", "paragraph", "paragraph", "code"]))
        if kind == "heading":
            level = draw(st.integers(1, 6))
            title = draw(words)
            style = draw(st.sampled_from(["atx", "atx", "closed", "setext"]))
            if style == "setext" and (level == 1 or (level == 2 and setext_h1_seen)):
                setext_h1_seen = setext_h1_seen or level == 1
                heads.append(Head(pos, level, title))
                add(title + nl + ("=" if level == 1 else "-") * draw(st.integers(3, 12)))
            else:
                heads.append(Head(pos, level, title))
                closing = " " + "#" * draw(st.integers(1, 4)) if style == "closed" else ""
                add("#" * level + " " + title + closing)
        elif kind == "paragraph":
            add(nl.join(draw(st.lists(words, min_size=1, max_size=3))))
        else:
            fence = draw(st.sampled_from(["```", "~~~", "````"]))
            body = draw(
                st.lists(
                    st.sampled_from(["# comment", "## not a heading", "x = 1", "#", "=====", "print('日本')"]),
                    max_size=4,
                )
            )
            add(fence + draw(st.sampled_from(["", "python", "sh"])) + nl + "".join(line + nl for line in body) + fence)
        add(draw(st.sampled_from([nl + nl, nl + nl + nl, nl + " " + nl])))
    return HeadingDoc("".join(parts), tuple(heads))


def oracle_paths(heads: Sequence[Head]) -> list[list[str]]:
    """Each heading's title path: titles of the open headings of lower level, then its own."""
    out: list[list[str]] = []
    stack: list[Head] = []
    for h in heads:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        out.append([s.title for s in stack])
    return out


# ----------------------------------------------------------------------------- multi-level chunkings
# Shared by test_strategy_parent_child.py, test_strategy_small_to_big.py and test_enrich.py.


def assert_valid_multilevel(text: str, chunks: list[Chunk]) -> tuple[list[Chunk], list[Chunk]]:
    """The multi-level convention; returns (parents, children)."""
    if not text.strip():
        assert chunks == []
        return [], []
    reasons = {str(r) for r in Reason}
    n = len(text)
    assert chunks
    for k, c in enumerate(chunks):
        assert c.index == k
        assert 0 <= c.start < c.end <= n, (k, c.start, c.end)
        assert c.text == text[c.start : c.end]
        assert c.reason in reasons
        if c.reason == Reason.END_OF_DOCUMENT:
            assert c.end == n
        assert c.added_text == ""
        assert c.level in (0, 1)
    levels = [c.level for c in chunks]
    assert levels == sorted(levels), "all parents first, then all children"
    parents = [c for c in chunks if c.level == 0]
    children = [c for c in chunks if c.level == 1]
    assert parents and children
    for level in (parents, children):
        for a, b in zip(level, level[1:]):
            assert (a.start, a.end) <= (b.start, b.end) and a.end <= b.end, "each level in document order"
    # parents: no parent, tile the document (so they cover every non-whitespace character)
    assert all(p.parent is None for p in parents)
    assert parents[0].start == 0 and parents[-1].end == n
    for a, b in zip(parents, parents[1:]):
        assert a.end == b.start
    # children: inside their parent, grouped by parent in order, covering the parent's non-space
    assert [c.parent for c in children] == sorted(c.parent for c in children)
    by_parent: dict[int, list[Chunk]] = {}
    for c in children:
        assert c.parent is not None and 0 <= c.parent < len(parents)
        p = chunks[c.parent]
        assert p.level == 0 and p.start <= c.start and c.end <= p.end, (c, p)
        by_parent.setdefault(c.parent, []).append(c)
    assert set(by_parent) == set(range(len(parents))), "every parent has children"
    for index, kids in by_parent.items():
        p = chunks[index]
        covered = p.start
        for c in kids:
            assert not text[covered : c.start].strip(), f"parent {index}: {text[covered : c.start]!r} in no child"
            covered = max(covered, c.end)
        assert not text[covered : p.end].strip()
    return parents, children


MULTILEVEL_HEADINGS = [
    "# Title\n",
    "\n## Section two\n",
    "\n### Deep heading ###\n",
    "Setext\n======\n",
    "```\n# not a heading\n```\n",
    "\r\n# CRLF heading\r\n",
    "#\n",
    "    # indented code\n",
]


def long_pieces(max_emoji_runs: int = 30) -> st.SearchStrategy[str]:
    """Very long words, long CJK runs, long whitespace and CRLF runs, long emoji runs."""
    return st.one_of(
        st.integers(40, 300).map(lambda n: "x" * n),
        st.integers(5, 60).map(lambda n: "中文没有空格也能分词吗" * (n // 5 + 1)),
        st.integers(5, 80).map(lambda n: " " * n),
        st.integers(2, 20).map(lambda n: "\r\n" * n),
        st.integers(2, max_emoji_runs).map(lambda n: "😀👍🏽👨\u200d👩\u200d👧" * n),
    )


def realdoc_text_paths() -> list[Path]:
    """The real Markdown, reStructuredText and plain-text documents (empty when absent)."""
    return [p for p in realdoc_paths() if p.suffix in (".md", ".rst", ".txt")]


def multilevel_text() -> st.SearchStrategy[str]:
    long_piece = long_pieces(20)
    piece = st.one_of(
        long_piece, st.sampled_from(ADVERSARIAL_PIECES), st.sampled_from(MULTILEVEL_HEADINGS), prose_text(12)
    )
    return st.one_of(
        adversarial_text(40), prose_text(100), st.lists(piece, max_size=14).map("".join), st.text(max_size=60)
    )


MULTILEVEL_TOKENIZERS = ["words", "chars", "cl100k_base", "minilm"]


@st.composite
def parent_child_params(draw: st.DrawFn) -> dict[str, Any]:
    parent = draw(st.integers(2, 40))
    child = draw(st.integers(1, parent - 1))
    return {
        "parent_size": parent,
        "child_size": child,
        "child_overlap": draw(st.integers(0, child - 1)),
        "parents": draw(st.sampled_from(["fixed", "sections"])),
    }


# ----------------------------------------------------------------------------- semantic chunking
# Shared by tests/test_semantic_*.py, test_strategy_semantic.py and test_explain.py: the topic-shift
# document, a cheap deterministic stand-in embedder and the check of a semantic chunking. The
# embedding model itself is loaded (once per session) only by the tests that use it.
import re  # noqa: E402
import zlib  # noqa: E402

import numpy as np  # noqa: E402

import chunkviz.semantic.embeddings as embeddings  # noqa: E402
from chunkviz.semantic import DEFAULT_MODEL, EmbeddingModel, semantic_chunking  # noqa: E402
from chunkviz.vocabulary import Meta  # noqa: E402

SPECIALS = 2  # [CLS] and [SEP] of the MiniLM tokenizer
MINILM_LIMIT = 256


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

    def encode(self, texts, progress=None, batch=512):  # noqa: ANN001, ANN201
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


# ----------------------------------------------------------------------------- browser tests
@pytest.fixture(scope="module")
def sync_api():  # noqa: ANN201 - the playwright.sync_api module
    """Playwright's sync API; the browser tests are skipped, with the reason, without Chromium or playwright."""
    from browser_support import CHROMIUM

    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package 'chromium'; see .ci/run)")
    try:
        from playwright import sync_api
    except ImportError:
        pytest.skip("the playwright Python package is not installed")
    return sync_api


@pytest.fixture(scope="module")
def browser(sync_api):  # noqa: ANN001, ANN201 - a playwright Browser
    from browser_support import chromium

    with chromium(sync_api) as launched:
        yield launched


@pytest.fixture(scope="module")
def server(sync_api, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN001, ANN201 - the app's URL
    """The app (app.py) served by ``streamlit run`` on a free port, with its own embedding cache;
    yields its URL. Modules that serve a demo app define their own ``server``."""
    from browser_support import streamlit_server

    env = {"CHUNKVIZ_CACHE_DIR": str(tmp_path_factory.mktemp("chunkviz-cache"))}
    with streamlit_server(
        Path(__file__).resolve().parent.parent / "app.py", tmp_path_factory.mktemp("streamlit"), env
    ) as url:
        yield url


@pytest.fixture
def page(browser, server: str):  # noqa: ANN001, ANN201 - a playwright Page
    """A 1500x1100 page on the app once the document view shows chunks; it must end without
    page errors."""
    from browser_support import open_page

    page = open_page(browser, server)
    page.wait_for_selector("[data-chunk-index]")
    yield page
    errors = list(page.page_errors)
    page.context.close()
    assert errors == [], f"page errors: {errors}"
