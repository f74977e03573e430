"""Pieces and the one routine that makes Chunks (chunkviz/splitting/pieces.py), by hand-checked cases.

``"alpha beta\\n\\ngamma delta"``: a cut at 6 falls after a space (a word boundary), at 12 after
the blank line (a paragraph boundary), at 17 before a space (a word boundary), at 23 the end.
"""

from __future__ import annotations

import pickle

import pytest

import chunkviz
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Boundary, Meta, Reason
from chunkviz.document.model import as_document
from chunkviz.splitting.pieces import Piece, engine_metadata, to_chunks

TEXT = "alpha beta\n\ngamma delta"


def test_with_reason_and_with_metadata_return_new_pieces() -> None:
    piece = Piece(0, 5, Reason.SIZE_LIMIT, metadata={"a": 1})
    assert piece.with_reason(Reason.UNIT_END) == Piece(0, 5, Reason.UNIT_END, metadata={"a": 1})
    assert piece.with_metadata(b=2) == Piece(0, 5, Reason.SIZE_LIMIT, metadata={"a": 1, "b": 2})
    assert piece.with_metadata(a=3).metadata == {"a": 3}
    assert piece == Piece(0, 5, Reason.SIZE_LIMIT, metadata={"a": 1}), "the original is unchanged"


def test_engine_metadata_names_the_engine_facts() -> None:
    assert engine_metadata(Piece(0, 1, Reason.SIZE_LIMIT)) == {}
    assert engine_metadata(Piece(0, 1, Reason.SIZE_LIMIT, separator=" ", metadata={"x": 1})) == {
        "x": 1,
        "separator": " ",
    }
    assert engine_metadata(Piece(0, 1, Reason.SIZE_LIMIT, split_unit=True)) == {"split_unit": True}
    assert engine_metadata(Piece(0, 1, Reason.SIZE_LIMIT, over_limit=True)) == {
        "over_size_limit": True,
        "indivisible": True,
    }
    assert str(Meta.SEPARATOR) == "separator" and str(Meta.SPLIT_UNIT) == "split_unit"


def test_engine_metadata_keys_are_plain_strings() -> None:
    metadata = engine_metadata(Piece(0, 1, Reason.SIZE_LIMIT, metadata={Meta.UNITS: [0, 1]}))
    assert [type(k) for k in metadata] == [str]


def test_to_chunks_makes_exact_spans_with_boundaries_from_the_structure() -> None:
    document = as_document(TEXT)
    pieces = [
        Piece(0, 6, Reason.SIZE_LIMIT, separator=" "),
        Piece(6, 12, Reason.UNIT_END, separator="\n\n"),
        Piece(12, 23, Reason.SIZE_LIMIT, separator=" "),
        Piece(12, 17, Reason.PARENT_END, over_limit=True, level=1, parent=2, added_text="Section: two\n"),
    ]
    chunks = to_chunks(document, pieces)
    assert [(c.index, c.text, c.reason, c.boundary) for c in chunks] == [
        (0, "alpha ", Reason.SIZE_LIMIT, Boundary.WORD),
        (1, "beta\n\n", Reason.UNIT_END, Boundary.PARAGRAPH),
        (2, "gamma delta", Reason.END_OF_DOCUMENT, Boundary.DOCUMENT_END),
        (3, "gamma", Reason.PARENT_END, Boundary.WORD),
    ]
    assert all(isinstance(c, Chunk) and c.text == TEXT[c.start : c.end] for c in chunks)
    assert [c.metadata for c in chunks] == [
        {"separator": " "},
        {"separator": "\n\n"},
        {},  # a piece that ends the document keeps no separator
        {"over_size_limit": True, "indivisible": True},
    ]
    assert (chunks[3].level, chunks[3].parent, chunks[3].added_text) == (1, 2, "Section: two\n")
    assert all((c.level, c.parent, c.added_text) == (0, None, "") for c in chunks[:3])


def test_to_chunks_of_no_pieces_is_empty() -> None:
    assert to_chunks(as_document(TEXT), []) == []


def test_to_chunks_keeps_the_given_order() -> None:
    chunks = to_chunks(as_document(TEXT), [Piece(12, 23, Reason.UNIT_END), Piece(0, 12, Reason.UNIT_END)])
    assert [(c.index, c.start, c.end) for c in chunks] == [(0, 12, 23), (1, 0, 12)]


def test_a_window_piece_is_the_plain_constructors_piece() -> None:
    made = Piece.window(3, 9, Reason.SIZE_LIMIT, {"token_count": 2})
    assert made == Piece(3, 9, Reason.SIZE_LIMIT, metadata={"token_count": 2})
    assert vars(made) == vars(Piece(3, 9, Reason.SIZE_LIMIT, metadata={"token_count": 2}))
    assert Piece.window(0, 1, Reason.UNIT_END, {}).with_reason(Reason.SIZE_LIMIT).reason == Reason.SIZE_LIMIT


def test_a_chunk_from_a_span_is_the_constructors_frozen_chunk() -> None:
    import dataclasses

    import pytest

    made = Chunk.from_span(TEXT, 1, 6, 10, "size_limit", boundary="word", metadata={"a": 1})
    built = Chunk(1, 6, 10, TEXT[6:10], Reason.SIZE_LIMIT, Boundary.WORD, metadata={"a": 1})
    assert made == built and hash(made) == hash(built) and vars(made) == vars(built)
    assert type(made.reason) is Reason and type(made.boundary) is Boundary
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.start = 0  # type: ignore[misc]  # frozen: the assignment must fail
    with pytest.raises(ValueError, match="outside the document"):
        Chunk.from_span(TEXT, 0, 5, len(TEXT) + 1, Reason.SIZE_LIMIT)


def test_boundaries_are_read_for_every_chunk_at_once_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkviz.document.structure import Structure

    calls: list[int] = []
    real = Structure.boundaries_at

    def spy(self: Structure, positions: list[int]) -> list[Boundary]:
        calls.append(len(positions))
        return real(self, positions)

    monkeypatch.setattr(Structure, "boundaries_at", spy)
    text = "# Title\n\nFirst sentence here. Second one follows. " * 40
    chunks = chunkviz.chunk(text, "recursive", chunk_size=16, overlap=0)
    assert calls == []  # chunking alone reads no boundary
    assert chunks[0].boundary == real(chunkviz.Document(text).structure, [chunks[0].end])[0]
    assert calls == [len(chunks)]  # the first read reads every cut, in one batch
    assert [c.boundary for c in chunks] == real(chunkviz.Document(text).structure, [c.end for c in chunks])
    assert calls == [len(chunks)]
    again = pickle.loads(pickle.dumps(chunks[-1]))
    assert again == chunks[-1] and again.__dict__["boundary"] is Boundary.DOCUMENT_END
