"""The results of :func:`chunkviz.diagnostics.diagnose`: frozen dataclasses with ``to_dict()``."""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from chunkviz.core.types import Span
from chunkviz.core.vocabulary import FLAG_LABELS, Flag
from chunkviz.diagnostics.hygiene.findings import HygieneFinding, HygieneSummary


def _plain(value: Any) -> Any:
    """A JSON-ready copy: dataclasses to dicts, tuples to lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready plain data."""
        return _plain(self)


@dataclass(frozen=True)
class ChunkDiagnostics(_ToDict):
    """What is notable about one chunk.

    Token counts come from :mod:`chunkviz.text.counts`. ``over_size_limit`` repeats the strategy's own
    ``over_size_limit`` metadata (one indivisible unit over its budget); ``over_model_limit``
    compares ``embedding_tokens`` with the embedding model's input limit. ``split_block`` is
    ``table`` or ``code`` when the chunk ends strictly inside such a block.
    ``embedding_tokens`` counts what the embedding model reads (``added_text + text``) plus its
    special tokens; ``overlap_prev_*`` is the overlap with the previous chunk of the same level in
    document order (0 for the first). ``overlap_prev_sentences`` is only set when the strategy's
    overlap is configured in sentences.
    """

    index: int
    start: int
    end: int
    level: int
    parent: int | None
    reason: str
    boundary: str
    tokens: int
    embedding_tokens: int | None
    added_tokens: int | None
    over_size_limit: bool
    over_model_limit: bool
    tiny: bool
    cut_mid_word: bool
    cut_mid_sentence: bool
    start_mid_word: bool
    start_mid_sentence: bool
    overlap_prev_chars: int
    overlap_prev_tokens: int
    overlap_prev_sentences: int | None
    split_block: str | None
    flags: tuple[Flag, ...]
    #: Why the chunk carries each hygiene flag (duplicate, boilerplate, secret ...), in plain words.
    hygiene: tuple[HygieneFinding, ...] = ()


_UNIT_WORDS = {"chars": ("character", "characters"), "words": ("word", "words")}


def unit_words(unit: str | None) -> tuple[str, str]:
    """Singular and plural of what a tokenizer counts (``chars``: characters; others: tokens)."""
    return _UNIT_WORDS.get(unit or "", ("token", "tokens"))


@dataclass(frozen=True)
class TinyRule(_ToDict):
    """When a chunk is flagged *tiny*: its size (counted in ``unit``, a tokenizer name, ``chars``
    for characters) is below ``below``; ``below`` None means the flag is off.

    A relative rule is ``fraction`` of ``target``, the value of the strategy's size parameter
    ``param`` (declared with ``param(..., size_target=True)``); an absolute rule has only
    ``below`` (a floor given by the caller).
    """

    below: int | None
    unit: str | None = None
    fraction: float | None = None
    target: int | None = None
    param: str | None = None

    @property
    def on(self) -> bool:
        return self.below is not None

    def describe(self) -> str:
        """E.g. ``tiny (< 25 % of the 128-token target)``, ``tiny (< 100 tokens)``, ``tiny: off``."""
        one, many = unit_words(self.unit)
        if self.below is None:
            return "tiny: off (the strategy has no size target)" if self.fraction is not None else "tiny: off"
        if self.fraction is not None and self.target is not None:
            return f"tiny (< {self.fraction * 100:g} % of the {self.target}-{one} target)"
        return f"tiny (< {self.below} {many})"


@dataclass(frozen=True)
class TokenStats(_ToDict):
    """Token counts of a set of chunks (all None when there are no chunks)."""

    min: int | None
    mean: float | None
    median: float | None
    max: int | None

    @classmethod
    def of(cls, counts: Sequence[int]) -> "TokenStats":
        if not counts:
            return cls(None, None, None, None)
        return cls(min(counts), statistics.fmean(counts), float(statistics.median(counts)), max(counts))


@dataclass(frozen=True)
class Coverage(_ToDict):
    """Which characters of the document the chunks cover, and how often.

    ``content_gaps`` are uncovered spans containing non-whitespace (text no chunk holds);
    ``whitespace_gaps`` hold only whitespace. ``multi_covered`` are the maximal spans covered by
    two chunks or more (``multi_covered_chars`` characters in all; ``max_depth`` the most chunks
    over one character).
    """

    document_chars: int
    covered_chars: int
    covered_fraction: float
    content_gaps: tuple[Span, ...]
    whitespace_gaps: tuple[Span, ...]
    multi_covered: tuple[Span, ...]
    multi_covered_chars: int
    max_depth: int

    @property
    def gaps(self) -> tuple[Span, ...]:
        """All uncovered spans, in document order."""
        return tuple(sorted(self.content_gaps + self.whitespace_gaps))

    @property
    def content_gap_chars(self) -> int:
        return sum(e - s for s, e in self.content_gaps)

    @property
    def whitespace_gap_chars(self) -> int:
        return sum(e - s for s, e in self.whitespace_gaps)


@dataclass(frozen=True)
class Overhead(_ToDict):
    """Storage spent on repeated text: (stored - covered) / covered, in percent.

    ``covered_tokens`` counts the tokens of the covered text (the whole document when nothing
    is missing), each maximal covered run tokenized as a whole.
    """

    chunk_chars: int
    covered_chars: int
    chars_percent: float
    chunk_tokens: int
    covered_tokens: int
    tokens_percent: float


@dataclass(frozen=True)
class OverlapCheck(_ToDict):
    """Configured overlap (from strategy and params) against the overlap the chunks have.

    ``boundaries`` is the number of adjacent chunk pairs; ``actual`` holds each pair's overlap in
    the configured unit (empty when nothing is configured); ``mismatches`` counts pairs whose
    overlap differs from the configured value (a token window's overlap may differ by a token
    or two, because a substring re-tokenizes differently: this is reported, not an error).
    """

    configured: int | None
    unit: str | None
    boundaries: int
    actual: tuple[int, ...]
    mismatches: int
    max_difference: int
    mismatched_indices: tuple[int, ...]
    chars: TokenStats
    tokens: TokenStats


@dataclass(frozen=True)
class LevelDiagnostics(_ToDict):
    """Coverage, overhead and overlap of the chunks of one level."""

    level: int
    chunks: int
    tokens: TokenStats
    coverage: Coverage
    overhead: Overhead
    overlap: OverlapCheck
    mid_sentence_cuts: int
    mid_word_cuts: int


@dataclass(frozen=True)
class Summary(_ToDict):
    """Counts over all chunks. A cut is one boundary position: a chunk end followed directly
    (or across whitespace only) by the next chunk's start is counted once."""

    chunks: int
    tokens: TokenStats
    flag_counts: Mapping[str, int] = field(hash=False)
    mid_sentence_cuts: int
    mid_word_cuts: int


@dataclass(frozen=True)
class Diagnostics(_ToDict):
    """All diagnostics of one chunking of one document."""

    document_chars: int
    document_tokens: int
    tokenizer: str
    embedding_tokenizer: str | None
    embedding_max_tokens: int
    #: The tiny rule's threshold (``tiny.below``; in ``tiny.unit``), None when the flag is off.
    tiny_tokens: int | None
    strategy: str | None
    params: Mapping[str, Any] = field(hash=False)
    sentences_checked: bool
    chunks: tuple[ChunkDiagnostics, ...]
    levels: tuple[LevelDiagnostics, ...]
    summary: Summary
    notes: tuple[str, ...] = ()
    #: The rule of the tiny flag (see :class:`TinyRule`).
    tiny: TinyRule = TinyRule(None)
    #: The embedding model whose limit was checked (an :data:`chunkviz.text.models.EMBEDDING_MODELS`
    #: name), None when the tokenizer and limit were given directly.
    embedding_model: str | None = None
    #: The hygiene rules used and the boilerplate found (:mod:`chunkviz.diagnostics.hygiene`).
    hygiene: HygieneSummary = HygieneSummary()

    @property
    def coverage(self) -> Coverage:
        """Coverage of the first level (the only one of a flat chunking)."""
        return self.levels[0].coverage

    @property
    def overhead(self) -> Overhead:
        return self.levels[0].overhead

    @property
    def overlap(self) -> OverlapCheck:
        return self.levels[0].overlap

    def level(self, level: int) -> LevelDiagnostics:
        for item in self.levels:
            if item.level == level:
                return item
        raise KeyError(f"no chunks of level {level}; levels: {[item.level for item in self.levels]}")

    def summary_lines(self) -> list[str]:
        """A short human-readable report (plain ASCII)."""
        s = self.summary
        t = s.tokens
        head = f"{s.chunks} chunk{'' if s.chunks == 1 else 's'}"
        if self.strategy:
            head += f" from strategy {self.strategy}"
            if self.params:
                head += " (" + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"
        head += f"; document {self.document_chars} chars, {self.document_tokens} tokens ({self.tokenizer})"
        lines = [head]
        if t.min is not None:
            lines.append(f"tokens per chunk: min {t.min}, mean {t.mean:.1f}, median {t.median:g}, max {t.max}")
        counts = s.flag_counts
        if self.embedding_tokenizer is not None:
            biggest = max((c.embedding_tokens or 0 for c in self.chunks), default=0)
            model = f"{self.embedding_model}: " if self.embedding_model else ""
            lines.append(
                f"over the embedding limit ({model}{self.embedding_tokenizer}, {self.embedding_max_tokens} tokens incl. "
                f"special): {counts.get(Flag.OVER_MODEL_LIMIT, 0)} chunk(s); largest {biggest}"
            )
        if counts.get(Flag.OVER_SIZE_LIMIT):
            lines.append(f"{FLAG_LABELS[Flag.OVER_SIZE_LIMIT]}: {counts[Flag.OVER_SIZE_LIMIT]} chunk(s)")
        rule = self.tiny.describe()
        lines.append(f"{rule}: {counts.get(Flag.TINY, 0)} chunk(s)" if self.tiny.on else rule)
        for flag in (Flag.SPLIT_TABLE, Flag.SPLIT_CODE):
            if counts.get(flag):
                lines.append(f"{FLAG_LABELS[flag]}: {counts[flag]} chunk(s)")
        lines.extend(self._hygiene_lines())
        if self.sentences_checked:
            lines.append(f"mid-sentence cuts: {s.mid_sentence_cuts}; mid-word cuts: {s.mid_word_cuts}")
        else:
            lines.append(f"mid-word cuts: {s.mid_word_cuts}; mid-sentence cuts: not checked")
        multi = len(self.levels) > 1
        for lv in self.levels:
            prefix = f"level {lv.level} ({lv.chunks} chunks): " if multi else ""
            lines.extend(prefix + line for line in _level_lines(lv))
        lines.extend(f"note: {note}" for note in self.notes)
        return lines

    def _hygiene_lines(self) -> list[str]:
        """One line per hygiene flag that fired (what it means, the chunks, why), the boilerplate named."""
        from chunkviz.diagnostics.hygiene.rules import HYGIENE_EXPLANATIONS, HYGIENE_FLAGS  # noqa: PLC0415

        lines: list[str] = []
        for flag in HYGIENE_FLAGS:
            hits = [(c.index, f) for c in self.chunks for f in c.hygiene if f.flag is flag]
            if not hits:
                continue
            chunks = sorted({i for i, _ in hits})
            lines.append(f"{FLAG_LABELS[flag]}: {len(chunks)} chunk(s) ({HYGIENE_EXPLANATIONS[flag]})")
            if flag is Flag.BOILERPLATE:
                lines.extend(f"  \u201c{r.text}\u201d at {r.places} places" for r in self.hygiene.boilerplate[:5])
                continue
            for index, finding in hits[:HYGIENE_LISTED]:
                lines.append(f"  chunk {index}: {finding.detail}")
            if len(hits) > HYGIENE_LISTED:
                lines.append(f"  ... and {len(hits) - HYGIENE_LISTED} more (--json lists them all)")
        return lines


#: Findings of one hygiene flag listed in the text report.
HYGIENE_LISTED = 8


def _level_lines(lv: LevelDiagnostics) -> list[str]:
    cov, ov, oh = lv.coverage, lv.overlap, lv.overhead
    lines = [
        f"coverage: {cov.covered_fraction * 100:.2f}% of characters; "
        f"{len(cov.content_gaps)} gap(s) with text ({cov.content_gap_chars} chars), "
        f"{len(cov.whitespace_gaps)} whitespace-only gap(s) ({cov.whitespace_gap_chars} chars); "
        f"{cov.multi_covered_chars} chars covered more than once"
    ]
    for start, end in cov.content_gaps[:5]:
        lines.append(f"  missing text [{start}, {end}) ({end - start} chars)")
    if len(cov.content_gaps) > 5:
        lines.append(f"  ... and {len(cov.content_gaps) - 5} more gap(s) with text")
    if ov.boundaries:
        actual = f"actual mean {ov.tokens.mean:.1f} tokens / {ov.chars.mean:.1f} chars" + (
            f" (tokens min {ov.tokens.min}, max {ov.tokens.max})"
        )
        if ov.configured is not None and not ov.actual:
            lines.append(f"overlap: configured {ov.configured} {ov.unit} (not measured); {actual}")
        elif ov.configured is not None:
            lines.append(
                f"overlap: configured {ov.configured} {ov.unit}; {actual}; "
                f"{ov.mismatches} of {ov.boundaries} boundaries differ (by up to {ov.max_difference} {ov.unit})"
            )
        else:
            lines.append(f"overlap: {actual}")
    lines.append(f"storage overhead of overlap: {oh.chars_percent:.1f}% chars, {oh.tokens_percent:.1f}% tokens")
    return lines
