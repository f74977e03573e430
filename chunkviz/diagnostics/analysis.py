"""``diagnose``: per-chunk and per-level diagnostics of one chunking of one document."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from chunkviz.counts import TokenCounter
from chunkviz.diagnostics.cuts import CutFacts, SentenceIndex, split_block_flags
from chunkviz.diagnostics.overlap import PairOverlap, configured_overlap, overlap_check, pair_overlaps, params_dict
from chunkviz.diagnostics.per_chunk import Limits, chunk_diagnostics
from chunkviz.diagnostics.per_level import level_diagnostics, levels_of
from chunkviz.diagnostics.results import Diagnostics, LevelDiagnostics, Span, Summary, TokenStats
from chunkviz.document.model import Document, as_document
from chunkviz.tokenizers import (
    DEFAULT_TOKENIZER,
    EMBEDDING_MODEL_MAX_TOKENS,
    EMBEDDING_TOKENIZER,
    Tokenizer,
    TokenizerUnavailable,
    get_tokenizer,
)
from chunkviz.types import Chunk
from chunkviz.vocabulary import Flag


def diagnose(
    document: Document | str,
    chunks: Sequence[Chunk],
    *,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    strategy: str | None = None,
    params: Mapping[str, Any] | Any | None = None,
    embedding_tokenizer: str | Tokenizer | None = EMBEDDING_TOKENIZER,
    embedding_max_tokens: int = EMBEDDING_MODEL_MAX_TOKENS,
    tiny_tokens: int = 100,
    sentence_spans: Sequence[Span] | None = None,
) -> Diagnostics:
    """Diagnose a chunking of ``document`` (a Document or its text): per-chunk flags, and per
    level the overlap check, coverage and overhead.

    ``chunks`` must be spans of the text (checked). Sentences (for mid-sentence cuts) and the
    tables and code blocks (for ``split_table``/``split_code``) come from ``document.structure``;
    ``sentence_spans`` overrides the sentences. ``embedding_tokenizer=None`` skips the
    embedding-limit check. ``strategy`` and ``params`` give the configured overlap.
    """
    doc = as_document(document)
    text = doc.text
    _check_spans(text, chunks)
    tok = get_tokenizer(tokenizer)
    notes: list[str] = []
    embedding = _embedding_tokenizer(embedding_tokenizer, notes)
    params_plain = params_dict(params)
    overlap_value, overlap_unit = configured_overlap(strategy, params_plain)
    sentences, sentences_checked = _sentences(doc, chunks, sentence_spans, overlap_unit == "sentences", notes)
    cuts = CutFacts(text, sentences)
    counter = TokenCounter(text, tok, embedding)
    counts = counter.all(chunks)
    token_counts = [c.tokens for c in counts]

    pairs: dict[int, PairOverlap] = {}
    levels: list[LevelDiagnostics] = []
    for level, members in levels_of(chunks).items():
        level_pairs = pair_overlaps(chunks, members, counter, sentences, overlap_unit)
        pairs.update(level_pairs)
        check = overlap_check(overlap_value, overlap_unit, chunks, members, level_pairs)
        levels.append(level_diagnostics(text, chunks, level, members, token_counts, counter, cuts, check))

    blocks = split_block_flags(text, chunks, doc.structure.of_kind("table", "code")) if chunks else {}
    limits = Limits(embedding_max_tokens, tiny_tokens)
    results = tuple(
        chunk_diagnostics(c, counts[i], pairs.get(i, PairOverlap()), cuts, limits, blocks.get(c.index))
        for i, c in enumerate(chunks)
    )
    flag_counts = {flag: 0 for flag in Flag}
    for result in results:
        for flag in result.flags:
            flag_counts[flag] += 1
    first = levels[0]
    covers_all = first.coverage.covered_chars == len(text)
    return Diagnostics(
        document_chars=len(text),
        document_tokens=first.overhead.covered_tokens if covers_all else tok.count(text),
        tokenizer=tok.name,
        embedding_tokenizer=embedding.name if embedding is not None else None,
        embedding_max_tokens=embedding_max_tokens,
        tiny_tokens=tiny_tokens,
        strategy=strategy,
        params=params_plain,
        sentences_checked=sentences_checked,
        chunks=results,
        levels=tuple(levels),
        summary=Summary(
            chunks=len(chunks),
            tokens=TokenStats.of(token_counts),
            flag_counts=flag_counts,
            mid_sentence_cuts=sum(lv.mid_sentence_cuts for lv in levels),
            mid_word_cuts=sum(lv.mid_word_cuts for lv in levels),
        ),
        notes=tuple(notes),
    )


def _check_spans(text: str, chunks: Sequence[Chunk]) -> None:
    for c in chunks:
        if c.end > len(text) or text[c.start : c.end] != c.text:
            raise ValueError(
                f"chunk {c.index} [{c.start}, {c.end}) is not a span of this text "
                "(was it made from another document?)"
            )


def _embedding_tokenizer(name: str | Tokenizer | None, notes: list[str]) -> Tokenizer | None:
    if name is None:
        return None
    try:
        return get_tokenizer(name)
    except TokenizerUnavailable as exc:
        notes.append(f"embedding tokenizer unavailable ({exc}); embedding limit not checked")
        return None


def _sentences(
    document: Document, chunks: Sequence[Chunk], given: Sequence[Span] | None, overlap_in_sentences: bool, notes: list[str]
) -> tuple[SentenceIndex | None, bool]:
    """The sentence index (from ``given`` or the document's structure) and whether sentence cuts
    are checked. The segmenter only runs when some cut lies inside the document."""
    text = document.text
    n = len(text)
    if given is not None:
        return SentenceIndex(text, given), True
    needed = any(0 < c.start < n or 0 < c.end < n for c in chunks) or overlap_in_sentences
    if not needed or not chunks:
        return None, not needed
    try:
        return SentenceIndex(text, document.structure.sentences), True
    except (ImportError, OSError, RuntimeError) as exc:
        notes.append(f"sentence segmentation unavailable ({exc}); mid-sentence cuts not checked")
        return None, False
