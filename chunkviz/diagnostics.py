"""Diagnostics of any chunking, as plain data: flags per chunk, overlap, coverage, overhead.

Everything here is arithmetic on the chunks' spans (``chunk.text == text[start:end]``), so
every number is exact for the spans given:

- per chunk: token counts (the chosen tokenizer, and the embedding model's own wordpieces with
  its special tokens), *over the embedding limit*, *tiny* (under ``tiny_tokens``; the guide found
  chunks under 100 tokens retrieve worse), cuts *mid-word* and *mid-sentence* at its end and its
  start, and the actual overlap with the previous chunk in document order;
- the overlap check: the overlap the strategy was configured with, in its own unit, against the
  overlap the chunks actually have;
- the coverage audit: gaps (whitespace-only, or with content: the important ones), text covered
  more than once, the covered fraction, found by one sweep over sorted start/end events;
- the storage overhead of overlap, in characters and in tokens.

Multi-level chunkings (``level > 0``) get coverage and overlap per level. Every result is a
frozen dataclass with ``to_dict()`` giving JSON-ready data; :meth:`Diagnostics.summary_lines`
gives a short human report.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from chunkviz.tokenizers import (
    DEFAULT_TOKENIZER,
    EMBEDDING_MODEL_MAX_TOKENS,
    EMBEDDING_TOKENIZER,
    Tokenizer,
    TokenizerUnavailable,
    get_tokenizer,
)
from chunkviz.spancount import shared_counter
from chunkviz.types import Chunk

Span = tuple[int, int]

#: Flag names, in display order. ``mid_sentence``/``mid_word`` are about a chunk's *end*,
#: ``starts_mid_sentence``/``starts_mid_word`` about its start.
FLAG_OVER_LIMIT = "over_limit"
FLAG_TINY = "tiny"
FLAG_MID_SENTENCE = "mid_sentence"
FLAG_MID_WORD = "mid_word"
FLAG_STARTS_MID_SENTENCE = "starts_mid_sentence"
FLAG_STARTS_MID_WORD = "starts_mid_word"
FLAGS = (
    FLAG_OVER_LIMIT,
    FLAG_TINY,
    FLAG_MID_SENTENCE,
    FLAG_MID_WORD,
    FLAG_STARTS_MID_SENTENCE,
    FLAG_STARTS_MID_WORD,
)

#: The configured overlap of the built-in strategies: strategy -> (parameter, unit).
OVERLAP_PARAMS: dict[str, tuple[str, str]] = {
    "fixed_tokens": ("overlap", "tokens"),
    "recursive": ("overlap", "tokens"),
    "fixed_chars": ("overlap", "chars"),
    "sentences": ("overlap_sentences", "sentences"),
}

_NON_SPACE = re.compile(r"\S")
_ZWJ = "\u200d"
_ZWNJ = "\u200c"


# --------------------------------------------------------------------------- result types


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
    tokens: int
    embedding_tokens: int | None
    added_tokens: int | None
    over_limit: bool
    tiny: bool
    cut_mid_word: bool
    cut_mid_sentence: bool
    start_mid_word: bool
    start_mid_sentence: bool
    overlap_prev_chars: int
    overlap_prev_tokens: int
    overlap_prev_sentences: int | None
    flags: tuple[str, ...]


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
    tiny_tokens: int
    strategy: str | None
    params: Mapping[str, Any] = field(hash=False)
    sentences_checked: bool
    chunks: tuple[ChunkDiagnostics, ...]
    levels: tuple[LevelDiagnostics, ...]
    summary: Summary
    notes: tuple[str, ...] = ()

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
            lines.append(
                f"tokens per chunk: min {t.min}, mean {t.mean:.1f}, median {t.median:g}, max {t.max}"
            )
        counts = s.flag_counts
        if self.embedding_tokenizer is not None:
            biggest = max((c.embedding_tokens or 0 for c in self.chunks), default=0)
            lines.append(
                f"over the embedding limit ({self.embedding_tokenizer}, {self.embedding_max_tokens} tokens incl. "
                f"special): {counts.get(FLAG_OVER_LIMIT, 0)} chunk(s); largest {biggest}"
            )
        lines.append(f"tiny (< {self.tiny_tokens} tokens): {counts.get(FLAG_TINY, 0)} chunk(s)")
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


# --------------------------------------------------------------------------- boundaries


def _is_word_char(ch: str) -> bool:
    """Letters, digits and marks (not whitespace, punctuation or symbols)."""
    return unicodedata.category(ch)[0] in "LNM"


def _is_regional_indicator(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def _joins_previous(ch: str) -> bool:
    """Code points that extend the grapheme before them (marks, ZWJ/ZWNJ, emoji modifiers, tags)."""
    return (
        unicodedata.category(ch)[0] == "M"  # combining marks, variation selectors, keycap
        or ch in (_ZWJ, _ZWNJ)
        or "\U0001f3fb" <= ch <= "\U0001f3ff"  # skin-tone modifiers
        or "\U000e0020" <= ch <= "\U000e007f"  # tag characters (flag sequences)
    )


def splits_grapheme(text: str, pos: int) -> bool:
    """True when ``pos`` falls between the code points of one user-perceived character.

    Covers CR LF, a combining mark / ZWJ / variation selector / skin-tone modifier / tag after
    the cut, a character joined by a ZWJ before the cut, and the middle of a regional-indicator
    flag pair. (Cuts between two letters, e.g. Hangul jamo, are mid-word anyway.)
    """
    if pos <= 0 or pos >= len(text):
        return False
    before, after = text[pos - 1], text[pos]
    if before == "\r":
        return after == "\n"
    if before == "\n":
        return False
    if _joins_previous(after):
        return True
    if before in (_ZWJ, _ZWNJ):
        return not after.isspace()
    if _is_regional_indicator(before) and _is_regional_indicator(after):
        run = 0
        k = pos - 1
        while k >= 0 and _is_regional_indicator(text[k]):
            run += 1
            k -= 1
        return run % 2 == 1
    return False


def cuts_mid_word(text: str, pos: int) -> bool:
    """True when cutting at ``pos`` splits a word (word characters on both sides) or a grapheme.

    Cuts at the document's start or end never split anything.
    """
    if pos <= 0 or pos >= len(text):
        return False
    if _is_word_char(text[pos - 1]) and _is_word_char(text[pos]):
        return True
    return splits_grapheme(text, pos)


class _Sentences:
    """Sorted sentence spans with O(log n) lookups."""

    def __init__(self, text: str, spans: Iterable[Span]) -> None:
        self.text = text
        ordered = sorted((int(s), int(e)) for s, e in spans if e > s)
        self.starts = [s for s, _ in ordered]
        self.ends = [e for _, e in ordered]
        self._content_starts: list[int] | None = None

    def cuts(self, pos: int) -> bool:
        """True when the non-whitespace text before and after ``pos`` is one sentence."""
        text = self.text
        if pos <= 0 or pos >= len(text):
            return False
        match = _NON_SPACE.search(text, pos)
        if match is None:
            return False
        after = match.start()
        k = bisect.bisect_right(self.starts, after) - 1
        if k < 0 or after >= self.ends[k]:
            return False
        # Is there non-whitespace in [sentence start, pos)? Scan back over whitespace only.
        start = self.starts[k]
        before = pos - 1
        while before >= start and text[before].isspace():
            before -= 1
        return before >= start

    def count_starting_in(self, start: int, end: int) -> int:
        """Number of sentences whose first non-whitespace character lies in ``[start, end)``."""
        if self._content_starts is None:
            content = []
            for s, e in zip(self.starts, self.ends):
                match = _NON_SPACE.search(self.text, s, e)
                if match is not None:
                    content.append(match.start())
            self._content_starts = content
        return bisect.bisect_left(self._content_starts, end) - bisect.bisect_left(self._content_starts, start)


def _cut_key(text: str, pos: int) -> int:
    """One key per cut: positions in the same whitespace run are the same cut."""
    match = _NON_SPACE.search(text, pos)
    return match.start() if match is not None else len(text)


# --------------------------------------------------------------------------- coverage


def _merge_spans(spans: Iterable[Span]) -> list[Span]:
    merged: list[Span] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        elif b > a:
            merged.append((a, b))
    return merged


def _clip(gaps: Iterable[Span], scope: list[Span]) -> list[Span]:
    """The parts of ``gaps`` inside ``scope`` (both sorted)."""
    out: list[Span] = []
    for a, b in gaps:
        k = bisect.bisect_right(scope, (a, float("inf"))) - 1
        k = max(k, 0)
        while k < len(scope) and scope[k][0] < b:
            lo, hi = max(a, scope[k][0]), min(b, scope[k][1])
            if hi > lo:
                out.append((lo, hi))
            k += 1
    return out


def audit_coverage(text: str, spans: Iterable[Span], scope: Iterable[Span] | None = None) -> Coverage:
    """Gaps, multiply covered text and the covered fraction of ``spans`` over ``text``.

    With ``scope`` (e.g. the parents of a deeper level), only text inside it can be a gap and
    the covered fraction is relative to it. One sweep over sorted start/end events: O(k log k)
    in the number of spans.
    """
    if scope is not None:
        region = _merge_spans(scope)
        whole = audit_coverage(text, spans)
        content = tuple(g for g in _clip(whole.content_gaps, region) if not text[g[0] : g[1]].isspace())
        blank = tuple(sorted([*_clip(whole.whitespace_gaps, region), *(g for g in _clip(whole.content_gaps, region) if text[g[0] : g[1]].isspace())]))
        region_chars = sum(b - a for a, b in region)
        return dataclasses.replace(
            whole,
            document_chars=region_chars,
            covered_fraction=whole.covered_chars / region_chars if region_chars else 1.0,
            content_gaps=content,
            whitespace_gaps=blank,
        )
    n = len(text)
    events: dict[int, int] = {}
    for start, end in spans:
        if end > start:
            events[start] = events.get(start, 0) + 1
            events[end] = events.get(end, 0) - 1
    content_gaps: list[Span] = []
    whitespace_gaps: list[Span] = []
    multi: list[Span] = []
    covered = multi_chars = max_depth = 0
    depth = 0
    prev = 0

    def segment(a: int, b: int, d: int) -> None:
        nonlocal covered, multi_chars
        if b <= a:
            return
        if d == 0:
            gaps = whitespace_gaps if text[a:b].isspace() else content_gaps
            if gaps and gaps[-1][1] == a:  # cannot happen for a sweep, kept for safety
                gaps[-1] = (gaps[-1][0], b)
            else:
                gaps.append((a, b))
            return
        covered += b - a
        if d >= 2:
            multi_chars += b - a
            if multi and multi[-1][1] == a:
                multi[-1] = (multi[-1][0], b)
            else:
                multi.append((a, b))

    for pos in sorted(events):
        segment(prev, pos, depth)
        depth += events[pos]
        max_depth = max(max_depth, depth)
        prev = pos
    segment(prev, n, depth)
    return Coverage(
        document_chars=n,
        covered_chars=covered,
        covered_fraction=covered / n if n else 1.0,
        content_gaps=tuple(content_gaps),
        whitespace_gaps=tuple(whitespace_gaps),
        multi_covered=tuple(multi),
        multi_covered_chars=multi_chars,
        max_depth=max_depth,
    )


def _covered_runs(n: int, coverage: Coverage) -> list[Span]:
    """Maximal covered spans: the complement of the gaps."""
    runs = []
    pos = 0
    for start, end in coverage.gaps:
        if start > pos:
            runs.append((pos, start))
        pos = end
    if pos < n and coverage.covered_chars:
        runs.append((pos, n))
    return runs


def _percent(part: int, whole: int) -> float:
    return part / whole * 100.0 if whole else 0.0


# --------------------------------------------------------------------------- configured overlap


def configured_overlap(strategy: str | None, params: Mapping[str, Any] | Any | None) -> tuple[int | None, str | None]:
    """The overlap a strategy was asked for and its unit, e.g. ``(50, "tokens")``.

    Parameters the caller left out take the strategy's defaults. Strategies without an overlap
    parameter give ``(None, None)``.
    """
    if strategy not in OVERLAP_PARAMS:
        return None, None
    name, unit = OVERLAP_PARAMS[strategy]
    values = _params_dict(params)
    if name not in values:
        try:
            from chunkviz.strategies.base import get_strategy

            for info in get_strategy(strategy).params_info():
                if info.name == name:
                    values[name] = info.default
        except Exception:  # noqa: BLE001 - no registry: the overlap is simply unknown
            return None, unit
    value = values.get(name)
    if value is None:
        return None, unit
    try:
        return int(value), unit
    except (TypeError, ValueError):
        return None, unit


def _params_dict(params: Mapping[str, Any] | Any | None) -> dict[str, Any]:
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}
    return dict(params)


# --------------------------------------------------------------------------- diagnose


def _load_sentences(text: str) -> tuple[list[Span] | None, str | None]:
    try:
        from chunkviz.segment import sentence_spans as segment_sentences
    except ImportError as exc:
        return None, f"sentence segmentation unavailable ({exc}); mid-sentence cuts not checked"
    return list(segment_sentences(text)), None


def diagnose(
    text: str,
    chunks: Sequence[Chunk],
    *,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    strategy: str | None = None,
    params: Mapping[str, Any] | None = None,
    embedding_tokenizer: str | Tokenizer | None = EMBEDDING_TOKENIZER,
    embedding_max_tokens: int = EMBEDDING_MODEL_MAX_TOKENS,
    tiny_tokens: int = 100,
    sentence_spans: Sequence[Span] | None = None,
) -> Diagnostics:
    """Diagnose a chunking of ``text``: per-chunk flags, overlap check, coverage, overhead.

    ``chunks`` must be spans of ``text`` (checked). ``sentence_spans`` defaults to
    :func:`chunkviz.segment.sentence_spans`; pass them to avoid running the segmenter.
    ``embedding_tokenizer=None`` skips the embedding-limit check.
    """
    n = len(text)
    for c in chunks:
        if c.end > n or text[c.start : c.end] != c.text:
            raise ValueError(
                f"chunk {c.index} [{c.start}, {c.end}) is not a span of this text "
                "(was it made from another document?)"
            )
    tok = get_tokenizer(tokenizer)
    notes: list[str] = []
    emb: Tokenizer | None = None
    if embedding_tokenizer is not None:
        try:
            emb = get_tokenizer(embedding_tokenizer)
        except TokenizerUnavailable as exc:
            notes.append(f"embedding tokenizer unavailable ({exc}); embedding limit not checked")
    params_plain = _params_dict(params)
    overlap_value, overlap_unit = configured_overlap(strategy, params_plain)

    # Sentences: only needed when some cut lies inside the document.
    sentences: _Sentences | None = None
    needs_sentences = any(0 < c.start < n or 0 < c.end < n for c in chunks) or overlap_unit == "sentences"
    if sentence_spans is not None:
        sentences = _Sentences(text, sentence_spans)
    elif needs_sentences and chunks:
        spans, note = _load_sentences(text)
        if spans is None:
            notes.append(note or "mid-sentence cuts not checked")
        else:
            sentences = _Sentences(text, spans)
    sentences_checked = sentences is not None or not needs_sentences

    # Boundary facts, once per distinct position.
    mid_word_at: dict[int, bool] = {}
    mid_sentence_at: dict[int, bool] = {}

    def word_cut(pos: int) -> bool:
        value = mid_word_at.get(pos)
        if value is None:
            value = mid_word_at[pos] = cuts_mid_word(text, pos)
        return value

    def sentence_cut(pos: int) -> bool:
        if sentences is None:
            return False
        value = mid_sentence_at.get(pos)
        if value is None:
            value = mid_sentence_at[pos] = sentences.cuts(pos)
        return value

    by_position = {c.index: c for c in chunks}
    # Group by level; previous chunk in document order within a level.
    by_level: dict[int, list[int]] = {}
    for i, c in enumerate(chunks):
        by_level.setdefault(c.level, []).append(i)
    if not by_level:
        by_level[0] = []

    # exact counts by arithmetic on the document's (cached) tokenization where the cuts allow it
    span_count = shared_counter(text, tok).count
    token_counts = [span_count(c.start, c.end) for c in chunks]
    overlap_chars = [0] * len(chunks)
    overlap_tokens = [0] * len(chunks)
    overlap_sentences: list[int | None] = [None] * len(chunks)

    levels: list[LevelDiagnostics] = []
    for level in sorted(by_level):
        members = sorted(by_level[level], key=lambda i: (chunks[i].start, chunks[i].end, i))
        actual: list[int] = []
        mismatched: list[int] = []
        pair_chars: list[int] = []
        pair_tokens: list[int] = []
        for prev_i, i in zip(members, members[1:]):
            a, b = chunks[prev_i], chunks[i]
            lo, hi = max(a.start, b.start), min(a.end, b.end)
            chars = max(0, hi - lo)
            tokens = span_count(lo, hi) if chars else 0
            overlap_chars[i], overlap_tokens[i] = chars, tokens
            pair_chars.append(chars)
            pair_tokens.append(tokens)
            if overlap_unit == "sentences":
                if sentences is not None:
                    overlap_sentences[i] = sentences.count_starting_in(lo, hi) if chars else 0
            if overlap_value is not None:
                value = {"tokens": tokens, "chars": chars}.get(overlap_unit or "", overlap_sentences[i])
                if value is not None:
                    actual.append(value)
                    if value != overlap_value:
                        mismatched.append(b.index)
        diffs = [abs(v - overlap_value) for v in actual] if overlap_value is not None else []
        overlap = OverlapCheck(
            configured=overlap_value,
            unit=overlap_unit,
            boundaries=max(0, len(members) - 1),
            actual=tuple(actual),
            mismatches=len(mismatched),
            max_difference=max(diffs, default=0),
            mismatched_indices=tuple(mismatched),
            chars=TokenStats.of(pair_chars),
            tokens=TokenStats.of(pair_tokens),
        )

        parents = [by_position[chunks[i].parent] for i in members if chunks[i].parent in by_position] if level > 0 else []
        scope = [(p.start, p.end) for p in parents] if parents else None
        coverage = audit_coverage(text, (chunks[i].span for i in members), scope)
        runs = _covered_runs(n, coverage)
        covered_tokens = sum(span_count(s, e) for s, e in runs)
        chunk_chars = sum(chunks[i].end - chunks[i].start for i in members)
        chunk_tokens = sum(token_counts[i] for i in members)
        overhead = Overhead(
            chunk_chars=chunk_chars,
            covered_chars=coverage.covered_chars,
            chars_percent=_percent(chunk_chars - coverage.covered_chars, coverage.covered_chars),
            chunk_tokens=chunk_tokens,
            covered_tokens=covered_tokens,
            tokens_percent=_percent(chunk_tokens - covered_tokens, covered_tokens),
        )

        cut_positions = {p for i in members for p in (chunks[i].start, chunks[i].end) if 0 < p < n}
        word_cuts = {_cut_key(text, p) for p in cut_positions if word_cut(p)}
        sentence_cuts = {_cut_key(text, p) for p in cut_positions if sentence_cut(p)}
        levels.append(
            LevelDiagnostics(
                level=level,
                chunks=len(members),
                tokens=TokenStats.of([token_counts[i] for i in members]),
                coverage=coverage,
                overhead=overhead,
                overlap=overlap,
                mid_sentence_cuts=len(sentence_cuts),
                mid_word_cuts=len(word_cuts),
            )
        )

    results: list[ChunkDiagnostics] = []
    flag_counts = {name: 0 for name in FLAGS}
    emb_span_count = shared_counter(text, emb).count if emb is not None else None
    for i, c in enumerate(chunks):
        tokens = token_counts[i]
        embedded = c.added_text + c.text
        if emb is None:
            embedding_tokens = None
        elif c.added_text:
            embedding_tokens = emb.count(embedded) + emb.special_tokens
        else:
            embedding_tokens = emb_span_count(c.start, c.end) + emb.special_tokens
        added_tokens = tok.count(embedded) if c.added_text else None
        over_limit = embedding_tokens is not None and embedding_tokens > embedding_max_tokens
        tiny = tokens < tiny_tokens
        end_word, end_sentence = word_cut(c.end), sentence_cut(c.end)
        start_word, start_sentence = word_cut(c.start), sentence_cut(c.start)
        flags = tuple(
            name
            for name, on in (
                (FLAG_OVER_LIMIT, over_limit),
                (FLAG_TINY, tiny),
                (FLAG_MID_SENTENCE, end_sentence),
                (FLAG_MID_WORD, end_word),
                (FLAG_STARTS_MID_SENTENCE, start_sentence),
                (FLAG_STARTS_MID_WORD, start_word),
            )
            if on
        )
        for name in flags:
            flag_counts[name] += 1
        results.append(
            ChunkDiagnostics(
                index=c.index,
                start=c.start,
                end=c.end,
                level=c.level,
                parent=c.parent,
                reason=c.reason,
                tokens=tokens,
                embedding_tokens=embedding_tokens,
                added_tokens=added_tokens,
                over_limit=over_limit,
                tiny=tiny,
                cut_mid_word=end_word,
                cut_mid_sentence=end_sentence,
                start_mid_word=start_word,
                start_mid_sentence=start_sentence,
                overlap_prev_chars=overlap_chars[i],
                overlap_prev_tokens=overlap_tokens[i],
                overlap_prev_sentences=overlap_sentences[i],
                flags=flags,
            )
        )

    first_run = levels[0]
    document_tokens = (
        first_run.overhead.covered_tokens if first_run.coverage.covered_chars == n else tok.count(text)
    )
    summary = Summary(
        chunks=len(chunks),
        tokens=TokenStats.of(token_counts),
        flag_counts=flag_counts,
        mid_sentence_cuts=sum(lv.mid_sentence_cuts for lv in levels),
        mid_word_cuts=sum(lv.mid_word_cuts for lv in levels),
    )
    return Diagnostics(
        document_chars=n,
        document_tokens=document_tokens,
        tokenizer=tok.name,
        embedding_tokenizer=emb.name if emb is not None else None,
        embedding_max_tokens=embedding_max_tokens,
        tiny_tokens=tiny_tokens,
        strategy=strategy,
        params=params_plain,
        sentences_checked=sentences_checked,
        chunks=tuple(results),
        levels=tuple(levels),
        summary=summary,
        notes=tuple(notes),
    )
