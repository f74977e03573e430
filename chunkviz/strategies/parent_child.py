"""Parent-child chunking (seed 000 §13.9.1, guide strategy 4): small chunks to embed inside
large chunks to return.

ONE list is returned: every parent (``level`` 0) first, then every child (``level`` 1), each
level in document order; ``index`` is the list position and a child's ``parent`` is the index
of the parent whose span contains it. Parents are token windows without overlap (or the
document structure's leaf sections, split into windows when too long); children are token
windows with ``child_overlap`` cut *inside* each parent, so a child never straddles two parents.
Token windows become character spans through exact token offsets
(:mod:`chunkviz.splitting.windows`, as in ``fixed_tokens``); ``token_count`` is the real count of
each chunk's own text (not the guide's word estimate, nor the window's token count), and a chunk
over its size is flagged ``over_size_limit`` (``indivisible`` when a whole character whose tokens
straddled a cut makes it so).

Reasons: parents ``size_limit`` (window full) or ``unit_end`` (a section ended), children
``size_limit`` or ``parent_end``; ``end_of_document`` at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.core.errors import InvalidParamError
from chunkviz.core.limits import refuse_as_counted
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import Document
from chunkviz.splitting import Piece, to_chunks
from chunkviz.splitting.windows import (
    SpanTokens,
    Window,
    document_tokens,
    overlapping_windows,
    tiles,
    tokens_of_span,
    window_metadata,
    windows_metadata,
)
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import SpanCounter, shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class ParentChildParams:
    parent_size: int = param(
        1000, "tokens per parent chunk (the context returned to the model)", minimum=2, maximum=100_000, unit="tokens"
    )
    child_size: int = param(
        128,
        "tokens per child chunk (what is embedded and searched)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    child_overlap: int = param(
        16, "tokens shared by adjacent children of the same parent", minimum=0, maximum=100_000, overlap_unit="tokens"
    )
    parents: str = param(
        "fixed",
        "fixed: parent_size token windows without overlap; sections: one parent per Markdown section "
        "(a section over parent_size is split into windows)",
        choices=("fixed", "sections"),
    )

    def __post_init__(self) -> None:
        if self.child_overlap >= self.child_size:
            hint = " (the default child_overlap is 16)" if self.child_overlap == 16 else ""
            raise InvalidParamError(
                "parent_child",
                "child_overlap",
                f"must be smaller than child_size ({self.child_size}), got {self.child_overlap}{hint}",
            )
        if self.child_size >= self.parent_size:
            raise InvalidParamError(
                "parent_child",
                "child_size",
                f"must be smaller than parent_size ({self.parent_size}), got {self.child_size}",
            )
        if self.parents not in ("fixed", "sections"):
            raise InvalidParamError("parent_child", "parents", f"must be one of fixed, sections, got {self.parents!r}")


@dataclass(frozen=True)
class _Parent:
    piece: Piece
    tokens: SpanTokens  # the parent's own tokens


def _parents_fixed(params: ParentChildParams, doc: SpanTokens, counter: SpanCounter) -> list[_Parent]:
    parents = []
    windows = tiles(doc, params.parent_size)
    for w, metadata in zip(windows, windows_metadata(windows, counter, params.parent_size, token_range=True)):
        piece = Piece(w.start, w.end, Reason.SIZE_LIMIT, metadata=metadata)
        parents.append(_Parent(piece, doc.slice(w.first, w.stop, w.start, w.end)))
    return parents


def _parents_sections(
    document: Document, params: ParentChildParams, doc: SpanTokens, counter: SpanCounter
) -> list[_Parent]:

    sections = document.structure.leaf_sections()
    # every section is a parent at least: refused before any is tokenized
    refuse_as_counted(
        "parent_child",
        len(sections),
        f"this document's {len(sections):,} sections",
        'Use parents="fixed", or chunk a smaller document',
    )
    parents = []
    for section in sections:
        tokens = tokens_of_span(document.text, counter, doc, section.start, section.end)
        split = tokens.n > params.parent_size
        windows = tiles(tokens, params.parent_size) if split else [Window(section.start, section.end, 0, tokens.n)]
        for k, w in enumerate(windows):
            reason = Reason.UNIT_END if k == len(windows) - 1 else Reason.SIZE_LIMIT
            metadata = window_metadata(w, counter, params.parent_size, heading_path=list(section.path))
            piece = Piece(w.start, w.end, reason, split_unit=split, metadata=metadata)
            parents.append(_Parent(piece, tokens.slice(w.first, w.stop, w.start, w.end)))
    return parents


def _children(parent: _Parent, index: int, params: ParentChildParams, counter: SpanCounter) -> list[Piece]:
    """Child windows inside one parent (tiles without overlap)."""
    children = []
    windows = overlapping_windows(parent.tokens, params.child_size, params.child_overlap)
    for w, metadata in zip(windows, windows_metadata(windows, counter, params.child_size)):
        reason = Reason.PARENT_END if w.end >= parent.piece.end else Reason.SIZE_LIMIT
        children.append(Piece(w.start, w.end, reason, level=1, parent=index, metadata=metadata))
    return children


@register(
    "parent_child",
    "Parents of parent_size tokens (or Markdown sections) to return as context; children of child_size tokens "
    "with child_overlap, cut inside each parent, to embed and search (defaults 1000/128/16).",
    ParentChildParams,
    returns_parents=True,
)
def parent_child(document: Document, params: ParentChildParams, tokenizer: Tokenizer) -> list[Chunk]:
    counter = shared_counter(document.text, tokenizer)
    doc = document_tokens(document.text, counter)
    if params.parents == "sections":
        parents = _parents_sections(document, params, doc, counter)
    else:
        parents = _parents_fixed(params, doc, counter)
    children = [child for k, p in enumerate(parents) for child in _children(p, k, params, counter)]
    return to_chunks(document, [p.piece for p in parents] + children)


__all__ = ["ParentChildParams", "parent_child"]
