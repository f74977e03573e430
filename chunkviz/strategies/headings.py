"""Heading-based chunking (seed 000 §13.5.1): one chunk per section, split when too large.

§13.5.1 defines a section as running from a heading to the next heading of the same or a higher
level, so a section *contains* its subsections. A flat chunking cannot use those nested spans
(they overlap), so this strategy cuts at *leaf-level* sections (the document structure's
``leaf_sections``): a chunk runs from a heading to the next heading of **any** level, and a
subsection is a chunk of its own. What the nesting carried is kept in metadata instead: every
chunk has the full ``heading_path`` (the titles from the top-level ancestor down, e.g.
``["Guide", "Authentication", "OAuth 2.0"]``) and ``section`` (the same path joined with
`` > ``). Text before the first heading is a chunk with the empty path ``[]``; when it is only
whitespace it is no chunk of its own but the start of the first section (so the chunks tile the
whole document, as recursive chunks do).

Headings are the document structure's (:mod:`chunkviz.document.structure`): Markdown parsed by
markdown-it-py, reStructuredText by its own layer, so a ``# ...`` line of an ``.rst`` document
is no heading here either; a ``#`` line inside fenced or indented code is not a heading.

Parameters
----------
``max_tokens``
    The section's *post-processing* limit (§13.5.1). A section over it is split by the engine
    (paragraph, line, word, character: the headings are already the outer level); every piece
    keeps the section's ``heading_path`` and is marked ``split_unit``. A single character over
    the limit is flagged ``over_size_limit``/``indivisible``.
``max_level``
    Cut only at headings of level ``<= max_level``; deeper headings stay inside their section
    (and are not in any ``heading_path``). The deepest headings are the usual source of tiny
    chunks (an H4 per parameter, per FAQ entry), which embed poorly; ``merge_small`` fixes that
    by *size*, ``max_level`` by *structure* ("chunk per chapter and section, never finer").
    Default 6: every heading cuts. (In reStructuredText the levels are the order in which
    underline styles first appear, as docutils assigns them.)
``merge_small``
    0 = off. A section with fewer tokens merges with the NEXT section when the merged span still
    fits ``max_tokens``; while the merged chunk is still under ``merge_small`` it keeps taking
    the next section on the same condition (the packer's "reach a minimum" policy). The chunk's
    ``heading_path`` is then the first section's path and ``merged_sections`` lists the paths
    of all merged sections. A small last section has no next section and stays as it is.

Reasons: ``unit_end`` where a chunk of whole sections ends (at the next kept heading),
``size_limit`` between the pieces of a split section, ``end_of_document`` for the last chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from chunkviz.core.errors import InvalidParamError
from chunkviz.core.limits import refuse_as_counted
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.blocks import LeafSection
from chunkviz.document.model import Document, is_blank
from chunkviz.splitting import PackPolicy, Piece, pack_units, to_chunks
from chunkviz.splitting.units import SECTION_SEPARATORS
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class HeadingsParams:
    max_tokens: int = param(
        128,
        "sections over this many tokens are split at paragraphs, lines, words",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )
    max_level: int = param(
        6,
        "cut only at headings of this level or higher (1 = top level only); deeper headings stay in their section",
        minimum=1,
        maximum=6,
    )
    merge_small: int = param(
        0,
        "a section under this many tokens merges with the next one if the result fits max_tokens (0 = off)",
        minimum=0,
        maximum=100_000,
        unit="tokens",
    )

    def __post_init__(self) -> None:
        if self.merge_small >= self.max_tokens:
            raise InvalidParamError(
                "headings",
                "merge_small",
                f"must be smaller than max_tokens ({self.max_tokens}), got {self.merge_small}",
            )


def section_metadata(path: Sequence[str], heading_level: int) -> dict[str, Any]:
    """The metadata every section chunk carries: its heading path, joined, and heading level."""
    return {Meta.HEADING_PATH: list(path), Meta.SECTION: " > ".join(path), Meta.HEADING_LEVEL: heading_level}


def _section_piece(piece: Piece, sections: Sequence[LeafSection]) -> Piece:
    """A packed piece with its sections' metadata instead of the packer's unit indexes."""
    first, stop = piece.metadata[Meta.UNITS]
    group = sections[first:stop]
    metadata = section_metadata(group[0].path, group[0].heading_level)
    if len(group) > 1:
        metadata["merged_sections"] = [list(s.path) for s in group]
    # a chunk of whole sections ends where a section ends, whatever stopped the merging
    reason = piece.reason if piece.split_unit else Reason.UNIT_END
    return replace(piece, reason=reason, metadata=metadata)


def _refuse_many_sections(sections: int, params: HeadingsParams) -> None:
    """Without merging every section is a chunk at least: refused before any is packed."""

    refuse_as_counted(
        "headings",
        sections,
        f"this document's {sections:,} sections (headings of level {params.max_level} or higher)",
        "Lower max_level to cut at fewer headings, or set merge_small to merge small sections, "
        "or chunk a smaller document",
    )


@register(
    "headings",
    "One chunk per section, cut at every heading (up to max_level) with its heading path; long sections split at paragraphs, small ones optionally merged.",
    HeadingsParams,
)
def headings(document: Document, params: HeadingsParams, tokenizer: Tokenizer) -> list[Chunk]:
    text = document.text
    if is_blank(text):
        return []
    counter = shared_counter(text, tokenizer)
    sections = document.structure.leaf_sections(params.max_level)
    if not params.merge_small:
        _refuse_many_sections(len(sections), params)
    cuts = [s.start for s in sections] + [len(text)]
    # min_tokens=0 stops after every section (no merging); merge_small > 0 merges small ones
    policy = PackPolicy(params.max_tokens, min_tokens=params.merge_small, split_separators=SECTION_SEPARATORS)
    return to_chunks(document, [_section_piece(p, sections) for p in pack_units(text, cuts, counter, policy)])


__all__ = ["HeadingsParams", "headings", "section_metadata"]
