"""Diagnostics of any chunking, as plain data: flags per chunk, overlap, coverage, overhead.

Everything here is arithmetic on the chunks' spans (``chunk.text == text[start:end]``), so
every number is exact for the spans given. The package is split by what is diagnosed:

- :mod:`~chunkviz.diagnostics.per_chunk`: token counts (from :mod:`chunkviz.text.counts`) and the
  flags of :class:`chunkviz.core.vocabulary.Flag`: over the strategy's own size limit (its
  ``over_size_limit`` metadata), over the embedding model's limit (:mod:`chunkviz.text.models`),
  *tiny* (under a fraction of the size the strategy was asked for, or an absolute floor: rule in
  :mod:`~chunkviz.diagnostics.tiny`), cuts mid-word / mid-sentence at its end and start, splits
  a table or a code block; and the actual overlap with the previous chunk;
- :mod:`~chunkviz.diagnostics.per_level`: per level of a multi-level chunking, the coverage
  audit (:mod:`~chunkviz.diagnostics.coverage`: gaps with text, whitespace gaps, text covered
  more than once), the storage overhead of overlap and the overlap check
  (:mod:`~chunkviz.diagnostics.overlap`: the overlap a strategy declares with
  ``param(..., overlap_unit=...)`` against the overlap the chunks have);
- :mod:`~chunkviz.diagnostics.results`: the frozen result types with ``to_dict()`` and
  :meth:`Diagnostics.summary_lines`, the short human report.

Sentences, tables and code blocks come from ``Document.structure``.

Layer diagnostics: per-chunk flags, coverage, overlap, the tiny rule; compare: a configuration's run
and its shaping for display. May import: chunkviz.core, chunkviz.text, chunkviz.document,
chunkviz.drawing, chunkviz.splitting, chunkviz.llm, chunkviz.semantic, chunkviz.strategies,
chunkviz.api (the layers below it).
"""

from chunkviz.diagnostics.analysis import diagnose
from chunkviz.diagnostics.coverage import audit_coverage
from chunkviz.diagnostics.cuts import split_block_flags
from chunkviz.diagnostics.overlap import configured_overlap
from chunkviz.diagnostics.results import (
    ChunkDiagnostics,
    Coverage,
    Diagnostics,
    LevelDiagnostics,
    Overhead,
    OverlapCheck,
    Summary,
    TinyRule,
    TokenStats,
)
from chunkviz.diagnostics.tiny import DEFAULT_TINY_FRACTION, tiny_rule
from chunkviz.document.words import cuts_mid_word, splits_grapheme

__all__ = [
    "DEFAULT_TINY_FRACTION",
    "ChunkDiagnostics",
    "Coverage",
    "Diagnostics",
    "LevelDiagnostics",
    "Overhead",
    "OverlapCheck",
    "Summary",
    "TinyRule",
    "TokenStats",
    "audit_coverage",
    "configured_overlap",
    "cuts_mid_word",
    "diagnose",
    "split_block_flags",
    "splits_grapheme",
    "tiny_rule",
]
