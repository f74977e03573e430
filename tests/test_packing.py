"""The one packer (chunkviz/splitting/packing.py): expected outputs of small cases, worked out by hand.

Each case packs units given as strings (``"a b "`` is one unit of two words) with the ``words``
tokenizer, so every count is the number of words and can be checked by reading the case. A
result is listed as ``(text, reason)`` per piece; ``+`` marks a piece of a unit that was split.
"""

from __future__ import annotations

from itertools import accumulate

import pytest

from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.splitting.packing import UNIT_SPLIT_SEPARATORS, PackPolicy, cuts_between, pack_units, unit_cuts
from chunkviz.text.spancount import SpanCounter
from chunkviz.text.tokenizers import get_tokenizer

WORDS = get_tokenizer("words")
SIZE, MIN, UNIT, END = Reason.SIZE_LIMIT, Reason.MIN_SIZE, Reason.UNIT_END, Reason.END_OF_DOCUMENT

#: units of 2, 1, 3 and 1 words
MIXED = ["a b ", "c ", "d e f ", "g "]
#: five one-word units
TINY = ["a ", "b ", "c ", "d ", "e "]


def packed(units: list[str], policy: PackPolicy) -> list[tuple[str, Reason]]:
    """``(text, reason)`` of each piece (text prefixed with ``+`` for a piece of a split unit)."""
    text = "".join(units)
    cuts = [0, *accumulate(len(u) for u in units)]
    pieces = pack_units(text, cuts, SpanCounter(text, WORDS), policy)
    return [(("+" if p.split_unit else "") + text[p.start : p.end], p.reason) for p in pieces]


CASES = [
    # -- max_tokens: fill each chunk while the next unit fits
    pytest.param(MIXED, PackPolicy(max_tokens=10), [("a b c d e f g ", UNIT)], id="all-fit"),
    pytest.param(MIXED, PackPolicy(max_tokens=3), [("a b c ", SIZE), ("d e f ", SIZE), ("g ", UNIT)], id="max-3"),
    pytest.param(MIXED, PackPolicy(max_tokens=6), [("a b c d e f ", SIZE), ("g ", UNIT)], id="max-exactly-reached"),
    pytest.param(MIXED, PackPolicy(max_tokens=4), [("a b c ", SIZE), ("d e f g ", UNIT)], id="max-4"),
    # -- min_tokens: stop at the first unit boundary that reaches the minimum
    pytest.param(
        MIXED, PackPolicy(max_tokens=10, min_tokens=2), [("a b ", MIN), ("c d e f ", MIN), ("g ", UNIT)], id="min-2"
    ),
    pytest.param(MIXED, PackPolicy(max_tokens=10, min_tokens=7), [("a b c d e f g ", UNIT)], id="min-never-reached"),
    pytest.param(
        MIXED, PackPolicy(max_tokens=3, min_tokens=3), [("a b c ", MIN), ("d e f ", MIN), ("g ", UNIT)], id="min=max"
    ),
    # -- merge_small_tail: a last chunk under min_tokens joins the previous one when both fit
    pytest.param(
        MIXED,
        PackPolicy(max_tokens=10, min_tokens=2, merge_small_tail=True),
        [("a b ", MIN), ("c d e f g ", UNIT)],
        id="tail-merged",
    ),
    pytest.param(
        MIXED,
        PackPolicy(max_tokens=4, min_tokens=2, merge_small_tail=True),
        [("a b ", MIN), ("c d e f ", MIN), ("g ", UNIT)],
        id="tail-too-big-to-merge",
    ),
    pytest.param(
        MIXED, PackPolicy(max_tokens=10, merge_small_tail=True), [("a b c d e f g ", UNIT)], id="merge-without-min"
    ),
    pytest.param(
        TINY,
        PackPolicy(max_tokens=10, min_tokens=1, merge_small_tail=True),
        [("a ", MIN), ("b ", MIN), ("c ", MIN), ("d ", MIN), ("e ", UNIT)],
        id="tail-not-small",
    ),
    pytest.param(
        TINY,
        PackPolicy(max_tokens=10, min_tokens=2, merge_small_tail=True),
        [("a b ", MIN), ("c d e ", UNIT)],
        id="all-tiny-merged-tail",
    ),
    # -- overlap_units: repeat trailing units of the previous chunk while they fit
    pytest.param(
        MIXED,
        PackPolicy(max_tokens=4, overlap_units=1),
        [("a b c ", SIZE), ("c d e f ", SIZE), ("d e f g ", UNIT)],
        id="overlap-1",
    ),
    pytest.param(
        MIXED,
        PackPolicy(max_tokens=3, overlap_units=1),
        [("a b c ", SIZE), ("d e f ", SIZE), ("g ", UNIT)],
        id="overlap-dropped-when-it-does-not-fit",
    ),
    pytest.param(
        TINY,
        PackPolicy(max_tokens=3, overlap_units=2),
        [("a b c ", SIZE), ("b c d ", SIZE), ("c d e ", UNIT)],
        id="overlap=max-1",
    ),
    pytest.param(
        TINY,
        PackPolicy(max_tokens=2, overlap_units=5),
        [("a b ", SIZE), ("b c ", SIZE), ("c d ", SIZE), ("d e ", UNIT)],
        id="overlap-larger-than-a-chunk-still-advances",
    ),
    pytest.param(
        TINY, PackPolicy(max_tokens=1, overlap_units=1), [(u, SIZE) for u in TINY[:-1]] + [("e ", UNIT)], id="max-1"
    ),
    # -- last_reason: why the last chunk ends
    pytest.param(
        MIXED,
        PackPolicy(max_tokens=4, last_reason=END),
        [("a b c ", SIZE), ("d e f g ", END)],
        id="last-reason",
    ),
    # -- a unit over max_tokens on its own is split (lines, then words: a space run is cut at its start, so the
    #    space begins the next piece; a line break is cut after it) and its pieces are marked split_unit
    pytest.param(
        ["a b c d e ", "f "],
        PackPolicy(max_tokens=2),
        [("+a b", SIZE), ("+ c d", SIZE), ("+ e ", UNIT), ("f ", UNIT)],
        id="unit-over-max",
    ),
    pytest.param(
        ["a ", "b c d "],
        PackPolicy(max_tokens=2, last_reason=END),
        [("a ", SIZE), ("+b c", SIZE), ("+ d ", END)],
        id="last-unit-over-max",
    ),
    pytest.param(
        ["a ", "b c d ", "e "],
        PackPolicy(max_tokens=2, overlap_units=1),
        [("a ", SIZE), ("+b c", SIZE), ("+ d ", UNIT), ("e ", UNIT)],
        id="no-overlap-after-a-split-unit",
    ),
    pytest.param(
        ["a\nb\nc\n"],
        PackPolicy(max_tokens=2),
        [("+a\nb\n", SIZE), ("+c\n", UNIT)],
        id="split-at-lines-first",
    ),
]


@pytest.mark.parametrize(("units", "policy", "expected"), CASES)
def test_pack_units(units: list[str], policy: PackPolicy, expected: list[tuple[str, Reason]]) -> None:
    assert packed(units, policy) == expected


@pytest.mark.parametrize(
    "policy",
    [PackPolicy(max_tokens=3), PackPolicy(max_tokens=1, min_tokens=1, overlap_units=2, merge_small_tail=True)],
)
def test_no_units_give_no_pieces(policy: PackPolicy) -> None:
    assert pack_units("", [0], SpanCounter("", WORDS), policy) == []


def test_pieces_record_the_units_they_hold() -> None:
    text = "".join(MIXED)
    cuts = [0, 4, 6, 12, 14]
    pieces = pack_units(text, cuts, SpanCounter(text, WORDS), PackPolicy(max_tokens=4, overlap_units=1))
    assert [p.metadata[Meta.UNITS] for p in pieces] == [[0, 2], [1, 3], [2, 4]]
    assert [(p.start, p.end) for p in pieces] == [(0, 6), (4, 12), (6, 14)]


def test_a_merged_tail_records_both_chunks_units() -> None:
    text = "".join(MIXED)
    policy = PackPolicy(max_tokens=10, min_tokens=2, merge_small_tail=True)
    pieces = pack_units(text, [0, 4, 6, 12, 14], SpanCounter(text, WORDS), policy)
    assert [p.metadata[Meta.UNITS] for p in pieces] == [[0, 1], [1, 4]]


def test_split_unit_pieces_record_their_one_unit() -> None:
    text = "a b c d e f "
    pieces = pack_units(text, [0, 10, 12], SpanCounter(text, WORDS), PackPolicy(max_tokens=2))
    assert [(text[p.start : p.end], p.split_unit, p.metadata[Meta.UNITS]) for p in pieces] == [
        ("a b", True, [0, 1]),
        (" c d", True, [0, 1]),
        (" e ", True, [0, 1]),
        ("f ", False, [1, 2]),
    ]


def test_the_default_split_separators_are_lines_words_characters() -> None:
    assert UNIT_SPLIT_SEPARATORS == ("\n", " ", "")
    assert PackPolicy(max_tokens=5) == PackPolicy(5, None, 0, False, ("\n", " ", ""), Reason.UNIT_END)


@pytest.mark.parametrize(
    ("text", "starts", "expected"),
    [
        pytest.param("a b\n\nc d", [0, 5], [0, 5, 8], id="after-the-line-break"),
        pytest.param("a b  c d", [0, 5], [0, 3, 8], id="spaces-go-to-the-next-unit"),
        pytest.param("a b c", [0], [0, 5], id="one-unit"),
        pytest.param("  a b", [2], [0, 5], id="leading-whitespace-joins-the-first-unit"),
        pytest.param("a\nb\nc", [0, 2, 4], [0, 2, 4, 5], id="lines"),
    ],
)
def test_unit_cuts(text: str, starts: list[int], expected: list[int]) -> None:
    assert unit_cuts(text, starts, SpanCounter(text, WORDS)) == expected


def test_cuts_between_tiles_only_the_given_span() -> None:
    text = "x y\n\na b\n\nc d\n\nz"
    #       0123 4 5678 9 0123 4 5
    counter = SpanCounter(text, WORDS)
    assert cuts_between(text, [10], counter, 5, 15) == [5, 10, 15]
    assert cuts_between(text, [5, 10], counter, 5, 15) == [5, 10, 15]  # a start at the span's start adds no cut
    assert cuts_between(text, [], counter, 5, 15) == [5, 15]
