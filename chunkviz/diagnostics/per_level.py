"""Per-level diagnostics: coverage, overhead, overlap and cut counts of the chunks of one level."""

from __future__ import annotations

from typing import Sequence

from chunkviz.core.types import Chunk
from chunkviz.diagnostics.coverage import audit_coverage, covered_runs, percent
from chunkviz.diagnostics.cuts import CutFacts, cut_key
from chunkviz.diagnostics.results import Coverage, LevelDiagnostics, Overhead, OverlapCheck, TokenStats
from chunkviz.text.counts import TokenCounter


def levels_of(chunks: Sequence[Chunk]) -> dict[int, list[int]]:
    """Positions in ``chunks`` per level, each in document order (level 0 even without chunks)."""
    by_level: dict[int, list[int]] = {}
    for i, c in enumerate(chunks):
        by_level.setdefault(c.level, []).append(i)
    for members in by_level.values():
        members.sort(key=lambda i: (chunks[i].start, chunks[i].end, i))
    return dict(sorted(by_level.items())) or {0: []}


def level_coverage(text: str, chunks: Sequence[Chunk], members: Sequence[int], level: int) -> Coverage:
    """Coverage of one level; a deeper level is audited inside its parents only."""
    by_index = {c.index: c for c in chunks}
    parents = (
        [by_index[parent] for i in members if (parent := chunks[i].parent) is not None and parent in by_index]
        if level > 0
        else []
    )
    scope = [(p.start, p.end) for p in parents] if parents else None
    return audit_coverage(text, (chunks[i].span for i in members), scope)


def level_overhead(
    text: str,
    coverage: Coverage,
    chunks: Sequence[Chunk],
    members: Sequence[int],
    token_counts: Sequence[int],
    counter: TokenCounter,
) -> Overhead:
    """Characters and tokens stored more than once, relative to the covered text."""
    covered_tokens = sum(counter.span(s, e) for s, e in covered_runs(len(text), coverage))
    chunk_chars = sum(chunks[i].end - chunks[i].start for i in members)
    chunk_tokens = sum(token_counts[i] for i in members)
    return Overhead(
        chunk_chars=chunk_chars,
        covered_chars=coverage.covered_chars,
        chars_percent=percent(chunk_chars - coverage.covered_chars, coverage.covered_chars),
        chunk_tokens=chunk_tokens,
        covered_tokens=covered_tokens,
        tokens_percent=percent(chunk_tokens - covered_tokens, covered_tokens),
    )


def level_diagnostics(
    text: str,
    chunks: Sequence[Chunk],
    level: int,
    members: Sequence[int],
    token_counts: Sequence[int],
    counter: TokenCounter,
    cuts: CutFacts,
    overlap: OverlapCheck,
) -> LevelDiagnostics:
    """Everything per level. A cut is counted once per boundary position (ends and starts in the
    same whitespace run are one cut)."""
    coverage = level_coverage(text, chunks, members, level)
    n = len(text)
    positions = {p for i in members for p in (chunks[i].start, chunks[i].end) if 0 < p < n}
    return LevelDiagnostics(
        level=level,
        chunks=len(members),
        tokens=TokenStats.of([token_counts[i] for i in members]),
        coverage=coverage,
        overhead=level_overhead(text, coverage, chunks, members, token_counts, counter),
        overlap=overlap,
        mid_sentence_cuts=len({cut_key(text, p) for p in positions if cuts.mid_sentence(p)}),
        mid_word_cuts=len({cut_key(text, p) for p in positions if cuts.mid_word(p)}),
    )
