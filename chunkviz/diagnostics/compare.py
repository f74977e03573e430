"""Run strategies side by side and shape the results for display (no Streamlit here).

``run_strategy`` chunks and diagnoses one configuration; the other functions turn a run into
what the app shows: annotations for the renderer, a statistics row comparable across columns,
the chunk table, and the configuration as query parameters.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from chunkviz.core.deadline import check_time_now
from chunkviz.core.errors import ChunkvizError
from chunkviz.core.limits import MAX_QUERY_VALUE_CHARS
from chunkviz.core.sidefile import parse_json
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, PEER_FLAGS, REASON_LABELS, Flag
from chunkviz.diagnostics import DEFAULT_TINY_FRACTION, Diagnostics, diagnose
from chunkviz.diagnostics.hygiene import HYGIENE_FLAGS, HygieneRules, masked
from chunkviz.diagnostics.results import unit_words
from chunkviz.document.enrich import enrich
from chunkviz.document.language import normalize_language
from chunkviz.document.model import Document, as_document
from chunkviz.document.scripts import mostly_unspaced
from chunkviz.drawing.render import ChunkAnnotation
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.strategies.guarded import guarded_run, prepare
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL, is_embedding_model
from chunkviz.text.tokenizers import get_tokenizer, tokenizer_names

#: Flags shown in the app, in display order (labels: ``vocabulary.FLAG_LABELS``). The
#: ``starts_*`` flags are left out: they repeat the previous chunk's end.
SHOWN_FLAGS: tuple[Flag, ...] = (
    Flag.OVER_SIZE_LIMIT,
    Flag.OVER_MODEL_LIMIT,
    Flag.TINY,
    Flag.MID_SENTENCE,
    Flag.MID_WORD,
    Flag.SPLIT_TABLE,
    Flag.SPLIT_CODE,
    *PEER_FLAGS,  # only a peer splitter's chunks carry these
    *HYGIENE_FLAGS,  # is the chunk worth indexing (shown where they fire)
)
#: Flags whose column in the comparison table is shown only where one fired.
_SHOWN_WHERE_FIRED = (*PEER_FLAGS, *HYGIENE_FLAGS)


@dataclass(frozen=True)
class ColumnConfig:
    """One column of the comparison: a strategy, its (user-given) parameters and, optionally,
    the tokenizer it chunks with instead of the page's (its size unit, e.g. ``chars``)."""

    strategy: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    tokenizer: str | None = None

    def key(self) -> str:
        return (
            self.strategy
            + json.dumps(dict(self.params), sort_keys=True, default=str)
            + (f"@{self.tokenizer}" if self.tokenizer else "")
        )


@dataclass(frozen=True)
class StrategyRun:
    """The chunks of one configuration with their diagnostics. ``tokenizer`` counts tokens in
    the diagnostics (comparable across columns); ``chunk_tokenizer`` is what the strategy's sizes
    were counted in (the same unless the column chose another unit)."""

    strategy: str
    params: Mapping[str, Any]
    tokenizer: str
    chunks: tuple[Chunk, ...]
    diagnostics: Diagnostics | None
    chunk_tokenizer: str | None = None
    #: CPU seconds of the chunking itself (``chunk()``: document structure included, no
    #: diagnostics); a peer column's explanation also gives the peer library's own call
    cpu_seconds: float | None = None

    @property
    def size_tokenizer(self) -> str:
        """The tokenizer the strategy's sizes are in."""
        return self.chunk_tokenizer or self.tokenizer


def full_params(strategy: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The validated parameters with defaults filled in (raises InvalidParamError)."""
    validated = get_strategy(strategy).make_params(params)
    return dataclasses.asdict(validated)


def run_strategy(
    document: Document | str,
    strategy: str,
    params: Mapping[str, Any],
    tokenizer: str,
    enrichment: Mapping[str, Any] | None = None,
    *,
    embedding_model: str = DEFAULT_EMBEDDING_MODEL,
    tiny_fraction: float | None = DEFAULT_TINY_FRACTION,
    column_tokenizer: str | None = None,
    hygiene: HygieneRules | None = None,
) -> StrategyRun:
    """Chunk ``document`` (its format decides how its structure is read; optionally enriched:
    ``enrichment`` holds ``enrich``'s keyword arguments) and diagnose the result. Raises the
    engine's errors for bad params.

    ``column_tokenizer`` (e.g. ``chars``) is what the strategy chunks with, its sizes' unit,
    instead of ``tokenizer``; the diagnostics still count ``tokenizer`` tokens, so columns stay
    comparable. Over-the-limit uses ``embedding_model`` (a ``chunkviz.text.models`` name); tiny is
    ``tiny_fraction`` of the strategy's size target (None: off); ``hygiene`` the hygiene flags'
    thresholds (default :class:`~chunkviz.diagnostics.hygiene.HygieneRules`())."""
    check_time_now()  # the app's time limit for a run (a no-op without one)
    doc = as_document(document)
    chunker = column_tokenizer or tokenizer
    prepared = prepare(strategy, params)  # the one validation
    enrich_run = None if enrichment is None else (lambda d, found: enriched(d, found, tokenizer, enrichment))
    run = guarded_run(doc, prepared, get_tokenizer(chunker), enrich=enrich_run)
    chunks, cpu = tuple(run.chunks), run.cpu_seconds
    check_time_now()
    complete = prepared.complete()
    diagnostics = (
        diagnose(
            doc,
            chunks,
            tokenizer=tokenizer,
            strategy=strategy,
            params=complete,
            embedding_model=embedding_model,
            tiny=tiny_fraction,
            chunk_tokenizer=chunker,
            hygiene_rules=hygiene,
        )
        if chunks
        else None
    )
    return StrategyRun(
        strategy,
        complete,
        tokenizer,
        chunks,
        diagnostics,
        column_tokenizer if column_tokenizer != tokenizer else None,
        cpu,
    )


def enriched(
    document: Document, chunks: Sequence[Chunk], tokenizer: str, enrichment: Mapping[str, Any]
) -> tuple[Chunk, ...]:
    """``chunks`` with the enrichments ``enrichment`` asks for: ``enrich``'s metadata prefix
    (its keyword arguments; ``metadata: False`` leaves it out) and, with ``contextual: True``,
    a context the active LLM session's model writes for each chunk (in front of the prefix)."""
    options = dict(enrichment)
    contextual = bool(options.pop("contextual", False))
    if options.pop("metadata", True):
        chunks = enrich(document, chunks, tokenizer=tokenizer, **options)
    if contextual:
        from chunkviz.llm.contextual import contextualize  # noqa: PLC0415 - the LLM modules only when asked
        from chunkviz.llm.session import active_session  # noqa: PLC0415

        session = active_session()
        chunks = contextualize(session.client(), document, chunks, tokenizer=tokenizer, progress=session.progress)
    return tuple(chunks)


def chunk_flags(run: StrategyRun) -> dict[int, tuple[Flag, ...]]:
    """Display flags per chunk index (:data:`SHOWN_FLAGS`, from the diagnostics)."""
    flags: dict[int, tuple[Flag, ...]] = {}
    if run.diagnostics is not None:
        for d in run.diagnostics.chunks:
            shown = tuple(f for f in d.flags if f in SHOWN_FLAGS)
            if shown:
                flags[d.index] = shown
    return flags


def chunk_annotations(run: StrategyRun) -> dict[int, ChunkAnnotation]:
    """What the renderer shows for each chunk."""
    flags = chunk_flags(run)
    if run.diagnostics is None:
        return {}
    return {
        d.index: ChunkAnnotation(
            tokens=d.tokens,
            embedding_tokens=d.embedding_tokens,
            flags=flags.get(d.index, ()),
            hygiene="; ".join(f"{FLAG_LABELS[f.flag]}: {f.detail}" for f in d.hygiene),  # plain words
        )
        for d in run.diagnostics.chunks
    }


def flag_counts(run: StrategyRun) -> dict[Flag, int]:
    """How many chunks carry each shown flag."""
    counts = {name: 0 for name in SHOWN_FLAGS}
    for flags in chunk_flags(run).values():
        for f in flags:
            counts[f] += 1
    return counts


_SUMMARY_WORDS: dict[Flag, tuple[str, str]] = {
    Flag.OVER_SIZE_LIMIT: ("over size limit", "over size limit"),
    Flag.OVER_MODEL_LIMIT: ("over model limit", "over model limit"),
    Flag.TINY: ("tiny", "tiny"),
    Flag.MID_SENTENCE: ("mid-sentence cut", "mid-sentence cuts"),
    Flag.MID_WORD: ("mid-word cut", "mid-word cuts"),
    Flag.SPLIT_TABLE: ("split table", "split tables"),
    Flag.SPLIT_CODE: ("split code block", "split code blocks"),
    Flag.MISPLACED: ("misplaced chunk", "misplaced chunks"),
    Flag.AMBIGUOUS_PLACEMENT: ("ambiguous placement", "ambiguous placements"),
    Flag.TEXT_NOT_IN_SOURCE: ("text not in the document", "texts not in the document"),
    Flag.WHITESPACE_CHANGED: ("whitespace changed", "whitespace changed"),
    Flag.OVER_PEER_LIMIT: ("over its limit", "over their limit"),
    Flag.DUPLICATE: ("duplicate", "duplicates"),
    Flag.NEAR_DUPLICATE: ("near duplicate", "near duplicates"),
    Flag.BOILERPLATE: ("with boilerplate", "with boilerplate"),
    Flag.LOW_INFORMATION: ("low information", "low information"),
    Flag.SECRET: ("secret-like string", "secret-like strings"),
    Flag.INSTRUCTION: ("instruction to a model", "instructions to a model"),
}


def flag_summary(run: StrategyRun) -> str:
    """A column's one-liner: its chunk count and each flag present, e.g. ``12 chunks · 3
    mid-sentence cuts · 1 over model limit (256)``; ``12 chunks · no flags`` when none.
    Counts are chunks carrying the flag (as in the table and the tooltips)."""
    n = len(run.chunks)
    parts = [f"{n:,} chunk{'' if n == 1 else 's'}"]
    d = run.diagnostics
    for flag, count in flag_counts(run).items():
        if not count:
            continue
        one, many = _SUMMARY_WORDS[flag]
        text = f"{count:,} {one if count == 1 else many}"
        if flag is Flag.OVER_MODEL_LIMIT and d is not None:
            text += f" ({d.embedding_max_tokens:,})"
        elif flag is Flag.TINY and d is not None and d.tiny.below is not None:
            text += f" (< {d.tiny.below:,} {unit_words(d.tiny.unit)[1]})"
        parts.append(text)
    if len(parts) == 1:
        parts.append("no flags")
    return " · ".join(parts)


def stats_row(label: str, run: StrategyRun) -> dict[str, Any]:
    """One row of the comparison table."""
    d = run.diagnostics
    row: dict[str, Any] = {"column": label, "strategy": run.strategy, "chunks": len(run.chunks)}
    if run.cpu_seconds is not None:
        row["chunking CPU ms"] = round(1000 * run.cpu_seconds, 1)
    if d is not None:
        tokens = d.summary.tokens
        row.update(
            {
                "tokens min": tokens.min,
                "tokens median": tokens.median,
                "tokens max": tokens.max,
                "overlap overhead % (chars)": round(d.overhead.chars_percent, 1),
                "overlap overhead % (tokens)": round(d.overhead.tokens_percent, 1),
                "text in no chunk (chars)": d.coverage.content_gap_chars,
            }
        )
    for name, count in flag_counts(run).items():
        if count or name not in _SHOWN_WHERE_FIRED:  # the audit's and hygiene's columns only where they fired
            row[FLAG_LABELS[name]] = count
    return row


def chunk_table(run: StrategyRun, preview_chars: int = 80) -> list[dict[str, Any]]:
    """One row per chunk: index, span, tokens, why it ends (reason) and where (boundary), flags,
    a preview of its text. Token counts are the diagnostics' (:mod:`chunkviz.text.counts`)."""
    flags = chunk_flags(run)
    by_index = {d.index: d for d in run.diagnostics.chunks} if run.diagnostics else {}
    multi_level = any(c.level or c.parent is not None for c in run.chunks)
    enriched = any(c.added_text for c in run.chunks)
    clean = not any(d.hygiene for d in by_index.values())
    rows = []
    for c in run.chunks:
        d = by_index.get(c.index)
        preview = masked(c.text)[:preview_chars].replace("\r", "").replace("\n", "\u23ce ")  # no secret shown
        level_columns = {"level": c.level, "parent": c.parent} if multi_level else {}
        rows.append(
            {
                "index": c.index,
                **level_columns,
                "start": c.start,
                "end": c.end,
                "tokens": d.tokens if d else None,
                **({"tokens with added text": d.added_tokens if d else None} if enriched else {}),
                "model tokens": d.embedding_tokens if d else None,
                "overlap (tokens)": d.overlap_prev_tokens if d else None,
                "reason": REASON_LABELS.get(c.reason, str(c.reason)),
                "boundary": BOUNDARY_LABELS.get(c.boundary, str(c.boundary)),
                "flags": ", ".join(FLAG_LABELS[f] for f in flags.get(c.index, ())),
                **({} if clean else {"why flagged": "; ".join(f.detail for f in d.hygiene) if d else ""}),
                "added": bool(c.added_text),
                "text": preview + ("\u2026" if len(c.text) > preview_chars else ""),
            }
        )
    return rows


def outline_html(document: Document | str) -> str:
    """The document's headings (``document.structure.sections``) as an indented, escaped list
    (empty when it has none)."""
    items = [
        f'<div style="margin-left:{(len(s.path) - 1) * 0.9:.1f}rem" title="characters {s.start}–{s.end}">'
        f"{html.escape(s.heading.title or '(untitled)')}</div>"
        for s in as_document(document).structure.sections
    ]
    if not items:
        return ""
    return '<div class="cv-outline" style="font-size:0.8rem;line-height:1.5">' + "".join(items) + "</div>"


def token_counts(run: StrategyRun) -> list[int]:
    if run.diagnostics is None:
        return []
    return [d.tokens for d in run.diagnostics.chunks]


def document_stats(text: str, tokenizer: str) -> dict[str, int | None]:
    """Size of the document in characters, words and tokens; ``words`` is None for a text mostly
    in a script written without spaces (Chinese, Japanese, Thai), whose words are not counted at spaces."""
    words = None if mostly_unspaced(text) else len(text.split())
    return {"characters": len(text), "words": words, "tokens": get_tokenizer(tokenizer).count(text)}


def size_phrase(stats: Mapping[str, int | None]) -> str:
    """``12,345 characters · 2,100 words``, or the characters alone where words are not counted."""
    words = stats.get("words")
    return f"{stats['characters']:,} characters" + (f" · {words:,} words" if words is not None else "")


# --- configuration <-> query parameters ------------------------------------------------------


def config_to_query(
    document: str | None,
    tokenizer: str,
    columns: Sequence[ColumnConfig],
    *,
    shareable: bool = True,
    embedding_model: str | None = None,
    language: str | None = None,
) -> dict[str, str]:
    """The configuration as URL query parameters (only non-default params are written).

    ``document`` is recorded only when ``shareable`` (a sample anyone can open; pass False, or
    ``document=None``, for an uploaded or pasted text, whose name means nothing to others).
    A column's own tokenizer is ``t{i}``; the embedding model ``model`` (omitted when None or
    the default); the document's language as given ``lang`` (omitted when None: detected)."""
    query = {"doc": document} if shareable and document else {}
    query.update({"tokenizer": tokenizer, "n": str(len(columns))})
    if embedding_model and embedding_model != DEFAULT_EMBEDDING_MODEL:
        query["model"] = embedding_model
    if language:
        query["lang"] = language
    for i, col in enumerate(columns):
        query[f"s{i}"] = col.strategy
        if col.params:
            query[f"p{i}"] = json.dumps(dict(col.params), separators=(",", ":"), sort_keys=True, default=str)
        if col.tokenizer:
            query[f"t{i}"] = col.tokenizer
    return query


class SharedLinkError(ChunkvizError, ValueError):
    """Query parameters of a shared link that cannot be read (the app says why and shows its default page)."""


_COLUMN_COUNT = re.compile(r"\s*[0-9]{1,6}\s*")


def config_from_query(
    query: Mapping[str, str], max_columns: int = 4
) -> tuple[str | None, str | None, list[ColumnConfig]]:
    """Parse query parameters back (as :func:`config_to_query` writes them); unknown strategies are
    dropped, and so is an unknown column tokenizer. The embedding model: :func:`model_from_query`.

    Parsing is bounded, as a link can be anyone's: a value longer than
    :data:`~chunkviz.core.limits.MAX_QUERY_VALUE_CHARS`, a column count that is not a short number, or
    a column's parameters that are not a JSON object within the side files' bounds
    (:func:`chunkviz.core.sidefile.parse_json`: depth, digits) or that its strategy refuses raise
    :class:`SharedLinkError`, naming the parameter."""
    for key, value in query.items():
        if len(value) > MAX_QUERY_VALUE_CHARS:
            raise SharedLinkError(
                f"{key} is {len(value):,} characters long; a value is at most {MAX_QUERY_VALUE_CHARS:,}"
            )
    names = {s.name for s in registered()}
    n = 0
    if "n" in query:
        if not _COLUMN_COUNT.fullmatch(query["n"]):
            raise SharedLinkError(f"n={query['n'][:20]!r} is not a number of columns (1 to {max_columns})")
        n = max(1, min(max_columns, int(query["n"])))
    columns = []
    for i in range(n):
        name = query.get(f"s{i}")
        if name not in names:
            continue
        raw = query.get(f"p{i}")
        params = _query_params(f"p{i}", name, raw) if raw else {}
        column_tokenizer = query.get(f"t{i}")
        columns.append(ColumnConfig(name, params, column_tokenizer if column_tokenizer in tokenizer_names() else None))
    return query.get("doc"), query.get("tokenizer"), columns


def _query_params(key: str, strategy: str, raw: str) -> dict[str, Any]:
    """A column's parameters from its query value: a JSON object (bounded) the strategy accepts, its
    values converted as the strategy converts them."""

    def refused(_line: int | None, problem: str) -> SharedLinkError:
        return SharedLinkError(f"{key}: {problem}")

    try:
        loaded = parse_json(raw, refused)
    except json.JSONDecodeError as exc:
        raise SharedLinkError(f"{key} is not JSON ({exc.msg} at character {exc.pos + 1})") from None
    if not isinstance(loaded, dict):
        raise SharedLinkError(f"{key} is not a JSON object of {strategy}'s parameters")
    try:
        checked = get_strategy(strategy).make_params(loaded)
    except ChunkvizError as exc:
        raise SharedLinkError(f"{key}: {exc}") from None
    return {name: getattr(checked, name) for name in loaded}  # as the strategy reads them ("false": False)


def language_from_query(query: Mapping[str, str]) -> str | None:
    """The document's language a shared configuration gives (``lang``), or None: detect it. A value
    that is not a language code (or is longer than one can be) is a :class:`SharedLinkError`."""
    value = query.get("lang")
    if value is None:
        return None
    if len(value) > _MAX_LANGUAGE_CHARS:
        raise SharedLinkError(
            f"lang is {len(value):,} characters long; a language code is at most {_MAX_LANGUAGE_CHARS}"
        )
    try:
        return normalize_language(value)
    except ValueError as exc:
        raise SharedLinkError(f"lang: {exc}") from None


#: ``de``, ``pt-BR``, ``zh-Hant-TW``: a language tag is short.
_MAX_LANGUAGE_CHARS = 16


def model_from_query(query: Mapping[str, str]) -> str:
    """The embedding model of a shared configuration (the default when absent or unknown)."""
    name = query.get("model")
    return name if name is not None and is_embedding_model(name) else DEFAULT_EMBEDDING_MODEL
