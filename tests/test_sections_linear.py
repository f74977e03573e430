"""Sections are built in linear time, and the chunk cap is checked as they are made (issue 36 item 10).

``Structure.sections`` looked for every heading's end by copying the rest of the heading list
(``heads[k + 1:]``) and scanning it: 2.6 / 6.1 / 19 s at 25k / 50k / 100k headings, and 89.5 s in
the app for an 800 kB changelog. The copy runs in C, so counting lines of Python (as
``tests/test_structure_linear.py`` does) would not see it: here the heading list is one that counts
every element read from it (one by one, or copied in a slice), at ``N`` and ``4 * N`` headings.
No clock is read. The sections themselves are compared with the old algorithm, kept below.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence, overload

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkviz
from chunkviz.core import limits
from chunkviz.core.limits import TooManyChunksError
from chunkviz.document.blocks import Block, Section
from chunkviz.document.model import Document
from chunkviz.document.structure import Structure
from chunkviz.strategies import headings as headings_module
from chunkviz.strategies import hierarchical as hierarchical_module

N = 2_000
#: Work may grow this much for 4 times the headings (linear: 4, quadratic: 16).
MAX_RATIO = 6.0


def old_sections(text: str, heads: Sequence[Block]) -> tuple[Section, ...]:
    """The algorithm before issue 36: each heading's end found by scanning the headings after it."""
    out: list[Section] = []
    stack: list[int] = []
    for k, head in enumerate(heads):
        end = len(text)
        for later in heads[k + 1 :]:
            if later.level <= head.level:
                end = later.start
                break
        while stack and out[stack[-1]].heading.level >= head.level:
            stack.pop()
        parent = stack[-1] if stack else None
        path = (*(out[parent].path if parent is not None else ()), head.title)
        out.append(Section(head, head.start, end, path, parent))
        stack.append(len(out) - 1)
    return tuple(out)


def old_heading_path_at(sections: Sequence[Section], pos: int) -> tuple[str, ...]:
    best: tuple[str, ...] = ()
    for section in sections:
        if section.start <= pos < section.end and len(section.path) > len(best):
            best = section.path
    return best


class CountingHeadings(Sequence[Block]):
    """Headings that count every element read: by index, by iteration, or copied in a slice."""

    def __init__(self, items: Sequence[Block]) -> None:
        self.items = tuple(items)
        self.read = 0

    @overload
    def __getitem__(self, index: int) -> Block: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Block]: ...

    def __getitem__(self, index: int | slice) -> Any:
        found = self.items[index]
        self.read += len(found) if isinstance(index, slice) else 1
        return found

    def __iter__(self) -> Iterator[Block]:
        for item in self.items:
            self.read += 1
            yield item

    def __len__(self) -> int:
        return len(self.items)


def changelog(n: int) -> str:
    """The issue's shape: one title, then ``n`` release headings with a list each."""
    return "# Changelog\n\n" + "".join(f"## v1.{k}\n\n- fixed {k}\n\n" for k in range(n))


def nested(levels: Sequence[int]) -> str:
    return "".join(f"{'#' * level} H{k}\n\nText {k}.\n\n" for k, level in enumerate(levels))


def heading_reads(text: str, build: Any) -> int:
    """Elements of the heading list that ``build`` reads to make the sections of ``text``."""
    structure = Structure(text, "markdown")
    counting = CountingHeadings(structure.headings)
    structure.__dict__["headings"] = counting
    build(structure, counting)
    return counting.read


def new_sections(structure: Structure, heads: Sequence[Block]) -> Any:
    return structure.sections


def test_sections_read_each_heading_a_bounded_number_of_times() -> None:
    small, large = (heading_reads(changelog(n), new_sections) for n in (N, 4 * N))
    assert large <= MAX_RATIO * small, f"headings read at {N} and {4 * N} headings: {small}, {large}"
    assert large <= 6 * (4 * N + 1)  # a few reads per heading


def test_the_old_algorithm_fails_this_measure() -> None:
    """The measure catches the old shape: it copied the rest of the list from every heading."""

    def old(structure: Structure, heads: Sequence[Block]) -> Any:
        return old_sections(structure.text, heads)

    small, large = (heading_reads(changelog(n), old) for n in (N, 4 * N))
    assert large > MAX_RATIO * small


def test_sections_of_a_small_document_exactly() -> None:
    text = nested([1, 2, 3, 2, 1, 3])
    s = Structure(text, "markdown")
    starts = [text.index(f"H{k}\n") - level - 1 for k, level in enumerate([1, 2, 3, 2, 1, 3])]
    assert [(sec.start, sec.end, sec.path, sec.parent) for sec in s.sections] == [
        (starts[0], starts[4], ("H0",), None),
        (starts[1], starts[3], ("H0", "H1"), 0),
        (starts[2], starts[3], ("H0", "H1", "H2"), 1),
        (starts[3], starts[4], ("H0", "H3"), 0),
        (starts[4], len(text), ("H4",), None),
        (starts[5], len(text), ("H4", "H5"), 4),
    ]
    assert s.sections == old_sections(text, s.headings)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=6), max_size=25), st.booleans())
def test_sections_and_heading_paths_equal_the_old_algorithm(levels: list[int], preamble: bool) -> None:
    text = ("Before the first heading.\n\n" if preamble else "") + nested(levels)
    s = Structure(text, "markdown")
    assert s.sections == old_sections(text, s.headings)
    for pos in range(-1, len(text) + 2):
        assert s.heading_path_at(pos) == old_heading_path_at(s.sections, pos), pos


def test_heading_path_at_reads_few_sections_per_position() -> None:
    """``heading_path_at`` is asked once per chunk (enrichment, interop): bisection, not a scan."""
    text = changelog(N)
    s = Structure(text, "markdown")
    reads = [0]
    sections = s.sections

    class Counting(tuple):  # type: ignore[type-arg]  # a tuple of Sections that counts what is read
        def __getitem__(self, index: Any) -> Any:
            reads[0] += 1
            return tuple.__getitem__(self, index)

        def __iter__(self) -> Iterator[Any]:
            for item in tuple.__iter__(self):
                reads[0] += 1
                yield item

    s.__dict__["_section_starts"] = [sec.start for sec in sections]
    s.__dict__["sections"] = Counting(sections)
    positions = range(0, len(text), 7)
    paths = [s.heading_path_at(pos) for pos in positions]
    assert reads[0] <= 3 * len(positions)
    assert paths[-1] == ("Changelog", f"v1.{N - 1}")


CAP = 1_000


@pytest.fixture
def low_cap(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The cap lowered to CAP; counts of Chunk making in the section strategies."""
    monkeypatch.setattr(limits, "MAX_CHUNKS", CAP)
    counts = {"to_chunks": 0}
    for module in (headings_module, hierarchical_module):
        make = module.to_chunks

        def counting_to_chunks(*args: Any, _make: Any = make, **kwargs: Any) -> Any:
            counts["to_chunks"] += 1
            return _make(*args, **kwargs)

        monkeypatch.setattr(module, "to_chunks", counting_to_chunks)
    return counts


def test_headings_refuses_more_sections_than_the_cap_before_packing(
    low_cap: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    packed = [0]
    pack = headings_module.pack_units

    def counting_pack(*args: Any, **kwargs: Any) -> Any:
        packed[0] += 1
        return pack(*args, **kwargs)

    monkeypatch.setattr(headings_module, "pack_units", counting_pack)
    with pytest.raises(TooManyChunksError, match=r"headings: this document's 1,001 sections .* make at least 1,001"):
        chunkviz.chunk(Document(changelog(CAP), format="markdown"), "headings")
    assert packed[0] == 0 and low_cap["to_chunks"] == 0


def test_headings_within_the_cap_and_when_merging_are_not_refused(low_cap: dict[str, int]) -> None:
    assert len(chunkviz.chunk(Document(changelog(CAP - 1), format="markdown"), "headings")) == CAP
    merged = chunkviz.chunk(Document(changelog(CAP), format="markdown"), "headings", merge_small=100)
    assert len(merged) < CAP


def test_headings_at_a_lower_max_level_counts_only_the_kept_sections(low_cap: dict[str, int]) -> None:
    chunks = chunkviz.chunk(Document(changelog(CAP), format="markdown"), "headings", max_level=1, max_tokens=100_000)
    assert len(chunks) == 1


def test_hierarchical_refuses_more_sections_than_the_cap_before_chunking(low_cap: dict[str, int]) -> None:
    with pytest.raises(TooManyChunksError, match=r"hierarchical: this document's sections \(depth 3\) make at least"):
        chunkviz.chunk(Document(changelog(CAP), format="markdown"), "hierarchical")
    assert low_cap["to_chunks"] == 0


def test_hierarchical_refuses_split_leaves_as_it_goes(low_cap: dict[str, int]) -> None:
    """Few sections whose split pieces cross the cap: refused while they are split."""
    text = "".join(f"# S{k}\n\n" + "Words here. " * 300 + "\n\n" for k in range(4))
    with pytest.raises(TooManyChunksError, match="hierarchical"):
        chunkviz.chunk(
            Document(text, format="markdown"), "hierarchical", tokenizer="words", max_tokens=1, split_oversized=True
        )
    assert low_cap["to_chunks"] == 0


def test_parent_child_refuses_more_sections_than_the_cap(low_cap: dict[str, int]) -> None:
    with pytest.raises(TooManyChunksError, match=r"parent_child: this document's 1,001 sections make at least"):
        chunkviz.chunk(Document(changelog(CAP), format="markdown"), "parent_child", parents="sections")
