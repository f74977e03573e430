"""``small_to_big`` and ``tables`` refuse a run over the chunk cap before and while they chunk,
not after (issue 23 item 7): 100,000 tiny paragraphs took 36 s and 692 MB in ``small_to_big``
(every sentence segmented, every chunk made) and were then refused. The cap is lowered here so
that small generated documents cross it; the work done before the refusal is counted (sentence
segmentation, chunks made), no clock is read.
"""

from __future__ import annotations

from typing import Any

import pytest

import chunkviz
from chunkviz.core import limits
from chunkviz.core.limits import TooManyChunksError
from chunkviz.document import sentences
from chunkviz.document.model import Document
from chunkviz.strategies import small_to_big as small_to_big_module
from chunkviz.strategies import tables as tables_module

CAP = 1_000


@pytest.fixture
def low_cap(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The cap lowered to CAP; counts of the sentence segmentation and of Chunk making."""
    monkeypatch.setattr(limits, "MAX_CHUNKS", CAP)
    counts = {"segmented": 0, "to_chunks": 0}
    starts = sentences.sentence_starts

    def counting_starts(*args: Any, **kwargs: Any) -> list[int]:
        counts["segmented"] += 1
        return starts(*args, **kwargs)

    monkeypatch.setattr("chunkviz.document.structure.sentence_starts", counting_starts)
    for module in (small_to_big_module, tables_module):
        make = module.to_chunks

        def counting_to_chunks(*args: Any, _make: Any = make, **kwargs: Any) -> Any:
            counts["to_chunks"] += 1
            return _make(*args, **kwargs)

        monkeypatch.setattr(module, "to_chunks", counting_to_chunks)
    return counts


def test_many_paragraphs_are_refused_before_sentences_are_segmented(low_cap: dict[str, int]) -> None:
    text = "".join(f"Note {k}: ok.\n\n" for k in range(CAP // 2 + 1))  # a parent and a child each
    with pytest.raises(TooManyChunksError, match=r"small_to_big: this document's 501 paragraphs make at least 1,002"):
        chunkviz.chunk(Document(text), "small_to_big")
    assert low_cap == {"segmented": 0, "to_chunks": 0}


def test_many_sentences_are_refused_as_they_are_made(low_cap: dict[str, int]) -> None:
    """Few paragraphs of many sentences: known only once sentences are found, refused then,
    before any Chunk is made."""
    paragraph = " ".join(f"Item {k} is here." for k in range(120))
    text = "\n\n".join([paragraph] * 10)  # 10 parents, 1,200 children
    with pytest.raises(TooManyChunksError, match="its paragraphs and sentences make at least"):
        chunkviz.chunk(Document(text), "small_to_big", tokenizer="words", max_parent_tokens=100_000)
    assert low_cap["to_chunks"] == 0


def test_within_the_cap_small_to_big_is_unchanged(low_cap: dict[str, int]) -> None:
    text = "".join(f"Note {k}: ok. Done {k}.\n\n" for k in range(200))
    chunks = chunkviz.chunk(Document(text), "small_to_big")
    assert len(chunks) == 200 * 3 and low_cap["to_chunks"] == 1


@pytest.mark.parametrize(
    ("rows_per_chunk", "tables", "rows", "message"),
    [
        (0, CAP + 1, 1, r"tables: this document's 1,001 tables make at least 1,001 chunks"),
        (
            1,
            3,
            400,
            r"tables: this document's 3 tables and their rows make at least 1,200 chunks.*raise rows_per_chunk",
        ),
        (7, 1, 7 * CAP + 1, r"tables: this document's 1 table and their rows make at least 1,001 chunks"),
    ],
)
def test_tables_are_refused_before_any_table_is_cut(
    rows_per_chunk: int, tables: int, rows: int, message: str, low_cap: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = [0]
    groups = tables_module._TableChunker.groups

    def counting_groups(self: Any, *args: Any) -> Any:
        cut[0] += 1
        return groups(self, *args)

    monkeypatch.setattr(tables_module._TableChunker, "groups", counting_groups)
    table = "| a | b |\n|---|---|\n" + "".join(f"| {k} | x |\n" for k in range(rows))
    text = "\n".join([table] * tables)
    with pytest.raises(TooManyChunksError, match=message):
        chunkviz.chunk(Document(text), "tables", rows_per_chunk=rows_per_chunk, max_tokens=10_000)
    assert cut[0] == 0 and low_cap["to_chunks"] == 0


def test_text_around_tables_is_counted_as_it_goes(low_cap: dict[str, int]) -> None:
    table = "| a |\n|---|\n| 1 |\n"
    text = "".join(f"Some words {k} here. {'More text. ' * 3}\n\n{table}\n" for k in range(CAP // 3))
    with pytest.raises(TooManyChunksError, match="its tables and the text around them"):
        chunkviz.chunk(Document(text), "tables", tokenizer="words", max_tokens=1)
    assert low_cap["to_chunks"] == 0
