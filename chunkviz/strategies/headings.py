"""Heading-based chunking (seed 000 §13.5.1): one chunk per section, split when too large.

§13.5.1 defines a section as running from a heading to the next heading of the same or a higher
level, so a section *contains* its subsections. A flat chunking cannot use those nested spans
(they overlap), so this strategy cuts at *leaf-level* sections: a chunk runs from a heading to
the next heading of **any** level, and a subsection is a chunk of its own. What the nesting
carried is kept in metadata instead: every chunk has the full ``heading_path`` (the titles from
the top-level ancestor down, e.g. ``["Guide", "Authentication", "OAuth 2.0"]``) and ``section``
(the same path joined with `` > ``). Text before the first heading is a chunk with the empty
path ``[]``; when it is only whitespace it is no chunk of its own but the start of the first
section (so the chunks tile the whole document, as recursive chunks do).

Headings are those of :func:`chunkviz.structure.document_elements`: ATX (``#``) and setext
(``===``/``---`` underlines) in Markdown, over- and underlines in reStructuredText; a ``#`` line
inside fenced or indented code is not a heading. Every chunk is an exact span and the chunks
tile the document ``[0, len(text))`` (each boundary is the start of a heading's line).

Parameters
----------
``max_tokens``
    The section's *post-processing* limit (§13.5.1: "post-processing applies fixed-size
    splitting to chunks that exceed the embedding model's context limit"). A section over it is
    split with the recursive splitter on the Markdown preset *minus its heading separators*
    (paragraph, line, word, character: the headings are already the outer level); every piece
    keeps the section's ``heading_path`` and is marked ``split_section``. A single character
    over the limit is flagged ``over_limit``/``indivisible``.
``max_level``
    Cut only at headings of level ``<= max_level``; deeper headings stay inside their section
    (and are not in any ``heading_path``). It is worth having because sections vary enormously
    in length (§13.5.1) and the deepest headings are the usual source of tiny chunks (an H4 per
    parameter, per FAQ entry, per changelog item), which embed poorly (the guide: chunks under
    ~100 tokens retrieve worse). ``merge_small`` fixes the same problem by *size*;
    ``max_level`` fixes it by *structure* ("chunk per chapter and section, never finer"), which
    is predictable, and keeps the heading path at a level users filter on. Default 6: every
    heading cuts. (In reStructuredText the levels are the order in which underline styles first
    appear, as docutils assigns them.)
``merge_small``
    0 = off. A section with fewer tokens merges with the NEXT section when the merged span still
    fits ``max_tokens``; while the merged chunk is still under ``merge_small`` it keeps taking
    the next section on the same condition. The chunk's ``heading_path`` is then the first
    section's path and ``merged_sections`` lists the paths of all merged sections. A small last
    section has no next section and stays as it is.

Boundary reasons: ``heading`` where a chunk ends at the next (kept) heading, the recursive
splitter's reason (``paragraph``, ``line``, ``word``, ``character``) inside a split section,
``end_of_document`` for the last chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from chunkviz.errors import InvalidParamError
from chunkviz.spancount import SpanCounter, shared_counter
from chunkviz.strategies.base import param, register
from chunkviz.strategies.recursive import PRESETS, RecursiveSplitter
from chunkviz.structure import Element, document_elements, sections
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk, Reason

#: The Markdown preset without its heading separators: paragraph, line, word, character.
SECTION_SEPARATORS: list[str] = [s for s in PRESETS["markdown"] if not s.lstrip("\n").startswith("#")]


@dataclass(frozen=True)
class HeadingsParams:
    max_tokens: int = param(500, "sections over this many tokens are split at paragraphs, lines, words", minimum=1, maximum=100_000)
    max_level: int = param(
        6, "cut only at headings of this level or higher (1 = top level only); deeper headings stay in their section",
        minimum=1, maximum=6,
    )
    merge_small: int = param(
        0, "a section under this many tokens merges with the next one if the result fits max_tokens (0 = off)",
        minimum=0, maximum=100_000,
    )

    def __post_init__(self) -> None:
        validate_int("headings", "max_tokens", self.max_tokens, 1, 100_000)
        validate_int("headings", "max_level", self.max_level, 1, 6)
        validate_int("headings", "merge_small", self.merge_small, 0, 100_000)
        if self.merge_small >= self.max_tokens:
            raise InvalidParamError(
                "headings", "merge_small", f"must be smaller than max_tokens ({self.max_tokens}), got {self.merge_small}"
            )


def validate_int(strategy: str, name: str, value: object, low: int, high: int) -> None:
    """Raise InvalidParamError naming ``name`` unless ``value`` is an int in ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParamError(strategy, name, f"must be an integer ({low}..{high:,}), got {value!r}")
    if not low <= value <= high:
        raise InvalidParamError(strategy, name, f"must be in {low}..{high:,}, got {value!r}")


@dataclass(frozen=True)
class SectionSpan:
    """A leaf-level section: from its heading to the next kept heading (or the end)."""

    start: int
    end: int
    path: tuple[str, ...]  # () for the text before the first heading
    heading_level: int  # the heading's level (1 = top); 0 for the text before the first heading


def section_spans(text: str, max_level: int = 6, elements: Sequence[Element] | None = None) -> list[SectionSpan]:
    """Leaf-level sections cut at every heading of level ``<= max_level``; they tile the whole
    text (a blank preamble belongs to the first section)."""
    if elements is None:
        elements = document_elements(text)
    kept = [s for s in sections(text, elements) if s.heading.level <= max_level]
    first = kept[0].start if kept else len(text)
    out: list[SectionSpan] = []
    if text[:first].strip():
        out.append(SectionSpan(0, first, (), 0))
    for k, s in enumerate(kept):
        end = kept[k + 1].start if k + 1 < len(kept) else len(text)
        # a kept heading's ancestors have lower levels, so they are kept too: its path is complete
        out.append(SectionSpan(s.start if out else 0, end, s.path, s.heading.level))
    return out


def merge_groups(spans: Sequence[SectionSpan], counter: SpanCounter, merge_small: int, max_tokens: int) -> list[list[SectionSpan]]:
    """Consecutive sections grouped by the ``merge_small`` rule (one group per section when 0)."""
    groups: list[list[SectionSpan]] = []
    i = 0
    while i < len(spans):
        j = i
        if merge_small:
            while (
                j + 1 < len(spans)
                and counter.count(spans[i].start, spans[j].end) < merge_small
                and counter.count(spans[i].start, spans[j + 1].end) <= max_tokens
            ):
                j += 1
        groups.append(list(spans[i : j + 1]))
        i = j + 1
    return groups


def section_metadata(path: Sequence[str], heading_level: int) -> dict[str, object]:
    return {"heading_path": list(path), "section": " > ".join(path), "heading_level": heading_level}


def split_oversized_span(
    text: str, start: int, end: int, splitter: RecursiveSplitter, final_reason: str
) -> list[tuple[int, int, str, dict[str, object]]]:
    """Pieces of ``[start, end)`` within the splitter's size: (start, end, reason, extra metadata)."""
    pieces = splitter.split_span(start, end)
    out = []
    for k, (a, b, over) in enumerate(pieces):
        extra: dict[str, object] = {"split_section": True}
        if k == len(pieces) - 1:
            reason = final_reason
        else:
            reason = splitter.cut_reason.get(b, str(Reason.CHARACTER))
            if b in splitter.cut_separator:
                extra["separator"] = splitter.cut_separator[b]
        if over:
            extra["over_limit"] = True
            extra["indivisible"] = True
        out.append((a, b, reason, extra))
    return out


@register(
    "headings",
    "One chunk per section, cut at every heading (up to max_level) with its heading path; long sections split at paragraphs, small ones optionally merged.",
    HeadingsParams,
)
def headings(text: str, params: HeadingsParams, tokenizer: Tokenizer) -> list[Chunk]:
    if not text.strip():
        return []
    counter = shared_counter(text, tokenizer)
    spans = section_spans(text, params.max_level)
    splitter: RecursiveSplitter | None = None
    chunks: list[Chunk] = []
    for group in merge_groups(spans, counter, params.merge_small, params.max_tokens):
        first = group[0]
        start, end = first.start, group[-1].end
        metadata = section_metadata(first.path, first.heading_level)
        if len(group) > 1:
            metadata["merged_sections"] = [list(s.path) for s in group]
        final_reason = str(Reason.END_OF_DOCUMENT) if end >= len(text) else str(Reason.HEADING)
        if counter.count(start, end) <= params.max_tokens:
            chunks.append(Chunk.from_span(text, len(chunks), start, end, final_reason, metadata=metadata))
            continue
        if splitter is None:
            splitter = RecursiveSplitter(text, tokenizer, params.max_tokens, 0, SECTION_SEPARATORS, counter=counter)
        for a, b, reason, extra in split_oversized_span(text, start, end, splitter, final_reason):
            chunks.append(Chunk.from_span(text, len(chunks), a, b, reason, metadata={**metadata, **extra}))
    return chunks
