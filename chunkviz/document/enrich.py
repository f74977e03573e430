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

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta
from chunkviz.document.model import Document, as_document
from chunkviz.text.counts import TokenCounter
from chunkviz.text.tokenizers import (
    DEFAULT_TOKENIZER,
    EMBEDDING_MODEL_MAX_TOKENS,
    EMBEDDING_TOKENIZER,
    Tokenizer,
    TokenizerUnavailable,
    get_tokenizer,
)

#: The prefix parts ``include`` may name, in the order they appear in the prefix.
PARTS = ("title", "section", "date")
SECTION_SEPARATOR = " > "


def default_title(document: Document, source: str = "") -> str | None:
    """The document's first level-1 heading, else the source's file name (None if neither)."""
    for heading in document.structure.headings:
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

    ``text`` is the chunked :class:`~chunkviz.document.Document` (whose structure gives the
    heading paths) or, at this API edge, its text (read as plain text, markup sniffed). ``added_text`` becomes ``"Document: <title>\\nSection: <A > B>\\nDate: <date>\\n\\n"`` (only the
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
    document = as_document(text)
    if title is None:
        title = default_title(document, source)
    prefixed = []
    for c in chunks:
        path = document.structure.heading_path_at(_first_text(c))
        section = SECTION_SEPARATOR.join(path)
        metadata: dict[str, object] = {"source": source, Meta.SECTION: section, Meta.HEADING_PATH: list(path)}
        prefixed.append((c, _prefix(include, title, section, date), metadata))
    per_level: dict[int, int] = {}
    result = []
    counted = prepend(document, list(chunks), [prefix for _, prefix, _ in prefixed], tokenizer=tokenizer)
    for (c, _, metadata), enriched in zip(prefixed, counted):
        position = per_level.get(c.level, 0)
        per_level[c.level] = position + 1
        merged: dict[str, object] = {**c.metadata, **metadata, "position": position}
        merged.update({k: enriched.metadata[k] for k in COUNT_KEYS})
        if title:
            merged["title"] = title
        if date:
            merged["date"] = date
        result.append(dataclasses.replace(enriched, metadata={str(k): v for k, v in merged.items()}))
    return result


#: What :func:`prepend` writes into a chunk's metadata.
COUNT_KEYS = (Meta.TOKEN_COUNT, "enriched_token_count", "enriched_over_limit")


def prepend(
    document: Document,
    chunks: Sequence[Chunk],
    prefixes: Sequence[str],
    *,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
) -> list[Chunk]:
    """``chunks`` with ``prefixes[i]`` put in front of chunk i's ``added_text`` (spans untouched)
    and their counts in metadata: ``token_count`` (tokens of the span), ``enriched_token_count``
    (tokens of ``added_text + text``) and ``enriched_over_limit`` (the embedding model,
    all-MiniLM-L6-v2, would truncate ``added_text + text``: its wordpieces plus [CLS]/[SEP]
    exceed 256; None when its tokenizer is not installed). Every enrichment goes through here."""
    if len(prefixes) != len(chunks):
        raise ValueError(f"{len(prefixes)} prefixes for {len(chunks)} chunks")
    try:
        embedding: Tokenizer | None = get_tokenizer(EMBEDDING_TOKENIZER)
    except TokenizerUnavailable:
        embedding = None
    counter = TokenCounter(document.text, get_tokenizer(tokenizer), embedding)
    result = []
    for c, prefix in zip(chunks, prefixes):
        enriched = dataclasses.replace(c, added_text=prefix + c.added_text)
        counts = counter.of(enriched)
        metadata: dict[str, object] = dict(c.metadata)
        metadata.update(
            {
                Meta.TOKEN_COUNT: counts.tokens,
                "enriched_token_count": counts.added_tokens if counts.added_tokens is not None else counts.tokens,
                "enriched_over_limit": (
                    counts.embedding_tokens > EMBEDDING_MODEL_MAX_TOKENS
                    if counts.embedding_tokens is not None
                    else None
                ),
            }
        )
        result.append(dataclasses.replace(enriched, metadata={str(k): v for k, v in metadata.items()}))
    return result


def _first_text(chunk: Chunk) -> int:
    """The chunk's first non-space character (its start when it is only whitespace)."""
    if not chunk.text.strip():
        return chunk.start
    return chunk.start + len(chunk.text) - len(chunk.text.lstrip())


def _prefix(include: Sequence[str], title: str | None, section: str, date: str | None) -> str:
    """The "Document / Section / Date" lines (parts with a value only) and a blank line."""
    values = {"title": title, "section": section, "date": date}
    labels = {"title": "Document", "section": "Section", "date": "Date"}
    lines = [f"{labels[part]}: {values[part]}" for part in PARTS if part in include and values[part]]
    return "\n".join(lines) + "\n\n" if lines else ""


@dataclasses.dataclass(frozen=True)
class Enrichment:
    """What is added in front of each chunk's embedded text (never to its span): the metadata
    prefix (:func:`enrich`: ``title`` None is the first level-1 heading, else the source's file
    name; ``include`` the parts; ``source`` the document's name in it, None: the reader's) and,
    with ``contextual``, a context a language model writes for each chunk (contextual retrieval).

    The one enrichment type: ``chunkviz.json``'s ``enrichment`` (metadata only: :meth:`to_dict`),
    the app's sidebar (a key of its cached runs: :meth:`options`) and the evaluation's ``enrich``
    (:attr:`kind`)."""

    metadata: bool = True
    contextual: bool = False
    source: str | None = None
    title: str | None = None
    date: str | None = None
    include: tuple[str, ...] = PARTS

    @property
    def kind(self) -> str | None:
        """The evaluation's name of it: ``contextual``, ``metadata`` or None (nothing added)."""
        return "contextual" if self.contextual else "metadata" if self.metadata else None

    def to_dict(self) -> dict[str, object]:
        """``chunkviz.json``'s ``enrichment`` (the metadata prefix; the per-document source is left out)."""
        return {"kind": "metadata", "title": self.title, "date": self.date, "include": list(self.include)}

    def options(self) -> dict[str, object]:
        """:func:`chunkviz.diagnostics.compare.enriched`'s options."""
        options: dict[str, object] = {"metadata": self.metadata, "contextual": self.contextual}
        if self.metadata:
            options.update({"source": self.source, "title": self.title, "date": self.date})
        return options

    def prefix(self) -> dict[str, object] | None:
        """The metadata prefix's fields for chunkviz.json (None: no prefix)."""
        return {"source": self.source, "title": self.title, "date": self.date} if self.metadata else None

    def apply(
        self, document: Document, chunks: Sequence[Chunk], *, source: str, tokenizer: str | Tokenizer
    ) -> list[Chunk]:
        """``chunks`` with the metadata prefix for ``document`` (read from ``source``); unchanged
        without one (the contextual part calls a model: :func:`chunkviz.diagnostics.compare.enriched`)."""
        if not chunks or not self.metadata:
            return list(chunks)
        return enrich(
            document, chunks, source=source, title=self.title, date=self.date, include=self.include, tokenizer=tokenizer
        )


__all__ = ["COUNT_KEYS", "PARTS", "Enrichment", "default_title", "enrich", "prepend"]
