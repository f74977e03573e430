"""Splitting one oversized unit (chunkviz/splitting/units.py), on small cases worked out by hand.

With the ``words`` tokenizer a count is the number of words. The recursive splitter cuts a space
run at its start (the space begins the next piece) and a paragraph break after its last line
break; inner cuts end ``size_limit`` with their separator, the last piece ends with the reason
the whole unit would have had.
"""

from __future__ import annotations

import pytest

from chunkviz.core.vocabulary import Reason
from chunkviz.splitting.pieces import Piece
from chunkviz.splitting.units import SECTION_SEPARATORS, split_unit, unit_splitter
from chunkviz.text.spancount import SpanCounter
from chunkviz.text.tokenizers import get_tokenizer

WORDS = get_tokenizer("words")


def split(text: str, start: int, end: int, max_tokens: int, reason: Reason, **metadata: object) -> list[Piece]:
    splitter = unit_splitter(text, SpanCounter(text, WORDS), max_tokens, SECTION_SEPARATORS)
    return split_unit(splitter, start, end, reason, metadata)


def test_section_separators_are_paragraph_line_word_character() -> None:
    assert SECTION_SEPARATORS == ("\n\n", "\n", " ", "")


def test_the_splitter_uses_the_units_counter_and_limit() -> None:
    text = "a b c"
    counter = SpanCounter(text, WORDS)
    splitter = unit_splitter(text, counter, 2, SECTION_SEPARATORS)
    assert [(p.start, p.end) for p in splitter.split_span(0, 5)] == [(0, 3), (3, 5)]


def test_a_unit_inside_a_document_is_split_at_words() -> None:
    text = "x\n\na b c d e\n\ny"
    pieces = split(text, 3, 12, 2, Reason.UNIT_END, section="S")
    assert [(text[p.start : p.end], p.reason, p.separator) for p in pieces] == [
        ("a b", Reason.SIZE_LIMIT, " "),
        (" c d", Reason.SIZE_LIMIT, " "),
        (" e", Reason.UNIT_END, None),
    ]
    assert all(p.split_unit for p in pieces)
    assert all(p.metadata == {"section": "S"} for p in pieces), "every piece carries the unit's metadata"
    assert (pieces[0].start, pieces[-1].end) == (3, 12), "the pieces tile the unit and nothing else"


@pytest.mark.parametrize(
    ("max_tokens", "expected"),
    [
        (4, ["a b\n\nc d\n\n", "e f g h"]),
        (2, ["a b\n\n", "c d\n\n", "e f", " g h"]),
        (8, ["a b\n\nc d\n\ne f g h"]),
    ],
)
def test_paragraphs_are_tried_before_words(max_tokens: int, expected: list[str]) -> None:
    text = "a b\n\nc d\n\ne f g h"
    pieces = split(text, 0, len(text), max_tokens, Reason.END_OF_DOCUMENT)
    assert [text[p.start : p.end] for p in pieces] == expected
    assert pieces[-1].reason == Reason.END_OF_DOCUMENT
    assert all(p.reason == Reason.SIZE_LIMIT for p in pieces[:-1])


def test_the_pieces_metadata_wins_over_the_units() -> None:
    text = "a b c"
    splitter = unit_splitter(text, SpanCounter(text, WORDS), 2, SECTION_SEPARATORS)
    marked = [p.with_metadata(kind="piece") for p in splitter.split_span(0, 5)]

    class Fixed:
        def split_span(self, start: int, end: int, reason: Reason) -> list[Piece]:
            return marked

    pieces = split_unit(Fixed(), 0, 5, Reason.UNIT_END, {"kind": "unit", "section": "S"})  # type: ignore[arg-type]
    assert [p.metadata for p in pieces] == [{"kind": "piece", "section": "S"}] * 2


def test_without_metadata_the_pieces_keep_their_own() -> None:
    pieces = split("a b c", 0, 5, 5, Reason.UNIT_END)
    assert [(p.start, p.end, p.split_unit, dict(p.metadata)) for p in pieces] == [(0, 5, True, {})]
