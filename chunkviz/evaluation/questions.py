"""Question files for retrieval evaluation: questions with the reference spans that answer them.

A question names one or more **references**: character spans ``[start, end)`` of a corpus document's
text as chunkviz reads it (``chunkviz.document.read_path(path).text``, indexed by code point). Two
file formats are read:

**JSONL** (``.jsonl``), one object per line::

    {"question": "How often is a station visited?",
     "references": [{"excerpt": "Each station is visited at least once every two weeks"}]}

Each reference is either a span ``{"document"?, "start", "end"}`` or an excerpt
``{"document"?, "excerpt"}``, which is located exactly (``str.find``): an excerpt that is not in
the document, or is in it more than once, is an error asking for a corrected or longer excerpt.
A reference with both a span and an excerpt (what :func:`save_questions` writes) must agree.
``document`` may be left out when the corpus has one document. Blank lines are skipped. A file may
instead name only the documents that answer each question (``{"question": ..., "documents": [name, ...]}``
on every line): the evaluation then scores rankings at document level (:func:`~chunkviz.evaluation.metrics.document_scores`).

**Chroma's CSV** (``.csv``; "Evaluating Chunking Strategies for Retrieval"): columns ``question``,
``references`` (a JSON list of ``{"content", "start_index", "end_index"}``) and ``corpus_id``; each
``corpus[start_index:end_index]`` must equal ``content``.

Document names are matched against the corpus keys exactly, else by file name or stem, so a file
saying ``"document": "api_guide.md"`` loads against a corpus keyed ``"chunkviz/sample_docs/api_guide.md"``,
and Chroma's ``corpus_id`` ``"pubmed"`` against ``".../corpora/pubmed.md"``. A
:class:`Reference`'s ``document`` is always the corpus key.

Every problem raises :class:`QuestionFileError`, whose message names the file, the line and what
to do. A file is read within the side-file bounds (:mod:`chunkviz.core.sidefile`: at most
:data:`~chunkviz.core.limits.MAX_QUESTION_FILE_BYTES`, JSON nesting and number lengths bounded), and
excerpts are located through one index of each document (:class:`_ExcerptIndex`), so a file of
many excerpts costs about the corpus once plus the excerpts, not their product. No Streamlit here. The evaluation reads question sets and the LLM question generator
writes them, so they live here, beside both (``llm/`` never imports ``evaluation/``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkviz.core.errors import FileLineError
from chunkviz.core.files import write_text_atomic
from chunkviz.core.jsonl import json_line
from chunkviz.core.limits import MAX_QUESTION_FILE_BYTES
from chunkviz.core.sidefile import ErrorFactory, check_side_text, decode_side_file, parse_json, read_side_file

__all__ = [
    "Question",
    "QuestionFileError",
    "Reference",
    "load_questions",
    "parse_questions",
    "questions_to_jsonl",
    "sample_questions_path",
    "save_questions",
]

#: the file formats :func:`load_questions` reads
FORMATS = ("jsonl", "csv")

_JSONL_SUFFIXES = {".jsonl", ".ndjson", ".json"}
_CSV_SUFFIXES = {".csv"}
_REFERENCE_KEYS = {"document", "start", "end", "excerpt"}
_CSV_COLUMNS = ("question", "references", "corpus_id")

#: an excerpt shorter than this is quoted whole in messages; longer ones are shortened
_QUOTE_CHARS = 60


class QuestionFileError(FileLineError):
    """A question file that cannot be read: the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Reference:
    """The span ``[start, end)`` of corpus document ``document`` that answers a question."""

    document: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if not (0 <= self.start < self.end):
            raise ValueError(f"a reference needs 0 <= start < end, got {self.start}..{self.end}")

    @property
    def length(self) -> int:
        return self.end - self.start

    def text(self, corpus: Mapping[str, str]) -> str:
        """The referenced text in ``corpus``."""
        return corpus[self.document][self.start : self.end]


@dataclass(frozen=True)
class Question:
    """A question and the reference spans that answer it, or (document-level labels) only the
    corpus documents that answer it: one of the two, not empty."""

    question: str
    references: tuple[Reference, ...]
    documents: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "references", tuple(self.references))
        object.__setattr__(self, "documents", tuple(self.documents))
        if bool(self.references) == bool(self.documents):
            raise ValueError("a question needs reference spans or answering documents (one of the two)")


# ----------------------------------------------------------------------------- reading


def load_questions(
    path_or_text: str | Path | bytes,
    corpus: Mapping[str, str],
    *,
    format: str | None = None,
    name: str | None = None,
) -> list[Question]:
    """Questions from a JSONL or Chroma CSV question file, checked against ``corpus``.

    ``path_or_text`` is a path (``Path``, or a one-line string naming an existing file), or the
    file's contents (``str`` or UTF-8 ``bytes``, e.g. an upload). ``corpus`` maps document names
    to their texts. The format is ``format`` if given, else the file's extension (``.jsonl`` /
    ``.csv``), else sniffed from the first non-blank line. ``name`` is what messages call the
    file (default: the path, or ``<questions>`` for text).
    """
    text, source, suffix = _read_source(path_or_text, name)
    return parse_questions(text, corpus, format=format or _format_from_suffix(suffix), name=source)


def parse_questions(
    text: str, corpus: Mapping[str, str], *, format: str | None = None, name: str = "<questions>"
) -> list[Question]:
    """Questions from a question file's text (see :func:`load_questions`)."""
    text = text.removeprefix("\ufeff")
    check_side_text(text, MAX_QUESTION_FILE_BYTES, "a question file", _errors(name))
    if not corpus:
        raise QuestionFileError(
            name, None, "the corpus is empty; give at least one document to check the questions against"
        )
    fmt = format.lower().lstrip(".") if format else _sniff(text, name)
    if fmt in ("json", "ndjson"):
        fmt = "jsonl"
    if fmt not in FORMATS:
        raise QuestionFileError(
            name, None, f"unknown question file format {format!r}; use one of: {', '.join(FORMATS)}"
        )
    resolver = _Resolver(corpus, name)
    questions = _parse_jsonl(text, resolver, name) if fmt == "jsonl" else _parse_csv(text, resolver, name)
    if not questions:
        raise QuestionFileError(
            name,
            None,
            "the file holds no questions; add at least one line like "
            '{"question": "...", "references": [{"excerpt": "..."}]}',
        )
    return questions


def sample_questions_path(document_path: str | Path) -> Path | None:
    """The question file shipped for a sample document: ``<its folder>/questions/<stem>.jsonl``, if it exists."""
    p = Path(document_path)
    candidate = p.parent / "questions" / f"{p.stem}.jsonl"
    return candidate if candidate.is_file() else None


def _errors(source: str) -> ErrorFactory:
    def error(line: int | None, message: str) -> QuestionFileError:
        return QuestionFileError(source, line, message)

    return error


def _read_source(path_or_text: str | Path | bytes, name: str | None) -> tuple[str, str, str]:
    """(text, source name for messages, file suffix or '')."""
    if isinstance(path_or_text, bytes):
        return (
            _decode(path_or_text, name or "<questions>"),
            name or "<questions>",
            Path(name).suffix.lower() if name else "",
        )
    looks_like_path = isinstance(path_or_text, Path) or (
        "\n" not in path_or_text and not path_or_text.lstrip().startswith(("{", "[")) and len(path_or_text) < 4096
    )
    if not looks_like_path:
        source = name or "<questions>"
        return str(path_or_text), source, Path(name).suffix.lower() if name else ""
    path = Path(path_or_text)
    source = name or str(path_or_text)
    try:
        data = read_side_file(path, MAX_QUESTION_FILE_BYTES, "a question file", _errors(source))
    except FileNotFoundError:
        raise QuestionFileError(source, None, "file not found; check the path of the question file") from None
    except IsADirectoryError:
        raise QuestionFileError(
            source, None, "is a directory; give the question file (.jsonl or .csv) itself"
        ) from None
    except OSError as exc:
        raise QuestionFileError(
            source, None, f"cannot be read ({exc.strerror or exc}); check its permissions"
        ) from None
    return _decode(data, source), source, path.suffix.lower()


def _decode(data: bytes, source: str) -> str:
    errors = _errors(source)
    check_side_text(data, MAX_QUESTION_FILE_BYTES, "a question file", errors)  # an upload's bytes
    return decode_side_file(data, "the question file", errors)


def _format_from_suffix(suffix: str) -> str | None:
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix in _CSV_SUFFIXES:
        return "csv"
    return None


def _sniff(text: str, name: str) -> str:
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("{"):
            return "jsonl"
        try:
            header = [cell.strip().lower() for cell in next(csv.reader([stripped]))]
        except csv.Error:
            break  # not a CSV header line
        if "question" in header and "references" in header:
            return "csv"
        break
    raise QuestionFileError(
        name,
        None,
        "cannot tell the format: a JSONL question file has one JSON object per line, a Chroma CSV "
        "starts with the header question,references,corpus_id; name the file .jsonl or .csv",
    )


class _ExcerptIndex:
    """Where excerpts occur in one document, without scanning the document once per excerpt.

    After a few lookups (a file with a handful of excerpts just scans), the document's
    :data:`GRAM`-character substrings at every :data:`STEP`-th position are put in a dict once
    (``len(text) / STEP`` entries). An occurrence at ``p`` of an excerpt of at least
    ``GRAM + STEP - 1`` characters covers exactly one indexed position ``q`` in ``[p, p + STEP)``,
    with the excerpt's characters ``q - p ..`` equal to the gram there; so the excerpt's
    ``STEP`` grams give every position it can occur at, each then checked with ``startswith``.
    (32-character grams are all but unique in text, so an excerpt has a handful of candidates.)
    Shorter excerpts (under 47 characters), and those whose grams occur more than
    :data:`MAX_CANDIDATES` times (long runs of one pattern), are found with ``str.find`` as before. The same excerpt is looked up
    once. ``work`` counts the characters examined (what the linearity test measures)."""

    GRAM = 32
    STEP = 16
    MAX_CANDIDATES = 256
    SCANS_BEFORE_INDEXING = 4

    def __init__(self, text: str) -> None:
        self.text = text
        self.grams: dict[str, int | list[int]] | None = None
        self.found: dict[str, list[int]] = {}
        self.scans = 0
        self.work = 0

    def occurrences(self, excerpt: str, limit: int) -> list[int]:
        """The first ``limit`` positions where ``excerpt`` starts (overlapping ones included)."""
        known = self.found.get(excerpt)
        if known is None:
            if len(excerpt) >= self.GRAM + self.STEP - 1 and self.scans >= self.SCANS_BEFORE_INDEXING:
                known = self._indexed(excerpt, limit)
            if known is None:
                known = self._scan(excerpt, limit)
            self.found[excerpt] = known
        return known[:limit]

    def _scan(self, excerpt: str, limit: int) -> list[int]:
        self.scans += 1
        self.work += len(self.text)
        out: list[int] = []
        at = self.text.find(excerpt)
        while at >= 0 and len(out) < limit:
            out.append(at)
            at = self.text.find(excerpt, at + 1)
        return out

    def _build(self) -> dict[str, int | list[int]]:
        text, gram = self.text, self.GRAM
        grams: dict[str, int | list[int]] = {}
        for q in range(0, len(text) - gram + 1, self.STEP):
            key = text[q : q + gram]
            seen = grams.get(key)
            if seen is None:
                grams[key] = q
            elif isinstance(seen, int):
                grams[key] = [seen, q]
            else:
                seen.append(q)
        self.work += len(text)
        return grams

    def _indexed(self, excerpt: str, limit: int) -> list[int] | None:
        if self.grams is None:
            self.grams = self._build()
        candidates: set[int] = set()
        for offset in range(self.STEP):
            seen = self.grams.get(excerpt[offset : offset + self.GRAM])
            if seen is None:
                continue
            positions = (seen,) if isinstance(seen, int) else seen
            if len(candidates) + len(positions) > self.MAX_CANDIDATES:
                return None  # a pattern repeated all over the document: str.find
            candidates.update(q - offset for q in positions if q >= offset)
        self.work += self.STEP * self.GRAM + len(candidates) * len(excerpt)
        return sorted(p for p in candidates if self.text.startswith(excerpt, p))[:limit]


class _Resolver:
    """Matches a document name from a question file to a corpus key."""

    def __init__(self, corpus: Mapping[str, str], source: str) -> None:
        self.corpus = corpus
        self.source = source
        self.keys = list(corpus)
        self.indexes: dict[str, _ExcerptIndex] = {}

    def index(self, document: str) -> _ExcerptIndex:
        """The excerpt index of corpus document ``document`` (built on first use)."""
        found = self.indexes.get(document)
        if found is None:
            found = self.indexes[document] = _ExcerptIndex(self.corpus[document])
        return found

    def resolve(self, document: str | None, line: int, what: str) -> str:
        if document is None:
            if len(self.keys) == 1:
                return self.keys[0]
            raise QuestionFileError(
                self.source,
                line,
                f"{what} names no document, and the corpus has {len(self.keys)} ({self._listing()}); "
                'add "document": one of them',
            )
        if document in self.corpus:
            return document
        wanted_name = Path(document).name
        matches = [k for k in self.keys if Path(k).name == wanted_name or Path(k).stem == document]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise QuestionFileError(
                self.source,
                line,
                f"{what}: document {document!r} is not in the corpus ({self._listing()}); "
                "use one of those names or add the document to the corpus",
            )
        raise QuestionFileError(
            self.source,
            line,
            f"{what}: document {document!r} matches several corpus documents "
            f"({', '.join(map(repr, matches))}); give its full name",
        )

    def _listing(self) -> str:
        shown = ", ".join(repr(k) for k in self.keys[:8])
        return shown + (f" and {len(self.keys) - 8} more" if len(self.keys) > 8 else "")


def _quote(text: str) -> str:
    if len(text) <= _QUOTE_CHARS:
        return repr(text)
    return repr(text[: _QUOTE_CHARS - 10] + "…" + text[-8:])


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_span(
    resolver: _Resolver,
    document: str,
    start: Any,
    end: Any,
    line: int,
    what: str,
    start_key: str = "start",
    end_key: str = "end",
) -> None:
    if not _is_int(start) or not _is_int(end):
        raise QuestionFileError(
            resolver.source,
            line,
            f"{what}: {start_key!r} and {end_key!r} must be whole numbers (character offsets), "
            f"got {start!r} and {end!r}",
        )
    size = len(resolver.corpus[document])
    if not (0 <= start < end <= size):
        raise QuestionFileError(
            resolver.source,
            line,
            f"{what}: span {start}..{end} is out of range for {document!r} ({size} characters); "
            f"need 0 <= {start_key} < {end_key} <= {size} (character offsets, end exclusive)",
        )


def _locate(resolver: _Resolver, document: str, excerpt: str, line: int, what: str) -> tuple[int, int]:
    text = resolver.corpus[document]
    found = resolver.index(document).occurrences(excerpt, 6)
    if not found:
        hint = ""
        collapsed = re.sub(r"\s+", " ", excerpt).strip()
        if collapsed and collapsed.casefold() in re.sub(r"\s+", " ", text).casefold():
            hint = " (it is there when case and whitespace are ignored; copy it exactly from the document)"
        raise QuestionFileError(
            resolver.source,
            line,
            f"{what}: excerpt {_quote(excerpt)} is not in {document!r}{hint}; "
            'copy the excerpt exactly from the document, or give "start" and "end"',
        )
    first, offsets = found[0], found[:5]
    if len(offsets) > 1:
        more = ", ..." if len(found) > 5 else ""
        raise QuestionFileError(
            resolver.source,
            line,
            f"{what}: excerpt {_quote(excerpt)} is found more than once in {document!r} "
            f"(at characters {', '.join(map(str, offsets))}{more}); use a longer excerpt that occurs once, "
            'or give explicit "start" and "end"',
        )
    return first, first + len(excerpt)


def _parse_jsonl(text: str, resolver: _Resolver, source: str) -> list[Question]:
    questions: list[Question] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        try:
            obj = parse_json(line, _errors(source), first_line=number)
        except json.JSONDecodeError as exc:
            raise QuestionFileError(
                source,
                number,
                f"not valid JSON ({exc.msg} at column {exc.colno}); each line must be one JSON object "
                'like {"question": "...", "references": [{"excerpt": "..."}]}',
            ) from None
        if not isinstance(obj, dict):
            raise QuestionFileError(
                source,
                number,
                f"expected a JSON object, got {type(obj).__name__}; write "
                '{"question": "...", "references": [...]} on each line',
            )
        questions.append(_jsonl_question(obj, resolver, number))
        if bool(questions[0].documents) != bool(questions[-1].documents):
            raise QuestionFileError(
                source, number, "labelled otherwise than line 1: give every question references, or every one documents"
            )
    return questions


def _jsonl_question(obj: dict[str, Any], resolver: _Resolver, line: int) -> Question:
    source = resolver.source
    labels = "documents" if "documents" in obj else "references"  # documents: document-level labels
    missing = [key for key in ("question", labels) if key not in obj]
    if missing:
        raise QuestionFileError(
            source,
            line,
            f"missing key{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}; each line needs "
            '"question" (text) and "references" (a list of {"excerpt": ...} or {"start": ..., "end": ...})',
        )
    question = obj["question"]
    if not isinstance(question, str) or not question.strip():
        raise QuestionFileError(source, line, '"question" must be non-empty text')
    if labels == "documents":
        names = obj["documents"]
        if "references" in obj or not isinstance(names, list) or not names or any(type(n) is not str for n in names):
            raise QuestionFileError(
                source, line, '"documents" must be a non-empty list of document names (and no "references")'
            )
        return Question(question, (), tuple(dict.fromkeys(resolver.resolve(n, line, "documents") for n in names)))
    refs = obj["references"]
    if not isinstance(refs, list) or not refs:
        raise QuestionFileError(
            source,
            line,
            '"references" must be a non-empty list of {"excerpt": ...} or {"start": ..., "end": ...} objects',
        )
    references = tuple(_jsonl_reference(ref, resolver, line, i) for i, ref in enumerate(refs, start=1))
    return Question(question, references)


def _jsonl_reference(ref: Any, resolver: _Resolver, line: int, index: int) -> Reference:
    source = resolver.source
    what = f"reference {index}"
    if not isinstance(ref, dict):
        raise QuestionFileError(
            source,
            line,
            f'{what} must be an object like {{"excerpt": "..."}} or {{"start": 0, "end": 10}}, got {ref!r}',
        )
    unknown = sorted(set(ref) - _REFERENCE_KEYS)
    if unknown:
        raise QuestionFileError(
            source,
            line,
            f"{what} has unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"a reference may have: {', '.join(sorted(_REFERENCE_KEYS))}",
        )
    document_name = ref.get("document")
    if document_name is not None and not isinstance(document_name, str):
        raise QuestionFileError(
            source, line, f'{what}: "document" must be a document name (text), got {document_name!r}'
        )
    has_span = "start" in ref or "end" in ref
    has_excerpt = "excerpt" in ref
    if not has_span and not has_excerpt:
        raise QuestionFileError(
            source,
            line,
            f'{what} needs "excerpt" (text copied exactly from the document) or "start" and "end" (character offsets)',
        )
    if has_span and not ("start" in ref and "end" in ref):
        lacking = "end" if "start" in ref else "start"
        raise QuestionFileError(source, line, f'{what} has no {lacking!r}; a span needs both "start" and "end"')
    document = resolver.resolve(document_name, line, what)
    excerpt = ref.get("excerpt")
    if has_excerpt and (not isinstance(excerpt, str) or not excerpt):
        raise QuestionFileError(source, line, f'{what}: "excerpt" must be non-empty text copied from the document')
    excerpt = excerpt if isinstance(excerpt, str) else ""  # "" only when the reference has no excerpt
    if has_span:
        start, end = ref["start"], ref["end"]
        _check_span(resolver, document, start, end, line, what)
        if has_excerpt:
            actual = resolver.corpus[document][start:end]
            if actual != excerpt:
                raise QuestionFileError(
                    source,
                    line,
                    f"{what}: the text at {start}..{end} of {document!r} is {_quote(actual)}, not the "
                    f'excerpt {_quote(excerpt)}; fix the offsets, or drop "start"/"end" to locate the excerpt',
                )
        return Reference(document, start, end)
    start, end = _locate(resolver, document, excerpt, line, what)
    return Reference(document, start, end)


def _parse_csv(text: str, resolver: _Resolver, source: str) -> list[Question]:
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    header_line = 0
    columns: dict[str, int] = {}
    questions: list[Question] = []
    previous_end = 0
    while True:
        line = previous_end + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise QuestionFileError(source, line, _csv_problem(exc)) from None
        previous_end = reader.line_num
        if not row or not any(cell.strip() for cell in row):
            continue
        if header is None:
            header, header_line = [cell.strip().lower() for cell in row], line
            columns = {name: i for i, name in enumerate(header)}
            needed = [
                c for c in _CSV_COLUMNS if c not in columns and not (c == "corpus_id" and len(resolver.keys) == 1)
            ]
            if needed:
                raise QuestionFileError(
                    source,
                    header_line,
                    f"missing column{'s' if len(needed) > 1 else ''} {', '.join(map(repr, needed))}; "
                    "a Chroma question CSV starts with the header question,references,corpus_id",
                )
            continue
        questions.append(_csv_question(row, columns, resolver, line))
    return questions


def _csv_problem(exc: csv.Error) -> str:
    text = str(exc)
    if "field larger than field limit" in text:
        return (
            f"a cell of more than {csv.field_size_limit():,} characters, the CSV reader's limit; a reference's "
            "content is an excerpt: give several shorter references, or check for an unclosed quote"
        )
    return f"not valid CSV ({text}); quote cells that hold commas, quotes or line breaks"


def _csv_question(row: list[str], columns: dict[str, int], resolver: _Resolver, line: int) -> Question:
    source = resolver.source

    def cell(name: str) -> str | None:
        i = columns.get(name)
        if i is None:
            return None
        if i >= len(row):
            raise QuestionFileError(
                source,
                line,
                f"the row has {len(row)} cells but the header puts {name!r} in column {i + 1}; "
                "quote cells that contain commas",
            )
        return row[i]

    question = cell("question") or ""
    if not question.strip():
        raise QuestionFileError(source, line, "the 'question' cell is empty; every row needs a question")
    corpus_id = cell("corpus_id")
    document = resolver.resolve(corpus_id.strip() if corpus_id and corpus_id.strip() else None, line, "corpus_id")
    raw = cell("references") or ""
    try:
        refs = parse_json(raw, _errors(source), first_line=line)
    except json.JSONDecodeError as exc:
        raise QuestionFileError(
            source,
            line,
            f"the 'references' cell is not valid JSON ({exc.msg} at character {exc.pos}); it must be a "
            'JSON list like [{"content": "...", "start_index": 0, "end_index": 10}]',
        ) from None
    if not isinstance(refs, list) or not refs:
        raise QuestionFileError(
            source,
            line,
            'the \'references\' cell must be a non-empty JSON list of {"content", "start_index", "end_index"} objects',
        )
    references = []
    for index, ref in enumerate(refs, start=1):
        what = f"reference {index}"
        if not isinstance(ref, dict):
            raise QuestionFileError(source, line, f"{what} must be an object with content, start_index and end_index")
        missing = [k for k in ("content", "start_index", "end_index") if k not in ref]
        if missing:
            raise QuestionFileError(
                source,
                line,
                f"{what} is missing {', '.join(map(repr, missing))}; Chroma references have "
                "content, start_index and end_index",
            )
        start, end, content = ref["start_index"], ref["end_index"], ref["content"]
        _check_span(resolver, document, start, end, line, what, "start_index", "end_index")
        actual = resolver.corpus[document][start:end]
        if actual != content:
            raise QuestionFileError(
                source,
                line,
                f"{what}: the text at {start}..{end} of {document!r} is {_quote(actual)}, not its content "
                f"{_quote(content if isinstance(content, str) else str(content))}; check that the corpus file is the "
                "one the questions were written for (read as UTF-8, offsets in characters) or fix the offsets",
            )
        references.append(Reference(document, start, end))
    return Question(question, tuple(references))


# ----------------------------------------------------------------------------- writing


def questions_to_jsonl(questions: Iterable[Question], corpus: Mapping[str, str] | None = None) -> str:
    """JSONL text with explicit spans; with ``corpus``, each reference also carries its ``excerpt``."""
    lines = []
    for q in questions:
        if q.documents:
            lines.append(json_line({"question": q.question, "documents": list(q.documents)}))
            continue
        refs = []
        for r in q.references:
            item: dict[str, Any] = {"document": r.document, "start": r.start, "end": r.end}
            if corpus is not None:
                item["excerpt"] = r.text(corpus)
            refs.append(item)
        lines.append(json_line({"question": q.question, "references": refs}))
    return "".join(lines)


def save_questions(
    questions: Sequence[Question] | Iterable[Question], path: str | Path, corpus: Mapping[str, str] | None = None
) -> Path:
    """Write ``questions`` to ``path`` as JSONL (UTF-8) that :func:`load_questions` reads back.

    Spans are explicit; give ``corpus`` to add each reference's text as ``excerpt`` (for
    readability; on loading, it is checked against the span). Returns the path.
    """
    return write_text_atomic(path, questions_to_jsonl(questions, corpus))  # whole, or the old file stays
