"""``diagnose``: per-chunk and per-level diagnostics of one chunking of one document."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from chunkviz.core.types import Chunk, Span
from chunkviz.core.vocabulary import Flag
from chunkviz.diagnostics.cuts import CutFacts, SentenceIndex, split_block_flags
from chunkviz.diagnostics.hygiene import HygieneRules, hygiene
from chunkviz.diagnostics.overlap import (
    PairOverlap,
    configured_overlap,
    overlap_check,
    pair_overlaps,
    params_dict,
)
from chunkviz.diagnostics.per_chunk import Limits, chunk_diagnostics
from chunkviz.diagnostics.per_level import level_diagnostics, levels_of
from chunkviz.diagnostics.results import (
    Diagnostics,
    LevelDiagnostics,
    Summary,
    TinyRule,
    TokenStats,
)
from chunkviz.diagnostics.tiny import DEFAULT_TINY_FRACTION, tiny_rule
from chunkviz.document.model import Document, as_document
from chunkviz.text.counts import TokenCounter
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL, EmbeddingModelSpec
from chunkviz.text.models import embedding_model as model_spec
from chunkviz.text.tokenizers import (
    DEFAULT_TOKENIZER,
    EMBEDDING_MODEL_MAX_TOKENS,
    EMBEDDING_TOKENIZER,
    Tokenizer,
    TokenizerUnavailable,
    get_tokenizer,
)


def diagnose(
    document: Document | str,
    chunks: Sequence[Chunk],
    *,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    strategy: str | None = None,
    params: Mapping[str, Any] | Any | None = None,
    embedding_tokenizer: str | Tokenizer | None = EMBEDDING_TOKENIZER,
    embedding_max_tokens: int = EMBEDDING_MODEL_MAX_TOKENS,
    tiny_tokens: int | None = None,
    sentence_spans: Sequence[Span] | None = None,
    embedding_model: str | EmbeddingModelSpec | None = None,
    tiny: float | None = DEFAULT_TINY_FRACTION,
    chunk_tokenizer: str | Tokenizer | None = None,
    hygiene_rules: HygieneRules | None = None,
) -> Diagnostics:
    """Diagnose a chunking of ``document`` (a Document or its text): per-chunk flags, and per
    level the overlap check, coverage and overhead.

    ``chunks`` must be spans of the text (checked). Sentences (for mid-sentence cuts) and the
    tables and code blocks (for ``split_table``/``split_code``) come from ``document.structure``;
    ``sentence_spans`` overrides the sentences. ``strategy`` and ``params`` give the configured
    overlap and the size target.

    Model limit: ``embedding_model`` (a :data:`chunkviz.text.models.EMBEDDING_MODELS` name) sets the
    tokenizer and limit; without it ``embedding_tokenizer`` and ``embedding_max_tokens`` do
    (``embedding_tokenizer=None`` skips the check). Tiny: a chunk under ``tiny`` (a fraction,
    default 0.25) of the strategy's size target, counted in ``chunk_tokenizer``'s units (the
    tokenizer the strategy chunked with; default ``tokenizer``); ``tiny_tokens`` (an absolute
    floor in ``tokenizer`` tokens) replaces that rule; ``tiny=None`` without a floor, or a
    strategy without a size target, turns the flag off (see :mod:`chunkviz.diagnostics.tiny`).
    Hygiene (duplicates, boilerplate, low information, secrets, instructions): ``hygiene_rules``'
    thresholds (default :class:`~chunkviz.diagnostics.hygiene.HygieneRules`()).
    """
    doc = as_document(document)
    text = doc.text
    _check_spans(text, chunks)
    tok = get_tokenizer(tokenizer)
    notes: list[str] = []
    model_name, embedding_tokenizer, embedding_max_tokens = _model(
        embedding_model, embedding_tokenizer, embedding_max_tokens, notes
    )
    embedding = _embedding_tokenizer(embedding_tokenizer, notes)
    params_plain = params_dict(params)
    size_tok = get_tokenizer(chunk_tokenizer) if chunk_tokenizer is not None else tok
    rule = tiny_rule(
        strategy, params_plain, fraction=tiny, floor=tiny_tokens, tokenizer=tok.name, chunk_tokenizer=size_tok.name
    )
    overlap_value, overlap_unit = configured_overlap(strategy, params_plain)
    if overlap_unit == "tokens" and size_tok.name != tok.name:  # the strategy counted with another tokenizer
        overlap_unit = "chars" if size_tok.name == "chars" else f"{size_tok.name} tokens"  # the latter: not measured
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
    limits = Limits(embedding_max_tokens, rule.below)
    sizes = _sizes(text, chunks, token_counts, tok, rule)
    findings, hygiene_summary = hygiene(chunks, hygiene_rules, text)
    results = tuple(
        chunk_diagnostics(
            c,
            counts[i],
            pairs.get(i, PairOverlap()),
            cuts,
            limits,
            blocks.get(c.index),
            sizes[i],
            findings.get(c.index, ()),
        )
        for i, c in enumerate(chunks)
    )
    flag_counts: dict[str, int] = {flag: 0 for flag in Flag}
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
        tiny_tokens=rule.below,
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
        tiny=rule,
        embedding_model=model_name if embedding is not None else None,
        hygiene=hygiene_summary,
    )


def _model(
    model: str | EmbeddingModelSpec | None, tokenizer: str | Tokenizer | None, max_tokens: int, notes: list[str]
) -> tuple[str | None, str | Tokenizer | None, int]:
    """The model's name, tokenizer and limit: from ``model``, else as given (named when they are
    the default model's). A model counted with a stand-in tokenizer adds a note."""
    if model is not None:
        spec = model_spec(model)
        if not spec.exact:
            notes.append(f"{spec.name}: {spec.note}")
        return spec.name, spec.tokenizer, spec.max_tokens
    default = model_spec(DEFAULT_EMBEDDING_MODEL)
    name = tokenizer.name if isinstance(tokenizer, Tokenizer) else tokenizer
    is_default = name == default.tokenizer and max_tokens == default.max_tokens
    return (default.name if is_default else None), tokenizer, max_tokens


def _sizes(
    text: str, chunks: Sequence[Chunk], token_counts: Sequence[int], tok: Tokenizer, rule: TinyRule
) -> list[int | None]:
    """Each chunk's size in the tiny rule's unit (None: its tokens, already counted)."""
    if not rule.on or rule.unit in (None, tok.name):
        return [None] * len(chunks)
    if rule.unit == "chars":
        return [c.end - c.start for c in chunks]
    counter = TokenCounter(text, get_tokenizer(rule.unit))
    return [counter.tokens(c) for c in chunks]


def _check_spans(text: str, chunks: Sequence[Chunk]) -> None:
    for c in chunks:
        if c.end > len(text) or text[c.start : c.end] != c.text:
            raise ValueError(
                f"chunk {c.index} [{c.start}, {c.end}) is not a span of this text (was it made from another document?)"
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
    document: Document,
    chunks: Sequence[Chunk],
    given: Sequence[Span] | None,
    overlap_in_sentences: bool,
    notes: list[str],
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
        index = SentenceIndex(text, document.structure.sentences)
        notes.extend(document.language_notes())  # a mixed document, or its sentences' extra missing
        return index, True
    except (ImportError, OSError, RuntimeError) as exc:
        notes.append(f"sentence segmentation unavailable ({exc}); mid-sentence cuts not checked")
        return None, False
