"""The hygiene of a corpus (``chunkviz batch``): counts per flag over every document, and the text
repeated most across documents (a licence footer, a navigation bar on every page of a site).

Each document's chunks are diagnosed on their own (:func:`~chunkviz.diagnostics.hygiene.hygiene`,
boilerplate within the document); the corpus-wide count of each line or sentence adds, per document,
the places it holds it. Memory stays bounded: at most :data:`MAX_PIECES` distinct pieces are
counted; when more come, those seen at a single place are dropped (lossy counting: a piece that
recurs across many documents keeps coming back and is counted from then on). The batch's output
records are read back as chunks (chunkviz, LangChain or LlamaIndex records), one document at a time.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import FLAG_LABELS, Reason
from chunkviz.diagnostics.hygiene import hygiene
from chunkviz.diagnostics.hygiene.boilerplate import PieceCounter
from chunkviz.diagnostics.hygiene.duplicates import MIN_CONTENT_WORDS, normalized
from chunkviz.diagnostics.hygiene.findings import RepeatedText
from chunkviz.diagnostics.hygiene.information import content_words
from chunkviz.diagnostics.hygiene.rules import HYGIENE_FLAGS, HygieneRules
from chunkviz.text.secrets import masked

#: Distinct pieces counted across the corpus at most (then those at one place are dropped).
MAX_PIECES = 200_000
#: Chunk texts remembered across documents at most (an 8-byte digest each), for copies between documents.
MAX_TEXTS = 2_000_000
#: Repeated pieces the summary names.
TOP_PIECES = 5


@dataclass
class CorpusHygiene:
    """Hygiene counts over a corpus, added to one document at a time."""

    rules: HygieneRules = field(default_factory=HygieneRules)
    documents: int = 0
    chunks: int = 0
    #: flag value -> chunks carrying it
    counts: Counter[str] = field(default_factory=Counter)
    #: flag value -> documents with a chunk carrying it
    documents_with: Counter[str] = field(default_factory=Counter)
    _places: Counter[str] = field(default_factory=Counter)
    _documents: Counter[str] = field(default_factory=Counter)
    _shown: dict[str, str] = field(default_factory=dict)
    #: chunks whose text (whitespace aside) a chunk of an earlier document has
    copies_between_documents: int = 0
    _texts: dict[bytes, int] = field(default_factory=dict)

    def add(self, chunks: Sequence[Chunk]) -> None:
        """One document's chunks."""
        self.documents += 1
        self.chunks += len(chunks)
        found, _ = hygiene(chunks, self.rules)
        present: set[str] = set()
        for findings in found.values():
            for flag in {str(f.flag) for f in findings}:
                self.counts[flag] += 1
                present.add(flag)
        self.documents_with.update(present)
        if self.rules.duplicate:
            self._count_copies(chunks)
        if self.rules.boilerplate is not None:
            self._count_pieces(chunks)

    def _count_copies(self, chunks: Sequence[Chunk]) -> None:
        for c in chunks:
            key = normalized(c.text)
            if content_words(key) < MIN_CONTENT_WORDS:
                continue
            digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
            first = self._texts.get(digest)
            if first is not None and first != self.documents:
                self.copies_between_documents += 1
            elif first is None and len(self._texts) < MAX_TEXTS:
                self._texts[digest] = self.documents

    def _count_pieces(self, chunks: Sequence[Chunk]) -> None:
        counter = PieceCounter()
        for c in chunks:
            counter.add(c.text, c.start)
        for key, places in counter.places.items():
            self._places[key] += len(places)
            self._documents[key] += 1
            self._shown.setdefault(key, counter.first[key])
        if len(self._places) > MAX_PIECES:
            for key in [k for k, n in self._places.items() if n <= 1]:
                del self._places[key], self._documents[key], self._shown[key]

    def repeated(self) -> list[tuple[RepeatedText, int]]:
        """The pieces at the rule's number of places or more, in more than one document: each with
        the documents holding it, most places first."""
        least = self.rules.boilerplate or 0
        common = [k for k, n in self._places.items() if n >= least and self._documents[k] > 1]
        common.sort(key=lambda k: (-self._places[k], self._shown[k]))
        return [(RepeatedText(masked(self._shown[k]), self._places[k]), self._documents[k]) for k in common]

    def lines(self) -> list[str]:
        """The summary as lines of text (for stderr)."""
        head = f"hygiene: {self.chunks:,} chunks of {self.documents:,} documents"
        parts = [
            f"{FLAG_LABELS[flag]} {self.counts[flag]:,} (in {_documents(self.documents_with[flag])})"
            for flag in HYGIENE_FLAGS
            if self.counts[flag]
        ]
        lines = [head + (": " + "; ".join(parts) if parts else ": no flags")]
        if self.copies_between_documents:
            lines.append(f"  {self.copies_between_documents:,} chunk(s) repeat the text of a chunk of another document")
        for text, documents in self.repeated()[:TOP_PIECES]:
            lines.append(f"  repeated: \u201c{text.text}\u201d at {text.places:,} places in {_documents(documents)}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "chunks": self.chunks,
            "counts": {str(f): self.counts[f] for f in HYGIENE_FLAGS},
            "documents_with": {str(f): self.documents_with[f] for f in HYGIENE_FLAGS},
            "copies_between_documents": self.copies_between_documents,
            "repeated": [
                {"text": t.text, "places": t.places, "documents": d} for t, d in self.repeated()[: TOP_PIECES * 4]
            ],
        }


def _documents(n: int) -> str:
    return f"{n:,} document{'' if n == 1 else 's'}"


def chunks_from_records(records: Iterable[Mapping[str, Any]]) -> list[Chunk]:
    """Chunks from a document's output records: chunkviz's (``text``, ``start``), LangChain's
    (``page_content``, ``metadata.start_index``) or LlamaIndex's (``text``, ``start_char_idx``); a
    record without a place is put after the previous one (it still counts for duplicates)."""
    out: list[Chunk] = []
    at = 0
    for position, record in enumerate(records):
        metadata = _metadata(record)
        text = record.get("text", record.get("page_content"))
        if not isinstance(text, str):
            continue
        start = record.get("start", record.get("start_char_idx", metadata.get("start_index")))
        start = start if isinstance(start, int) and start >= 0 else at
        level = record.get("level", metadata.get("level"))
        level = level if isinstance(level, int) else 0
        index = record.get("index")
        index = index if isinstance(index, int) else position
        out.append(Chunk(index, start, start + len(text), text, Reason.SIZE_LIMIT, level=level))
        at = start + len(text)
    return out


def _metadata(record: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = record.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def _source(record: Mapping[str, Any]) -> Any:
    return record.get("source", _metadata(record).get("source"))


def _records(path: Path, fmt: str) -> Iterator[dict[str, Any]]:
    if fmt == "parquet":
        import pyarrow.parquet as pq  # noqa: PLC0415 - only for a parquet output (extra 'scale')

        for batch in pq.ParquetFile(path).iter_batches(columns=["source", "index", "start", "text", "level"]):
            yield from batch.to_pylist()
        return
    with path.open("r", encoding="utf-8") as handle:  # JSON lines, or a JSON list one record a line
        for line in handle:
            record = line.strip().removesuffix(",")
            if record not in ("", "[", "]", "[]"):
                yield json.loads(record)


def output_documents(path: Path, fmt: str) -> Iterator[list[dict[str, Any]]]:
    """A batch output's records, one document (a run of records with the same source) at a time."""
    current: list[dict[str, Any]] = []
    for record in _records(path, fmt):
        if current and _source(record) != _source(current[-1]):
            yield current
            current = []
        current.append(record)
    if current:
        yield current


def corpus_hygiene(path: Path, fmt: str, rules: HygieneRules | None = None) -> CorpusHygiene:
    """The hygiene of a batch output (``fmt``: jsonl, parquet, langchain or llamaindex), read one
    document at a time."""
    corpus = CorpusHygiene(rules or HygieneRules())
    for records in output_documents(path, fmt):
        corpus.add(chunks_from_records(records))
    return corpus
