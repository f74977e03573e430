"""Run strategies side by side and shape the results for display (no Streamlit here).

``run_strategy`` chunks and diagnoses one configuration; the other functions turn a run into
what the app shows: annotations for the renderer, a statistics row comparable across columns,
the chunk table, and the configuration as query parameters.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from chunkviz.api import chunk
from chunkviz.diagnostics import Diagnostics, diagnose
from chunkviz.enrich import enrich
from chunkviz.render import ChunkAnnotation
from chunkviz.strategies.base import get_strategy
from chunkviz.structure import split_block_flags
from chunkviz.tokenizers import get_tokenizer
from chunkviz.types import Chunk

#: Flags shown in the app, in display order, with a short human label.
FLAG_LABELS: dict[str, str] = {
    "over_limit": "over model limit",
    "tiny": "tiny (<100 tokens)",
    "mid_sentence": "cuts a sentence",
    "mid_word": "cuts a word",
    "split_table": "splits a table",
    "split_code": "splits a code block",
}


@dataclass(frozen=True)
class ColumnConfig:
    """One column of the comparison: a strategy and its (user-given) parameters."""

    strategy: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def key(self) -> str:
        return self.strategy + json.dumps(dict(self.params), sort_keys=True, default=str)


@dataclass(frozen=True)
class StrategyRun:
    """The chunks of one configuration with their diagnostics and extra structure flags."""

    strategy: str
    params: Mapping[str, Any]
    tokenizer: str
    chunks: tuple[Chunk, ...]
    diagnostics: Diagnostics | None
    block_flags: Mapping[int, tuple[str, ...]] = field(default_factory=dict, hash=False)


def full_params(strategy: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The validated parameters with defaults filled in (raises InvalidParamError)."""
    validated = get_strategy(strategy).make_params(params)
    return dataclasses.asdict(validated)


def run_strategy(
    text: str,
    strategy: str,
    params: Mapping[str, Any],
    tokenizer: str,
    enrichment: Mapping[str, Any] | None = None,
) -> StrategyRun:
    """Chunk ``text`` (optionally enriched: ``enrichment`` holds ``enrich``'s keyword arguments)
    and diagnose the result. Raises the engine's errors for bad params."""
    chunks = tuple(chunk(text, strategy, tokenizer=tokenizer, **dict(params)))
    if enrichment is not None and chunks:
        chunks = tuple(enrich(text, chunks, tokenizer=tokenizer, **dict(enrichment)))
    complete = full_params(strategy, params)
    diagnostics = diagnose(text, chunks, tokenizer=tokenizer, strategy=strategy, params=complete) if chunks else None
    return StrategyRun(strategy, complete, tokenizer, chunks, diagnostics, split_block_flags(text, chunks))


def chunk_flags(run: StrategyRun) -> dict[int, tuple[str, ...]]:
    """Display flags per chunk index: diagnostics flags about the chunk's end, plus split blocks."""
    flags: dict[int, tuple[str, ...]] = {}
    if run.diagnostics is not None:
        for d in run.diagnostics.chunks:
            shown = tuple(f for f in d.flags if f in FLAG_LABELS)
            if shown:
                flags[d.index] = shown
    for index, extra in run.block_flags.items():
        flags[index] = (*flags.get(index, ()), *extra)
    return flags


def annotations(run: StrategyRun) -> dict[int, ChunkAnnotation]:
    """What the renderer shows for each chunk."""
    flags = chunk_flags(run)
    if run.diagnostics is None:
        return {}
    return {
        d.index: ChunkAnnotation(tokens=d.tokens, embedding_tokens=d.embedding_tokens, flags=flags.get(d.index, ()))
        for d in run.diagnostics.chunks
    }


def flag_counts(run: StrategyRun) -> dict[str, int]:
    counts = {name: 0 for name in FLAG_LABELS}
    for flags in chunk_flags(run).values():
        for f in flags:
            counts[f] += 1
    return counts


def stats_row(label: str, run: StrategyRun) -> dict[str, Any]:
    """One row of the comparison table."""
    d = run.diagnostics
    row: dict[str, Any] = {"column": label, "strategy": run.strategy, "chunks": len(run.chunks)}
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
        row[FLAG_LABELS[name]] = count
    return row


def chunk_table(text: str, run: StrategyRun, preview_chars: int = 80) -> list[dict[str, Any]]:
    """One row per chunk: index, span, tokens, reason, flags, a preview of its text."""
    flags = chunk_flags(run)
    by_index = {d.index: d for d in run.diagnostics.chunks} if run.diagnostics else {}
    multi_level = any(c.level or c.parent is not None for c in run.chunks)
    enriched = any(c.added_text for c in run.chunks)
    rows = []
    for c in run.chunks:
        d = by_index.get(c.index)
        preview = c.text[:preview_chars].replace("\r", "").replace("\n", "\u23ce ")
        level_columns = {"level": c.level, "parent": c.parent} if multi_level else {}
        rows.append(
            {
                "index": c.index,
                **level_columns,
                "start": c.start,
                "end": c.end,
                "tokens": d.tokens if d else None,
                **({"tokens with added text": d.added_tokens} if enriched else {}),
                "model tokens": d.embedding_tokens if d else None,
                "overlap (tokens)": d.overlap_prev_tokens if d else None,
                "reason": c.reason,
                "flags": ", ".join(flags.get(c.index, ())),
                "added": bool(c.added_text),
                "text": preview + ("\u2026" if len(c.text) > preview_chars else ""),
            }
        )
    return rows


def outline_html(text: str) -> str:
    """The document's headings as an indented, escaped list (empty when it has none)."""
    import html

    from chunkviz.structure import sections

    items = [
        f'<div style="margin-left:{(len(s.path) - 1) * 0.9:.1f}rem" title="characters {s.start}–{s.end}">'
        f"{html.escape(s.heading.title or '(untitled)')}</div>"
        for s in sections(text)
    ]
    if not items:
        return ""
    return '<div class="cv-outline" style="font-size:0.8rem;line-height:1.5">' + "".join(items) + "</div>"


def token_counts(run: StrategyRun) -> list[int]:
    if run.diagnostics is None:
        return []
    return [d.tokens for d in run.diagnostics.chunks]


def document_stats(text: str, tokenizer: str) -> dict[str, int]:
    """Size of the document in characters, words and tokens."""
    return {"characters": len(text), "words": len(text.split()), "tokens": get_tokenizer(tokenizer).count(text)}


# --- configuration <-> query parameters ------------------------------------------------------


def config_to_query(document: str, tokenizer: str, columns: Sequence[ColumnConfig]) -> dict[str, str]:
    """The configuration as URL query parameters (only non-default params are written)."""
    query = {"doc": document, "tokenizer": tokenizer, "n": str(len(columns))}
    for i, col in enumerate(columns):
        query[f"s{i}"] = col.strategy
        if col.params:
            query[f"p{i}"] = json.dumps(dict(col.params), separators=(",", ":"), sort_keys=True, default=str)
    return query


def config_from_query(query: Mapping[str, str], max_columns: int = 4) -> tuple[str | None, str | None, list[ColumnConfig]]:
    """Parse query parameters back; unknown strategies and malformed params are dropped."""
    from chunkviz.strategies.base import registered

    names = {s.name for s in registered()}
    try:
        n = max(1, min(max_columns, int(query.get("n", "0"))))
    except ValueError:
        n = 0
    columns = []
    for i in range(n if "n" in query else 0):
        name = query.get(f"s{i}")
        if name not in names:
            continue
        params: dict[str, Any] = {}
        raw = query.get(f"p{i}")
        if raw:
            try:
                loaded = json.loads(raw)
                params = loaded if isinstance(loaded, dict) else {}
            except json.JSONDecodeError:
                params = {}
        columns.append(ColumnConfig(name, params))
    return query.get("doc"), query.get("tokenizer"), columns
