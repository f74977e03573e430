"""Issue 13 item 3: every strategy does work near-linear in the document's length.

No clock is read. The work of one chunking is counted twice, deterministically:

- the lines of chunkviz's own code that run (``sys.settrace`` line events in ``chunkviz/``): a
  loop over a whitespace run or over candidate cuts shows up here, however it is written;
- the characters given to the tokenizer (its ``count`` and ``boundaries``): re-tokenizing a
  growing span shows up here even though it runs in C.

Each case runs at ``N`` and ``4 * N`` characters; near-linear means the work grows at most
:data:`MAX_RATIO` times (linear: 4, quadratic: 16; tokenized characters may also gain two passes
over the text). The cases are the issue's reproductions
(long blank-line runs with and without Markdown, ``" \\n"`` lines, one long line with the
``chars`` tokenizer, long space and CRLF runs), ordinary prose, and many sections, table rows
and functions, for every strategy but
``llm`` at its smallest allowed limits, and at its defaults. Semantic strategies embed with a
cheap stand-in (``fake_model``), so only the chunking work is counted.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import pytest
from support.semantic import embedding_strategies

import chunkviz
from chunkviz.document.model import Document
from chunkviz.semantic import cache as semantic_cache
from chunkviz.strategies.peers.catalogue import PEER_NAMES
from chunkviz.text.spancount import clear_shared_counters
from chunkviz.text.tokenizers import TokenBoundaries, Tokenizer, get_tokenizer

N = 1_000
MAX_RATIO = 6.0
CHUNKVIZ_DIR = os.path.dirname(chunkviz.__file__)

PROSE_WORDS = "the station gauge read 3.5 m at dawn; Dr. Smith logged it, and the river rose again".split()


def prose(n: int) -> str:
    """Sentences and paragraphs of varied words (no two sentences alike), about ``n`` characters."""
    out, k = [], 0
    while sum(map(len, out)) < n:
        words = [PROSE_WORDS[(k * 7 + i * 3) % len(PROSE_WORDS)] for i in range(5 + k % 9)]
        end = ".\n\n" if k % 4 == 3 else ". "
        out.append(f"{' '.join(words).capitalize()} {k}{end}")
        k += 1
    return "".join(out)


TEXTS: dict[str, Callable[[int], str]] = {
    # 40,000 newlines after a word took 99.8 s in recursive at default settings
    "newline_run": lambda n: "word\n" + "\n" * n + "word\n",
    # 20,000 blank lines around one word with tiny limits: 6-22 s in five strategies
    "blank_lines_around_a_word": lambda n: "\n" * (n // 2) + "word" + "\n" * (n // 2),
    # 15,000 lines of " \n": 27.8 s
    "space_newline_lines": lambda n: "w" + " \n" * (n // 2) + "w",
    # a Markdown file of blank lines (paragraphs, headings, sentences, small_to_big, tables, code)
    "markdown_blank_lines": lambda n: (
        "# Title\n\nword\n" + "\n" * n + "| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n"
    ),
    "space_run": lambda n: "a" + " " * n + "b",
    "crlf_run": lambda n: "a" + "\r\n" * (n // 2) + "b",
    "one_long_line": lambda n: "abcdefghij" * (n // 10),
    "prose": prose,
    # many units of the structure-aware strategies: sections, table rows, functions
    "many_headings": lambda n: "".join(
        f"{'#' * (1 + k % 6)} Heading {k}\n\nText {k} here.\n\n" for k in range(n // 30)
    ),
    "long_table": lambda n: "| a | b |\n|---|---|\n" + "".join(f"| {k} | x{k} |\n" for k in range(n // 12)),
    "many_functions": lambda n: (
        "class A:\n" + "".join(f"    def m{k}(self):\n        return {k}\n\n" for k in range(n // 40))
    ),
}

#: Each strategy at its smallest allowed limits (and, where a parameter changes the algorithm, its
#: other settings).
SMALLEST: dict[str, list[dict[str, Any]]] = {
    "fixed_tokens": [{"chunk_size": 1, "overlap": 0}],
    "fixed_chars": [{"chunk_size": 1, "overlap": 0}],
    "sentences": [{"max_tokens": 1, "overlap_sentences": 0}, {"max_tokens": 2, "overlap_sentences": 100}],
    "paragraphs": [{"min_tokens": 1, "max_tokens": 1}, {"min_tokens": 0, "max_tokens": 2}],
    "recursive": [
        {"chunk_size": 1, "overlap": 0},
        {"chunk_size": 5, "overlap": 2},
        {"chunk_size": 2, "overlap": 1, "separators": "markdown"},
    ],
    "recursive_langchain": [{"chunk_size": 1, "overlap": 0}, {"chunk_size": 2, "overlap": 2}],
    "semantic": [{"max_tokens": 3}, {"max_tokens": 3, "min_tokens": 3, "buffer_size": 5}],
    "cluster": [{"max_tokens": 1, "min_tokens": 1}, {"max_tokens": 6, "min_tokens": 2}],
    "headings": [{"max_tokens": 1}, {"max_tokens": 5, "merge_small": 4}],
    "hierarchical": [{"depth": 6, "max_tokens": 1, "split_oversized": True}],
    "tables": [{"max_tokens": 1, "rows_per_chunk": 1, "text_overlap": 0}, {"max_tokens": 2, "text_overlap": 1}],
    "code": [{"max_tokens": 1}],
    "parent_child": [
        {"parent_size": 2, "child_size": 1, "child_overlap": 0},
        {"parent_size": 3, "child_size": 2, "child_overlap": 1, "parents": "sections"},
    ],
    "small_to_big": [{"max_parent_tokens": 1, "max_child_tokens": 1}, {"max_parent_tokens": 5, "max_child_tokens": 2}],
}
#: ``llm``: its work is the model's answers, measured by its own tests; the peers (LangChain,
#: semchunk, Chonkie) run another library's code as its users run it, which is theirs to make linear.
NOT_MEASURED = {"llm"} | set(PEER_NAMES)
#: Strategies that embed (a stand-in model here: the chunking work is what is measured).
EMBEDS = embedding_strategies()


class CountingTokenizer(Tokenizer):
    """A tokenizer that counts the characters it is given, delegating everything to ``inner``."""

    def __init__(self, inner: Tokenizer) -> None:
        super().__init__()
        self.inner = inner
        self.name = f"counting-{inner.name}"
        self.description = inner.description
        self.special_tokens = inner.special_tokens
        self.chars = 0

    def _count(self, text: str) -> int:
        self.chars += len(text)
        return self.inner._count(text)

    def boundaries(self, text: str) -> TokenBoundaries:
        self.chars += len(text)
        return self.inner.boundaries(text)

    def is_clean_cut(self, text: str, pos: int) -> bool:
        return self.inner.is_clean_cut(text, pos)

    @property
    def clean_cut_rule(self) -> Callable[[str, int], bool]:
        return self.inner.clean_cut_rule


class LineCounter:
    """``sys.settrace`` hook counting the line events of chunkviz's code only (:attr:`trace`).

    The local trace function is a closure over a one-item list (no attribute lookups: it runs for
    every line), and whether a code object is chunkviz's is decided once per code object."""

    def __init__(self) -> None:
        count = [0]
        ours: dict[Any, bool] = {}

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                count[0] += 1
            return local

        def trace(frame: Any, event: str, arg: Any) -> Any:
            code = frame.f_code
            mine = ours.get(code)
            if mine is None:
                mine = ours[code] = code.co_filename.startswith(CHUNKVIZ_DIR)
            return local if mine else None

        self._count, self.trace = count, trace

    @property
    def lines(self) -> int:
        return self._count[0]


def work(text: str, name: str, params: dict[str, Any], tokenizer: str) -> tuple[int, int]:
    """(chunkviz lines run, characters tokenized) to chunk ``text``, from cold caches."""
    clear_shared_counters()
    semantic_cache.clear_memory_cache()
    counting = CountingTokenizer(get_tokenizer(tokenizer))
    lines = LineCounter()
    sys.settrace(lines.trace)
    try:
        chunks = chunkviz.chunk(Document(text), name, tokenizer=counting, **params)  # a fresh structure
    finally:
        sys.settrace(None)
    assert chunks, "the text has content"
    return lines.lines, counting.chars


def growth(name: str, params: dict[str, Any], text_kind: str, tokenizer: str, n: int) -> tuple[str | None, str]:
    """Work at ``n`` and ``4 * n`` characters: what grew too fast (None: nothing) and the numbers."""
    make = TEXTS[text_kind]
    small_lines, small_chars = work(make(n), name, params, tokenizer)
    large_lines, large_chars = work(make(4 * n), name, params, tokenizer)
    numbers = (
        f"{name} {params} on {text_kind} ({tokenizer}): at {n} / {4 * n} chars, {small_lines} / {large_lines} "
        f"lines of chunkviz code (x{large_lines / max(small_lines, 1):.1f}), {small_chars} / {large_chars} "
        f"characters tokenized (x{large_chars / max(small_chars, 1):.1f}); linear is x4"
    )
    if large_lines > MAX_RATIO * max(small_lines, 1):
        return "lines", numbers
    # tokenized characters may gain up to two passes over the text as the number of chunks grows
    # from one (a single chunk's count is arithmetic; several chunks are each tokenized alone)
    if large_chars > MAX_RATIO * small_chars + 2 * 4 * n:
        return "tokenized characters", numbers
    return None, numbers


def assert_near_linear(name: str, params: dict[str, Any], text_kind: str, tokenizer: str = "cl100k_base") -> None:
    """Work grows near-linearly from N to 4N characters, or else from 4N to 16N: a text that fits
    one chunk at N but not at 4N (e.g. with default limits) starts splitting in between, a one-off
    step; quadratic work grows 16 times over both."""
    grew, numbers = growth(name, params, text_kind, tokenizer, N)
    if grew is not None:
        grew, again = growth(name, params, text_kind, tokenizer, 4 * N)
        assert grew is None, f"{grew} grew too fast: {numbers}; {again}"


def _cases() -> list[Any]:
    names = [s["name"] for s in chunkviz.strategies() if s["name"] not in NOT_MEASURED]
    cases = []
    for name in names:
        for params in [*SMALLEST.get(name, []), {}]:
            for kind in TEXTS:
                if name in EMBEDS and kind not in ("prose", "blank_lines_around_a_word", "one_long_line"):
                    continue  # embedding a stand-in: three texts show the chunking work
                label = f"{name}-{'default' if not params else 'small' + str(SMALLEST[name].index(params))}-{kind}"
                cases.append(pytest.param(name, params, kind, id=label))
    return cases


def test_every_strategy_has_smallest_limits_here() -> None:
    """A strategy added later is measured at its defaults at least; its smallest limits belong here."""
    names = {s["name"] for s in chunkviz.strategies()} - NOT_MEASURED
    assert names <= set(SMALLEST), f"add the smallest limits of {sorted(names - set(SMALLEST))} to SMALLEST"


@pytest.mark.parametrize(("name", "params", "text_kind"), _cases())
def test_work_is_near_linear(name: str, params: dict[str, Any], text_kind: str, request: pytest.FixtureRequest) -> None:
    if name in EMBEDS:
        params = {**params, "model": request.getfixturevalue("fake_model")}
        request.getfixturevalue("semantic_cache_dir")
    assert_near_linear(name, params, text_kind)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("recursive", {"chunk_size": 1, "overlap": 0}),
        ("recursive", {"chunk_size": 3, "overlap": 2}),
        ("sentences", {"max_tokens": 1, "overlap_sentences": 3}),
        ("paragraphs", {"min_tokens": 1, "max_tokens": 1}),
        ("headings", {"max_tokens": 1}),
        ("small_to_big", {"max_parent_tokens": 1, "max_child_tokens": 1}),
        ("parent_child", {"parent_size": 2, "child_size": 1, "child_overlap": 0}),
        ("fixed_tokens", {"chunk_size": 1, "overlap": 0}),
        ("tables", {"max_tokens": 1, "rows_per_chunk": 1}),
        ("code", {"max_tokens": 1}),
    ],
)
@pytest.mark.parametrize("text_kind", ["one_long_line", "space_run"])
def test_chars_tokenizer_with_tiny_limits_is_near_linear(name: str, params: dict[str, Any], text_kind: str) -> None:
    """One long line with the chars tokenizer and tiny limits: runs of 34-182 s were seen."""
    assert_near_linear(name, params, text_kind, tokenizer="chars")


def test_the_measures_count_what_they_say() -> None:
    """Tokenized characters are counted on both paths; chunkviz lines are counted, other code not."""
    counting = CountingTokenizer(get_tokenizer("cl100k_base"))
    counting.count("abc")
    counting.count("abc")  # memoized: not tokenized again
    counting.boundaries("hello world")
    assert counting.chars == 3 + 11
    lines = LineCounter()
    sys.settrace(lines.trace)
    try:
        sum(range(10))  # not chunkviz code
        from_here = lines.lines
        chunkviz.chunk("one two", "fixed_chars", chunk_size=3, overlap=0)
    finally:
        sys.settrace(None)
    assert from_here == 0 and lines.lines > 0


def test_a_quadratic_run_scan_would_fail() -> None:
    """Quadratic work grows 16 times for 4 times the text: far over MAX_RATIO."""
    counting = CountingTokenizer(get_tokenizer("chars"))

    def rescan_growing_spans(n: int) -> int:  # what best_cut-like code did over a run
        counting.chars = 0
        text = "\n" * n
        for end in range(1, n + 1, 7):
            counting.boundaries(text[:end])
        return counting.chars

    assert rescan_growing_spans(4 * N) > MAX_RATIO * rescan_growing_spans(N)


# ----------------------------------------------------------------------------- the issue's cases

#: Work per character of the document that no reproduction may exceed (lines of chunkviz code run,
#: characters tokenized). Linear code stays far below (one chunk per character of a long line with
#: the chars tokenizer is about 230 lines per character); the quadratic code ran thousands of lines
#: per character at these sizes (and minutes of wall time).
MAX_LINES_PER_CHAR = 400
MAX_TOKENIZED_PER_CHAR = 12

BLANK_AROUND_A_WORD = "\n" * 20_000 + "word" + "\n" * 20_000
MARKDOWN_BLANK_LINES = "# Notes\n\nword\n" + "\n" * 30_000 + "word\n"
ONE_LONG_LINE = "abcdefghij" * 1_000

REPRODUCTIONS = [
    # python -c "open('b.txt','w').write('word\n'+'\n'*40000+'word\n')"; chunkviz chunk b.txt -s recursive: 99.8 s
    ("word\n" + "\n" * 40_000 + "word\n", "recursive", {}, "cl100k_base"),
    ("word\n" + "\n" * 40_000 + "word\n", "recursive", {"chunk_size": 5, "overlap": 0}, "cl100k_base"),  # 113 s
    ("w\n" + " \n" * 15_000 + "w\n", "recursive", {}, "cl100k_base"),  # 27.8 s
    (BLANK_AROUND_A_WORD, "small_to_big", {"max_parent_tokens": 5, "max_child_tokens": 2}, "cl100k_base"),  # 21.6 s
    (BLANK_AROUND_A_WORD, "recursive", {"chunk_size": 5, "overlap": 2}, "cl100k_base"),  # 15.6 s
    (BLANK_AROUND_A_WORD, "headings", {"max_tokens": 5}, "cl100k_base"),  # 15.3 s
    (BLANK_AROUND_A_WORD, "paragraphs", {"min_tokens": 1, "max_tokens": 2}, "cl100k_base"),  # 12.2 s
    (BLANK_AROUND_A_WORD, "sentences", {"max_tokens": 2}, "cl100k_base"),  # 6.5 s
    *(
        (MARKDOWN_BLANK_LINES, name, {}, "cl100k_base")
        for name in ("paragraphs", "headings", "sentences", "small_to_big", "tables", "code")
    ),
    *(
        (ONE_LONG_LINE, name, params, "chars")  # one long line, chars tokenizer, tiny limits: 34-182 s
        for name, params in (
            ("recursive", {"chunk_size": 1, "overlap": 0}),
            ("sentences", {"max_tokens": 1}),
            ("paragraphs", {"min_tokens": 0, "max_tokens": 1}),
            ("headings", {"max_tokens": 1}),
            ("small_to_big", {"max_parent_tokens": 1, "max_child_tokens": 1}),
        )
    ),
]


@pytest.mark.parametrize(
    ("text", "name", "params", "tokenizer"),
    [pytest.param(*case, id=f"{case[1]}-{len(case[0])}chars-{case[3]}-{k}") for k, case in enumerate(REPRODUCTIONS)],
)
def test_issue_reproductions_do_bounded_work_per_character(
    text: str, name: str, params: dict[str, Any], tokenizer: str
) -> None:
    lines, tokenized = work(text, name, params, tokenizer)
    assert lines <= MAX_LINES_PER_CHAR * len(text), f"{lines / len(text):.0f} lines of chunkviz code per character"
    assert tokenized <= MAX_TOKENIZED_PER_CHAR * len(text), (
        f"{tokenized / len(text):.1f} characters tokenized per character"
    )
