"""Chunk enrichment: prepend document context to what gets embedded (seed 000 §13.7.1, guide step 5).

``enrich`` never touches a chunk's span: the prefix ("Document: ...", "Section: ...", "Date: ...")
goes into ``added_text``, in front of any text the strategy already added, and the metadata gains
the source, the section's heading path, the chunk's position, and real token counts of the span
and of the enriched text. Because the prefix is embedded too, a chunk that fitted the embedding
model can overflow it once enriched; ``enriched_over_limit`` says so, counted with the embedding
model's own tokenizer.
"""

from __future__ import annotations

import dataclasses
from pathlib import PurePath
from typing import Sequence

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
from chunkviz.vocabulary import Meta

#: The prefix parts ``include`` may name, in the order they appear in the prefix.
PARTS = ("title", "section", "date")
SECTION_SEPARATOR = " > "


def default_title(text: str | Document, source: str = "") -> str | None:
    """The document's first level-1 heading, else the source's file name (None if neither)."""
    for heading in as_document(text).structure.headings:
        if heading.level == 1 and heading.title:
            return heading.title
    if source:
        return PurePath(source).name or source
    return None


def enrich(
    text: str | Document,
    chunks: Sequence[Chunk],
    *,
    source: str = "",
    title: str | None = None,
    date: str | None = None,
    include: Sequence[str] = PARTS,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
) -> list[Chunk]:
    """New chunks with the same spans, indexes, levels and parents, enriched for embedding.

    ``text`` is the chunked text or its :class:`~chunkviz.document.Document` (whose structure
    gives the heading paths). ``added_text`` becomes ``"Document: <title>\\nSection: <A > B>\\nDate: <date>\\n\\n"`` (only the
    parts named in ``include`` that have a value) followed by the chunk's previous added text.
    ``title`` defaults to the first level-1 heading, else the file name of ``source``; the
    section is the heading path at the chunk's first non-whitespace character.

    Metadata added: ``source``, ``section`` (the heading path joined by " > ", "" before the
    first heading), ``heading_path`` (list), ``position`` (index among the chunks of the same
    level), ``token_count`` (tokens of the span), ``enriched_token_count`` (tokens of
    ``added_text + text``), ``enriched_over_limit`` (the embedding model, all-MiniLM-L6-v2,
    would truncate ``added_text + text``: its wordpieces plus [CLS]/[SEP] exceed 256; None when
    its tokenizer is not installed), and ``title`` / ``date`` when they have a value.
    """
    unknown = [part for part in include if part not in PARTS]
    if unknown:
        raise ValueError(f"unknown enrichment part(s) {', '.join(map(repr, unknown))}; choose from: {', '.join(PARTS)}")
    tok = get_tokenizer(tokenizer)
    try:
        embedding: Tokenizer | None = get_tokenizer(EMBEDDING_TOKENIZER)
    except TokenizerUnavailable:
        embedding = None
    structure = as_document(text).structure
    if title is None:
        title = default_title(text, source)
    per_level: dict[int, int] = {}
    result = []
    for c in chunks:
        body = c.start + len(c.text) - len(c.text.lstrip())  # the chunk's first non-space character
        path = structure.heading_path_at(body if c.text.strip() else c.start)
        section = SECTION_SEPARATOR.join(path)
        values = {"title": title, "section": section, "date": date}
        labels = {"title": "Document", "section": "Section", "date": "Date"}
        lines = [f"{labels[part]}: {values[part]}" for part in PARTS if part in include and values[part]]
        prefix = "\n".join(lines) + "\n\n" if lines else ""
        added = prefix + c.added_text
        embedded = added + c.text
        position = per_level.get(c.level, 0)
        per_level[c.level] = position + 1
        metadata: dict[str, object] = dict(c.metadata)
        metadata.update(
            {
                "source": source,
                Meta.SECTION: section,
                Meta.HEADING_PATH: list(path),
                "position": position,
                Meta.TOKEN_COUNT: tok.count(c.text),
                "enriched_token_count": tok.count(embedded),
                "enriched_over_limit": (
                    embedding.count(embedded) + embedding.special_tokens > EMBEDDING_MODEL_MAX_TOKENS
                    if embedding is not None
                    else None
                ),
            }
        )
        if title:
            metadata["title"] = title
        if date:
            metadata["date"] = date
        result.append(dataclasses.replace(c, added_text=added, metadata={str(k): v for k, v in metadata.items()}))
    return result


__all__ = ["PARTS", "default_title", "enrich"]
