"""Span counting: exact token counts of document spans by arithmetic on one tokenization."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import read_realdoc, realdoc_text_paths
from support.texts import ADVERSARIAL_PIECES, adversarial_text, prose_text

from chunkviz.text.spancount import (
    SpanCounter,
    best_cut,
    clear_shared_counters,
    shared_counter,
)
from chunkviz.text.tokenizers import TokenBoundaries, Tokenizer, get_tokenizer


def adversarial_strings(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(st.sampled_from(ADVERSARIAL_PIECES), max_size=max_size // 3).map("".join),
        adversarial_text(max_pieces=8),
    )


def _check_span_counts(text: str, name: str, all_pairs_limit: int = 70) -> None:
    tok = get_tokenizer(name)
    counter = SpanCounter(text, tok)
    n = len(text)
    if n <= all_pairs_limit:
        pairs = [(s, e) for s in range(n + 1) for e in range(s, n + 1)]
    else:  # clean cuts exhaustively (that is where arithmetic is used), a sample of the rest
        clean = [p for p in range(n + 1) if tok.is_clean_cut(text, p)]
        pairs = [(s, e) for s in clean for e in clean if s <= e][:5000]
        pairs += [(s, e) for s in range(0, n + 1, 7) for e in range(s, n + 1, 5)]
    expected = [tok._count(text[s:e]) for s, e in pairs]  # uncached, straight from the tokenizer
    for (s, e), count in zip(pairs, expected):
        assert counter.count(s, e) == count, (name, text, s, e, text[s:e])
    assert counter.count(5, 2) == 0
    # many spans at once: the same numbers, empty and reversed spans included
    assert SpanCounter(text, tok).count_many([*pairs, (5, 2)]) == [*expected, 0], (name, text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=adversarial_strings(50))
def test_span_counter_is_exact_cl100k(text: str) -> None:
    _check_span_counts(text, "cl100k_base")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=adversarial_strings(50), name=st.sampled_from(["words", "chars"]))
def test_span_counter_is_exact_words_chars(text: str, name: str) -> None:
    _check_span_counts(text, name)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=adversarial_strings(40))
def test_span_counter_is_exact_minilm(text: str) -> None:
    _check_span_counts(text, "minilm")


def test_span_counter_on_a_long_mixed_text() -> None:
    text = ("Para 😀 one.\r\n\r\n日本語のテキスト. don't  stop\tnow!\n" * 30)[:1500]
    _check_span_counts(text, "cl100k_base")


@pytest.mark.parametrize("name", ["cl100k_base", "words", "chars"])
def test_token_positions_and_estimates(name: str) -> None:
    text = "  Alpha beta 😀 gamma.\n\nDelta, epsilon! 日本語\n"
    tok = get_tokenizer(name)
    counter = SpanCounter(text, tok)
    positions = counter.bounds.positions.tolist()
    n = counter.total
    assert list(counter.starts) == positions[:-1]
    assert counter.char_at_token(-3) == positions[0] if n else len(text)
    assert [counter.char_at_token(k) for k in range(n)] == positions[:-1]
    assert counter.char_at_token(n) == counter.char_at_token(n + 5) == len(text)
    for pos in range(len(text) + 1):
        before = sum(1 for p in positions[:-1] if p < pos)
        assert counter.tokens_before(pos) == before
        assert counter.tokens_before_many([pos, 0]) == [before, 0]
        assert counter.estimate(0, pos) == before
        if counter.is_clean(pos):
            assert counter.count(0, pos) == tok._count(text[:pos])


def test_clean_cut_rule_is_the_tokenizers_rule() -> None:
    text = "hello world.\nnext line"
    for name in ("cl100k_base", "words", "chars", "minilm"):
        tok = get_tokenizer(name)
        rule = tok.clean_cut_rule
        assert [rule(text, p) for p in range(len(text) + 1)] == [
            tok.is_clean_cut(text, p) for p in range(len(text) + 1)
        ]


@pytest.mark.parametrize(
    ("text", "start", "end", "expected", "clean"),
    [
        ("one\n\ntwo", 3, 5, 5, True),  # just after the last line break: the next piece starts a line
        ("one two", 3, 4, 3, True),  # a space run: its start (before the space)
        ("one.\n\ntwo", 4, 6, 6, True),
        ("one.\n\n  two", 4, 8, 6, False),  # no clean cut in the run: after its last line break
    ],
)
def test_best_cut_prefers_a_line_start(text: str, start: int, end: int, expected: int, clean: bool) -> None:
    counter = SpanCounter(text, get_tokenizer("cl100k_base"))
    assert best_cut(text, start, end, counter) == expected
    assert counter.is_clean(expected) is clean


def test_shared_counters_are_reused_and_cleared() -> None:
    tok = get_tokenizer("cl100k_base")
    text = "shared counter text " * 10
    first = shared_counter(text, tok)
    assert shared_counter(text, tok) is first
    assert shared_counter(text + ".", tok) is not first
    clear_shared_counters()
    assert shared_counter(text, tok) is not first


# ----------------------------------------------------------------------------- counts from the edges
# A span whose ends are not clean cuts is counted as its edges (tokenized alone) plus arithmetic
# between the clean cuts nearest to them: the same number as tokenizing the whole span.


def _random_spans(text: str, data: st.DataObject, n: int = 40) -> list[tuple[int, int]]:
    size = len(text)
    starts = data.draw(st.lists(st.integers(0, size), min_size=n, max_size=n))
    lengths = data.draw(st.lists(st.integers(0, 400), min_size=n, max_size=n))
    return [(s, min(size, s + k)) for s, k in zip(starts, lengths)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(adversarial_text(max_pieces=60), prose_text(max_words=150)),
    name=st.sampled_from(["cl100k_base", "words", "chars", "minilm"]),
    data=st.data(),
)
def test_counts_from_the_edges_equal_the_spans_own_count(text: str, name: str, data: st.DataObject) -> None:
    tok = get_tokenizer(name)
    counter = SpanCounter(text, tok)
    spans = _random_spans(text, data)
    expected = [tok._count(text[start:end]) for start, end in spans]
    for (start, end), count in zip(spans, expected):
        assert counter.count(start, end) == count, (name, text, start, end)
    assert counter.count_many(spans) == expected, (name, text)


def test_counts_from_the_edges_on_real_documents() -> None:
    tok = get_tokenizer("cl100k_base")
    paths = realdoc_text_paths()
    if not paths:
        pytest.skip("shared realdocs folder not found")
    for path in paths:
        text = read_realdoc(path)[:60_000]
        counter = SpanCounter(text, tok)
        for start in range(0, len(text) - 1, 997):
            for length in (1, 2, 7, 50, 311, 2048):
                end = min(len(text), start + length)
                assert counter.count(start, end) == tok._count(text[start:end]), (path.name, start, end)


def test_a_span_cut_inside_words_tokenizes_only_its_edges() -> None:
    tok = get_tokenizer("cl100k_base")
    text = "Alpha bravo charlie delta echo foxtrot golf hotel india juliet. " * 20
    counter = SpanCounter(text, tok)
    start, end = text.index("ravo"), text.rindex("ndia")  # both inside a word
    assert not counter.is_clean(start) and not counter.is_clean(end)
    tokenized: list[str] = []
    memoized, inner = tok.count, tok._count
    tok.count = lambda s: tokenized.append(s) or inner(s)  # type: ignore[method-assign]  # record, unmemoized
    try:
        assert counter.count(start, end) == inner(text[start:end])
    finally:
        tok.count = memoized  # type: ignore[method-assign]
    assert tokenized == [
        "ravo",
        " i",
    ]  # to the first clean cut, from the last one (before a space): the rest is arithmetic


def test_count_many_tokenizes_only_the_edges_of_spans_cut_inside_words() -> None:
    tok = get_tokenizer("cl100k_base")
    text = "Alpha bravo charlie delta echo foxtrot golf hotel india juliet. " * 20
    counter = SpanCounter(text, tok)
    spans = [(text.index("ravo"), text.rindex("ndia")), (0, len(text)), (text.index("bravo"), text.index(" golf"))]
    tokenized: list[str] = []
    memoized, inner = tok.count, tok._count
    tok.count = lambda s: tokenized.append(s) or inner(s)  # type: ignore[method-assign]  # record, unmemoized
    try:
        assert counter.count_many(spans) == [inner(text[a:b]) for a, b in spans]
    finally:
        tok.count = memoized  # type: ignore[method-assign]
    # the first span's two edges, the whole text none (both ends clean), the third its head only
    # (a cut before "bravo" splits the token " bravo"; the cut before " golf" is clean)
    assert tokenized == ["ravo", " i", "bravo"]


def test_a_tokenizer_without_a_local_rule_counts_spans_whole() -> None:
    class EndsOnly(Tokenizer):
        name, description = "ends-only", "words, clean cuts only at the ends"

        def _count(self, text: str) -> int:
            return len(text.split())

        def boundaries(self, text: str) -> TokenBoundaries:
            return get_tokenizer("words").boundaries(text)

    tok = EndsOnly()
    text = "one two three four five"
    assert not tok.clean_cut_is_local
    assert SpanCounter(text, tok).count(1, 12) == 3  # "ne two thre" tokenized whole
    assert SpanCounter(text, tok).count_many([(1, 12), (0, 3), (4, 4)]) == [3, 1, 0]
