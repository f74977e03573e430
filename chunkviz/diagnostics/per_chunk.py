"""Per-chunk diagnostics: token counts, size flags, where its start and end cut, its overlap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import PEER_FLAGS, Flag, Meta
from chunkviz.diagnostics.cuts import CutFacts
from chunkviz.diagnostics.hygiene import HYGIENE_FLAGS, HygieneFinding
from chunkviz.diagnostics.overlap import PairOverlap
from chunkviz.diagnostics.results import ChunkDiagnostics
from chunkviz.text.counts import ChunkTokens


@dataclass(frozen=True)
class Limits:
    """The thresholds of the size flags."""

    embedding_max_tokens: int
    #: A chunk whose size (in the tiny rule's unit) is below this is tiny; None: never.
    tiny_tokens: int | None


#: Every flag in its declared order (iterating an Enum class is slow; this runs once per chunk).
_FLAGS: tuple[Flag, ...] = tuple(Flag)


def chunk_diagnostics(
    chunk: Chunk,
    counts: ChunkTokens,
    overlap: PairOverlap,
    cuts: CutFacts,
    limits: Limits,
    split_block: Flag | None = None,
    size: int | None = None,
    hygiene: Sequence[HygieneFinding] = (),
) -> ChunkDiagnostics:
    """What is notable about one chunk; ``flags`` lists the set ones in :class:`Flag` order.
    ``size`` is the chunk's size in the unit of the tiny rule (default: its tokens); ``hygiene``
    its hygiene findings (:func:`chunkviz.diagnostics.hygiene.hygiene`)."""
    size = counts.tokens if size is None else size
    on = {
        Flag.OVER_SIZE_LIMIT: bool(chunk.metadata.get(Meta.OVER_SIZE_LIMIT)),
        Flag.OVER_MODEL_LIMIT: counts.embedding_tokens is not None
        and counts.embedding_tokens > limits.embedding_max_tokens,
        Flag.TINY: limits.tiny_tokens is not None and size < limits.tiny_tokens,
        Flag.MID_SENTENCE: cuts.mid_sentence(chunk.end),
        Flag.MID_WORD: cuts.mid_word(chunk.end),
        Flag.STARTS_MID_SENTENCE: cuts.mid_sentence(chunk.start),
        Flag.STARTS_MID_WORD: cuts.mid_word(chunk.start),
        Flag.SPLIT_TABLE: split_block is Flag.SPLIT_TABLE,
        Flag.SPLIT_CODE: split_block is Flag.SPLIT_CODE,
    }
    audited = set(chunk.metadata.get("peer_flags", ()))  # a peer splitter's chunk, audited against the source
    on.update({flag: flag.value in audited for flag in PEER_FLAGS})
    found = {f.flag for f in hygiene}
    on.update({flag: flag in found for flag in HYGIENE_FLAGS})
    return ChunkDiagnostics(
        index=chunk.index,
        start=chunk.start,
        end=chunk.end,
        level=chunk.level,
        parent=chunk.parent,
        reason=str(chunk.reason),
        boundary=str(chunk.boundary),
        tokens=counts.tokens,
        embedding_tokens=counts.embedding_tokens,
        added_tokens=counts.added_tokens,
        over_size_limit=on[Flag.OVER_SIZE_LIMIT],
        over_model_limit=on[Flag.OVER_MODEL_LIMIT],
        tiny=on[Flag.TINY],
        cut_mid_word=on[Flag.MID_WORD],
        cut_mid_sentence=on[Flag.MID_SENTENCE],
        start_mid_word=on[Flag.STARTS_MID_WORD],
        start_mid_sentence=on[Flag.STARTS_MID_SENTENCE],
        overlap_prev_chars=overlap.chars,
        overlap_prev_tokens=overlap.tokens,
        overlap_prev_sentences=overlap.sentences,
        split_block=split_block.removeprefix("split_") if split_block else None,
        flags=tuple(flag for flag in _FLAGS if on[flag]),
        hygiene=tuple(hygiene),
    )
