"""Token windows (chunkviz/splitting/windows.py): window starts, tiles, overlapping windows, the tokens of
a span and a window's metadata, on small cases worked out by hand.

The ``words`` tokenizer puts a token at the start of each word (the space after a word belongs to
it), so ``"aa bb cc dd ee"`` has tokens starting at 0, 3, 6, 9, 12. Multibyte cases use
hand-built :class:`SpanTokens`, whose ``exact`` flags say which token starts were snapped down
to a character's start.
"""

from __future__ import annotations

import pytest

from chunkviz.core.vocabulary import Meta
from chunkviz.splitting.windows import (
    RETOKENIZED_NOTE,
    SpanTokens,
    Window,
    document_tokens,
    overlapping_windows,
    tiles,
    tokens_of_span,
    window_metadata,
    window_starts,
)
from chunkviz.text.spancount import SpanCounter
from chunkviz.text.tokenizers import get_tokenizer

WORDS = get_tokenizer("words")
TEXT = "aa bb cc dd ee"


def doc_tokens(text: str = TEXT) -> tuple[SpanCounter, SpanTokens]:
    counter = SpanCounter(text, WORDS)
    return counter, document_tokens(text, counter)


def spans(windows: list[Window], text: str = TEXT) -> list[str]:
    return [text[w.start : w.end] for w in windows]


@pytest.mark.parametrize(
    ("n_units", "size", "overlap", "expected"),
    [
        pytest.param(0, 3, 1, [], id="nothing"),
        pytest.param(5, 10, 0, [0], id="one-window"),
        pytest.param(4, 4, 1, [0], id="exactly-one-window"),
        pytest.param(10, 4, 0, [0, 4, 8], id="tiles-last-short"),
        pytest.param(12, 4, 0, [0, 4, 8], id="tiles-exact"),
        pytest.param(10, 4, 2, [0, 2, 4, 6], id="overlap-half"),
        pytest.param(5, 4, 3, [0, 1], id="overlap=size-1"),
        pytest.param(11, 4, 2, [0, 2, 4, 6, 8], id="last-window-reaches-the-end"),
    ],
)
def test_window_starts(n_units: int, size: int, overlap: int, expected: list[int]) -> None:
    starts = list(window_starts(n_units, size, overlap))
    assert starts == expected
    if n_units:
        assert starts[-1] + size >= n_units, "the last window reaches the end"


def test_document_tokens_are_the_counters_tokenization() -> None:
    _, tokens = doc_tokens()
    assert list(tokens.starts) == [0, 3, 6, 9, 12]
    assert tokens.n == 5 and (tokens.start, tokens.end) == (0, len(TEXT))
    assert [tokens.char_at(k) for k in (-1, 0, 1, 4, 5, 9)] == [0, 0, 3, 12, 14, 14]
    assert all(tokens.exact_at(k) for k in range(6))


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (1, ["aa ", "bb ", "cc ", "dd ", "ee"]),
        (2, ["aa bb ", "cc dd ", "ee"]),
        (5, [TEXT]),
        (9, [TEXT]),
    ],
)
def test_tiles(size: int, expected: list[str]) -> None:
    _, tokens = doc_tokens()
    windows = tiles(tokens, size)
    assert spans(windows) == expected
    assert all(a.end == b.start for a, b in zip(windows, windows[1:])), "tiles meet"
    assert [w.tokens for w in windows] == [min(size, 5 - k * size) for k in range(len(expected))]


@pytest.mark.parametrize(
    ("size", "overlap", "expected"),
    [
        (3, 1, ["aa bb cc ", "cc dd ee"]),
        (2, 1, ["aa bb ", "bb cc ", "cc dd ", "dd ee"]),
        (4, 3, ["aa bb cc dd ", "bb cc dd ee"]),
        (2, 0, ["aa bb ", "cc dd ", "ee"]),  # no overlap: the tiles
    ],
)
def test_overlapping_windows(size: int, overlap: int, expected: list[str]) -> None:
    _, tokens = doc_tokens()
    assert spans(overlapping_windows(tokens, size, overlap)) == expected


def test_a_span_without_tokens_is_one_empty_window() -> None:
    empty = SpanTokens(4, 4, [], [])
    assert tiles(empty, 3) == [Window(4, 4, 0, 0)]
    assert overlapping_windows(empty, 3, 1) == [Window(4, 4, 0, 0)]


def test_tokens_of_a_span_between_clean_cuts_are_the_documents() -> None:
    counter, doc = doc_tokens()
    part = tokens_of_span(TEXT, counter, doc, 3, 9)  # "bb cc "
    assert (part.start, part.end, list(part.starts)) == (3, 9, [3, 6])
    assert [part.char_at(k) for k in range(3)] == [3, 6, 9]


def test_tokens_of_a_span_cut_inside_a_word_are_its_own() -> None:
    counter, doc = doc_tokens()
    assert not counter.is_clean(4)  # inside "bb"
    part = tokens_of_span(TEXT, counter, doc, 4, 9)  # "b cc ": tokenized alone
    assert (part.start, part.end, list(part.starts)) == (4, 9, [4, 6])


def test_a_cut_inside_one_character_is_dropped_and_the_window_marked_merged() -> None:
    # two characters, three tokens: token 1 starts inside character 0 (snapped down to 0)
    tokens = SpanTokens(0, 2, [0, 0, 1], [True, False, True])
    assert tiles(tokens, 1) == [Window(0, 1, 0, 2, (), True), Window(1, 2, 2, 3, (), False)]


def test_snapped_window_ends_are_recorded() -> None:
    # tokens 2 and 3 start inside character 1 (snapped down to it)
    tokens = SpanTokens(0, 2, [0, 1, 1, 1], [True, True, False, False])
    assert overlapping_windows(tokens, 2, 1) == [
        Window(0, 1, 0, 2, ("end",)),
        Window(1, 2, 1, 3, ("end",)),  # would be empty: it takes the whole character
        Window(1, 2, 2, 4, ("start",)),
    ]


def test_a_window_past_the_span_end_is_left_out() -> None:
    # token 1 and 2 start in the character just past the span (snapped to its end)
    tokens = SpanTokens(0, 1, [0, 1, 1], [True, False, False])
    assert overlapping_windows(tokens, 2, 1) == [Window(0, 1, 0, 2, ("end",))]


def test_window_metadata_counts_the_windows_own_text() -> None:
    counter, _ = doc_tokens()
    assert window_metadata(Window(0, 6, 0, 2), counter, 2, parent=7) == {"parent": 7, Meta.TOKEN_COUNT: 2}


def test_a_window_over_size_is_flagged_with_a_reason() -> None:
    counter, _ = doc_tokens()
    plain = window_metadata(Window(0, 6, 0, 1), counter, 1)
    assert plain == {Meta.TOKEN_COUNT: 2, Meta.OVER_SIZE_LIMIT: True, Meta.NOTE: RETOKENIZED_NOTE}
    snapped = window_metadata(Window(0, 6, 0, 1, ("end",)), counter, 1)
    assert snapped == {
        Meta.TOKEN_COUNT: 2,
        Meta.SNAPPED: ["end"],
        Meta.OVER_SIZE_LIMIT: True,
        Meta.INDIVISIBLE: True,
    }
    merged = window_metadata(Window(0, 6, 0, 1, (), True), counter, 1)
    assert merged == {Meta.TOKEN_COUNT: 2, Meta.OVER_SIZE_LIMIT: True, Meta.INDIVISIBLE: True}
