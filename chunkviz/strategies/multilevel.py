"""Two-level chunkings: small chunks to embed inside large chunks to return (seed 000 §13.9).

Both strategies return ONE list: every parent (``level`` 0) first, then every child (``level``
1), each level in document order; ``index`` is the list position and a child's ``parent`` is
the index of the parent whose span contains it. Parents cover every non-whitespace character
of the document and each parent's children cover every non-whitespace character of the parent.

- ``parent_child`` (§13.9.1, guide strategy 4): parents are token windows without overlap (or
  Markdown sections); children are token windows with overlap cut *inside* each parent, so a
  child never straddles two parents. Token windows become character spans through exact token
  offsets, as in ``fixed_tokens``; sizes are real token counts, not the guide's word estimate.
- ``small_to_big`` (§13.9.2): parents are blank-line paragraphs, children are their sentences.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

from chunkviz.errors import InvalidParamError
from chunkviz.segment import cached_sentence_starts
from chunkviz.spancount import SpanCounter, shared_counter
from chunkviz.strategies.base import param, register
from chunkviz.strategies.fixed import window_starts
from chunkviz.strategies.packing import cuts_between, pack_units, unit_cuts
from chunkviz.strategies.paragraphs import paragraph_starts
from chunkviz.strategies.recursive import RecursiveSplitter
from chunkviz.structure import sections
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk, Reason

#: How an over-long unit (a sentence) is split further: lines, then words, then characters.
_SPLIT_SEPARATORS = ["\n", " ", ""]


# ============================================================================ parent_child


@dataclass(frozen=True)
class ParentChildParams:
    parent_size: int = param(1000, "tokens per parent chunk (the context returned to the model)", minimum=2, maximum=100_000)
    child_size: int = param(200, "tokens per child chunk (what is embedded and searched)", minimum=1, maximum=100_000)
    child_overlap: int = param(30, "tokens shared by adjacent children of the same parent", minimum=0, maximum=100_000)
    parents: str = param(
        "fixed",
        "fixed: parent_size token windows without overlap; sections: one parent per Markdown section "
        "(a section over parent_size is split into windows)",
        choices=("fixed", "sections"),
    )

    def __post_init__(self) -> None:
        if self.child_overlap >= self.child_size:
            hint = " (the default child_overlap is 30)" if self.child_overlap == 30 else ""
            raise InvalidParamError(
                "parent_child",
                "child_overlap",
                f"must be smaller than child_size ({self.child_size}), got {self.child_overlap}{hint}",
            )
        if self.child_size >= self.parent_size:
            raise InvalidParamError(
                "parent_child", "child_size", f"must be smaller than parent_size ({self.parent_size}), got {self.child_size}"
            )
        if self.parents not in ("fixed", "sections"):
            raise InvalidParamError("parent_child", "parents", f"must be one of fixed, sections, got {self.parents!r}")


@dataclass(frozen=True)
class _SpanTokens:
    """The tokens of a span ``[start, end)``: where each starts (clamped into the span) and
    whether that start is exact (not snapped down to a multibyte character's start)."""

    start: int
    end: int
    starts: Sequence[int]
    exact: Sequence[bool]

    @property
    def n(self) -> int:
        return len(self.starts)

    def char_at(self, k: int) -> int:
        """Character position of token boundary ``k`` (0 = span start, n = span end)."""
        if k <= 0:
            return self.start
        if k >= self.n:
            return self.end
        return min(max(int(self.starts[k]), self.start), self.end)

    def exact_at(self, k: int) -> bool:
        return k <= 0 or k >= self.n or bool(self.exact[k])

    def slice(self, first: int, stop: int, start: int, end: int) -> "_SpanTokens":
        return _SpanTokens(start, end, self.starts[first:stop], self.exact[first:stop])


def _document_tokens(text: str, counter: SpanCounter) -> _SpanTokens:
    bounds = counter.bounds
    n = bounds.n_tokens
    return _SpanTokens(0, len(text), bounds.positions[:n], bounds.exact[:n])


def _tokens_of_span(text: str, counter: SpanCounter, doc: _SpanTokens, start: int, end: int) -> _SpanTokens:
    """Tokens of ``text[start:end]``: the document's own where both ends are clean cuts (so the
    span tokenizes exactly like that part of the document), else the span tokenized alone."""
    if counter.is_clean(start) and counter.is_clean(end):
        first = bisect.bisect_left(doc.starts, start)
        stop = bisect.bisect_left(doc.starts, end)
        return doc.slice(first, stop, start, end)
    bounds = counter.tokenizer.boundaries(text[start:end])
    n = bounds.n_tokens
    return _SpanTokens(start, end, [int(p) + start for p in bounds.positions[:n]], list(bounds.exact[:n]))


@dataclass(frozen=True)
class _Window:
    start: int
    end: int
    first: int  # token index (within the span's tokens)
    stop: int  # exclusive
    snapped: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return self.stop - self.first


def _tiles(tokens: _SpanTokens, size: int) -> list[_Window]:
    """Windows of ``size`` tokens without overlap that tile the span.

    A cut that snapping to a character start would leave empty (all tokens of the window start
    inside one multibyte character) is dropped, so its tokens join the window before it.
    """
    if tokens.n == 0:
        return [_Window(tokens.start, tokens.end, 0, 0)]
    cuts = [0]
    for k in range(size, tokens.n, size):
        pos = tokens.char_at(k)
        if tokens.char_at(cuts[-1]) < pos < tokens.end:
            cuts.append(k)
    cuts.append(tokens.n)
    windows = []
    for first, stop in zip(cuts[:-1], cuts[1:]):
        snapped = tuple(side for side, k in (("start", first), ("end", stop)) if not tokens.exact_at(k))
        windows.append(_Window(tokens.char_at(first), tokens.char_at(stop), first, stop, snapped))
    return windows


def _overlapping_windows(tokens: _SpanTokens, size: int, overlap: int) -> list[_Window]:
    """Windows like ``fixed_tokens`` (``size`` tokens, ``overlap`` shared), confined to the span."""
    if tokens.n == 0:
        return [_Window(tokens.start, tokens.end, 0, 0)]
    windows = []
    for first in window_starts(tokens.n, size, overlap):
        stop = min(first + size, tokens.n)
        start, end = tokens.char_at(first), tokens.char_at(stop)
        snapped = [side for side, k in (("start", first), ("end", stop)) if not tokens.exact_at(k)]
        if end <= start:
            if start >= tokens.end:
                # every token of the window starts inside the character just past the span (its
                # start was snapped down to the span's end): the span has no text left for it
                continue
            end = start + 1  # a window inside one multibyte character: take the whole character
            snapped.append("end")
        windows.append(_Window(start, end, first, stop, tuple(sorted(set(snapped)))))
    return windows


@dataclass
class _Parent:
    window: _Window
    tokens: _SpanTokens  # the parent's own tokens
    reason: str
    metadata: dict[str, object]


def _section_spans(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Leaf sections: each heading up to the next heading of any level, plus the text before the
    first heading (joined to the first section when it is only whitespace)."""
    found = sections(text)
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    starts = [s.start for s in found]
    if not found:
        return [(0, len(text), ())]
    if starts[0] > 0 and text[: starts[0]].strip():
        spans.append((0, starts[0], ()))
    for k, section in enumerate(found):
        start = 0 if k == 0 and not spans else section.start
        end = starts[k + 1] if k + 1 < len(found) else len(text)
        spans.append((start, end, section.path))
    return spans


def _parents_fixed(text: str, params: ParentChildParams, doc: _SpanTokens) -> list[_Parent]:
    parents = []
    for w in _tiles(doc, params.parent_size):
        reason = Reason.END_OF_DOCUMENT if w.end >= len(text) else Reason.TOKEN_CAP
        metadata: dict[str, object] = {"token_start": w.first, "token_end": w.stop, "token_count": w.tokens}
        _flag_window(metadata, w, params.parent_size)
        parents.append(_Parent(w, doc.slice(w.first, w.stop, w.start, w.end), str(reason), metadata))
    return parents


def _parents_sections(text: str, params: ParentChildParams, doc: _SpanTokens, counter: SpanCounter) -> list[_Parent]:
    parents = []
    for start, end, path in _section_spans(text):
        tokens = _tokens_of_span(text, counter, doc, start, end)
        split = tokens.n > params.parent_size
        windows = _tiles(tokens, params.parent_size) if split else [_Window(start, end, 0, tokens.n)]
        for k, w in enumerate(windows):
            if w.end >= len(text):
                reason = Reason.END_OF_DOCUMENT
            elif k == len(windows) - 1:
                reason = Reason.HEADING
            else:
                reason = Reason.TOKEN_CAP
            metadata: dict[str, object] = {"token_count": w.tokens, "heading_path": list(path)}
            if split:
                metadata["split_section"] = True
            _flag_window(metadata, w, params.parent_size)
            parents.append(_Parent(w, tokens.slice(w.first, w.stop, w.start, w.end), str(reason), metadata))
    return parents


def _flag_window(metadata: dict[str, object], window: _Window, size: int) -> None:
    if window.snapped:
        metadata["snapped_to_character"] = list(window.snapped)
    if window.tokens > size:  # only when snapping merged the tokens of one character
        metadata["over_limit"] = True
        metadata["indivisible"] = True


def _assemble(text: str, parents: list[tuple[int, int, str, dict]], children: list[list[tuple[int, int, str, dict]]]) -> list[Chunk]:
    chunks = [
        Chunk.from_span(text, k, start, end, reason, level=0, metadata=metadata)
        for k, (start, end, reason, metadata) in enumerate(parents)
    ]
    for parent_index, kids in enumerate(children):
        for start, end, reason, metadata in kids:
            chunks.append(
                Chunk.from_span(text, len(chunks), start, end, reason, parent=parent_index, level=1, metadata=metadata)
            )
    return chunks


@register(
    "parent_child",
    "Parents of parent_size tokens (or Markdown sections) to return as context; children of child_size tokens "
    "with child_overlap, cut inside each parent, to embed and search (guide defaults 1000/200/30).",
    ParentChildParams,
)
def parent_child(text: str, params: ParentChildParams, tokenizer: Tokenizer) -> list[Chunk]:
    counter = shared_counter(text, tokenizer)
    doc = _document_tokens(text, counter)
    if params.parents == "sections":
        parents = _parents_sections(text, params, doc, counter)
    else:
        parents = _parents_fixed(text, params, doc)
    children = []
    for p in parents:
        windows = _overlapping_windows(p.tokens, params.child_size, params.child_overlap)
        kids = []
        for w in windows:
            reason = Reason.PARENT_END if w.end >= p.window.end else Reason.TOKEN_CAP
            metadata: dict[str, object] = {"token_count": w.tokens}
            if w.snapped:
                metadata["snapped_to_character"] = list(w.snapped)
            kids.append((w.start, w.end, str(reason), metadata))
        children.append(kids)
    return _assemble(text, [(p.window.start, p.window.end, p.reason, p.metadata) for p in parents], children)


# ============================================================================ small_to_big


@dataclass(frozen=True)
class SmallToBigParams:
    max_parent_tokens: int = param(
        1000, "a paragraph over this many tokens is split into several parents at sentence ends (flagged)", minimum=1, maximum=100_000
    )
    max_child_tokens: int = param(
        200, "a sentence over this many tokens is split at words (flagged split_sentence)", minimum=1, maximum=100_000
    )


def _paragraph_spans(text: str, counter: SpanCounter) -> list[tuple[int, int]]:
    """Blank-line paragraphs tiling the text; a whitespace-only stretch joins its neighbour."""
    cuts = unit_cuts(text, paragraph_starts(text), counter)
    spans: list[tuple[int, int]] = []
    pending = None  # start of a whitespace-only stretch waiting for the next paragraph
    for start, end in zip(cuts[:-1], cuts[1:]):
        if end <= start:
            continue
        if not text[start:end].strip():
            pending = start if pending is None else pending
            continue
        spans.append((pending if pending is not None else start, end))
        pending = None
    if pending is not None and spans:
        spans[-1] = (spans[-1][0], len(text))
    return spans


def _sentence_cuts(text: str, start: int, end: int, sentence_starts: Sequence[int], counter: SpanCounter) -> list[int]:
    """Cuts tiling ``[start, end)`` into its sentences (whitespace between them cut cleanly)."""
    body = start + len(text[start:end]) - len(text[start:end].lstrip())  # the first non-space
    lo = bisect.bisect_right(sentence_starts, body)
    hi = bisect.bisect_left(sentence_starts, end)
    return cuts_between(text, sentence_starts[lo:hi], counter, start, end)


@register(
    "small_to_big",
    "Sentences (children, to embed) inside their blank-line paragraphs (parents, to return); long paragraphs "
    "split at sentence ends, long sentences at words, both flagged.",
    SmallToBigParams,
)
def small_to_big(text: str, params: SmallToBigParams, tokenizer: Tokenizer) -> list[Chunk]:
    counter = shared_counter(text, tokenizer)
    count = counter.count
    sentence_starts = cached_sentence_starts(text)
    splitter: RecursiveSplitter | None = None
    parents: list[tuple[int, int, str, dict]] = []
    children: list[list[tuple[int, int, str, dict]]] = []
    for paragraph, (p0, p1) in enumerate(_paragraph_spans(text, counter)):
        cuts = _sentence_cuts(text, p0, p1, sentence_starts, counter)
        cut_set = set(cuts)
        split_paragraph = count(p0, p1) > params.max_parent_tokens
        if split_paragraph:
            packed = pack_units(text, cuts, counter, params.max_parent_tokens, 0, str(Reason.SENTENCE_END), _SPLIT_SEPARATORS)
        else:
            packed = None
        pieces = [(s.start, s.end, s.reason, s.over_limit) for s in packed] if packed else [(p0, p1, "", False)]
        for a, b, piece_reason, over in pieces:
            if b >= len(text):
                reason = str(Reason.END_OF_DOCUMENT)
            elif b == p1:
                reason = str(Reason.PARAGRAPH)
            else:
                reason = piece_reason  # sentence_end, or word/line/character inside a split sentence
            metadata: dict[str, object] = {"token_count": count(a, b), "paragraph": paragraph}
            if split_paragraph:
                metadata["split_paragraph"] = True
            if a not in cut_set or b not in cut_set:
                metadata["split_sentence"] = True
            if over:
                metadata["over_limit"] = True
                metadata["indivisible"] = True
            parents.append((a, b, reason, metadata))
            # children: the sentences of this parent (pieces of one when the parent cuts a sentence)
            bounds = [a, *(c for c in cuts if a < c < b), b]
            kids = []
            for u0, u1 in zip(bounds[:-1], bounds[1:]):
                whole = u0 in cut_set and u1 in cut_set
                if count(u0, u1) <= params.max_child_tokens:
                    spans = [(u0, u1, False)]
                else:
                    if splitter is None:
                        splitter = RecursiveSplitter(
                            text, tokenizer, params.max_child_tokens, 0, _SPLIT_SEPARATORS, counter=counter
                        )
                    spans = splitter.split_span(u0, u1)
                    whole = False
                for s0, s1, s_over in spans:
                    if s1 >= b:
                        kid_reason = str(Reason.PARENT_END)
                    elif s1 == u1:
                        kid_reason = str(Reason.SENTENCE_END)
                    else:
                        kid_reason = splitter.cut_reason.get(s1, str(Reason.CHARACTER)) if splitter else str(Reason.CHARACTER)
                    kid_meta: dict[str, object] = {"token_count": count(s0, s1), "paragraph": paragraph}
                    if not whole:
                        kid_meta["split_sentence"] = True
                    if s_over:
                        kid_meta["over_limit"] = True
                        kid_meta["indivisible"] = True
                    kids.append((s0, s1, kid_reason, kid_meta))
            children.append(kids)
    return _assemble(text, parents, children)
