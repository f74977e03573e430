"""Texts for tests: hypothesis settings, generators of adversarial, prose, Markdown and multi-level
text, and the fixed sample documents of the section strategies' tests."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck
from hypothesis import strategies as st

#: hypothesis settings of the property tests: no deadline (shared machines are noisy)
SETTINGS: dict[str, Any] = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
#: multiply every example count (e.g. CHUNKVIZ_HYPOTHESIS_SCALE=20 for a long hunt)
SCALE = float(os.environ.get("CHUNKVIZ_HYPOTHESIS_SCALE", "1"))


def examples(n: int) -> int:
    return max(1, int(n * SCALE))


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


# ----------------------------------------------------------------------------- Markdown with known headings

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


# ----------------------------------------------------------------------------- multi-level chunkings
# Shared by test_strategy_parent_child.py, test_strategy_small_to_big.py and test_enrich.py.

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
